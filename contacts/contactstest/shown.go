package contactstest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// shown is the time at(sec) as the CDS family shows it: RFC 3339 in whole
// seconds; at keeps a fraction the listing does not show.
func shown(sec int64) string { return at(sec).Truncate(time.Second).Format(time.RFC3339) }

// testShownTimes: the date-time filters of the contact and list listings
// compare created_dt and updated_dt as shown, in whole seconds, with every
// operator: gt(updated_dt)=T leaves out the contact shown with T.
func testShownTimes(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L1")
	mustList(t, s, TenantA, 2, "L2")
	for n := 1; n <= 4; n++ {
		mustContact(t, s, TenantA, NewContact(t, n, ListUUID(1), nil)) // created at(100+n), updated at(200+n)
	}
	in := func(a, b int64) string { return shown(a) + "," + shown(b) }
	for _, tt := range []struct {
		query string
		want  []int
	}{
		{"gt(updated_dt)=" + shown(203), []int{4}},
		{"gte(updated_dt)=" + shown(203), []int{3, 4}},
		{"lt(updated_dt)=" + shown(203), []int{1, 2}},
		{"lte(updated_dt)=" + shown(203), []int{1, 2, 3}},
		{"eq(updated_dt)=" + shown(203), []int{3}},
		{"updated_dt=" + shown(203), []int{3}},
		{"neq(updated_dt)=" + shown(203), []int{1, 2, 4}},
		{"in(updated_dt)=" + in(202, 204), []int{2, 4}},
		{"notin(updated_dt)=" + in(202, 204), []int{1, 3}},
		{"between(updated_dt)=" + in(202, 203), []int{2, 3}},
		{"notbetween(updated_dt)=" + in(202, 203), []int{1, 4}},
		// The hidden instant is no time the listing shows.
		{"eq(updated_dt)=" + at(203).Format(time.RFC3339Nano), nil},
		{"gt(updated_dt)=" + at(203).Format(time.RFC3339Nano), []int{4}},
		{"lt(updated_dt)=" + at(203).Format(time.RFC3339Nano), []int{1, 2, 3}},
		// Another offset, the same instant.
		{"gt(updated_dt)=" + at(203).Truncate(time.Second).In(time.FixedZone("", 2*3600)).Format(time.RFC3339), []int{4}},
		{"gt(created_dt)=" + shown(102), []int{3, 4}},
		{"lte(created_dt)=" + shown(102), []int{1, 2}},
		{"eq(created_dt)=" + shown(104), []int{4}},
	} {
		v, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		lq, err := msgkit.ParseListQuery(v, contacts.ContactSpec())
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		got, err := s.Contacts(ctx, TenantA, contacts.ContactQuery{List: lq})
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		var want []string
		for _, n := range tt.want {
			want = append(want, ContactUUID(n))
		}
		var gotIDs []string
		for _, c := range got.Items {
			gotIDs = append(gotIDs, c.UUID)
		}
		if !slices.Equal(gotIDs, want) || got.Total != len(want) {
			t.Errorf("%s: got %d %v, want %v", tt.query, got.Total, uuids(got.Items), tt.want)
		}
	}

	// Lists were created at(1) and at(2).
	for _, tt := range []struct {
		query string
		want  []int
	}{
		{"gt(created_dt)=" + shown(1), []int{2}},
		{"lte(updated_dt)=" + shown(1), []int{1}},
		{"eq(created_dt)=" + shown(2), []int{2}},
	} {
		v, _ := url.ParseQuery(tt.query)
		lq, err := msgkit.ParseListQuery(v, contacts.ListSpec())
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		got, err := s.Lists(ctx, TenantA, lq, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		var gotN []int
		for _, l := range got.Items {
			var n int
			fmt.Sscanf(l.Name, "L%d", &n)
			gotN = append(gotN, n)
		}
		if !slices.Equal(gotN, tt.want) {
			t.Errorf("lists %s: got %v, want %v", tt.query, gotN, tt.want)
		}
	}
}
