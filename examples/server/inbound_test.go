package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// inboundSink is a customer's inbound URL that fails for a while.
type inboundSink struct {
	mu      sync.Mutex
	failing int
	got     []inbound.Body
	srv     *httptest.Server
}

func newInboundSink(t *testing.T) *inboundSink {
	s := &inboundSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.failing > 0 {
			s.failing--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var b inbound.Body
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.got = append(s.got, b)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *inboundSink) bodies() []inbound.Body {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]inbound.Body(nil), s.got...)
}

// A long message from a phone on the simulated network reaches the
// account's inbound URL through the report outbox's dispatcher (after
// the URL failed for a while), joined; one that arrived before a record
// routed the network's messages is kept as unroutable and listed.
func TestInboundEndToEnd(t *testing.T) {
	t.Parallel()
	type storesOf struct {
		sms     smsStore
		inbound inbound.Store
		routes  routing.Store
	}
	for name, open := range map[string]func(t *testing.T) storesOf{
		"memory": func(t *testing.T) storesOf {
			db := memstore.New()
			return storesOf{db.SMS(), db.Inbound(), db.Routing()}
		},
		"postgres": func(t *testing.T) storesOf {
			db := openPG(t, pgConfig(t))
			return storesOf{db.SMS(), db.Inbound(), db.Routing()}
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
			node := newNode(t, st.sms, clock, func(o *bulkSMSOptions) {
				o.Inbound, o.Routes = st.inbound, st.routes
			})
			sink := newInboundSink(t)
			sink.failing = 2
			if _, err := node.accounts.Create(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
				Username: "shop", Enabled: true, Currency: "EUR", Balance: decimal.Zero, InboundURL: sink.srv.URL + "/mo",
			}}); err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if err := node.network.Originate(ctx, node.inbound, "+41790000001", "4560", "before any route"); err != nil {
				t.Fatal(err)
			}
			if _, err := routing.New(st.routes).Create(ctx, routing.InputOf(routing.Route{Sigtran: node.network.Name(), SMPP: "shop", ESME: routing.Unused})); err != nil {
				t.Fatal(err)
			}
			clock.Advance(inbound.DefaultCacheFor) // the router sees the record
			long := strings.Repeat("a reply from a phone, ", 10)
			if err := node.network.Originate(ctx, node.inbound, "+41790000001", "4560", long); err != nil {
				t.Fatal(err)
			}
			for range 5 {
				node.step(t, clock, 10*time.Second)
			}
			got := sink.bodies()
			if len(got) != 1 || got[0].Text != long || got[0].Source != "41790000001" || got[0].Dest != "4560" || got[0].NumParts != 2 ||
				got[0].AccountName != "shop" || got[0].Event != "MO" || !inbound.IsID(got[0].MsgID) {
				t.Fatalf("the inbound URL got %+v", got)
			}
			v, _ := url.ParseQuery("state=unroutable")
			q, err := msgkit.ParseListQuery(v, inbound.ListSpec)
			if err != nil {
				t.Fatal(err)
			}
			page, err := node.inbound.Messages(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].Text != "before any route" || page.Items[0].Conn != "simnet" {
				t.Errorf("unroutable: %+v", page.Items)
			}
		})
	}
}

