package pgstore

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// seedSince stores n contacts of svc in list, updated one every 1.5 ms
// from 2026-01-01, a web push subscription on every tenth, and analyzes
// the table.
func seedSince(tb testing.TB, db *DB, svc msgkit.ServiceUUID, list string, n int) {
	tb.Helper()
	ctx := context.Background()
	if _, err := db.Contacts().CreateList(ctx, svc, contacts.List{UUID: list, Name: "all", Status: "active", Created: time.Unix(0, 0), Updated: time.Unix(0, 0)}); err != nil {
		tb.Fatal(err)
	}
	const seed = `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated, first_name, first_name_fold, webpush_subscription)
		SELECT $1, lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'), $2, 'subscribed',
			timestamptz '2026-01-01' + i * interval '1 ms', timestamptz '2026-01-01' + i * interval '1.5 ms',
			'Name' || (i % 5000), 'name' || (i % 5000), CASE WHEN i % 10 = 0 THEN 'https://push.example/s/' || i END
		FROM generate_series(1, $3::int) AS i`
	if _, err := db.pool.Exec(ctx, seed, string(svc), list, n); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) contacts"); err != nil {
		tb.Fatal(err)
	}
}

// A date-time filter compared at the second the listing shows, and the
// webpush_subscription filter, are conditions of an index: the plan's
// index condition names the column.
func TestContactFiltersUseIndexes(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	svc, list := contactstest.TenantA, contactstest.ListUUID(1)
	seedSince(t, db, svc, list, 20_000)
	for _, tc := range []struct {
		query, index, column string
	}{
		{"gt(updated_dt)=2026-01-01T00:00:25Z&sort=updated_dt", "contacts_sort_updated", "updated"},
		{"between(updated_dt)=2026-01-01T00:00:10Z,2026-01-01T00:00:11Z&sort=-updated_dt", "contacts_sort_updated", "updated"},
		{"webpush_subscription=https://push.example/s/100", "contacts_webpush_subscription", "webpush_subscription"},
	} {
		q := contactQuery(t, tc.query)
		st, err := contactTable("contacts.service_uuid = $1 AND contacts.deleted IS NULL", contactSelect).statement(q.List, []any{string(svc)})
		if err != nil {
			t.Fatal(err)
		}
		plan := planOf(t, db.pool, "EXPLAIN", st.page, append([]any{pgx.QueryExecModeDescribeExec}, st.args...)...)
		cond := false
		for l := range strings.SplitSeq(plan, "\n") {
			cond = cond || strings.Contains(l, "Index Cond") && strings.Contains(l, tc.column)
		}
		if !strings.Contains(plan, tc.index) || !cond {
			t.Errorf("%s: the plan uses no index condition on %s of %s:\n%s", tc.query, tc.column, tc.index, plan)
		}
	}
}

// contactQuery parses a contact listing's query string.
func contactQuery(tb testing.TB, raw string) contacts.ContactQuery {
	tb.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		tb.Fatal(err)
	}
	q, _, err := contacts.ParseContactQuery(v, msgkit.Date{Year: 2026, Month: 3, Day: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

// Page 1 of a million contacts changed after a time, by updated_dt (the
// newest 1%: a client's incremental sync), compared at the second shown;
// and the contact of one web push subscription.
func BenchmarkContactsPostgresSince(b *testing.B) {
	db := newTestDB(b)
	s := db.Contacts()
	ctx := b.Context()
	svc, list := contactstest.TenantA, contactstest.ListUUID(1)
	seedSince(b, db, svc, list, 1_000_000)
	// Shown after 00:24:45 is updated from 00:24:46 on: contacts 990,667
	// to 1,000,000.
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(1_485 * time.Second).Format(time.RFC3339)
	for _, bb := range []struct {
		name, query string
		total       int
	}{
		{"gt updated_dt", "gt(updated_dt)=" + since + "&sort=updated_dt", 9_334},
		{"webpush_subscription", "webpush_subscription=https://push.example/s/500000", 1},
	} {
		q := contactQuery(b, bb.query)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				page, err := s.Contacts(ctx, svc, q)
				if err != nil || page.Total != bb.total || len(page.Items) != min(10, bb.total) {
					b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
