package pgstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
	"github.com/msgkit/msgkit/segmentation"
)

// Random batches of every mode and option give the same results and the
// same contacts on PostgreSQL as on memstore, PostgreSQL planning and
// writing them in chunks of one to four items.
func TestContactsImportLikeMemstore(t *testing.T) {
	t.Parallel()
	pg := newTestDB(t).Contacts()
	mem := memstore.New().Contacts()
	ctx := context.Background()
	round := 0
	rapid.Check(t, func(rt *rapid.T) {
		round++
		list := contactstest.ListUUID(round)
		for _, s := range []contacts.Store{pg, mem} {
			if _, err := s.CreateList(ctx, contactstest.TenantA, contacts.List{UUID: list, Name: "p", Created: time.Unix(int64(round), 0).UTC()}); err != nil {
				rt.Fatal(err)
			}
		}
		ims := []*contactstest.Importer{{S: pg, Prefix: 0x66660000 + round}, {S: mem, Prefix: 0x66660000 + round}}
		mobiles := []string{"+38640111111", "+38640222222", "0038640222222", "+38640333333", "bad", ""}
		emails := []string{"a@b.si", "A@B.SI", "c@d.si", "bad", ""}
		for r := range 3 {
			var items []string
			for i := range rapid.IntRange(0, 10).Draw(rt, "n") {
				fields := []string{fmt.Sprintf(`"first_name":"N%d"`, i)}
				if m := rapid.SampledFrom(mobiles).Draw(rt, "mobile"); m != "" {
					fields = append(fields, fmt.Sprintf(`"mobile":%q`, m))
				}
				if e := rapid.SampledFrom(emails).Draw(rt, "email"); e != "" {
					fields = append(fields, fmt.Sprintf(`"email":%q`, e))
				}
				if o := rapid.SampledFrom([]string{"", "in", "out"}).Draw(rt, "opt"); o != "" {
					fields = append(fields, fmt.Sprintf(`"opt_status":%q`, o))
				}
				items = append(items, "{"+strings.Join(fields, ",")+"}")
			}
			q := "list_uuid=" + list + "&resolve_duplicate=" + rapid.SampledFrom([]string{"update", "skip", "subscribe", "unsubscribe", "delete", "optin", "optout"}).Draw(rt, "mode") +
				"&identifier=" + rapid.SampledFrom([]string{"mobile", "email"}).Draw(rt, "identifier") +
				"&insert_opt_channels=" + rapid.SampledFrom([]string{"sms", "whatsapp", "sms,whatsapp"}).Draw(rt, "insert") +
				"&update_opt_channels=" + rapid.SampledFrom([]string{"sms", "whatsapp", "sms,whatsapp"}).Draw(rt, "update") +
				"&option_uuids=" + contactstest.OptionUUID(1) + "&update_option_uuids=" + contactstest.OptionUUID(2)
			if rapid.Bool().Draw(rt, "unset") {
				q += "&unset_invalid_fields=email"
			}
			body := "[" + strings.Join(items, ",") + "]"
			pg.importChunk = rapid.IntRange(1, 4).Draw(rt, "chunk")
			var results []contacts.ImportResult
			for _, im := range ims {
				res, err := im.Run(t, contactstest.TenantA, q, body, int64(r))
				if err != nil {
					rt.Fatal(err)
				}
				results = append(results, res)
			}
			if diff := cmp.Diff(results[1], results[0]); diff != "" {
				rt.Fatalf("%s %s: result (-memstore +pgstore):\n%s", q, body, diff)
			}
			if diff := cmp.Diff(contactstest.Snapshot(t, mem, contactstest.TenantA, list), contactstest.Snapshot(t, pg, contactstest.TenantA, list)); diff != "" {
				rt.Fatalf("%s %s: contacts (-memstore +pgstore):\n%s", q, body, diff)
			}
		}
	})
}

// The identifier lookup probes an index by key, even in
// a list that filled after the table's statistics were taken (the
// planner takes it for empty): planned for that estimate, it scanned the
// list's rows and filtered them by key instead.
func TestContactImportLookupUsesIndex(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	ctx := context.Background()
	fill := func(list string) {
		if _, err := db.Contacts().CreateList(ctx, contactstest.TenantA, contacts.List{UUID: list, Name: "l", Created: time.Unix(0, 0).UTC()}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.pool.Exec(ctx, `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated, mobile, email_fold)
			SELECT $1, $2 || i, $2, 'subscribed', now(), now(), '+38640' || lpad(i::text, 6, '0'), 'u' || i || '@example.com'
			FROM generate_series(1, 20000) AS i`, string(contactstest.TenantA), list); err != nil {
			t.Fatal(err)
		}
	}
	fill(contactstest.ListUUID(1))
	if _, err := db.pool.Exec(ctx, "ANALYZE contacts"); err != nil {
		t.Fatal(err)
	}
	list := contactstest.ListUUID(2)
	fill(list) // after the statistics
	for _, tt := range []struct{ field segmentation.Field }{{segmentation.Mobile}, {segmentation.Email}} {
		var plan []string
		err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "PREPARE lookup AS "+importMatchSQL(tt.field)); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, fmt.Sprintf("EXPLAIN EXECUTE lookup('%s', '%s', '{+38640000001,u1@example.com}')", contactstest.TenantA, list))
			if err != nil {
				return err
			}
			if plan, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, "DEALLOCATE lookup")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		probes := false // the keys are the index's condition, not a filter of the list's rows
		for _, line := range plan {
			probes = probes || strings.Contains(line, "Index Cond") && strings.Contains(line, "= ANY ($3)")
		}
		if !probes {
			t.Errorf("lookup by %s:\n%s", tt.field, strings.Join(plan, "\n"))
		}
	}
}
