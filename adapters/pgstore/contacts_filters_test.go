package pgstore

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// A million contacts of one tenant, 1% subscribed to an option and a
// third members of an interest: page 1 by last_name of the option's
// subscribed members (the GIN index on options finds them), and of the
// interest's members.
func BenchmarkContactsPostgresFilters(b *testing.B) {
	db := newTestDB(b)
	s := db.Contacts()
	ctx := b.Context()
	const (
		svc      msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
		list                        = "11111111-0000-4000-8000-000000000001"
		option                      = "33333333-0000-4000-8000-000000000001"
		interest                    = "55555555-0000-4000-8000-000000000001"
	)
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all", Status: "active", Created: time.Unix(0, 0), Updated: time.Unix(0, 0)}); err != nil {
		b.Fatal(err)
	}
	const seed = `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated, gender, first_name, first_name_fold,
			last_name, last_name_fold, options, interests)
		SELECT $1, lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'), $2, 'subscribed',
			timestamptz '2026-01-01' + i * interval '1 ms', timestamptz '2026-01-01',
			CASE WHEN i % 2 = 0 THEN 'female' ELSE 'male' END,
			'Name' || (i % 5000), 'name' || (i % 5000), 'Surname' || (i % 7919), 'surname' || (i % 7919),
			CASE WHEN i % 100 = 0 THEN jsonb_build_object($3::text, 'subscribed')
				WHEN i % 100 = 1 THEN jsonb_build_object($3::text, 'unsubscribed') END,
			CASE WHEN i % 3 = 0 THEN jsonb_build_object($4::text, CASE WHEN i % 2 = 0 THEN 'subscribed' ELSE 'unsubscribed' END) END
		FROM generate_series(1, 1000000) AS i`
	if _, err := db.pool.Exec(ctx, seed, string(svc), list, option, interest); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) contacts"); err != nil {
		b.Fatal(err)
	}
	lq, err := msgkit.ParseListQuery(url.Values{"sort": {"last_name"}}, contacts.ContactSpec())
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name  string
		q     contacts.ContactQuery
		total int
	}{
		{"option subscribed 1%", contacts.ContactQuery{List: lq, Options: &contacts.MembershipFilter{UUIDs: []string{option}, Status: contacts.Subscribed}}, 10_000},
		{"interest 33%", contacts.ContactQuery{List: lq, Interests: &contacts.MembershipFilter{UUIDs: []string{interest}}}, 333_333},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				page, err := s.Contacts(ctx, svc, bb.q)
				if err != nil || page.Total != bb.total || len(page.Items) != 10 {
					b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
