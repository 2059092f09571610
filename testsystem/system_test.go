package testsystem_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testsystemtest"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

var start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// rig is a test system over memstore and simnet: the fixture's gates
// 1-5 as an honest route, one that fakes delivery reports, one that
// replaces the sender, one that transcodes, and one that delivers
// through a foreign SMSC; handsets on the British operators and on
// Telekom Deutschland.
type rig struct {
	clock    *msgkittest.Clock
	db       *memstore.DB
	sys      *testsystem.System
	handsets *simnet.Handsets
	nets     map[int64]*simnet.Network
}

const foreignSMSC = "+3706980001"

func newRig(t testing.TB, opts testsystem.Options, routes map[int64]simnet.Route, outcomes map[int64]simnet.Outcome) *rig {
	t.Helper()
	clock := msgkittest.NewClock(start)
	db := memstore.New()
	if err := db.TestSystem().Load(t.Context(), testsystem.Fixture()); err != nil {
		t.Fatal(err)
	}
	hs := simnet.NewHandsets(clock.Now)
	for _, h := range []struct{ number, network, smsc string }{
		{"+447700900010", "23410", "+447802000332"},
		{"+447700900015", "23415", "+447785016005"},
		{"+447700900030", "23430", "+447958879879"},
		{"+491510000001", "26201", "+491710760000"},
	} {
		if err := hs.Add(sms.MSISDN(h.number), h.network, h.smsc); err != nil {
			t.Fatal(err)
		}
	}
	r := &rig{clock: clock, db: db, handsets: hs, nets: map[int64]*simnet.Network{}}
	for gate := int64(1); gate <= 5; gate++ {
		o := simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 2 * time.Second}
		if oc, ok := outcomes[gate]; ok {
			o = oc
		}
		r.nets[gate] = simnet.New(simnet.Options{Clock: clock.Now, Handsets: hs, Route: routes[gate], Default: o, Seed: uint64(gate)})
	}
	opts.Clock = clock.Now
	if opts.Rand == nil {
		rnd := rand.New(rand.NewPCG(1, 2))
		opts.Rand = rnd.Uint64
	}
	r.sys = testsystem.New(db.TestSystem(), db.TestSystem(), hs, func(id int64) (sms.Upstream, bool) {
		n, ok := r.nets[id]
		return n, ok
	}, opts)
	return r
}

func behaviours() map[int64]simnet.Route {
	return map[int64]simnet.Route{
		2: {FakeDLR: true},
		3: {Sender: "4915550000"},
		4: {Transcode: true},
		5: {SMSC: foreignSMSC},
	}
}

