// Package testsystemtest is the store contract of package testsystem:
// every testsystem.Store passes Run, so that memstore and pgstore
// behave alike.
package testsystemtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/shopspring/decimal"
)

// Fixture is a store under test and the SMS outbox its callbacks are
// queued in.
type Fixture struct {
	Store  testsystem.Store
	Outbox sms.OutboxStore
}

// Run runs the contract against stores newStore makes, each
// empty.
func Run(t *testing.T, newStore func(t *testing.T) Fixture) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Fixture)
	}{
		{"reference lists", testLists},
		{"add route", testAddRoute},
		{"delete named", testDeleteNamed},
		{"records of users", testOwners},
		{"lookups", testLookups},
		{"sessions and quota", testSessions},
		{"quota across concurrent requests", testQuotaConcurrent},
		{"results", testResults},
		{"nil and empty slices of results", testNilEmpty},
		{"complete session", testComplete},
		{"refusals of load and create", testRefusals},
		{"users' own daily limits", testLimits},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func load(t *testing.T, s testsystem.Store) testsystem.Dataset {
	t.Helper()
	d := testsystem.Fixture()
	d.Operators = append(d.Operators,
		testsystem.Operator{ID: 100, Owner: "alice", Name: "Alice Mobile", Country: "Germany", MCC: "262", MNC: "001"},
		testsystem.Operator{ID: 101, Owner: "alice", Name: "Alice Net", Country: "Slovenia", MCC: "293", MNC: "40"})
	if err := s.Load(t.Context(), d); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return d
}

func wantKind(t *testing.T, err error, kind msgkit.Kind, what string) {
	t.Helper()
	if msgkit.KindOf(err) != kind {
		t.Errorf("%s: %v, want %s", what, err, kind)
	}
}

// wantCode checks err's code: both stores answer testsystem's
// constructors.
func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if msgkit.CodeOf(err) != code {
		t.Errorf("%s: %v, want code %s", what, err, code)
	}
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}

func q(page, size int, sort []msgkit.SortKey, filters ...msgkit.Filter) msgkit.ListQuery {
	return msgkit.ListQuery{PageNumber: page, PageSize: size, Sort: sort, Filters: filters}
}

func eq(attr, v string) msgkit.Filter {
	return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
}

func testLists(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	ops, err := s.Operators(ctx, "", q(1, 5, nil))
	if err != nil || ops.Total != 12 || len(ops.Items) != 5 || ops.Items[0].Name != "Telekom Deutschland" || ops.Items[4].Name != "Vodafone UK" {
		t.Fatalf("Operators page 1 = %+v, %v", ops, err)
	}
	ops, err = s.Operators(ctx, "", q(1, 10, []msgkit.SortKey{{Attr: "name", Desc: true}}, eq("mcc", "262")))
	if got := names(ops.Items, func(o testsystem.Operator) string { return o.Name }); err != nil || !slices.Equal(got, []string{"Vodafone Germany", "Telekom Deutschland", "Telefonica Germany"}) {
		t.Errorf("German operators by name desc = %v, %v", got, err)
	}
	ops, err = s.Operators(ctx, "", q(1, 10, nil, eq("mcc_mnc", "310260")))
	if err != nil || len(ops.Items) != 1 || ops.Items[0].MNC != "260" {
		t.Errorf("mcc_mnc 310260 = %+v, %v", ops.Items, err)
	}
	search := msgkit.ListQuery{PageNumber: 1, PageSize: 10, Search: msgkit.Search{Text: "kingdom", Attrs: []string{"name", "country"}}}
	if ops, err = s.Operators(ctx, "", search); err != nil || ops.Total != 3 {
		t.Errorf("q=kingdom: %d operators, %v", ops.Total, err)
	}
	mine, err := s.Operators(ctx, "alice", q(1, 10, nil))
	if err != nil || mine.Total != 2 || mine.Items[0].MCCMNC() != "262001" {
		t.Errorf("alice's operators = %+v, %v", mine, err)
	}
	cs, err := s.Countries(ctx, "", q(1, 10, nil))
	want := []string{"Austria", "France", "Germany", "United Kingdom", "United States"}
	if got := names(cs.Items, func(c testsystem.Country) string { return c.Name }); err != nil || !slices.Equal(got, want) || cs.Items[2].MCC != "262" {
		t.Errorf("Countries = %v (%+v), %v", got, cs.Items, err)
	}
	cs, err = s.Countries(ctx, "alice", q(1, 10, []msgkit.SortKey{{Attr: "name", Desc: true}}))
	if got := names(cs.Items, func(c testsystem.Country) string { return c.Name }); err != nil || !slices.Equal(got, []string{"Slovenia", "Germany"}) {
		t.Errorf("alice's countries = %v, %v", got, err)
	}
	rs, err := s.Routes(ctx, "", q(1, 10, nil))
	if err != nil || rs.Total != 6 || rs.Items[1] != (testsystem.Route{ParamID: 2, GateID: 2, CategoryID: 2, SupplierID: 2,
		Gate: "beta-wholesale", Category: "Wholesale", Supplier: "Beta Routes", ParamName: "tlv", ParamValue: "0x1400=wholesale"}) {
		t.Errorf("Routes = %+v, %v", rs, err)
	}
	rs, err = s.Routes(ctx, "", q(1, 10, nil, eq("supplier_name", "Gamma SMS")))
	if err != nil || rs.Total != 2 {
		t.Errorf("routes of Gamma SMS: %d, %v", rs.Total, err)
	}
	for _, k := range []testsystem.Kind{testsystem.Categories, testsystem.Suppliers, testsystem.Gates} {
		ns, err := s.Named(ctx, k, "", q(2, 2, nil))
		if err != nil || ns.Total < 3 || len(ns.Items) != min(2, ns.Total-2) || ns.Items[0].ID != 3 {
			t.Errorf("Named(%s) page 2 = %+v, %v", k, ns, err)
		}
	}
	gs, err := s.Named(ctx, testsystem.Gates, "", q(1, 10, []msgkit.SortKey{{Attr: "name"}}))
	if got := names(gs.Items, func(n testsystem.Named) string { return n.Name }); err != nil || !slices.IsSorted(got) || len(got) != 5 {
		t.Errorf("gates by name = %v, %v", got, err)
	}
}