// A message from a phone that an SMSC sends as a deliver_sm reaches the
// router through the server's SMPP client, named by its connection, and
// the record of that connection routes it to an ESME's binds.
func TestInboundFromSMSC(t *testing.T) {
	t.Parallel()
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}})
	addr, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	db := memstore.New()
	clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	node := newNode(t, db.SMS(), clock, func(o *bulkSMSOptions) {
		o.SMPP = &smpp.Config{Name: "smsc-1", Addr: addr, SystemID: "msgkit", Password: "secret", MinBackoff: 10 * time.Millisecond, Timeout: 2 * time.Second}
		o.SMPPStore, o.Inbound, o.Routes = db.SMPP(), db.Inbound(), db.Routing()
	})
	if _, err := node.accounts.Create(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{Username: "acme", Enabled: true, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := routing.New(db.Routing()).Create(t.Context(), routing.InputOf(routing.Route{ID: 5, Sigtran: "smsc-1", SMPP: routing.Unused, ESME: "acme"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { node.smsc.Run(ctx, node.gateway); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	text, _ := gsm.AppendCodes(nil, "YES please")
	mo := pdu.DeliverSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 1, NPI: 1, Addr: "41790000001"}, Dest: pdu.Address{Addr: "4560"}, Message: text}}
	if err := sim.Deliver("msgkit", "mo", mo); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.WaitAcked(ctx, 1); err != nil {
		t.Fatalf("the message from a phone was not acknowledged: %v", err)
	}
	page, err := node.inbound.Messages(ctx, msgkit.ListQuery{PageNumber: 1, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].Conn != "smsc-1" || page.Items[0].State != inbound.Routed || page.Items[0].URL != sms.BindURL("acme") ||
		page.Items[0].Text != "YES please" || page.Items[0].RouteID != 5 {
		t.Fatalf("kept %+v", page.Items)
	}
	rs, err := db.SMS().ClaimReports(ctx, clock.Now().Add(time.Hour), time.Minute, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("queued %v, %v", rs, err)
	}
	var d sms.BindDelivery
	if err := json.Unmarshal(rs[0].Body, &d); err != nil || d.Kind != sms.BindMessage || d.Text != "YES please" || d.Source != "41790000001" || d.Dest != "4560" {
		t.Errorf("the binds' delivery: %+v, %v", d, err)
	}
}

// A message from a simnet phone routed by esme_connect_id reaches the
// ESME as a deliver_sm over its receiver bind, through the dispatcher and
// the SMPP server, and is delivered once the ESME answers.
func TestInboundToESME(t *testing.T) {
	t.Parallel()
	db := memstore.New()
	clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	node := newNode(t, db.SMS(), clock, func(o *bulkSMSOptions) { o.Inbound, o.Routes = db.Inbound(), db.Routing() })
	srv := smppserver.New(node.gateway, smppserver.Options{Clock: clock.Now})
	node.reports.Binds = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	if _, err := node.accounts.Create(t.Context(), sms.AccountSpec{Password: "esme-pw", Account: sms.Account{Username: "esme", Enabled: true, Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := routing.New(db.Routing()).Create(t.Context(), routing.InputOf(routing.Route{Sigtran: "simnet", SMPP: routing.Unused, ESME: "esme"})); err != nil {
		t.Fatal(err)
	}
	rx, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rx.Close() })
	esmeWrite(t, rx, pdu.PDU{Seq: 1, Body: &pdu.Bind{Mode: pdu.Receiver, SystemID: "esme", Password: "esme-pw", Version: pdu.InterfaceVersion}})
	if r := esmeRead(t, rx, 10*time.Second); r.Status != pdu.ESME_ROK {
		t.Fatalf("bind: %s", r.Status)
	}
	if err := node.network.Originate(t.Context(), node.inbound, "+41790000001", "4560", "Ja, gerne"); err != nil {
		t.Fatal(err)
	}
	got := make(chan *pdu.DeliverSM, 1)
	go func() {
		for {
			rx.SetReadDeadline(time.Now().Add(10 * time.Second))
			p, _, err := pdu.Read(rx, nil, 0)
			if err != nil {
				close(got)
				return
			}
			switch b := p.Body.(type) {
			case *pdu.DeliverSM:
				b2, _ := pdu.Append(nil, pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
				rx.Write(b2)
				got <- b
				return
			case *pdu.Empty:
				if b.ID == pdu.CmdEnquireLink {
					b2, _ := pdu.Append(nil, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
					rx.Write(b2)
				}
			}
		}
	}()
	node.step(t, clock, time.Second)
	d, ok := <-got
	if !ok {
		t.Fatal("no deliver_sm")
	}
	in, err := smpp.InboundOf(d, "esme-side", false)
	if err != nil || in.Text != "Ja, gerne" || in.Source != "41790000001" || in.Dest != "4560" || d.ESMClass&pdu.ESMClassReceiptMask != 0 {
		t.Errorf("deliver_sm %+v read as %+v, %v", d, in, err)
	}
	counts, err := db.SMS().ReportCounts(t.Context())
	if err != nil || counts[sms.ReportDelivered] != 1 || counts[sms.ReportPending] != 0 {
		t.Errorf("outbox %v, %v", counts, err)
	}
}
