package pgstore

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/msgkit/msgkit"
)

// TestFinanceMigrationGivesInvoicesUIDs: invoices stored before 0027
// without a UID get a version-4 UUID each, and the column is then NOT
// NULL and UNIQUE.
func TestFinanceMigrationGivesInvoicesUIDs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn, schema := newTestSchema(t)
	before := fstest.MapFS{}
	all := embeddedMigrations()
	names, err := fs.Glob(all, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name >= "0027" {
			continue
		}
		b, err := fs.ReadFile(all, name)
		if err != nil {
			t.Fatal(err)
		}
		before[name] = &fstest.MapFile{Data: b}
	}
	old, err := open(ctx, dsn, Options{Schema: schema}, before)
	if err != nil {
		t.Fatal(err)
	}
	// The columns 0027 found: those of today's insert before the ones
	// later migrations added (0028's five workflow columns).
	cols := invoiceWriteColumns[:len(invoiceWriteColumns)-5]
	insert := "INSERT INTO finance_invoices (" + strings.Join(cols, ", ") + ") VALUES (" + invoicePlaceholders(cols, 1) + ")"
	for _, uid := range []string{"a", "b", "c"} {
		inv := distinctInvoice()
		inv.UID = uid
		args, err := invoiceArgs(inv)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.pool.Exec(ctx, insert, args[:len(cols)]...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.pool.Exec(ctx, `UPDATE finance_invoices SET uid = NULL WHERE uid <> 'c'`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db := openTestDB(t, dsn, Options{Schema: schema})
	rows, err := db.pool.Query(ctx, `SELECT uid FROM finance_invoices ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var uids []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		uids = append(uids, u)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if len(uids) != 3 || !v4.MatchString(uids[0]) || !v4.MatchString(uids[1]) || uids[0] == uids[1] || uids[2] != "c" {
		t.Fatalf("UIDs after 0027: %q; want two distinct version-4 UUIDs, then c kept", uids)
	}
	if _, err := db.pool.Exec(ctx, `UPDATE finance_invoices SET uid = NULL WHERE uid = 'c'`); err == nil {
		t.Error("a NULL uid was stored after 0027")
	}
	dup := distinctInvoice()
	dup.UID = uids[0]
	_, err = db.Finance().CreateInvoice(ctx, dup)
	if msgkit.KindOf(err) != msgkit.Conflict {
		t.Errorf("an invoice with another's UID: %v, want Conflict", err)
	}
}
