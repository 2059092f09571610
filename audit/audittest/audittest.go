// Package audittest is the contract every audit.Store implementation
// meets. memstore and pgstore both call Run.
package audittest

import (
	"encoding/json"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/audit"
)

// Run runs the contract against stores made by newStore, one fresh,
// empty store per subtest, in parallel.
func Run(t *testing.T, newStore func(t *testing.T) audit.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s audit.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Listing", testListing},
		{"ConcurrentAppends", testConcurrentAppends},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// t0 has nanoseconds and a zone: stores keep microseconds in UTC.
var t0 = time.Date(2026, 11, 28, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))

func entry(action, id string, at time.Time) audit.Entry {
	return audit.Entry{
		At:     at,
		Actor:  audit.Actor{Kind: audit.ActorClient, Subject: "ops-console", From: netip.MustParseAddr("192.0.2.10")},
		Action: action, Resource: "client", ResourceID: id,
		Before: json.RawMessage(`{"id":"` + id + `","privileges":["news"]}`),
		After:  json.RawMessage(`{"id":"` + id + `","privileges":["news","ui-components"],"name":"Ćevapi \u2028 d.o.o."}`),
	}
}

func testRoundTrip(t *testing.T, s audit.Store) {
	e := entry("update", "crm", t0)
	got, err := s.Append(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID < 1 {
		t.Fatalf("id %d", got.ID)
	}
	second, err := s.Append(t.Context(), audit.Entry{At: t0, Actor: audit.Actor{Kind: audit.ActorSystem}, Action: "create", Resource: "tenant", ResourceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID <= got.ID {
		t.Errorf("ids %d then %d: not increasing", got.ID, second.ID)
	}
	page, err := s.Entries(t.Context(), msgkit.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := e
	want.ID, want.At = got.ID, t0.Truncate(time.Microsecond).UTC()
	wantSecond := second
	wantSecond.At = want.At
	if diff := cmp.Diff([]audit.Entry{want, wantSecond}, page.Items, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func testListing(t *testing.T, s audit.Store) {
	for i, action := range []string{"create", "update", "delete", "update"} {
		e := entry(action, "c"+string(rune('0'+i)), t0.Add(time.Duration(i)*time.Minute))
		if i == 3 {
			e.Actor = audit.Actor{Kind: audit.ActorUser, Subject: "ops"}
		}
		if _, err := s.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(q msgkit.ListQuery) ([]string, int) {
		t.Helper()
		page, err := s.Entries(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range page.Items {
			out = append(out, e.ResourceID)
		}
		return out, page.Total
	}
	eq := func(attr string, v msgkit.Value) msgkit.Filter {
		return msgkit.Filter{Attr: attr, Op: msgkit.OpEq, Values: []msgkit.Value{v}}
	}
	for _, tt := range []struct {
		name  string
		q     msgkit.ListQuery
		want  []string
		total int
	}{
		{"updates", msgkit.ListQuery{Filters: []msgkit.Filter{eq("action", msgkit.StringValue("update"))}}, []string{"c1", "c3"}, 2},
		{"newest first, page 1 of 2", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "at", Desc: true}}, PageNumber: 1, PageSize: 3}, []string{"c3", "c2", "c1"}, 4},
		{"by users", msgkit.ListQuery{Filters: []msgkit.Filter{eq("actorKind", msgkit.StringValue("user"))}}, []string{"c3"}, 1},
		{"from an address", msgkit.ListQuery{Filters: []msgkit.Filter{eq("from", msgkit.StringValue("192.0.2.10"))}}, []string{"c0", "c1", "c2"}, 3},
		{"after a time", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "at", Op: msgkit.OpGte, Values: []msgkit.Value{msgkit.TimeValue(t0.Truncate(time.Second).Add(2 * time.Minute))}}}}, []string{"c2", "c3"}, 2},
	} {
		got, total := ids(tt.q)
		if diff := cmp.Diff(tt.want, got); diff != "" || total != tt.total {
			t.Errorf("%s (-want +got), total %d:\n%s", tt.name, total, diff)
		}
	}
}

func testConcurrentAppends(t *testing.T, s audit.Store) {
	const n = 32
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids = map[int64]bool{}
	)
	for i := range n {
		wg.Go(func() {
			e, err := s.Append(t.Context(), entry("update", "c", t0.Add(time.Duration(i))))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			ids[e.ID] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(ids) != n {
		t.Errorf("%d distinct ids for %d appends", len(ids), n)
	}
}
