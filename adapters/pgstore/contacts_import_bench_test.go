package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// BenchmarkContactImportVsCopy measures an import of n new contacts from
// the raw body (contacts.ReadImport, then Import, as the HTTP handler
// calls them) against a COPY of the same rows into the same table with
// the same indexes: into an empty list, into a list already holding
// 400,000 other contacts (the rate with 400k over the empty one's is
// full/empty), into such a list holding half of the body's numbers
// already (half updated: 400k-half, the COPY writing as many rows), and
// into a list of 400,000 that statistics have not seen
// (400k-unanalysed, unanalysed/empty). The machine is shared, so absolute times are noisy:
// each round runs every case and both sides one after the other, and the
// benchmark reports the medians of the rounds' rates and ratios
// (import/s, copy/s, import/copy).
func BenchmarkContactImportVsCopy(b *testing.B) {
	const n, rounds = 20_000, 5
	ctx := context.Background()
	cases := []*importCopyCase{{name: "empty"}, {name: "400k", before: 400_000}, {name: "400k-half", before: 400_000, matched: rounds * n},
		{name: "400k-unanalysed", before: 400_000, unanalysed: true}}
	for i, c := range cases {
		c.setUp(b, ctx, contactstest.ListUUID(i+1))
	}
	for b.Loop() {
		for round := range rounds {
			for _, c := range cases {
				c.round(b, ctx, n, round)
			}
		}
	}
	for _, c := range cases {
		b.ReportMetric(median(c.importRates), c.name+"-import/s")
		b.ReportMetric(median(c.copyRates), c.name+"-copy/s")
		b.ReportMetric(median(c.ratios), c.name+"-import/copy")
	}
	b.ReportMetric(median(cases[1].importRates)/median(cases[0].importRates), "full/empty")
	b.ReportMetric(median(cases[3].importRates)/median(cases[0].importRates), "unanalysed/empty")
}

// importCopyCase is one list of the benchmark: its store, and the rates
// each round measured.
type importCopyCase struct {
	name    string
	before  int // contacts in the list before the rounds
	matched int // of them, the even ones of the first matched numbers of the bodies
	// unanalysed: the list filled after the table's statistics were
	// taken, and they are not taken again (autovacuum off for the
	// table), as for a list that imports fill faster than autovacuum
	// analyses: the planner takes it for empty.
	unanalysed bool
	db         *DB
	opts       contacts.ImportOptions

	importRates, copyRates, ratios []float64
}

// setUp makes the case's store and list and seeds the list's contacts
// with numbers no import body has, then settles the table as one that
// has run a while (VACUUM ANALYZE).
func (c *importCopyCase) setUp(b *testing.B, ctx context.Context, list string) {
	c.db = newTestDB(b)
	s := c.db.Contacts()
	if _, err := s.CreateList(ctx, contactstest.TenantA, contacts.List{UUID: list, Name: c.name, Status: "active", Created: time.Unix(0, 0), Updated: time.Unix(0, 0)}); err != nil {
		b.Fatal(err)
	}
	q, err := url.ParseQuery("resolve_duplicate=update&identifier=mobile&list_uuid=" + list)
	if err != nil {
		b.Fatal(err)
	}
	if c.opts, err = contacts.ParseImportQuery(q); err != nil {
		b.Fatal(err)
	}
	seed := func(list, uuid, mobile, raw string, from, to int) {
		if _, err := c.db.pool.Exec(ctx, `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated,
				mobile, mobile_raw, first_name, first_name_fold, last_name, last_name_fold, email, email_fold, opt_status)
			SELECT $1, $3 || i, $2, 'subscribed', now(), now(), $4 || lpad(i::text, 6, '0'), $5 || lpad(i::text, 6, '0'),
				'Name' || (i % 5000), 'name' || (i % 5000), 'Surname' || (i % 7919), 'surname' || (i % 7919),
				'seed' || i || '@example.com', 'seed' || i || '@example.com', 'in'
			FROM generate_series($6::int, $7::int) AS i WHERE $3 <> 'seed-m-' OR i % 2 = 0`,
			string(contactstest.TenantA), list, uuid, mobile, raw, from, to); err != nil {
			b.Fatal(err)
		}
	}
	if c.unanalysed { // the statistics know the tenant's other list only
		seed(contactstest.ListUUID(99), "seed-o-", "+38642", "+386 42 ", 1, 20_000)
		if _, err := c.db.pool.Exec(ctx, "ALTER TABLE contacts SET (autovacuum_enabled = false); ANALYZE contacts"); err != nil {
			b.Fatal(err)
		}
	}
	seed(list, "seed-", "+38641", "+386 41 ", 1, c.before-c.matched/2)
	seed(list, "seed-m-", "+38640", "+386 40 ", 0, c.matched-1) // ImportBody's numbers
	c.settle(b, ctx)
}