func testAddRoute(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	added, err := s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "delta-1", Prefix: "43", ServiceType: "DLT"})
	if err != nil || !added {
		t.Fatalf("AddRoute = %v, %v", added, err)
	}
	rs, err := s.Routes(ctx, "", q(1, 10, nil, eq("gate_name", "delta-1")))
	if err != nil || rs.Total != 2 || rs.Items[0].Category != "Direct" || rs.Items[0].CategoryID != 1 || rs.Items[0].Supplier != "Delta" ||
		rs.Items[0].ParamName != testsystem.ParamServiceType || rs.Items[1].ParamValue != "43" || rs.Items[0].ParamID <= 6 {
		t.Fatalf("the new routes = %+v, %v", rs.Items, err)
	}
	added, err = s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "delta-1", Prefix: "43"})
	if err != nil || added {
		t.Errorf("the same route again = %v, %v; want nothing added", added, err)
	}
	added, err = s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "epsilon", GateID: 77, TLVTag: "0x1500", TLVValue: "x"})
	if err != nil || !added {
		t.Fatalf("a new gate with an id = %v, %v", added, err)
	}
	if gs, err := s.GatesByID(ctx, "", []int64{77}); err != nil || len(gs) != 1 || gs[0].Name != "epsilon" || gs[0].Supplier != "Delta" {
		t.Errorf("gate 77 = %+v, %v", gs, err)
	}
	_, err = s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "epsilon", GateID: 78, Prefix: "1"})
	wantKind(t, err, msgkit.Conflict, "a gate under another id")
	_, err = s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "zeta", GateID: 1, Prefix: "1"})
	wantKind(t, err, msgkit.Conflict, "an id of another gate")
	if ns, _ := s.Named(ctx, testsystem.Gates, "", q(1, 100, nil)); ns.Total != 7 {
		t.Errorf("%d gates after refusals, want 7", ns.Total)
	}
}

