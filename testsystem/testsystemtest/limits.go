package testsystemtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/testsystem"
)

// testLimits: users' own daily limits are set, replaced, listed and taken
// away alike on every store.
func testLimits(t *testing.T, f Fixture) {
	s, ctx := f.Store, t.Context()
	if _, ok, err := s.DailyLimit(ctx, "alice"); err != nil || ok {
		t.Fatalf("a limit before any: %v, %v", ok, err)
	}
	for _, l := range []testsystem.UserLimit{{User: "carol", Limit: 5}, {User: "alice", Limit: 500}, {User: "bob", Limit: 0}, {User: "alice", Limit: 250}} {
		if err := s.SetDailyLimit(ctx, l.User, l.Limit); err != nil {
			t.Fatal(err)
		}
	}
	if l, ok, err := s.DailyLimit(ctx, "alice"); err != nil || !ok || l != 250 {
		t.Errorf("alice's replaced limit: %d, %v, %v", l, ok, err)
	}
	if l, ok, err := s.DailyLimit(ctx, "bob"); err != nil || !ok || l != 0 {
		t.Errorf("bob's limit of none: %d, %v, %v", l, ok, err)
	}
	list := func(q msgkit.ListQuery) []testsystem.UserLimit {
		t.Helper()
		page, err := s.DailyLimits(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return page.Items
	}
	if diff := cmp.Diff([]testsystem.UserLimit{{User: "alice", Limit: 250}, {User: "bob", Limit: 0}, {User: "carol", Limit: 5}}, list(msgkit.ListQuery{})); diff != "" {
		t.Errorf("by user (-want +got):\n%s", diff)
	}
	over := msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "dailyLimit", Op: msgkit.OpGt, Values: []msgkit.Value{msgkit.IntValue(1)}}},
		Sort: []msgkit.SortKey{{Attr: "dailyLimit"}}}
	if diff := cmp.Diff([]testsystem.UserLimit{{User: "carol", Limit: 5}, {User: "alice", Limit: 250}}, list(over)); diff != "" {
		t.Errorf("over 1, smallest first (-want +got):\n%s", diff)
	}
	if err := s.DeleteDailyLimit(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.DailyLimit(ctx, "alice"); ok {
		t.Error("a deleted limit stays")
	}
	if err := s.DeleteDailyLimit(ctx, "alice"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("deleting twice: %v", err)
	}
}