// round imports n new contacts, reads back the rows it wrote, removes
// them, and copies the same rows in again; each side leaves the table
// as it found it (its rows deleted, the table vacuumed).
func (c *importCopyCase) round(b *testing.B, ctx context.Context, n, round int) {
	body := contactstest.ImportBody(round*n, n)
	s := c.db.Contacts()
	seq := 0
	newUUID := func() string { seq++; return fmt.Sprintf("%08x-0000-4000-8000-%012x", 0x77000000+round, seq) }
	now := importNow.Add(time.Duration(round+1) * time.Second)
	start := time.Now()
	items, err := contacts.ReadImport(bytes.NewReader(body), c.opts)
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.Import(ctx, contactstest.TenantA, contacts.ImportBatch{Options: c.opts, Items: items, Now: now, NewUUID: newUUID})
	if updated := min(c.matched, n) / 2; err != nil || r.Created != n-updated || r.Updated != updated {
		b.Fatalf("import: %+v, %v", r, err)
	}
	importTime := time.Since(start)
	written := c.takeBack(b, ctx, now)
	start = time.Now()
	if err := pgx.BeginFunc(ctx, c.db.pool, func(tx pgx.Tx) error {
		return copyContacts(ctx, tx, contactstest.TenantA, "contacts", written)
	}); err != nil {
		b.Fatal(err)
	}
	copyTime := time.Since(start)
	c.takeBack(b, ctx, now)
	c.importRates = append(c.importRates, float64(n)/importTime.Seconds())
	c.copyRates = append(c.copyRates, float64(n)/copyTime.Seconds())
	c.ratios = append(c.ratios, copyTime.Seconds()/importTime.Seconds())
}

// importNow is the time of the benchmark's imports, a second later each
// round, so a round's updated contacts are told by their time.
var importNow = time.Unix(1_767_225_600, 0).UTC()

// takeBack returns the rows a round wrote at now, the updated seeds under new
// uuids, and deletes the created ones, vacuuming the table, so the next
// side starts from the same table (updated seeds stay updated: the
// next round's body has other numbers).
func (c *importCopyCase) takeBack(b *testing.B, ctx context.Context, now time.Time) []*contacts.Contact {
	rows, err := c.db.pool.Query(ctx, "SELECT "+contactSelect+" FROM contacts WHERE uuid NOT LIKE 'seed-%' OR updated = $1", now)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := pgx.CollectRows(rows, scanContact)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.db.pool.Exec(ctx, "DELETE FROM contacts WHERE uuid NOT LIKE 'seed-%'"); err != nil {
		b.Fatal(err)
	}
	c.settle(b, ctx)
	out := make([]*contacts.Contact, len(cs))
	for i := range cs {
		if strings.HasPrefix(cs[i].UUID, "seed-") {
			cs[i].UUID = fmt.Sprintf("%08x-0000-4000-8000-%012x", 0x78000000, i)
		}
		out[i] = &cs[i]
	}
	return out
}

// settle vacuums the table and, unless the case is unanalysed, takes
// its statistics.
func (c *importCopyCase) settle(b *testing.B, ctx context.Context) {
	vacuum := "VACUUM (ANALYZE) contacts"
	if c.unanalysed {
		vacuum = "VACUUM contacts"
	}
	if _, err := c.db.pool.Exec(ctx, vacuum); err != nil {
		b.Fatal(err)
	}
}

// median is the middle of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