func testDeleteNamed(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	n, err := s.DeleteNamed(ctx, testsystem.Gates, "", 2)
	if err != nil || n != (testsystem.Named{ID: 2, Name: "beta-wholesale"}) {
		t.Fatalf("DeleteNamed(gate 2) = %+v, %v", n, err)
	}
	rs, _ := s.Routes(ctx, "", q(1, 10, nil))
	if rs.Total != 4 {
		t.Errorf("%d routes after deleting a gate of two, want 4", rs.Total)
	}
	if gs, _ := s.GatesByID(ctx, "", []int64{2}); len(gs) != 0 {
		t.Errorf("deleted gate still found: %+v", gs)
	}
	_, err = s.DeleteNamed(ctx, testsystem.Gates, "", 2)
	wantKind(t, err, msgkit.NotFound, "a deleted gate")
	if n, err = s.DeleteNamed(ctx, testsystem.Suppliers, "", 3); err != nil || n.Name != "Gamma SMS" {
		t.Fatalf("DeleteNamed(supplier 3) = %+v, %v", n, err)
	}
	if rs, _ = s.Routes(ctx, "", q(1, 10, nil)); rs.Total != 2 {
		t.Errorf("%d routes after deleting a supplier, want 2", rs.Total)
	}
	if n, err = s.DeleteNamed(ctx, testsystem.Categories, "", 1); err != nil || n.Name != "Direct" {
		t.Fatalf("DeleteNamed(category 1) = %+v, %v", n, err)
	}
	_, err = s.DeleteNamed(ctx, testsystem.Categories, "", 99)
	wantKind(t, err, msgkit.NotFound, "an unknown category")
}

// A user's categories, suppliers, gates and routes are its own: others
// neither see nor change them, and its routes never change the
// platform's gates.
func testOwners(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	platformRoutes, err := s.Routes(ctx, "", q(1, 100, nil))
	if err != nil {
		t.Fatal(err)
	}
	// alice's route on a gate of her own, with the platform's category
	// and a supplier of her own.
	added, err := s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Alice Supply", Gate: "alice-gate", Prefix: "49"})
	if err != nil || !added {
		t.Fatalf("alice's AddRoute = %v, %v", added, err)
	}
	aliceGates, err := s.Named(ctx, testsystem.Gates, "alice", q(1, 100, []msgkit.SortKey{{Attr: "id", Desc: true}}))
	if err != nil || aliceGates.Total != 6 || aliceGates.Items[0].Name != "alice-gate" || aliceGates.Items[0].Owner != "alice" {
		t.Fatalf("alice's gates = %+v, %v", aliceGates, err)
	}
	gate := aliceGates.Items[0].ID
	for _, viewer := range []string{"", "bob"} {
		for _, k := range []testsystem.Kind{testsystem.Gates, testsystem.Suppliers} {
			ns, err := s.Named(ctx, k, viewer, q(1, 100, nil))
			if got := names(ns.Items, func(n testsystem.Named) string { return n.Name }); err != nil || slices.Contains(got, "alice-gate") || slices.Contains(got, "Alice Supply") {
				t.Errorf("%q sees alice's %s: %v, %v", viewer, k, got, err)
			}
		}
		if rs, err := s.Routes(ctx, viewer, q(1, 100, nil)); err != nil || rs.Total != platformRoutes.Total {
			t.Errorf("%q sees %d routes, want the platform's %d (%v)", viewer, rs.Total, platformRoutes.Total, err)
		}
		if gs, err := s.GatesByID(ctx, viewer, []int64{gate, 1}); err != nil || len(gs) != 1 || gs[0].ID != 1 {
			t.Errorf("%q's GatesByID(alice's, 1) = %+v, %v", viewer, gs, err)
		}
	}
	if rs, err := s.Routes(ctx, "alice", q(1, 100, nil, eq("gate_name", "alice-gate"))); err != nil || rs.Total != 1 || rs.Items[0].Category != "Direct" || rs.Items[0].CategoryID != 1 {
		t.Errorf("alice's routes = %+v, %v", rs, err)
	}
	if gs, err := s.GatesByID(ctx, "alice", []int64{gate}); err != nil || len(gs) != 1 || gs[0].Owner != "alice" || gs[0].Supplier != "Alice Supply" {
		t.Errorf("alice's GatesByID = %+v, %v", gs, err)
	}
	// bob may make a gate of the same name: it is another gate.
	if added, err := s.AddRoute(ctx, "bob", testsystem.NewRoute{Category: "Bob Cat", Supplier: "Alice Supply", Gate: "alice-gate", Prefix: "1"}); err != nil || !added {
		t.Fatalf("bob's AddRoute = %v, %v", added, err)
	}
	bobGates, _ := s.Named(ctx, testsystem.Gates, "bob", q(1, 100, []msgkit.SortKey{{Attr: "id", Desc: true}}))
	if bobGates.Items[0].Name != "alice-gate" || bobGates.Items[0].ID == gate || bobGates.Items[0].Owner != "bob" {
		t.Errorf("bob's gates = %+v", bobGates.Items)
	}
	// A user's route never changes the platform's gate; gate_id names only
	// the user's own gates.
	_, err = s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Alpha Telecom", Gate: "alpha-direct", Prefix: "1"})
	wantKind(t, err, msgkit.Forbidden, "alice's route on the platform's gate")
	_, err = s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "new", GateID: 500, Prefix: "1"})
	wantKind(t, err, msgkit.Invalid, "alice's new gate with an id")
	_, err = s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "new", GateID: bobGates.Items[0].ID, Prefix: "1"})
	wantKind(t, err, msgkit.Invalid, "alice's new gate with bob's gate's id")
	_, err = s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Delta", Gate: "alice-gate", GateID: 1, Prefix: "1"})
	wantKind(t, err, msgkit.Conflict, "alice's gate with another id")
	if added, err := s.AddRoute(ctx, "alice", testsystem.NewRoute{Category: "Direct", Supplier: "Alice Supply", Gate: "alice-gate", GateID: gate, Prefix: "48"}); err != nil || !added {
		t.Errorf("alice's route naming her gate by id = %v, %v", added, err)
	}
	if rs, _ := s.Routes(ctx, "", q(1, 100, nil)); !cmp.Equal(rs, platformRoutes) {
		t.Errorf("the platform's routes changed: %+v", rs.Items)
	}
	// Deletes: only the owner's record goes.
	if n, err := s.NamedByID(ctx, testsystem.Gates, gate); err != nil || n != (testsystem.Named{ID: gate, Name: "alice-gate", Owner: "alice"}) {
		t.Errorf("NamedByID(alice's gate) = %+v, %v", n, err)
	}
	if n, err := s.NamedByID(ctx, testsystem.Gates, 1); err != nil || n.Owner != "" || n.Name != "alpha-direct" {
		t.Errorf("NamedByID(gate 1) = %+v, %v", n, err)
	}
	_, err = s.NamedByID(ctx, testsystem.Gates, 9999)
	wantKind(t, err, msgkit.NotFound, "NamedByID of an unknown gate")
	_, err = s.DeleteNamed(ctx, testsystem.Gates, "bob", gate)
	wantKind(t, err, msgkit.NotFound, "bob deleting alice's gate")
	_, err = s.DeleteNamed(ctx, testsystem.Gates, "alice", 1)
	wantKind(t, err, msgkit.NotFound, "alice deleting the platform's gate as her own")
	_, err = s.DeleteNamed(ctx, testsystem.Gates, "", gate)
	wantKind(t, err, msgkit.NotFound, "the platform deleting alice's gate as its own")
	if n, err := s.DeleteNamed(ctx, testsystem.Gates, "alice", gate); err != nil || n != (testsystem.Named{ID: gate, Name: "alice-gate", Owner: "alice"}) {
		t.Errorf("alice deleting her gate = %+v, %v", n, err)
	}
	if rs, _ := s.Routes(ctx, "alice", q(1, 100, nil)); rs.Total != platformRoutes.Total {
		t.Errorf("alice's routes after deleting her gate: %d, want the platform's %d", rs.Total, platformRoutes.Total)
	}
	if rs, _ := s.Routes(ctx, "bob", q(1, 100, nil)); rs.Total != platformRoutes.Total+1 {
		t.Errorf("bob's routes after alice deleted her gate: %d, want %d", rs.Total, platformRoutes.Total+1)
	}
}