// run advances the clock a second at a time, handing the networks'
// reports to the system and judging, until session is complete or the
// limit passes.
func (r *rig) run(t testing.TB, user string, session int64, limit time.Duration) testsystem.Session {
	t.Helper()
	ctx := t.Context()
	end := r.clock.Now().Add(limit)
	for {
		for _, n := range r.nets {
			if _, err := n.RunDue(ctx, r.sys, r.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.sys.Step(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := r.sys.Session(ctx, user, session)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status == testsystem.SessionComplete || r.clock.Now().After(end) {
			return s
		}
		r.clock.Advance(time.Second)
	}
}

func request(gates []int64, kind testtext.Kind, mccmnc ...string) testsystem.Request {
	return testsystem.Request{Username: "qa", Test: "route check", Gates: gates, MCCMNC: mccmnc, Owner: testsystem.OwnerPlatform,
		Lang: "en", TextType: kind, Callback: "https://customer.example/testsystem"}
}

func results(t testing.TB, db *memstore.DB, user string, session int64) map[string]testsystem.Record {
	t.Helper()
	page, err := db.TestSystem().Results(t.Context(), user, session, msgkit.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]testsystem.Record{}
	for _, r := range page.Items {
		out[r.Gate+"/"+r.Operator] = r.Record()
	}
	return out
}

// TestSessionOverSimnet runs a session through every route behaviour and
// checks each result field.
func TestSessionOverSimnet(t *testing.T) {
	r := newRig(t, testsystem.Options{TimeLimit: time.Minute, Node: "node-1"}, behaviours(), nil)
	sess, quota, err := r.sys.Send(t.Context(), "qa", request([]int64{1, 2, 3, 4, 5}, testtext.UCS, "23410", "23415"))
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID < 1 || sess.Messages != 10 || quota.Used != 1 || quota.Remaining != testsystem.DefaultDailyLimit-1 {
		t.Fatalf("Send = %+v %+v", sess, quota)
	}
	done := r.run(t, "qa", sess.ID, 2*time.Minute)
	if done.Status != testsystem.SessionComplete {
		t.Fatalf("session not complete: %+v", done)
	}
	rs := results(t, r.db, "qa", sess.ID)
	honest := rs["alpha-direct/O2 UK"]
	want := testsystem.Record{
		MsgID: honest.MsgID, TestID: fmt.Sprintf("%d-1", sess.ID), TestSession: strconv.FormatInt(sess.ID, 10), TestNode: "node-1",
		Supplier: "Alpha Telecom", GateCategory: "Direct", Gate: "alpha-direct", GateID: 1, Country: "United Kingdom", Operator: "O2 UK", OperatorID: 4,
		DCS: "UCS", Concat: "false", NumParts: 1, Sender: honest.Sender, Text: honest.Text, Price: "0.0450", Currency: "EUR",
		Receiver: "+447700900010", SentDate: ptr("2026-11-24T10:00:00.000Z"), DLRStatus: "DELIVERED", DLRDate: ptr("2026-11-24T10:00:03.000Z"),
		DLRDelay: "3.000", FakeDLR: "false", Status: "delivered", SenderMatch: "true", TextMatch: "true", EncodingMatch: "true",
		ReceivedSender: honest.Sender, ReceivedText: honest.Text, ReceivedDCS: "UCS", ReceivedMCCMNC: "23410", ReceivedOperator: "O2 UK",
		ReceivedDate: ptr("2026-11-24T10:00:03.000Z"), ReceivedServiceCenter: "+447802000332", ReceivedServiceOperator: "O2 UK",
		ReceivedServiceCountry: "United Kingdom", ReceivedServicePDU: honest.ReceivedServicePDU, ReceivedServicePDUParts: honest.ReceivedServicePDUParts,
		SMSDelay: "3.000", DirectRoute: "true", NationalSMSC: "true", Username: "qa",
	}
	if got, _ := json.Marshal(honest); string(got) != string(mustJSON(want)) {
		t.Errorf("honest route:\n got %s\nwant %s", got, mustJSON(want))
	}
	if len(honest.ReceivedServicePDUParts) != 1 || honest.ReceivedServicePDU == "" {
		t.Errorf("honest route PDUs: %v", honest.ReceivedServicePDUParts)
	}
	d, err := gsm.DecodeDeliver(hexBytes(t, honest.ReceivedServicePDU))
	if err != nil || d.SMSC != "+447802000332" || d.Text != honest.Text {
		t.Errorf("the stored PDU decodes to %+v, %v", d, err)
	}
	if len(honest.Text) < 10 || honest.Sender == "" {
		t.Errorf("text %q from sender %q", honest.Text, honest.Sender)
	}

	fake := rs["beta-wholesale/O2 UK"]
	if fake.Status != "not_received" || fake.FakeDLR != "true" || fake.DLRStatus != "DELIVERED" || fake.ReceivedDate != nil ||
		fake.SenderMatch != "unknown" || fake.ReceivedServiceCenter != "" || len(fake.ReceivedServicePDUParts) != 0 {
		t.Errorf("fake DLR route: %+v", fake)
	}
	swapped := rs["gamma-grey/Vodafone UK"]
	if swapped.Status != "delivered" || swapped.SenderMatch != "false" || swapped.ReceivedSender != "4915550000" ||
		swapped.TextMatch != "true" || swapped.FakeDLR != "false" || swapped.DirectRoute != "true" {
		t.Errorf("sender-replacing route: %+v", swapped)
	}
	transcoded := rs["beta-latin/O2 UK"]
	if transcoded.Status != "delivered" || transcoded.TextMatch != "false" || transcoded.EncodingMatch != "false" ||
		transcoded.ReceivedDCS != "GSM" || transcoded.SenderMatch != "true" {
		t.Errorf("transcoding route: %+v", transcoded)
	}
	foreign := rs["gamma-offshore/Vodafone UK"]
	if foreign.Status != "delivered" || foreign.ReceivedServiceCenter != foreignSMSC || foreign.ReceivedServiceOperator != "Baltic Transit" ||
		foreign.ReceivedServiceCountry != "Lithuania" || foreign.DirectRoute != "false" || foreign.NationalSMSC != "false" {
		t.Errorf("foreign SMSC route: %+v", foreign)
	}

	claimed, err := r.db.SMS().ClaimReports(t.Context(), r.clock.Now(), time.Minute, 10)
	if err != nil || len(claimed) != 1 || claimed[0].URL != "https://customer.example/testsystem" {
		t.Fatalf("callbacks queued: %+v, %v", claimed, err)
	}
	var body testsystem.CallbackBody
	if err := json.Unmarshal(claimed[0].Body, &body); err != nil || body.TestSession != sess.ID || body.Count != 10 ||
		len(body.Results) != 10 || body.Status != "complete" || body.Results[0].MsgID != honest.MsgID || body.Completed == nil {
		t.Errorf("callback body %s: %v", claimed[0].Body, err)
	}
}

func ptr(s string) *string { return &s }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b := make([]byte, len(s)/2)
	for i := range b {
		n, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		b[i] = byte(n)
	}
	return b
}

// A concatenated text arrives whole; reports that fail judge at once.
func TestConcatenatedAndFailedReports(t *testing.T) {
	outcomes := map[int64]simnet.Outcome{
		2: {Kind: simnet.Reject, AcceptDelay: time.Second},
		3: {Kind: simnet.Unknown, AcceptDelay: time.Second, Delay: time.Second},
	}
	r := newRig(t, testsystem.Options{TimeLimit: time.Minute}, nil, outcomes)
	sess, _, err := r.sys.Send(t.Context(), "qa", request([]int64{1, 2, 3}, testtext.GSMConcat, "23430"))
	if err != nil {
		t.Fatal(err)
	}
	done := r.run(t, "qa", sess.ID, 30*time.Second) // well within the time limit
	if done.Status != testsystem.SessionComplete {
		t.Fatalf("session not complete before the time limit: %+v", done)
	}
	rs := results(t, r.db, "qa", sess.ID)
	long := rs["alpha-direct/EE"]
	if long.Status != "delivered" || long.Concat != "true" || long.NumParts < 2 || len(long.ReceivedServicePDUParts) != long.NumParts ||
		long.TextMatch != "true" || long.ReceivedText != long.Text || long.DCS != "GSM" {
		t.Errorf("concatenated message: %+v", long)
	}
	rejected := rs["beta-wholesale/EE"]
	if rejected.Status != "not_received" || rejected.DLRStatus != "REJECTED" || rejected.FakeDLR != "false" {
		t.Errorf("rejected: %+v", rejected)
	}
	unknown := rs["gamma-grey/EE"]
	if unknown.Status != "not_received" || unknown.DLRStatus != "UNDELIVERED" || unknown.FakeDLR != "false" || unknown.DLRDelay != "2.000" {
		t.Errorf("unknown subscriber: %+v", unknown)
	}
}

// Messages that cannot be sent fail at once, and a session of nothing
// else completes with its callback at once.
func TestFailedAtOnce(t *testing.T) {
	r := newRig(t, testsystem.Options{}, nil, nil)
	delete(r.nets, 2)
	// Orange France has no handset; gate 2 has no network connection.
	sess, _, err := r.sys.Send(t.Context(), "qa", request([]int64{1, 2}, testtext.GSM, "20801", "26201"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := r.db.TestSystem().Results(t.Context(), "qa", sess.ID, msgkit.ListQuery{})
	status := map[string]string{}
	for _, res := range page.Items {
		status[res.Gate+"/"+res.Operator] = string(res.Status) + ": " + res.Error
	}
	want := map[string]string{
		"alpha-direct/Orange France":         "failed: no test handset on Orange France (20801)",
		"alpha-direct/Telekom Deutschland":   "sent: ",
		"beta-wholesale/Orange France":       "failed: no test handset on Orange France (20801)",
		"beta-wholesale/Telekom Deutschland": "failed: gate beta-wholesale has no network connection",
	}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: %q, want %q", k, status[k], v)
		}
	}
	sess2, _, err := r.sys.Send(t.Context(), "qa", request([]int64{1}, testtext.GSM, "20801"))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := r.db.TestSystem().Session(t.Context(), "qa", sess2.ID); s.Status != testsystem.SessionComplete {
		t.Errorf("a session of failed messages: %+v", s)
	}
	if claimed, _ := r.db.SMS().ClaimReports(t.Context(), r.clock.Now(), time.Minute, 10); len(claimed) != 1 {
		t.Errorf("%d callbacks queued, want 1", len(claimed))
	}
}

func TestSendRefusals(t *testing.T) {
	r := newRig(t, testsystem.Options{}, nil, nil)
	ctx := t.Context()
	for _, tt := range []struct {
		name  string
		user  string
		req   testsystem.Request
		kind  msgkit.Kind
		field string
	}{
		{"another user's name", "someone", request([]int64{1}, testtext.GSM, "23410"), msgkit.Forbidden, "username"},
		{"unknown gate", "qa", request([]int64{1, 42}, testtext.GSM, "23410"), msgkit.Invalid, "gate_id"},
		{"unknown code", "qa", request([]int64{1}, testtext.GSM, "23410", "99999"), msgkit.Invalid, "mcc_mnc"},
		{"unknown language", "qa", func() testsystem.Request { q := request([]int64{1}, testtext.GSM, "23410"); q.Lang = "xx"; return q }(), msgkit.Invalid, "text_lang"},
		{"a type the language lacks", "qa", func() testsystem.Request {
			q := request([]int64{1}, testtext.GSM, "23410")
			q.Lang = "ru"
			return q
		}(), msgkit.Invalid, "text_type"},
		{"mcc without operators", "qa", testsystem.Request{Username: "qa", Test: "t", Gates: []int64{1}, MCCs: []string{"999"}, Owner: "platform",
			Lang: "en", TextType: testtext.GSM, Callback: "https://e.com"}, msgkit.Invalid, "mcc"},
		{"a user's operator asked of the platform", "qa", func() testsystem.Request {
			q := request([]int64{1}, testtext.GSM, "293040")
			return q
		}(), msgkit.Invalid, "mcc_mnc"},
	} {
		req := tt.req
		if tt.user != "qa" {
			req.Username = "qa"
		}
		_, _, err := r.sys.Send(ctx, tt.user, req)
		e, ok := err.(*msgkit.Error)
		if !ok || e.Kind != tt.kind || len(e.Fields) == 0 || e.Fields[0].Name != tt.field {
			t.Errorf("%s: %v, want %s naming %s", tt.name, err, tt.kind, tt.field)
		}
	}
	if q, _ := r.sys.Quota(ctx, "qa"); q.Used != 0 {
		t.Errorf("refused requests counted: %+v", q)
	}
}

// Owner me sends to the caller's own operators.
func TestOwnOperators(t *testing.T) {
	r := newRig(t, testsystem.Options{}, nil, nil)
	own := testsystem.Dataset{Operators: []testsystem.Operator{{ID: 500, Owner: "qa", Name: "QA Lab", Country: "United Kingdom", MCC: "234", MNC: "10"}}}
	if err := r.db.TestSystem().Load(t.Context(), own); err != nil {
		t.Fatal(err)
	}
	req := request([]int64{1}, testtext.GSM, "23410")
	req.Owner = testsystem.OwnerMe
	sess, _, err := r.sys.Send(t.Context(), "qa", req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := r.sys.Results(t.Context(), "qa", sess.ID, msgkit.ListQuery{})
	if len(page.Items) != 1 || page.Items[0].OperatorID != 500 || page.Items[0].Receiver != "+447700900010" {
		t.Errorf("own operator's message: %+v", page.Items)
	}
	if _, err := r.sys.Results(t.Context(), "other", sess.ID, msgkit.ListQuery{}); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("another user's results: %v", err)
	}
	if _, err := r.sys.Session(t.Context(), "other", sess.ID); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("another user's session: %v", err)
	}
	// The reference lists by owner: OwnerMe is the caller's own.
	mine, err := r.sys.Operators(t.Context(), "qa", testsystem.OwnerMe, msgkit.ListQuery{})
	if err != nil || len(mine.Items) != 1 || mine.Items[0].ID != 500 {
		t.Errorf("qa's own operators: %+v, %v", mine.Items, err)
	}
	if theirs, err := r.sys.Operators(t.Context(), "other", testsystem.OwnerMe, msgkit.ListQuery{}); err != nil || len(theirs.Items) != 0 {
		t.Errorf("another user's own operators: %+v, %v", theirs.Items, err)
	}
	countries := map[string]bool{}
	for _, op := range testsystem.Fixture().Operators {
		countries[op.Country+"/"+op.MCC] = true
	}
	platform, err := r.sys.Countries(t.Context(), "qa", testsystem.OwnerPlatform, msgkit.ListQuery{})
	if err != nil || platform.Total != len(countries) {
		t.Errorf("the platform's countries: %+v, %v", platform, err)
	}
	if _, err := r.sys.Operators(t.Context(), "qa", "everyone", msgkit.ListQuery{}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("owner everyone: %v", err)
	}
	if _, _, err := r.sys.Send(t.Context(), "other", func() testsystem.Request { q := req; q.Username = "other"; return q }()); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("another user's own operators: %v", err)
	}
}

