package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testsystemtest"
)

func TestTestSystemContract(t *testing.T) {
	t.Parallel()
	testsystemtest.Run(t, func(t *testing.T) testsystemtest.Fixture {
		db := newTestDB(t)
		return testsystemtest.Fixture{Store: db.TestSystem(), Outbox: db.SMS()}
	})
}

// The listings cover every attribute their specs let a query filter or
// sort by, with the spec's types.
func TestTestSystemListSpecs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		table *listTable
		spec  msgkit.ListSpec
	}{
		{"operators", &operatorsTable, testsystem.OperatorSpec()},
		{"countries", &countriesTable, testsystem.CountrySpec()},
		{"routes", &routesTable, testsystem.RouteSpec()},
		{"categories", ptr(namedLists[testsystem.Categories].listing), testsystem.NamedSpec()},
		{"suppliers", ptr(namedLists[testsystem.Suppliers].listing), testsystem.NamedSpec()},
		{"gates", ptr(namedLists[testsystem.Gates].listing), testsystem.NamedSpec()},
	} {
		if err := tc.table.checkSpec(tc.spec); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

var tsDay = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

// tsResults are n queued results with ids prefix000, prefix001, …
func tsResults(n int, prefix string) []testsystem.Result {
	rs := make([]testsystem.Result, n)
	for i := range rs {
		rs[i] = testsystem.Result{
			MsgID: sms.MessageID(fmt.Sprintf("%s%04d", prefix, i)), Seq: i + 1, User: "bob", Node: "n1",
			GateID: 1, Gate: "alpha-direct", Category: "Direct", Supplier: "Alpha", OperatorID: 4, Operator: "O2 UK",
			Country: "United Kingdom", MCCMNC: "23410", Receiver: "+447700900001", DCS: gsm.DCSGSM, NumParts: 1,
			Sender: "Tester", Text: "text " + prefix, Mark: "MARK", Price: decimal.RequireFromString("0.0450"),
			Currency: "EUR", Status: testsystem.StatusQueued, Deadline: tsDay.Add(time.Minute),
		}
	}
	return rs
}

func tsSession(user string) testsystem.Session {
	return testsystem.Session{User: user, Test: "t", Callback: "https://example.com/cb", Status: testsystem.SessionRunning, Messages: 1, CreatedAt: tsDay}
}

// Two replicas (two pools on one schema) creating sessions of one user at
// once share the daily count: exactly the limit succeed, and the rest are
// refused with the full quota.
func TestTestSystemQuotaAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*TestSystemStore{openTestDB(t, dsn, Options{Schema: schema}).TestSystem(), openTestDB(t, dsn, Options{Schema: schema}).TestSystem()}
	const tries, limit = 40, 7
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored, limited := 0, 0
	for i := range tries {
		wg.Go(func() {
			_, q, err := replicas[i%2].CreateSession(t.Context(), tsSession("erin"), tsResults(3, fmt.Sprintf("q%02d-", i)), limit)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				stored++
			case msgkit.KindOf(err) == msgkit.RateLimited && q.Used == limit && q.Remaining == 0:
				limited++
			default:
				t.Errorf("CreateSession: %v (quota %+v)", err, q)
			}
		})
	}
	wg.Wait()
	if stored != limit || limited != tries-limit {
		t.Errorf("%d stored and %d limited of %d requests from two replicas with a limit of %d", stored, limited, tries, limit)
	}
	var sessions, results int
	if err := replicas[0].pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM testsystem_sessions), (SELECT count(*) FROM testsystem_results)`).
		Scan(&sessions, &results); err != nil {
		t.Fatal(err)
	}
	if sessions != limit || results != 3*limit {
		t.Errorf("%d sessions and %d results stored, want %d and %d", sessions, results, limit, 3*limit)
	}
	if q, err := replicas[1].Quota(t.Context(), "erin", tsDay, limit); err != nil || q.Used != limit {
		t.Errorf("Quota = %+v, %v", q, err)
	}
}

// A limit of 0 refuses the first request and counts nothing.
func TestTestSystemZeroLimit(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).TestSystem()
	_, q, err := s.CreateSession(t.Context(), tsSession("bob"), tsResults(1, "z"), 0)
	if msgkit.KindOf(err) != msgkit.RateLimited || q.Used != 0 || q.Limit != 0 {
		t.Errorf("CreateSession with limit 0 = %+v, %v", q, err)
	}
	if q, _ := s.Quota(t.Context(), "bob", tsDay, 5); q.Used != 0 {
		t.Errorf("a refused request counted: %+v", q)
	}
}

// Every field of a result comes back as written: decimals with their
// scale, times truncated to the microsecond in UTC, nil and empty slices
// kept apart, PDUs byte for byte, text JSON cannot carry (invalid UTF-8,
// NUL) byte for byte; an update cannot change the keys.
func TestTestSystemResultRoundTripExact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).TestSystem()
	cet := time.FixedZone("CET", 3600)
	at := time.Date(2026, 11, 24, 10, 30, 1, 123456789, cet)
	full := testsystem.Result{
		MsgID: "x1", Seq: 1, User: "bob", Node: "node-ä", GateID: math.MaxInt64, Gate: `g "1" <&>`, Category: "c", Supplier: "s",
		OperatorID: -3, Operator: "Ö2", Country: "Україна", MCCMNC: "255001", Receiver: "+380501234567", DCS: gsm.DCSUCS, NumParts: 3,
		Sender: "Sendér", Text: "emoji 😀 \u2028 \\ \"", Mark: "M", Price: decimal.RequireFromString("0.04500"), Currency: "UAH",
		Status: testsystem.StatusReceived, Error: "upstream said \x00\xff", SentAt: at, Deadline: at.Add(time.Hour),
		Parts: []sms.PartState{sms.StateBuffered, sms.StateDelivered}, DLRAt: at.Add(time.Second), DLRCode: sms.DLRAbsentSubscriber,
		Received: &testsystem.Received{At: at.Add(2 * time.Second), Sender: "S\x00", Text: "T \xc3\x28", DCS: gsm.DCSUCS, Network: "25501",
			Operator: "O", SMSC: "+380", SMSCOperator: "SO", SMSCCountry: "SC", SMSCNetwork: "25501",
			PDUs: [][]byte{{0x00, 0xff}, {}, nil}},
		FakeDLR: testsystem.Yes, SenderMatch: testsystem.No, TextMatch: testsystem.Yes, EncodingMatch: testsystem.No,
		DirectRoute: testsystem.Yes, NationalSMSC: testsystem.No,
	}
	empty := testsystem.Result{MsgID: "x2", Seq: 2, User: "bob", Parts: []sms.PartState{}, Received: &testsystem.Received{PDUs: [][]byte{}}}
	bare := testsystem.Result{MsgID: "x3", Seq: 3, User: "bob", Price: decimal.RequireFromString("12E+2")}
	sess, _, err := s.CreateSession(ctx, tsSession("bob"), []testsystem.Result{full, empty, bare}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var notObjects int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM testsystem_results WHERE jsonb_typeof(doc) <> 'object'`).Scan(&notObjects); err != nil || notObjects != 0 {
		t.Errorf("%d documents are not JSON objects (%v)", notObjects, err)
	}
	want := []testsystem.Result{full, empty, bare}
	for i := range want {
		w := &want[i]
		w.Session = sess.ID
		w.SentAt, w.Deadline, w.DLRAt = dbTime(w.SentAt), dbTime(w.Deadline), dbTime(w.DLRAt)
		if w.Received != nil {
			w.Received.At = dbTime(w.Received.At)
		}
	}
	want[2].Price = decimal.RequireFromString("1200") // numeric has no positive exponent
	opts := []cmp.Option{cmp.Comparer(func(a, b decimal.Decimal) bool { return a.String() == b.String() && a.Exponent() == b.Exponent() }),
		cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) && a.Location() == b.Location() })}
	page, err := s.Results(ctx, "bob", sess.ID, msgkit.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, page.Items, opts...); diff != "" {
		t.Errorf("results read back (-want +got):\n%s", diff)
	}
	if page.Items[1].Parts == nil || page.Items[1].Received.PDUs == nil || page.Items[2].Parts != nil || page.Items[2].Received != nil {
		t.Errorf("nil and empty slices mixed up: %+v", page.Items[1:])
	}

	// An update writes every field back, the keys aside.
	err = s.UpdateResults(ctx, []sms.MessageID{"x3", "x1"}, func(r *testsystem.Result) bool {
		if r.MsgID == "x1" {
			return false
		}
		*r = *full.Clone()
		r.MsgID, r.User, r.Seq, r.Session = "hijack", "mallory", 99, 99 // not the update's to change
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Pending(ctx, "x2", 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("Pending = %+v, %v", got, err)
	}
	w := want[0]
	w.MsgID, w.Seq = "x3", 3
	if diff := cmp.Diff(w, got[0], opts...); diff != "" {
		t.Errorf("updated result (-want +got):\n%s", diff)
	}
}

// fn sees each result as the calls before it left it; a status
// PostgreSQL cannot hold refuses the whole update.
func TestTestSystemUpdateResults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).TestSystem()
	if _, _, err := s.CreateSession(ctx, tsSession("bob"), tsResults(3, "u"), 10); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err := s.UpdateResults(ctx, []sms.MessageID{"u0001", "nope", "u0001", "\xff"}, func(r *testsystem.Result) bool {
		calls++
		r.Error += "x"
		return true
	})
	if err != nil || calls != 2 {
		t.Fatalf("UpdateResults = %v after %d calls", err, calls)
	}
	page, _ := s.Results(ctx, "bob", 1, msgkit.ListQuery{})
	if page.Items[1].Error != "xx" || page.Items[0].Error != "" {
		t.Errorf("errors after two updates of u0001: %q, %q", page.Items[0].Error, page.Items[1].Error)
	}
	err = s.UpdateResults(ctx, []sms.MessageID{"u0000", "u0002"}, func(r *testsystem.Result) bool {
		r.Status = testsystem.StatusFailed
		if r.MsgID == "u0002" {
			r.Status = "failed\x00"
		}
		return true
	})
	if msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("UpdateResults with a NUL in a status = %v, want Invalid", err)
	}
	if p, _ := s.Pending(ctx, "", 10); len(p) != 3 {
		t.Errorf("a refused update wrote: %d pending", len(p))
	}
}