func testLookups(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	gs, err := s.GatesByID(ctx, "", []int64{3, 9, 1})
	if err != nil || len(gs) != 2 || gs[0].ID != 3 || gs[1].ID != 1 || gs[1].Category != "Direct" || gs[1].Supplier != "Alpha Telecom" ||
		!gs[1].Price.Equal(decimal.RequireFromString("0.045")) || gs[1].Currency != "EUR" {
		t.Errorf("GatesByID = %+v, %v", gs, err)
	}
	ops, err := s.OperatorsByCode(ctx, "", []string{"26201", "310410"}, []string{"234"})
	if got := names(ops, func(o testsystem.Operator) string { return o.Name }); err != nil || !slices.Equal(got, []string{"Telekom Deutschland", "AT&T Mobility"}) {
		t.Errorf("by codes = %v, %v (mcc is ignored with codes)", got, err)
	}
	if ops, err = s.OperatorsByCode(ctx, "", nil, []string{"234", "232"}); err != nil || len(ops) != 5 {
		t.Errorf("by mcc: %d operators, %v", len(ops), err)
	}
	if ops, err = s.OperatorsByCode(ctx, "alice", []string{"262001", "26201"}, nil); err != nil || len(ops) != 1 || ops[0].ID != 100 {
		t.Errorf("alice's 262001 (and not the platform's 26201) = %+v, %v", ops, err)
	}
	c, ok, err := s.SMSC(ctx, "+447785016005")
	if err != nil || !ok || c.Operator != "Vodafone UK" || c.MNC != "15" {
		t.Errorf("SMSC = %+v %v %v", c, ok, err)
	}
	if _, ok, err = s.SMSC(ctx, "+10000"); ok || err != nil {
		t.Errorf("unknown SMSC: %v %v", ok, err)
	}
	o, ok, err := s.OperatorByCode(ctx, "23430")
	if err != nil || !ok || o.Name != "EE" {
		t.Errorf("OperatorByCode = %+v %v %v", o, ok, err)
	}
	if _, ok, _ = s.OperatorByCode(ctx, "262001"); ok {
		t.Error("OperatorByCode found a user's operator")
	}
}