// The daily limit at its boundary, and its reset at midnight UTC.
func TestDailyLimit(t *testing.T) {
	r := newRig(t, testsystem.Options{DailyLimit: 2}, nil, nil)
	r.clock.Set(time.Date(2026, 11, 24, 23, 59, 0, 0, time.UTC))
	ctx := t.Context()
	for i := 1; i <= 2; i++ {
		_, q, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410"))
		if err != nil || q.Used != i || q.Remaining != 2-i || r.sys.ResetIn(q) != time.Minute {
			t.Fatalf("request %d: %+v, %v", i, q, err)
		}
	}
	_, q, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410"))
	if msgkit.KindOf(err) != msgkit.RateLimited || msgkit.CodeOf(err) != testsystem.CodeRateLimit || q.Remaining != 0 || q.Limit != 2 {
		t.Fatalf("third request: %+v, %v", q, err)
	}
	if _, _, err := r.sys.Send(ctx, "qb", func() testsystem.Request {
		q := request([]int64{1}, testtext.GSM, "23410")
		q.Username = "qb"
		return q
	}()); err != nil {
		t.Errorf("another user is limited too: %v", err)
	}
	r.clock.Set(time.Date(2026, 11, 24, 23, 59, 59, 999e6, time.UTC))
	if _, _, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410")); msgkit.KindOf(err) != msgkit.RateLimited {
		t.Errorf("a millisecond before midnight: %v", err)
	}
	r.clock.Set(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	if _, q, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410")); err != nil || q.Used != 1 || q.ResetIn(r.clock.Now()) != 24*time.Hour {
		t.Errorf("at midnight: %+v, %v", q, err)
	}
}

