// Package inboundtest is the store contract of package inbound: every
// inbound.Store passes Run, so that memstore and pgstore behave alike,
// and Bench measures routing and keeping a message on a store.
package inboundtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
)

// Fixture is a store under test and the SMS outbox its deliveries are
// queued in.
type Fixture struct {
	Store  inbound.Store
	Outbox sms.OutboxStore
	// Routes, when set (Bench only), holds the records, read through
	// routing.Service.
	Routes routing.Store
}

// Run runs the contract against stores newStore makes, each empty.
func Run(t *testing.T, newStore func(t *testing.T) Fixture) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Fixture)
	}{
		{"keep with delivery", testKeepRouted},
		{"keep without delivery", testKeepUnroutable},
		{"refused whole", testRefused},
		{"listing", testListing},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)

func message(i int, state inbound.State) inbound.Message {
	at := t0.Add(time.Duration(i) * time.Second)
	m := inbound.Message{ID: inbound.NewID(at), Conn: "simnet", Source: fmt.Sprintf("4179000%04d", i), Dest: "4560", DCS: "GSM",
		Text: fmt.Sprintf("message %d: ça va? €", i), Parts: 1, Total: 1, ReceivedAt: at, State: state}
	switch state {
	case inbound.Routed:
		m.RouteID, m.Account, m.URL = 7, "shop", "https://shop.example/mo"
	case inbound.Unroutable:
		m.Reason = `no inbound route has sigtran_connect_id "simnet"`
	case inbound.Incomplete:
		m.Reason, m.Parts, m.Total = "1 of 2 parts arrived within 5m0s", 1, 2
	}
	return m
}

func reportOf(m inbound.Message) *sms.Report {
	b, _ := json.Marshal(inbound.BodyOf(m))
	return &sms.Report{MsgID: m.ID, URL: m.URL, Body: b, State: sms.ReportPending, NextAt: m.ReceivedAt, CreatedAt: m.ReceivedAt}
}

func all(t *testing.T, s inbound.Store) []inbound.Message {
	t.Helper()
	p, err := s.Messages(context.Background(), msgkit.ListQuery{PageNumber: 1, PageSize: 100})
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	if p.Total != len(p.Items) {
		t.Errorf("total %d, %d items", p.Total, len(p.Items))
	}
	return p.Items
}

func claim(t *testing.T, o sms.OutboxStore) []sms.Report {
	t.Helper()
	rs, err := o.ClaimReports(context.Background(), t0.Add(time.Hour), time.Minute, 100)
	if err != nil {
		t.Fatalf("ClaimReports: %v", err)
	}
	return rs
}

func testKeepRouted(t *testing.T, f Fixture) {
	m := message(1, inbound.Routed)
	r := reportOf(m)
	if err := f.Store.Keep(context.Background(), m, r); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	if diff := cmp.Diff([]inbound.Message{m}, all(t, f.Store)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	rs := claim(t, f.Outbox)
	if len(rs) != 1 {
		t.Fatalf("claimed %d reports, want the message's delivery", len(rs))
	}
	got := rs[0]
	if got.MsgID != m.ID || got.PartNum != 0 || got.URL != m.URL || string(got.Body) != string(r.Body) || got.State != sms.ReportPending {
		t.Errorf("queued %+v, want %+v", got, *r)
	}
	// The outbox finishes it as any report.
	got.State, got.Attempts = sms.ReportDelivered, 1
	if errs := f.Outbox.FinishReports(context.Background(), []sms.Report{got}); errs[0] != nil {
		t.Errorf("FinishReports: %v", errs[0])
	}
}

func testKeepUnroutable(t *testing.T, f Fixture) {
	for i, st := range []inbound.State{inbound.Unroutable, inbound.Incomplete} {
		if err := f.Store.Keep(context.Background(), message(i, st), nil); err != nil {
			t.Fatalf("Keep %s: %v", st, err)
		}
	}
	if got := all(t, f.Store); len(got) != 2 || got[0].State != inbound.Unroutable || got[1].State != inbound.Incomplete {
		t.Errorf("kept %+v", got)
	}
	if rs := claim(t, f.Outbox); len(rs) != 0 {
		t.Errorf("queued %+v for messages not delivered", rs)
	}
}

func testRefused(t *testing.T, f Fixture) {
	ctx := context.Background()
	kept := message(0, inbound.Routed)
	if err := f.Store.Keep(ctx, kept, reportOf(kept)); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	bad := func(fn func(*inbound.Message)) inbound.Message {
		m := message(1, inbound.Routed)
		fn(&m)
		return m
	}
	for _, tc := range []struct {
		name string
		m    inbound.Message
		kind msgkit.Kind
	}{
		{"NUL in text", bad(func(m *inbound.Message) { m.Text = "a\x00b" }), msgkit.Invalid},
		{"invalid UTF-8", bad(func(m *inbound.Message) { m.Source = "\xff" }), msgkit.Invalid},
		{"no state", bad(func(m *inbound.Message) { m.State = "" }), msgkit.Invalid},
		{"id taken", bad(func(m *inbound.Message) { m.ID = kept.ID }), msgkit.Conflict},
	} {
		err := f.Store.Keep(ctx, tc.m, reportOf(tc.m))
		if msgkit.KindOf(err) != tc.kind {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.kind)
		}
	}
	if got := all(t, f.Store); len(got) != 1 || got[0].ID != kept.ID {
		t.Errorf("kept %+v, want only the first", got)
	}
	if rs := claim(t, f.Outbox); len(rs) != 1 || rs[0].MsgID != kept.ID {
		t.Errorf("queued %+v, want only the first's delivery", rs)
	}
}