// Keys PostgreSQL cannot hold find nothing, as in memstore; text it
// cannot hold is refused.
func TestTestSystemUnstorableText(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).TestSystem()
	if err := s.Load(ctx, testsystem.Fixture()); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Operators(ctx, "\xff", msgkit.ListQuery{PageNumber: 1, PageSize: 10}); err != nil || p.Total != 0 || p.Items == nil {
		t.Errorf("operators of an unstorable owner = %+v, %v", p, err)
	}
	if p, err := s.Countries(ctx, "a\x00", msgkit.ListQuery{}); err != nil || p.Total != 0 {
		t.Errorf("countries of an unstorable owner = %+v, %v", p, err)
	}
	if _, ok, err := s.SMSC(ctx, "+44\xff"); ok || err != nil {
		t.Errorf("SMSC = %v, %v", ok, err)
	}
	if _, ok, err := s.OperatorByCode(ctx, "\xff"); ok || err != nil {
		t.Errorf("OperatorByCode = %v, %v", ok, err)
	}
	if ops, err := s.OperatorsByCode(ctx, "", []string{"\xff", "26201"}, nil); err != nil || len(ops) != 1 {
		t.Errorf("OperatorsByCode = %+v, %v", ops, err)
	}
	if _, err := s.Session(ctx, "\xff", 1); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("Session = %v", err)
	}
	if _, err := s.AddRoute(ctx, "", testsystem.NewRoute{Category: "c\x00", Supplier: "s", Gate: "g", Prefix: "1"}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("AddRoute = %v", err)
	}
	d := testsystem.Dataset{Operators: []testsystem.Operator{{ID: 1, Name: "\xff"}}}
	if err := s.Load(ctx, d); msgkit.KindOf(err) != msgkit.Invalid || !strings.Contains(err.Error(), "operators[0]: name") {
		t.Errorf("Load = %v", err)
	}
	rs := tsResults(2, "v")
	rs[1].User = "\xfe"
	if _, _, err := s.CreateSession(ctx, tsSession("bob"), rs, 10); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("CreateSession with an unstorable user = %v", err)
	}
	if _, _, err := s.CreateSession(ctx, tsSession("bob"), tsResults(2, "w"), 10); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Pending(ctx, "w\xff", 10); err != nil || len(p) != 0 {
		t.Errorf("Pending after w\\xff = %+v, %v", p, err)
	}
	if p, err := s.Pending(ctx, "v\xff", 10); err != nil || len(p) != 2 {
		t.Errorf("Pending after v\\xff = %d, %v", len(p), err)
	}
}