var day = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

func results(n int, prefix string) []testsystem.Result {
	rs := make([]testsystem.Result, n)
	for i := range rs {
		rs[i] = testsystem.Result{
			MsgID: sms.MessageID(fmt.Sprintf("%s%03d", prefix, i)), Seq: i + 1, User: "bob", Node: "n1",
			GateID: 1, Gate: "alpha-direct", OperatorID: 4, Operator: "O2 UK", MCCMNC: "23410", Receiver: "+447700900001",
			DCS: gsm.DCSGSM, NumParts: 1, Sender: "Tester", Text: "text " + prefix, Mark: "MARK", Price: decimal.RequireFromString("0.045"),
			Currency: "EUR", Status: testsystem.StatusQueued, Deadline: day.Add(time.Minute),
		}
	}
	return rs
}

func session(user string, at time.Time) testsystem.Session {
	return testsystem.Session{User: user, Test: "t", Callback: "https://example.com/cb", Status: testsystem.SessionRunning, Messages: 2, CreatedAt: at}
}

func testSessions(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	sess, quota, err := s.CreateSession(ctx, session("bob", day), results(2, "a"), 2)
	if err != nil || sess.ID < 1 || quota.Used != 1 || quota.Remaining != 1 || quota.Limit != 2 ||
		!quota.ResetsAt.Equal(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("CreateSession = %+v %+v %v", sess, quota, err)
	}
	got, err := s.Session(ctx, "bob", sess.ID)
	if err != nil || got.Test != "t" || !got.CreatedAt.Equal(day) || got.Status != testsystem.SessionRunning || got.Messages != 2 {
		t.Errorf("Session = %+v, %v", got, err)
	}
	_, err = s.Session(ctx, "carol", sess.ID)
	wantKind(t, err, msgkit.NotFound, "another user's session")
	_, err = s.Results(ctx, "carol", sess.ID, q(1, 10, nil))
	wantKind(t, err, msgkit.NotFound, "another user's results")
	sess2, quota, err := s.CreateSession(ctx, session("bob", day.Add(time.Hour)), results(2, "b"), 2)
	if err != nil || sess2.ID <= sess.ID || quota.Remaining != 0 {
		t.Fatalf("second session = %+v %+v %v", sess2, quota, err)
	}
	_, quota, err = s.CreateSession(ctx, session("bob", day.Add(2*time.Hour)), results(2, "c"), 2)
	wantKind(t, err, msgkit.RateLimited, "a third request with a limit of 2")
	if msgkit.CodeOf(err) != testsystem.CodeRateLimit || quota.Used != 2 || quota.Remaining != 0 {
		t.Errorf("limit reached: %v %+v", err, quota)
	}
	if _, err := s.Results(ctx, "bob", sess2.ID+1, q(1, 10, nil)); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("a refused request stored a session: %v", err)
	}
	if _, _, err := s.CreateSession(ctx, session("carol", day), results(1, "d"), 2); err != nil {
		t.Errorf("another user's first request: %v", err)
	}
	if q, err := s.Quota(ctx, "bob", day.Add(14*time.Hour+29*time.Minute), 2); err != nil || q.Used != 2 {
		t.Errorf("Quota at 23:59 = %+v, %v", q, err)
	}
	midnight := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	if q, err := s.Quota(ctx, "bob", midnight, 2); err != nil || q.Used != 0 || q.Remaining != 2 {
		t.Errorf("Quota at midnight = %+v, %v", q, err)
	}
	if _, quota, err = s.CreateSession(ctx, session("bob", midnight), results(1, "e"), 2); err != nil || quota.Used != 1 {
		t.Errorf("first request of the next day = %+v, %v", quota, err)
	}
	_, _, err = s.CreateSession(ctx, session("dave", day), results(1, "a"), 2)
	wantKind(t, err, msgkit.Conflict, "a message id twice")
	wantCode(t, err, testsystem.CodeMessageExists, "a message id twice")
	if q, _ := s.Quota(ctx, "dave", day, 2); q.Used != 0 {
		t.Errorf("a refused session counted: %+v", q)
	}
}