// Senders: fixed, random per message, the same for the session, the
// template's.
func TestSenders(t *testing.T) {
	r := newRig(t, testsystem.Options{}, nil, nil)
	senders := func(mod func(*testsystem.Request)) []string {
		req := request([]int64{1, 3}, testtext.GSM, "23410", "23415")
		mod(&req)
		sess, _, err := r.sys.Send(t.Context(), "qa", req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := r.db.TestSystem().Results(t.Context(), "qa", sess.ID, msgkit.ListQuery{})
		var out []string
		for _, res := range page.Items {
			if _, err := sms.ParseSender(res.Sender); err != nil {
				t.Errorf("sender %q: %v", res.Sender, err)
			}
			out = append(out, res.Sender)
		}
		return out
	}
	distinct := func(ss []string) int {
		m := map[string]bool{}
		for _, s := range ss {
			m[s] = true
		}
		return len(m)
	}
	if got := senders(func(q *testsystem.Request) { q.Sender = "Acme" }); distinct(got) != 1 || got[0] != "Acme" {
		t.Errorf("fixed: %v", got)
	}
	if got := senders(func(q *testsystem.Request) { q.SenderRandom = testsystem.SenderNumeric }); distinct(got) != 4 || len(got[0]) != 11 {
		t.Errorf("random numeric: %v", got)
	}
	if got := senders(func(q *testsystem.Request) { q.SenderSame = testsystem.SenderShort }); distinct(got) != 1 || len(got[0]) < 4 || len(got[0]) > 6 {
		t.Errorf("same short: %v", got)
	}
	if got := senders(func(q *testsystem.Request) { q.SenderRandom = testsystem.SenderAlpha }); distinct(got) < 2 {
		t.Errorf("random alpha: %v", got)
	}
	want, _ := testtext.Default().Text("en", testtext.GSM, "M", 0)
	if got := senders(func(*testsystem.Request) {}); got[0] != want.Sender {
		t.Errorf("template's sender: %v, want %q", got, want.Sender)
	}
}

// BenchmarkSession runs a session of 20 gates × 50 operators (1,000 test
// messages) against simnet to completion on memstore.
func BenchmarkSession(b *testing.B) {
	testsystemtest.BenchmarkSession(b, memstore.New().TestSystem())
}

// A user's own daily limit wins over the system's from its next request,
// is refused out of range, and taking it away brings the default back.
func TestUserDailyLimit(t *testing.T) {
	r := newRig(t, testsystem.Options{DailyLimit: 5}, nil, nil)
	r.sys = testsystem.New(r.db.TestSystem(), r.db.TestSystem(), r.handsets, func(id int64) (sms.Upstream, bool) {
		n, ok := r.nets[id]
		return n, ok
	}, testsystem.Options{DailyLimit: 5, Clock: r.clock.Now, Limits: r.db.TestSystem()})
	ctx := t.Context()
	if _, err := r.sys.SetDailyLimit(ctx, "qa", 1); err != nil {
		t.Fatal(err)
	}
	if q, err := r.sys.Quota(ctx, "qa"); err != nil || q.Limit != 1 {
		t.Fatalf("qa's quota: %+v, %v", q, err)
	}
	if _, _, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410")); err != nil {
		t.Fatal(err)
	}
	_, q, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410"))
	if msgkit.KindOf(err) != msgkit.RateLimited || q.Limit != 1 {
		t.Fatalf("qa's second request: %+v, %v", q, err)
	}
	for _, bad := range []int{-1, testsystem.MaxDailyLimit + 1} {
		if _, err := r.sys.SetDailyLimit(ctx, "qa", bad); msgkit.CodeOf(err) != testsystem.CodeInvalidLimit {
			t.Errorf("a limit of %d: %v", bad, err)
		}
	}
	if err := r.sys.DeleteDailyLimit(ctx, "qa"); err != nil {
		t.Fatal(err)
	}
	if _, q, err := r.sys.Send(ctx, "qa", request([]int64{1}, testtext.GSM, "23410")); err != nil || q.Limit != 5 || q.Used != 2 {
		t.Errorf("after the limit went: %+v, %v", q, err)
	}
	if err := r.sys.DeleteDailyLimit(ctx, "qa"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("deleting twice: %v", err)
	}
}