// A duplicate id names the first stored one and stores nothing, and ids
// given twice in one request are refused too.
func TestTestSystemDuplicateMessage(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).TestSystem()
	if _, _, err := s.CreateSession(ctx, tsSession("bob"), tsResults(3, "d"), 10); err != nil {
		t.Fatal(err)
	}
	rs := append(tsResults(1, "e"), tsResults(3, "d")[2], tsResults(3, "d")[1])
	_, _, err := s.CreateSession(ctx, tsSession("bob"), rs, 10)
	if msgkit.CodeOf(err) != "message_exists" || !strings.Contains(err.Error(), "d0002") {
		t.Errorf("duplicate = %v, want message_exists naming d0002", err)
	}
	twice := append(tsResults(2, "f"), tsResults(1, "f")[0])
	_, _, err = s.CreateSession(ctx, tsSession("bob"), twice, 10)
	if msgkit.CodeOf(err) != "message_exists" || !strings.Contains(err.Error(), "f0000") {
		t.Errorf("an id twice = %v, want message_exists naming f0000", err)
	}
	if q, _ := s.Quota(ctx, "bob", tsDay, 10); q.Used != 1 {
		t.Errorf("refused requests counted: %+v", q)
	}
}

// Ids of deleted records are not given again, as in memstore; a Load may
// swap names (checked at commit) but not give one name twice.
func TestTestSystemCatalogIDsAndNames(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).TestSystem()
	if err := s.Load(ctx, testsystem.Fixture()); err != nil {
		t.Fatal(err)
	}
	top, err := s.Named(ctx, testsystem.Gates, "", msgkit.ListQuery{PageNumber: 1, PageSize: 1, Sort: []msgkit.SortKey{{Attr: "id", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	last := top.Items[0].ID
	if _, err := s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "New", Gate: "new-1", Prefix: "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteNamed(ctx, testsystem.Gates, "", last+1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddRoute(ctx, "", testsystem.NewRoute{Category: "Direct", Supplier: "New", Gate: "new-2", Prefix: "1"}); err != nil {
		t.Fatal(err)
	}
	gs, err := s.GatesByID(ctx, "", []int64{last + 1, last + 2, last + 2})
	if err != nil || len(gs) != 2 || gs[0].Name != "new-2" || gs[1].Name != "new-2" || gs[0].Supplier != "New" || !gs[0].Price.IsZero() {
		t.Errorf("GatesByID = %+v, %v; want new-2 twice under id %d", gs, err, last+2)
	}

	cats, _ := s.Named(ctx, testsystem.Categories, "", msgkit.ListQuery{})
	a, b := cats.Items[0], cats.Items[1]
	swap := testsystem.Dataset{Categories: []testsystem.Named{{ID: a.ID, Name: b.Name}, {ID: b.ID, Name: a.Name}}}
	if err := s.Load(ctx, swap); err != nil {
		t.Errorf("Load swapping two names: %v", err)
	}
	dup := testsystem.Dataset{Categories: []testsystem.Named{{ID: a.ID, Name: "Same"}, {ID: b.ID, Name: "Same"}}}
	if err := s.Load(ctx, dup); msgkit.KindOf(err) != msgkit.Conflict {
		t.Errorf("Load giving one name twice = %v, want Conflict", err)
	}
	again, _ := s.Named(ctx, testsystem.Categories, "", msgkit.ListQuery{})
	if again.Items[0].Name != b.Name || again.Items[1].Name != a.Name {
		t.Errorf("categories after the swap and a refused load = %+v", again.Items[:2])
	}
	if p, err := s.Named(ctx, testsystem.Kind(9), "", msgkit.ListQuery{PageNumber: 1, PageSize: 5}); err != nil || p.Total != 0 {
		t.Errorf("Named of an unknown kind = %+v, %v", p, err)
	}
	if _, err := s.DeleteNamed(ctx, testsystem.Kind(9), "", 1); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("DeleteNamed of an unknown kind = %v", err)
	}
}

// The completed session's callback is one pending report of part 0 of
// testsession-<id>, due and created at the completion; a callback without
// a URL queues nothing.
func TestTestSystemCompleteQueuesReport(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := newTestDB(t)
	s := db.TestSystem()
	rs := tsResults(2, "c")
	rs[0].Status, rs[1].Status = testsystem.StatusFailed, testsystem.StatusDelivered
	sess, _, err := s.CreateSession(ctx, tsSession("bob"), rs, 10)
	if err != nil {
		t.Fatal(err)
	}
	at := tsDay.Add(90*time.Second + 1500*time.Nanosecond)
	done, err := s.CompleteSession(ctx, sess.ID, at, func(got testsystem.Session, rs []testsystem.Result) (testsystem.Callback, error) {
		b, _ := json.Marshal(map[string]any{"id": got.ID, "n": len(rs)})
		return testsystem.Callback{URL: got.Callback, Body: b}, nil
	})
	if err != nil || !done {
		t.Fatalf("CompleteSession = %v, %v", done, err)
	}
	var msgID, url, body, lastError string
	var part, attempts, state int
	var next, created time.Time
	err = db.pool.QueryRow(ctx, `SELECT msg_id, part_num, url, convert_from(body, 'UTF8'), state, attempts, next_at, created_at, last_error
		FROM sms_reports`).Scan(&msgID, &part, &url, &body, &state, &attempts, &next, &created, &lastError)
	if err != nil {
		t.Fatal(err)
	}
	if msgID != fmt.Sprintf("testsession-%d", sess.ID) || part != 0 || url != "https://example.com/cb" || state != int(sms.ReportPending) ||
		attempts != 0 || !next.Equal(dbTime(at)) || !created.Equal(dbTime(at)) || lastError != "" || body != fmt.Sprintf(`{"id":%d,"n":2}`, sess.ID) {
		t.Errorf("report = %s %d %s %s %d %d %v %v %q", msgID, part, url, body, state, attempts, next, created, lastError)
	}

	quiet := tsSession("bob")
	quiet.Callback = ""
	sess2, _, err := s.CreateSession(ctx, quiet, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	done, err = s.CompleteSession(ctx, sess2.ID, at, func(got testsystem.Session, _ []testsystem.Result) (testsystem.Callback, error) {
		return testsystem.Callback{}, nil
	})
	var n int
	_ = db.pool.QueryRow(ctx, `SELECT count(*) FROM sms_reports`).Scan(&n)
	if err != nil || !done || n != 1 {
		t.Errorf("a session without callback: %v, %v, %d reports", done, err, n)
	}
	_, err = s.CompleteSession(ctx, sess.ID+100, at, nil)
	if msgkit.CodeOf(err) != "session_not_found" {
		t.Errorf("an unknown session = %v", err)
	}
}

// Pending and the completion check read the index of results not judged,
// not the judged history.
func TestTestSystemPendingPlans(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the history to read plans; the full suite runs it")
	}
	t.Parallel()
	ctx := t.Context()
	db := newTestDB(t)
	s := db.TestSystem()
	rs := tsResults(2000, "p")
	for i := range rs {
		if i%100 != 0 {
			rs[i].Status = testsystem.StatusDelivered
		}
	}
	if _, _, err := s.CreateSession(ctx, tsSession("bob"), rs, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE testsystem_results`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query, index string
		args         []any
	}{
		{`SELECT ` + resultColumns + ` FROM testsystem_results WHERE NOT judged AND msg_id > $1 ORDER BY msg_id LIMIT $2`,
			"testsystem_results_pending_idx", []any{"", 1000}},
		{`SELECT EXISTS (SELECT 1 FROM testsystem_results WHERE session_id = $1 AND NOT judged)`,
			"testsystem_results_open_idx", []any{1}},
	} {
		rows, err := db.pool.Query(ctx, "EXPLAIN "+tc.query, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for rows.Next() {
			var l string
			_ = rows.Scan(&l)
			lines = append(lines, l)
		}
		rows.Close()
		if all := strings.Join(lines, "\n"); !strings.Contains(all, tc.index) {
			t.Errorf("plan of %s does not use %s:\n%s", tc.query, tc.index, all)
		}
	}
	p, err := s.Pending(ctx, "", 1000)
	if err != nil || len(p) != 20 {
		t.Errorf("Pending = %d results, %v", len(p), err)
	}
}

// BenchmarkTestSystemCreateSession stores sessions of 1,000 results.
func BenchmarkTestSystemCreateSession(b *testing.B) {
	s := newTestDB(b).TestSystem()
	ctx := context.Background()
	base := tsResults(1000, "")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rs := make([]testsystem.Result, len(base))
		copy(rs, base)
		for j := range rs {
			rs[j].MsgID = sms.MessageID(fmt.Sprintf("b%06d-%04d", i, j))
		}
		if _, _, err := s.CreateSession(ctx, tsSession("bench"), rs, math.MaxInt32); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkTestSystemUpdateResults updates 1,000 results of a session in
// one call, each changed.
func BenchmarkTestSystemUpdateResults(b *testing.B) {
	s := newTestDB(b).TestSystem()
	ctx := context.Background()
	rs := tsResults(1000, "u")
	if _, _, err := s.CreateSession(ctx, tsSession("bench"), rs, 10); err != nil {
		b.Fatal(err)
	}
	ids := make([]sms.MessageID, len(rs))
	for i, r := range rs {
		ids[i] = r.MsgID
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		err := s.UpdateResults(ctx, ids, func(r *testsystem.Result) bool {
			r.Status, r.SentAt = testsystem.StatusSent, tsDay.Add(time.Duration(n)*time.Second)
			r.Parts = []sms.PartState{sms.StateSentToSMSC}
			return true
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTestSystemSession runs sessions of 20 gates × 50 operators
// (1,000 test messages) against simnet to completion on PostgreSQL.
func BenchmarkTestSystemSession(b *testing.B) {
	testsystemtest.BenchmarkSession(b, newTestDB(b).TestSystem())
}