func testQuotaConcurrent(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	const tries, limit = 12, 5
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, limited := 0, 0
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.CreateSession(ctx, session("erin", day), results(1, fmt.Sprintf("q%02d-", i)), limit)
			mu.Lock()
			defer mu.Unlock()
			switch msgkit.KindOf(err) {
			case msgkit.RateLimited:
				limited++
			default:
				if err != nil {
					t.Errorf("CreateSession: %v", err)
				}
				ok++
			}
		}()
	}
	wg.Wait()
	if ok != limit || limited != tries-limit {
		t.Errorf("%d stored and %d limited of %d concurrent requests with a limit of %d", ok, limited, tries, limit)
	}
}

func testResults(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	rs := results(5, "r")
	rs[4].Status = testsystem.StatusFailed
	sess, _, err := s.CreateSession(ctx, session("bob", day), rs, 10)
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.Results(ctx, "bob", sess.ID, q(2, 2, nil))
	if err != nil || page.Total != 5 || len(page.Items) != 2 || page.Items[0].Seq != 3 || page.Items[0].Session != sess.ID {
		t.Fatalf("Results page 2 = %+v, %v", page, err)
	}
	want := rs[2]
	want.Session = sess.ID
	if diff := cmp.Diff(want, page.Items[0], cmpopts.EquateApproxTime(0), cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("a stored result differs (-want +got):\n%s", diff)
	}
	pending, err := s.Pending(ctx, "", 10)
	if got := names(pending, func(r testsystem.Result) string { return string(r.MsgID) }); err != nil || !slices.Equal(got, []string{"r000", "r001", "r002", "r003"}) {
		t.Errorf("Pending = %v, %v", got, err)
	}
	if pending, _ = s.Pending(ctx, "r001", 1); len(pending) != 1 || pending[0].MsgID != "r002" {
		t.Errorf("Pending after r001, 1 = %+v", pending)
	}
	sent := day.Add(time.Second)
	received := &testsystem.Received{At: sent.Add(3 * time.Second), Sender: "Tester", Text: "text r", DCS: gsm.DCSUCS, Network: "23410",
		Operator: "O2 UK", SMSC: "+447802000332", SMSCOperator: "O2 UK", SMSCCountry: "United Kingdom", SMSCNetwork: "23410",
		PDUs: [][]byte{{0x07, 0x91}, {0x00, 0x04}}}
	err = s.UpdateResults(ctx, []sms.MessageID{"r000", "r001", "zzz"}, func(r *testsystem.Result) bool {
		if r.MsgID == "r001" {
			return false
		}
		r.Status, r.SentAt = testsystem.StatusDelivered, sent
		r.Parts = []sms.PartState{sms.StateDelivered}
		r.DLRAt, r.DLRCode = sent.Add(2*time.Second), sms.DLRAbsentSubscriber
		r.Received = received
		r.FakeDLR, r.SenderMatch, r.TextMatch, r.EncodingMatch, r.DirectRoute, r.NationalSMSC = testsystem.No, testsystem.Yes, testsystem.No, testsystem.No, testsystem.Yes, testsystem.Unknown
		r.Error = "none"
		r.MsgID, r.Session, r.Seq = "hijack", 99, 99 // keys are not the update's to change
		return true
	})
	if err != nil {
		t.Fatalf("UpdateResults: %v", err)
	}
	page, _ = s.Results(ctx, "bob", sess.ID, q(1, 2, nil))
	got := page.Items[0]
	if got.MsgID != "r000" || got.Session != sess.ID || got.Seq != 1 || got.Status != testsystem.StatusDelivered || !got.SentAt.Equal(sent) ||
		!slices.Equal(got.Parts, []sms.PartState{sms.StateDelivered}) || got.DLRCode != sms.DLRAbsentSubscriber || got.Error != "none" ||
		got.FakeDLR != testsystem.No || got.TextMatch != testsystem.No || got.DirectRoute != testsystem.Yes || got.NationalSMSC != testsystem.Unknown {
		t.Errorf("updated result = %+v", got)
	}
	if diff := cmp.Diff(received, got.Received, cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("received differs (-want +got):\n%s", diff)
	}
	if page.Items[1].Status != testsystem.StatusQueued {
		t.Errorf("a result fn left alone changed: %+v", page.Items[1])
	}
	if pending, _ = s.Pending(ctx, "", 10); len(pending) != 3 || pending[0].MsgID != "r001" {
		t.Errorf("Pending after judging r000 = %d results", len(pending))
	}
}