func testListing(t *testing.T, f Fixture) {
	ctx := context.Background()
	states := []inbound.State{inbound.Routed, inbound.Unroutable, inbound.Routed, inbound.Incomplete, inbound.Unroutable}
	var want []inbound.Message
	for i, st := range states {
		m := message(i, st)
		var r *sms.Report
		if st == inbound.Routed {
			r = reportOf(m)
		}
		if err := f.Store.Keep(ctx, m, r); err != nil {
			t.Fatalf("Keep: %v", err)
		}
		want = append(want, m)
	}
	for _, tc := range []struct {
		query string
		want  []int
		total int
	}{
		{"", []int{0, 1, 2, 3, 4}, 5},
		{"state=unroutable", []int{1, 4}, 2},
		{"in(state)=routed,incomplete&sort=-receivedAt", []int{3, 2, 0}, 3},
		{"page_size=2&page_number=2", []int{2, 3}, 5},
		{"source=41790000003", []int{3}, 1},
		{"gte(receivedAt)=" + url.QueryEscape(t0.Add(3*time.Second).Format(time.RFC3339Nano)), []int{3, 4}, 2},
		{"account=shop&routeId=7", []int{0, 2}, 2},
	} {
		v, _ := url.ParseQuery(tc.query)
		q, err := msgkit.ParseListQuery(v, inbound.ListSpec)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		p, err := f.Store.Messages(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		var w []inbound.Message
		for _, i := range tc.want {
			w = append(w, want[i])
		}
		if diff := cmp.Diff(w, p.Items); diff != "" || p.Total != tc.total {
			t.Errorf("%s: total %d, want %d; (-want +got):\n%s", tc.query, p.Total, tc.total, diff)
		}
	}
}

// Bench measures a Router routing one message by a record and keeping it
// with its delivery on the store newStore makes, per operation. The
// accounts come from memory; the records too ("records in memory"), or,
// with Fixture.Routes, from that store through routing.Service, through
// the Router's cache ("records cached") and read for every message
// ("records read each time"), which tells what the cache saves.
func Bench(b *testing.B, newStore func(b *testing.B) Fixture) {
	routes := staticRoutes{{ID: 1, Sigtran: "simnet", SMPP: routing.Unused, ESME: "shop"}, {ID: 2, Sigtran: "smsc", SMPP: "shop", ESME: routing.Unused}}
	accts := staticAccounts{"shop": {Username: "shop", Enabled: true, InboundURL: "https://shop.example/mo"}}
	run := func(b *testing.B, f Fixture, rs inbound.Routes, cacheFor time.Duration) {
		r := inbound.NewRouter(f.Store, inbound.RouterOptions{Routes: rs, Accounts: accts, CacheFor: cacheFor})
		conns := []string{"simnet", "smsc"}
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			in := sms.Inbound{Conn: conns[i%2], Source: "41790000001", Dest: "4560", Text: "STOP 12345 please", At: time.Now()}
			if err := r.HandleInbound(ctx, in); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("records in memory", func(b *testing.B) { run(b, newStore(b), routes, 0) })
	f := newStore(b)
	if f.Routes == nil {
		return
	}
	svc := routing.New(f.Routes)
	for _, r := range routes {
		if _, err := svc.Create(context.Background(), routing.InputOf(r)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("records cached", func(b *testing.B) { run(b, f, svc, 0) })
	b.Run("records read each time", func(b *testing.B) { run(b, f, svc, -1) })
}

type staticRoutes []routing.Route

func (s staticRoutes) Routes(context.Context) ([]routing.Route, error) { return s, nil }

type staticAccounts map[string]sms.Account

func (s staticAccounts) Get(_ context.Context, u string) (sms.Account, error) {
	if a, ok := s[u]; ok {
		return a, nil
	}
	return sms.Account{}, sms.AccountNotFound(u)
}
