// Package routingtest is the store contract of package routing: every
// routing.Store passes Run, so that memstore and pgstore behave
// alike.
package routingtest

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/routing"
)

// Run runs the contract against stores newStore makes, each
// empty.
func Run(t *testing.T, newStore func(t *testing.T) routing.Store) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, routing.Store)
	}{
		{"create, read, list", testCRUD},
		{"generated ids", testGeneratedIDs},
		{"update and delete", testUpdateDelete},
		{"concurrent creates", testConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func wantKind(t *testing.T, err error, kind msgkit.Kind, what string) {
	t.Helper()
	if msgkit.KindOf(err) != kind {
		t.Errorf("%s: %v, want %s", what, err, kind)
	}
}

// wantCode checks err's code: both stores answer routing's constructors.
func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if msgkit.CodeOf(err) != code {
		t.Errorf("%s: %v, want code %s", what, err, code)
	}
}

func testCRUD(t *testing.T, s routing.Store) {
	ctx := context.Background()
	if rs, err := s.Routes(ctx); err != nil || len(rs) != 0 {
		t.Fatalf("empty store: %v %v", rs, err)
	}
	a := routing.Route{ID: 9, Sigtran: "12", SMPP: "3", ESME: routing.Unused}
	b := routing.Route{ID: 4, Sigtran: "sg-1", SMPP: routing.Unused, ESME: "esme.7"}
	for _, r := range []routing.Route{a, b} {
		if got, err := s.Create(ctx, r); err != nil || got != r {
			t.Fatalf("Create(%+v) = %+v, %v", r, got, err)
		}
	}
	_, err := s.Create(ctx, routing.Route{ID: 9, Sigtran: "1", SMPP: "2", ESME: routing.Unused})
	wantKind(t, err, msgkit.Conflict, "an id twice")
	wantCode(t, err, routing.CodeRouteExists, "an id twice")
	if got, err := s.Route(ctx, 9); err != nil || got != a {
		t.Errorf("Route(9) = %+v, %v", got, err)
	}
	_, err = s.Route(ctx, 5)
	wantKind(t, err, msgkit.NotFound, "an unknown route")
	wantCode(t, err, routing.CodeRouteNotFound, "an unknown route")
	if rs, err := s.Routes(ctx); err != nil || len(rs) != 2 || rs[0] != b || rs[1] != a {
		t.Errorf("Routes = %+v, %v (want by id)", rs, err)
	}
}

func testGeneratedIDs(t *testing.T, s routing.Store) {
	ctx := context.Background()
	r, err := s.Create(ctx, routing.Route{Sigtran: "1", SMPP: "2", ESME: routing.Unused})
	if err != nil || r.ID != 1 {
		t.Fatalf("first generated id: %+v, %v", r, err)
	}
	if _, err := s.Create(ctx, routing.Route{ID: 40, Sigtran: "1", SMPP: "2", ESME: routing.Unused}); err != nil {
		t.Fatal(err)
	}
	if r, err = s.Create(ctx, routing.Route{Sigtran: "1", SMPP: routing.Unused, ESME: "3"}); err != nil || r.ID != 41 {
		t.Errorf("generated after 40: %+v, %v", r, err)
	}
	if _, err := s.Create(ctx, routing.Route{ID: math.MaxInt64, Sigtran: "1", SMPP: "2", ESME: routing.Unused}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(ctx, routing.Route{Sigtran: "1", SMPP: "2", ESME: routing.Unused})
	wantKind(t, err, msgkit.Conflict, "no id above the largest")
	wantCode(t, err, routing.CodeRouteIDsExhausted, "no id above the largest")
	if rs, _ := s.Routes(ctx); len(rs) != 4 {
		t.Errorf("a refused create stored something: %+v", rs)
	}
}

func testUpdateDelete(t *testing.T, s routing.Store) {
	ctx := context.Background()
	r := routing.Route{ID: 3, Sigtran: "1", SMPP: "2", ESME: routing.Unused}
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.SMPP, r.ESME = routing.Unused, "77"
	if err := s.Update(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Route(ctx, 3); got != r {
		t.Errorf("updated: %+v, want %+v", got, r)
	}
	wantKind(t, s.Update(ctx, routing.Route{ID: 4, Sigtran: "1", SMPP: "2", ESME: routing.Unused}), msgkit.NotFound, "updating an unknown route")
	wantKind(t, s.Delete(ctx, 4), msgkit.NotFound, "deleting an unknown route")
	if err := s.Delete(ctx, 3); err != nil {
		t.Fatal(err)
	}
	_, err := s.Route(ctx, 3)
	wantKind(t, err, msgkit.NotFound, "a deleted route")
	wantKind(t, s.Delete(ctx, 3), msgkit.NotFound, "deleting twice")
}

// Concurrent creates without ids get distinct ids.
func testConcurrent(t *testing.T, s routing.Store) {
	ctx := context.Background()
	const n = 16
	ids := make(chan int64, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			r, err := s.Create(ctx, routing.Route{Sigtran: "1", SMPP: "2", ESME: routing.Unused})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- r.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %d given twice", id)
		}
		seen[id] = true
	}
	if rs, _ := s.Routes(ctx); len(rs) != n {
		t.Errorf("%d routes stored, want %d", len(rs), n)
	}
}
