package inbound_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// fixture is a Router over memstore with records and accounts to route by.
type fixture struct {
	db     *memstore.DB
	routes *routing.Service
	accts  *sms.Accounts
	router *inbound.Router
	now    time.Time
	reg    *prometheus.Registry
}

func newFixture(t *testing.T, opts inbound.RouterOptions) *fixture {
	t.Helper()
	f := &fixture{db: memstore.New(), now: t0, reg: prometheus.NewRegistry()}
	f.routes = routing.New(f.db.Routing())
	f.accts = sms.NewAccounts(f.db.SMS(), sms.AccountsOptions{BcryptCost: 4})
	for _, a := range []sms.Account{
		{Username: "esme", Enabled: true, Currency: "EUR", Validity: time.Hour},
		{Username: "web", Enabled: true, Currency: "EUR", InboundURL: "https://web.example/mo"},
		{Username: "nourl", Enabled: true, Currency: "EUR"},
		{Username: "off", Enabled: false, Currency: "EUR", InboundURL: "https://off.example/mo"},
	} {
		if _, err := f.accts.Create(t.Context(), sms.AccountSpec{Password: "pw", Account: a}); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Routes == nil {
		opts.Routes = f.routes
	}
	opts.Accounts = f.accts
	opts.Clock = func() time.Time { return f.now }
	opts.Metrics = f.reg
	f.router = inbound.NewRouter(f.db.Inbound(), opts)
	return f
}

func (f *fixture) route(t *testing.T, id int64, sigtran, smpp, esme string) {
	t.Helper()
	if _, err := f.routes.Create(t.Context(), routing.InputOf(routing.Route{ID: id, Sigtran: sigtran, SMPP: smpp, ESME: esme})); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) kept(t *testing.T) []inbound.Message {
	t.Helper()
	p, err := f.router.Messages(t.Context(), msgkit.ListQuery{PageNumber: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func (f *fixture) queued(t *testing.T) []sms.Report {
	t.Helper()
	rs, err := f.db.SMS().ClaimReports(t.Context(), f.now.Add(time.Hour), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

const u = routing.Unused

// The rule, record kind by record kind: what is kept and what is queued.
func TestRouteByRecord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		routes  [][3]string // sigtran, smpp, esme; ids 1, 2, ... in order
		state   inbound.State
		routeID int64
		url     string
		reason  string
		outcome string
	}{
		{"esme_connect_id: the account's binds", [][3]string{{"simnet", u, "esme"}}, inbound.Routed, 1, "smpp:esme", "", "routed_binds"},
		{"smpp_connect_id: the account's inbound URL", [][3]string{{"simnet", "web", u}}, inbound.Routed, 1, "https://web.example/mo", "", "routed_http"},
		{"lowest id wins", [][3]string{{"other", u, "esme"}, {"simnet", "web", u}, {"simnet", u, "esme"}}, inbound.Routed, 2, "https://web.example/mo", "", "routed_http"},
		{"no record of the connection", [][3]string{{"other", u, "esme"}}, inbound.Unroutable, 0, "", `no inbound route has sigtran_connect_id "simnet"`, "no_route"},
		{"no such account (esme)", [][3]string{{"simnet", u, "ghost"}}, inbound.Unroutable, 1, "", `route 1: esme_connect_id "ghost" is no bulk SMS account`, "no_account"},
		{"no such account (smpp)", [][3]string{{"simnet", "ghost", u}}, inbound.Unroutable, 1, "", `route 1: smpp_connect_id "ghost" is no bulk SMS account`, "no_account"},
		{"suspended account", [][3]string{{"simnet", "off", u}}, inbound.Unroutable, 1, "", `route 1: account "off" is suspended`, "account_suspended"},
		{"account without inbound URL", [][3]string{{"simnet", "nourl", u}}, inbound.Unroutable, 1, "", `route 1: account "nourl" has no inboundUrl`, "no_inbound_url"},
		{"an ESME needs no URL", [][3]string{{"simnet", u, "nourl"}}, inbound.Routed, 1, "smpp:nourl", "", "routed_binds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, inbound.RouterOptions{})
			for i, r := range tc.routes {
				f.route(t, int64(i+1), r[0], r[1], r[2])
			}
			in := sms.Inbound{Conn: "simnet", Source: "+41790000001", Dest: "4560", DCS: gsm.DCSGSM, Text: "STOP é", At: t0}
			if err := f.router.HandleInbound(t.Context(), in); err != nil {
				t.Fatal(err)
			}
			got := f.kept(t)
			if len(got) != 1 {
				t.Fatalf("kept %d messages, want 1", len(got))
			}
			m := got[0]
			if m.State != tc.state || m.RouteID != tc.routeID || m.URL != tc.url || m.Reason != tc.reason || m.Source != "41790000001" || m.Text != "STOP é" {
				t.Errorf("kept %+v", m)
			}
			if !inbound.IsID(m.ID) {
				t.Errorf("id %s is not an inbound id", m.ID)
			}
			if n := testutil.ToFloat64(counter(t, f.reg, tc.outcome)); n != 1 {
				t.Errorf("outcome %s counted %v times", tc.outcome, n)
			}
			rs := f.queued(t)
			if tc.state != inbound.Routed {
				if len(rs) != 0 {
					t.Errorf("queued %+v for an unroutable message", rs)
				}
				return
			}
			if len(rs) != 1 || rs[0].MsgID != m.ID || rs[0].PartNum != 0 || rs[0].URL != tc.url {
				t.Fatalf("queued %+v", rs)
			}
			if acct, ok := sms.BindAccount(tc.url); ok {
				var d sms.BindDelivery
				if err := json.Unmarshal(rs[0].Body, &d); err != nil {
					t.Fatal(err)
				}
				validity := time.Hour
				if acct != "esme" {
					validity = sms.DefaultValidity
				}
				want := sms.BindDelivery{Kind: sms.BindMessage, MsgID: m.ID, Source: "41790000001", Dest: "4560", Text: "STOP é", DCS: "GSM",
					DoneTime: t0.Unix(), ExpiresAt: t0.Add(validity).Unix()}
				if diff := cmp.Diff(want, d); diff != "" {
					t.Errorf("bind delivery (-want +got):\n%s", diff)
				}
				return
			}
			var b inbound.Body
			if err := json.Unmarshal(rs[0].Body, &b); err != nil {
				t.Fatal(err)
			}
			want := inbound.Body{MsgID: m.ID, Event: "MO", Source: "41790000001", Dest: "4560", Text: "STOP é", DCS: "GSM", NumParts: 1,
				RecvTime: t0.Unix(), AccountName: "web"}
			if diff := cmp.Diff(want, b); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func counter(t *testing.T, reg *prometheus.Registry, outcome string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "msgkit_inbound_messages_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == outcome {
				c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
				c.Add(m.GetCounter().GetValue())
				return c
			}
		}
	}
	t.Fatalf("no outcome %s", outcome)
	return nil
}

// The parts of a long message are joined, in any order of arrival, and
// routed whole; a part sent again replaces the one held.
func TestLongMessageJoined(t *testing.T) {
	f := newFixture(t, inbound.RouterOptions{})
	f.route(t, 1, "simnet", "web", u)
	parts := []sms.Inbound{
		{Seq: 3, Text: "three"}, {Seq: 1, Text: "one "}, {Seq: 1, Text: "ONE "}, {Seq: 2, Text: "two ", DCS: gsm.DCSUCS},
	}
	for i, p := range parts {
		p.Conn, p.Source, p.Dest, p.Ref, p.Total, p.At = "simnet", "41790000001", "4560", 0x1234, 3, t0.Add(time.Duration(i)*time.Second)
		if p.DCS == 0 {
			p.DCS = gsm.DCSGSM
		}
		if err := f.router.HandleInbound(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if i < len(parts)-1 && len(f.kept(t)) != 0 {
			t.Fatalf("kept before the last part")
		}
	}
	got := f.kept(t)
	if len(got) != 1 || got[0].Text != "ONE two three" || got[0].Parts != 3 || got[0].DCS != "UCS" || !got[0].ReceivedAt.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("kept %+v", got)
	}
	if f.router.Gathering() != 0 {
		t.Errorf("%d parts still held", f.router.Gathering())
	}
}

// A long message missing a part after PartsWait is kept with what came,
// as Incomplete, and not delivered.
func TestIncompleteKept(t *testing.T) {
	f := newFixture(t, inbound.RouterOptions{PartsWait: time.Minute})
	f.route(t, 1, "simnet", "web", u)
	for _, seq := range []uint8{1, 3} {
		in := sms.Inbound{Conn: "simnet", Source: "41790000001", Dest: "4560", Ref: 7, Total: 3, Seq: seq, Text: "p" + string('0'+rune(seq)), At: f.now}
		if err := f.router.HandleInbound(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	f.now = t0.Add(59 * time.Second)
	if n, err := f.router.Sweep(t.Context()); n != 0 || err != nil {
		t.Fatalf("swept %d, %v before the wait ran out", n, err)
	}
	f.now = t0.Add(time.Minute)
	if n, err := f.router.Sweep(t.Context()); n != 1 || err != nil {
		t.Fatalf("swept %d, %v", n, err)
	}
	got := f.kept(t)
	if len(got) != 1 || got[0].State != inbound.Incomplete || got[0].Text != "p1p3" || got[0].Parts != 2 || got[0].Total != 3 ||
		got[0].Reason != "2 of 3 parts arrived within 1m0s" {
		t.Fatalf("kept %+v", got)
	}
	if rs := f.queued(t); len(rs) != 0 {
		t.Errorf("queued %+v", rs)
	}
	if n := testutil.ToFloat64(counter(t, f.reg, "incomplete")); n != 1 {
		t.Errorf("incomplete counted %v", n)
	}
}

// More messages waiting than MaxGathering: a part that would start one
// more is kept on its own.
func TestGatheringBounded(t *testing.T) {
	f := newFixture(t, inbound.RouterOptions{MaxGathering: 1})
	for ref := range uint16(2) {
		in := sms.Inbound{Conn: "simnet", Source: "41790000001", Dest: "4560", Ref: ref, Total: 2, Seq: 1, Text: "x", At: f.now}
		if err := f.router.HandleInbound(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.kept(t); len(got) != 1 || got[0].State != inbound.Incomplete || f.router.Gathering() != 1 {
		t.Errorf("kept %+v, %d held", got, f.router.Gathering())
	}
}

// failingRoutes fails while fail is set.
type failingRoutes struct {
	mu   sync.Mutex
	fail bool
	rs   inbound.Routes
}

func (r *failingRoutes) Routes(ctx context.Context) ([]routing.Route, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return nil, msgkit.New(msgkit.Unavailable, "down", "the database is unavailable")
	}
	return r.rs.Routes(ctx)
}

// A failure to read the records is the network's to retry: nothing is
// kept, and the part that completed a long message completes it again
// when offered again.
func TestFailureOfferedAgain(t *testing.T) {
	fr := &failingRoutes{fail: true}
	f := newFixture(t, inbound.RouterOptions{Routes: fr, CacheFor: -1})
	fr.rs = f.routes
	f.route(t, 1, "simnet", "web", u)
	one := sms.Inbound{Conn: "simnet", Source: "41790000001", Dest: "4560", Ref: 1, Total: 2, Seq: 1, Text: "a", At: f.now}
	two := one
	two.Seq, two.Text = 2, "b"
	if err := f.router.HandleInbound(t.Context(), one); err != nil {
		t.Fatal(err)
	}
	if err := f.router.HandleInbound(t.Context(), two); msgkit.KindOf(err) != msgkit.Unavailable {
		t.Fatalf("with the records unreadable: %v", err)
	}
	if len(f.kept(t)) != 0 || f.router.Gathering() != 1 {
		t.Fatalf("kept %v, %d held", f.kept(t), f.router.Gathering())
	}
	fr.fail = false
	if err := f.router.HandleInbound(t.Context(), two); err != nil {
		t.Fatal(err)
	}
	if got := f.kept(t); len(got) != 1 || got[0].Text != "ab" || got[0].State != inbound.Routed {
		t.Errorf("kept %+v", got)
	}
}

// Records are read through the cache: a change reaches traffic within
// CacheFor.
func TestRecordsCached(t *testing.T) {
	f := newFixture(t, inbound.RouterOptions{CacheFor: time.Second})
	send := func() inbound.Message {
		t.Helper()
		if err := f.router.HandleInbound(t.Context(), sms.Inbound{Conn: "simnet", Source: "1", Dest: "2", Text: "x"}); err != nil {
			t.Fatal(err)
		}
		got := f.kept(t)
		return got[len(got)-1]
	}
	if m := send(); m.State != inbound.Unroutable {
		t.Fatalf("%+v", m)
	}
	f.route(t, 1, "simnet", "web", u)
	if m := send(); m.State != inbound.Unroutable {
		t.Errorf("a record seen before the cache ran out: %+v", m)
	}
	f.now = f.now.Add(time.Second)
	if m := send(); m.State != inbound.Routed {
		t.Errorf("a record not seen after the cache ran out: %+v", m)
	}
}

// Gathering, the store failing: nothing is lost from what the network
// was told is taken.
func TestKeepFailure(t *testing.T) {
	f := newFixture(t, inbound.RouterOptions{})
	st := &failingStore{Store: f.db.Inbound(), err: errors.New("disk full")}
	r := inbound.NewRouter(st, inbound.RouterOptions{Routes: f.routes, Accounts: f.accts})
	if err := r.HandleInbound(t.Context(), sms.Inbound{Conn: "simnet", Text: "x"}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("a failed keep answered %v", err)
	}
}

type failingStore struct {
	inbound.Store
	err error
}

func (s *failingStore) Keep(context.Context, inbound.Message, *sms.Report) error { return s.err }