// shape says which of r's slices are nil and which empty, and how long
// the others are.
func shape(r *testsystem.Result) string {
	of := func(n int, isNil bool) string {
		if isNil {
			return "nil"
		}
		return fmt.Sprint(n)
	}
	out := "parts " + of(len(r.Parts), r.Parts == nil)
	if r.Received == nil {
		return out + ", received nil"
	}
	out += ", pdus " + of(len(r.Received.PDUs), r.Received.PDUs == nil)
	for _, p := range r.Received.PDUs {
		out += " " + of(len(p), p == nil)
	}
	return out
}

// Both stores give back nil where nil was stored and empty where empty
// was, in Results, Pending and an UpdateResults function, whether a result
// was stored by CreateSession or by UpdateResults.
func testNilEmpty(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	rs := results(4, "e")
	rs[1].Parts, rs[1].Received = []sms.PartState{}, &testsystem.Received{Sender: "a"}
	rs[2].Parts, rs[2].Received = []sms.PartState{sms.StateDelivered}, &testsystem.Received{PDUs: [][]byte{}}
	rs[3].Received = &testsystem.Received{PDUs: [][]byte{nil, {}, {0x07}}}
	want := make([]string, len(rs))
	for i := range rs {
		want[i] = shape(&rs[i])
	}
	sess, _, err := s.CreateSession(ctx, session("bob", day), rs, 10)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		page, err := s.Results(ctx, "bob", sess.ID, q(1, 10, nil))
		if err != nil || len(page.Items) != len(want) {
			t.Fatalf("%s: Results = %+v, %v", when, page, err)
		}
		pending, err := s.Pending(ctx, "", 10)
		if err != nil || len(pending) != len(want) {
			t.Fatalf("%s: Pending = %+v, %v", when, pending, err)
		}
		seen := map[sms.MessageID]string{}
		err = s.UpdateResults(ctx, []sms.MessageID{"e000", "e001", "e002", "e003"}, func(r *testsystem.Result) bool {
			seen[r.MsgID] = shape(r)
			return false
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			id := sms.MessageID(fmt.Sprintf("e%03d", i))
			for _, got := range []struct{ where, shape string }{
				{"Results", shape(&page.Items[i])}, {"Pending", shape(&pending[i])}, {"UpdateResults", seen[id]},
			} {
				if got.shape != w {
					t.Errorf("%s: %s of %s: %s, want %s", when, got.where, id, got.shape, w)
				}
			}
		}
	}
	check("created")
	// Written again by an update, each the other way round.
	rs[0].Parts, rs[0].Received = []sms.PartState{}, &testsystem.Received{PDUs: [][]byte{{}}}
	rs[1].Parts, rs[1].Received = nil, nil
	rs[2].Received.PDUs = nil
	rs[3].Parts = []sms.PartState{}
	for i := range rs {
		want[i] = shape(&rs[i])
	}
	err = s.UpdateResults(ctx, []sms.MessageID{"e000", "e001", "e002", "e003"}, func(r *testsystem.Result) bool {
		i := r.Seq - 1
		r.Parts, r.Received = rs[i].Clone().Parts, rs[i].Clone().Received
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	check("updated")
}

func testComplete(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	sess, _, err := s.CreateSession(ctx, session("bob", day), results(2, "c"), 10)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	body := func(got testsystem.Session, rs []testsystem.Result) (testsystem.Callback, error) {
		calls++
		if got.Status != testsystem.SessionComplete || !got.CompletedAt.Equal(day.Add(time.Minute)) || len(rs) != 2 || rs[0].Seq != 1 {
			t.Errorf("body sees %+v with %d results", got, len(rs))
		}
		b, _ := json.Marshal(map[string]any{"test_session": got.ID, "n": len(rs)})
		return testsystem.Callback{URL: got.Callback, Body: b}, nil
	}
	at := day.Add(time.Minute)
	if done, err := s.CompleteSession(ctx, sess.ID, at, body); err != nil || done || calls != 0 {
		t.Fatalf("CompleteSession with pending results = %v, %v (body called %d times)", done, err, calls)
	}
	judge := func(r *testsystem.Result) bool { r.Status = testsystem.StatusNotReceived; return true }
	if err := s.UpdateResults(ctx, []sms.MessageID{"c000", "c001"}, judge); err != nil {
		t.Fatal(err)
	}
	if done, err := s.CompleteSession(ctx, sess.ID, at, body); err != nil || !done {
		t.Fatalf("CompleteSession = %v, %v", done, err)
	}
	if done, err := s.CompleteSession(ctx, sess.ID, at.Add(time.Second), body); err != nil || done || calls != 1 {
		t.Errorf("CompleteSession again = %v, %v (body called %d times)", done, err, calls)
	}
	got, _ := s.Session(ctx, "bob", sess.ID)
	if got.Status != testsystem.SessionComplete || !got.CompletedAt.Equal(at) {
		t.Errorf("completed session = %+v", got)
	}
	reports, err := f.Outbox.ClaimReports(ctx, at, time.Minute, 10)
	if err != nil || len(reports) != 1 {
		t.Fatalf("ClaimReports = %+v, %v", reports, err)
	}
	want := fmt.Sprintf(`{"n":2,"test_session":%d}`, sess.ID)
	if r := reports[0]; r.URL != "https://example.com/cb" || string(r.Body) != want || r.State != sms.ReportPending {
		t.Errorf("queued callback = %+v (body %s)", r, r.Body)
	}
	_, err = s.CompleteSession(ctx, sess.ID+100, at, body)
	wantKind(t, err, msgkit.NotFound, "completing an unknown session")
}

func testRefusals(t *testing.T, f Fixture) {
	ctx, s := t.Context(), f.Store
	load(t, s)
	err := s.Load(ctx, testsystem.Dataset{Gates: []testsystem.Gate{{ID: 40, Name: "alpha-direct"}}})
	wantKind(t, err, msgkit.Conflict, "a gate named as another")
	wantCode(t, err, testsystem.CodeDatasetNameExists, "a gate named as another")
	err = s.Load(ctx, testsystem.Dataset{
		Operators: []testsystem.Operator{{ID: 300, Name: "Late", Country: "X", MCC: "999", MNC: "01"}},
		Routes:    []testsystem.Route{{ParamID: 40, GateID: 99, CategoryID: 1, SupplierID: 1, ParamName: "prefix", ParamValue: "1"}},
	})
	wantKind(t, err, msgkit.Invalid, "a route of an unknown gate")
	wantCode(t, err, testsystem.CodeDatasetBadReference, "a route of an unknown gate")
	if ops, _ := s.OperatorsByCode(ctx, "", nil, []string{"999"}); len(ops) != 0 {
		t.Errorf("a refused load stored %+v", ops)
	}
	// Two names swapped in one load are no clash.
	if err := s.Load(ctx, testsystem.Dataset{Gates: []testsystem.Gate{{ID: 1, Name: "beta-wholesale"}, {ID: 2, Name: "alpha-direct"}}}); err != nil {
		t.Errorf("swapping two gates' names: %v", err)
	}
	rs := results(2, "dup")
	rs[1].MsgID = rs[0].MsgID
	_, _, err = s.CreateSession(ctx, session("bob", day), rs, 5)
	wantKind(t, err, msgkit.Conflict, "one message id twice in a session")
	wantCode(t, err, testsystem.CodeMessageExists, "one message id twice in a session")
	if q, _ := s.Quota(ctx, "bob", day, 5); q.Used != 0 {
		t.Errorf("a refused session counted: %+v", q)
	}
	if p, err := s.Pending(ctx, "", -1); err != nil || len(p) != 0 {
		t.Errorf("Pending with a negative limit = %v, %v", p, err)
	}
	// Times are kept to the microsecond.
	at := day.Add(1234567 * time.Nanosecond)
	rs = results(1, "us")
	rs[0].Deadline = at
	sess, _, err := s.CreateSession(ctx, session("bob", at), rs, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Session(ctx, "bob", sess.ID)
	page, _ := s.Results(ctx, "bob", sess.ID, q(1, 1, nil))
	want := day.Add(1234 * time.Microsecond)
	if !got.CreatedAt.Equal(want) || len(page.Items) != 1 || !page.Items[0].Deadline.Equal(want) {
		t.Errorf("times %v and %v, want %v", got.CreatedAt, page.Items[0].Deadline, want)
	}
}
