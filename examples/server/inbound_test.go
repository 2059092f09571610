package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
