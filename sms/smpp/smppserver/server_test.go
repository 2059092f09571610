package smppserver_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// fixture is a server over a real gateway on memory, listening on
// loopback, with the account "shop" (password "pw").
type fixture struct {
	store *memstore.SMSStore
	gw    *sms.Gateway
	srv   *smppserver.Server
	addr  string
}

func newFixture(t testing.TB, opts smppserver.Options, change func(*sms.Account)) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New().SMS()}
	f.gw = sms.NewGateway(f.store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost, Clock: opts.Clock})
	f.account(t, "shop", change)
	f.srv = smppserver.New(f.gw, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != smppserver.ErrServerClosed {
			t.Errorf("Serve: %v", err)
		}
	})
	return f
}

// networks are the fixture's accounts': loopback.
func (f *fixture) networks() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
}

func (f *fixture) account(t testing.TB, name string, change func(*sms.Account)) {
	t.Helper()
	a := sms.Account{
		Username: name, Networks: f.networks(), Enabled: true,
		Balance: decimal.RequireFromString("100"), Currency: "EUR", MaxParts: 10,
		Prices: []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}
	if change != nil {
		change(&a)
	}
	if _, err := f.gw.CreateAccount(t.Context(), sms.AccountSpec{Account: a, Password: "pw"}); err != nil {
		t.Fatal(err)
	}
}

// sink takes the client's status events.
type sink struct {
	mu  sync.Mutex
	evs []sms.StatusEvent
}

func (s *sink) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, ev)
	return nil
}

// client is the repository's own SMPP client bound to the fixture.
func (f *fixture) client(t testing.TB, cfg smpp.Config) (*smpp.Client, smpp.Store) {
	t.Helper()
	cfg.Addr, cfg.Name = f.addr, "msgkit-server"
	if cfg.SystemID == "" {
		cfg.SystemID, cfg.Password = "shop", "pw"
	}
	cfg.MinBackoff, cfg.MaxBackoff, cfg.Timeout = 10*time.Millisecond, 50*time.Millisecond, 5*time.Second
	store := memstore.New().SMPP()
	c := smpp.New(cfg, smpp.Options{Store: store})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, &sink{}); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, func() bool { return c.Bound() == max(cfg.Binds, 1) })
	return c, store
}

// waitFor waits for a condition (not a schedule), failing after 10 s.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// outbound splits text as a customer's own platform would, for the
// header of reference width w, and makes the parts the client sends.
func outbound(t testing.TB, id, text string, dcs gsm.DCS, w gsm.RefWidth) []sms.OutboundPart {
	t.Helper()
	m, err := gsm.SplitTextRef(nil, text, dcs, 42, w)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]sms.OutboundPart, len(m.Parts))
	for i, p := range m.Parts {
		out[i] = sms.OutboundPart{MsgID: sms.MessageID(id), PartNum: i, NumParts: len(m.Parts), Sender: sms.Sender{Value: "MyShop"},
			Receiver: "+38640123456", DCS: m.DCS, Text: p.Text, UDH: p.UDH, ExpiresAt: time.Now().Add(time.Hour)}
	}
	return out
}

// The repository's client, bound to the server over loopback, sends GSM
// and UCS-2 messages, short and long, with each concatenation: each is
// accepted once, as one message under the id every part was answered,
// charged per part exactly as the same text over HTTP.
func TestClientOverLoopback(t *testing.T) {
	long := strings.Repeat("Your parcel is on its way {tracking}. ", 9) // 342 septets, escapes included: 3 parts
	longUCS := strings.Repeat("Ваша посылка в пути. ", 5)               // 105 UTF-16 units: 2 parts
	for _, concat := range []struct {
		name string
		c    smpp.Concat
	}{{"udh8", smpp.ConcatUDH8}, {"udh16", smpp.ConcatUDH16}, {"sar", smpp.ConcatSAR}} {
		t.Run(concat.name, func(t *testing.T) {
			f := newFixture(t, smppserver.Options{}, nil)
			cfg := smpp.Config{Concat: concat.c, Binds: 2} // parts spread over two binds
			c, cstore := f.client(t, cfg)
			for i, m := range []struct {
				text string
				dcs  gsm.DCS
			}{{"Hello {world} €", gsm.DCSGSM}, {"Привет, мир", gsm.DCSUCS}, {long, gsm.DCSGSM}, {longUCS, gsm.DCSUCS}, {"Emoji 😀 split", gsm.DCSUCS}} {
				id := "c-" + string(rune('a'+i))
				parts := outbound(t, id, m.text, m.dcs, cfg.RefWidth())
				if errs := c.Send(t.Context(), parts); errs != nil {
					t.Fatalf("%q: Send: %v", m.text, errs)
				}
				keys := make([]smpp.PartKey, len(parts))
				for j := range parts {
					keys[j] = smpp.PartKey{MsgID: sms.MessageID(id), PartNum: j}
				}
				taken, err := cstore.SubmittedParts(t.Context(), keys)
				if err != nil || len(taken) != len(parts) {
					t.Fatalf("%q: %d parts taken, %v", m.text, len(taken), err)
				}
				msgID := taken[keys[0]].SMSCID
				for _, k := range keys {
					if taken[k].SMSCID != msgID {
						t.Errorf("%q: part %d answered %s, part 0 %s", m.text, k.PartNum, taken[k].SMSCID, msgID)
					}
				}
				got, err := f.store.Message(t.Context(), sms.MessageID(msgID))
				if err != nil {
					t.Fatalf("%q: the message %s: %v", m.text, msgID, err)
				}
				var text strings.Builder
				for _, p := range got.Parts {
					text.WriteString(p.Text)
				}
				// The same text over HTTP: the same parts and charge.
				dcs := map[gsm.DCS]string{gsm.DCSGSM: "GSM", gsm.DCSUCS: "UCS"}[m.dcs]
				acc, err := f.gw.Submit(t.Context(), sms.Submission{Type: "text", Username: "shop", Password: "pw", Sender: "MyShop",
					Receiver: "38640123456", DCS: dcs, Text: m.text, ClientIP: netip.MustParseAddr("127.0.0.1")})
				if err != nil {
					t.Fatal(err)
				}
				http, _ := f.store.Message(t.Context(), acc.MsgID)
				if text.String() != m.text || got.Account != "shop" || got.Sender.Value != "MyShop" || got.Receiver != "+38640123456" ||
					got.DCS != m.dcs || len(got.Parts) != len(http.Parts) || !got.Charged.Equal(http.Charged) || got.Charged.IsZero() {
					t.Errorf("%q: %d parts, %s charged, text %q; over HTTP %d parts, %s", m.text, len(got.Parts), got.Charged, text.String(), len(http.Parts), http.Charged)
				}
			}
			// Five messages and their HTTP twins, each charged per part.
			a, _ := f.store.Account(t.Context(), "shop")
			want := decimal.RequireFromString("100").Sub(decimal.RequireFromString("0.05").Mul(decimal.NewFromInt(2 * (1 + 1 + 3 + 2 + 1))))
			if !a.Balance.Equal(want) {
				t.Errorf("balance %s, want %s", a.Balance, want)
			}
			if f.srv.Gathering() != 0 {
				t.Errorf("%d messages still gathering", f.srv.Gathering())
			}
		})
	}
}

// Binds are refused for bad credentials, a network the account does not
// allow and beyond the account's binds.
func TestBindRefusals(t *testing.T) {
	f := newFixture(t, smppserver.Options{MaxBinds: 2}, nil)
	f.account(t, "far", func(a *sms.Account) { a.Networks = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")} })
	for _, c := range []struct {
		name, user, pw string
		want           pdu.Status
	}{
		{"wrong password", "shop", "nope", pdu.ESME_RINVPASWD},
		{"unknown account", "nobody", "pw", pdu.ESME_RINVPASWD},
		{"no system_id", "", "pw", pdu.ESME_RINVSYSID},
		{"no password", "shop", "", pdu.ESME_RINVPASWD},
		{"network", "far", "pw", pdu.ESME_RBINDFAIL},
	} {
		e := dial(t, f.addr)
		if got := e.bind(t, pdu.Transceiver, c.user, c.pw); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	a, b := dial(t, f.addr), dial(t, f.addr)
	for _, e := range []*esme{a, b} {
		if got := e.bind(t, pdu.Transmitter, "shop", "pw"); got != pdu.ESME_ROK {
			t.Fatalf("bind: %s", got)
		}
	}
	if got := a.bind(t, pdu.Transmitter, "shop", "pw"); got != pdu.ESME_RALYBND {
		t.Errorf("a second bind on a connection: %s", got)
	}
	third := dial(t, f.addr)
	if got := third.bind(t, pdu.Receiver, "shop", "pw"); got != pdu.ESME_RBINDFAIL {
		t.Errorf("a third bind of two allowed: %s", got)
	}
	// An unbind frees its place.
	a.call(t, pdu.PDU{Body: &pdu.Empty{ID: pdu.CmdUnbind}})
	waitFor(t, func() bool { return f.srv.Binds("shop") == 1 })
	if got := dial(t, f.addr).bind(t, pdu.Receiver, "shop", "pw"); got != pdu.ESME_ROK {
		t.Errorf("a bind after an unbind: %s", got)
	}
}

// Beyond the account's throughput, submit_sm is ESME_RTHROTTLED; a long
// message's throttled last part, sent again, completes it.
func TestThrottling(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := newFixture(t, smppserver.Options{Clock: clock}, func(a *sms.Account) { a.Throughput = 1 })
	e := dial(t, f.addr)
	e.bind(t, pdu.Transmitter, "shop", "pw")
	if r := e.call(t, submitSM("one", nil)); r.Status != pdu.ESME_ROK {
		t.Fatalf("first: %s", r.Status)
	}
	if r := e.call(t, submitSM("two", nil)); r.Status != pdu.ESME_RTHROTTLED {
		t.Fatalf("second within the second: %s", r.Status)
	}
	// A long message: its first part is taken, its last throttled.
	r1 := e.call(t, submitSM("part one ", udh8(9, 2, 1)))
	r2 := e.call(t, submitSM("part two", udh8(9, 2, 2)))
	if r1.Status != pdu.ESME_ROK || r2.Status != pdu.ESME_RTHROTTLED {
		t.Fatalf("parts: %s, %s", r1.Status, r2.Status)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	r2 = e.call(t, submitSM("part two", udh8(9, 2, 2)))
	id := r1.Body.(*pdu.SubmitSMResp).MessageID
	if r2.Status != pdu.ESME_ROK || r2.Body.(*pdu.SubmitSMResp).MessageID != id {
		t.Fatalf("the last part again: %s %+v, want the first part's id %s", r2.Status, r2.Body, id)
	}
	m, err := f.store.Message(t.Context(), sms.MessageID(id))
	if err != nil || m.Parts[0].Text != "part one part two" {
		t.Fatalf("the message: %+v, %v", m, err)
	}
}

// The server sends enquire_link to a silent bind and closes one that
// does not answer.
func TestEnquireLinkAndDeadPeer(t *testing.T) {
	f := newFixture(t, smppserver.Options{EnquireEvery: 20 * time.Millisecond, DeadAfter: 200 * time.Millisecond}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transceiver, "shop", "pw")
	p := e.read(t)
	if p.Body.Command() != pdu.CmdEnquireLink {
		t.Fatalf("%s, want enquire_link", p.Body.Command())
	}
	e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
	// Now silent: more enquire_link, then the connection closed.
	for {
		e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		p, _, err := pdu.Read(e.nc, nil, 0)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the dead peer was not closed")
			}
			break // closed
		}
		if p.Body.Command() != pdu.CmdEnquireLink {
			t.Fatalf("%s, want enquire_link", p.Body.Command())
		}
	}
	waitFor(t, func() bool { return f.srv.Binds("shop") == 0 })
}

// Shutdown answers what it read, unbinds every bind and closes.
func TestShutdownUnbinds(t *testing.T) {
	f := newFixture(t, smppserver.Options{}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transceiver, "shop", "pw")
	done := make(chan error, 1)
	go func() { done <- f.srv.Shutdown(t.Context()) }()
	p := e.read(t)
	if p.Body.Command() != pdu.CmdUnbind {
		t.Fatalf("%s, want unbind", p.Body.Command())
	}
	e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, _, err := pdu.Read(e.nc, nil, 0); err == nil {
		t.Fatal("the connection is still open")
	}
}

// A submit_sm the ESME sent before it read Shutdown's unbind is answered
// ESME_RTHROTTLED, a status ESMEs send again, not
// ESME_RINVBNDSTS, which Kannel takes as a refusal for good and drops the
// message on.
func TestShutdownAnswersLateSubmitsToRetry(t *testing.T) {
	f := newFixture(t, smppserver.Options{}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transceiver, "shop", "pw")
	done := make(chan error, 1)
	go func() { done <- f.srv.Shutdown(t.Context()) }()
	p := e.read(t)
	if p.Body.Command() != pdu.CmdUnbind {
		t.Fatalf("%s, want unbind", p.Body.Command())
	}
	e.write(t, pdu.PDU{Seq: 7, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"},
		Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}, Message: []byte("late")}}})
	r := e.read(t)
	if r.Seq != 7 || r.Body.Command() != pdu.CmdSubmitSMResp || r.Status != pdu.ESME_RTHROTTLED {
		t.Fatalf("the late submit_sm was answered %s %s (seq %d), want submit_sm_resp ESME_RTHROTTLED", r.Body.Command(), r.Status, r.Seq)
	}
	e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A long message whose first part came before Shutdown is completed by
// its later parts before the binds are unbound, so a restart between its
// parts loses nothing; meanwhile whole messages are taken, and the first
// parts of new long ones are answered ESME_RMSGQFUL, to be sent again
// after it.
func TestShutdownDrainsLongMessages(t *testing.T) {
	f := newFixture(t, smppserver.Options{}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transceiver, "shop", "pw")
	first := e.call(t, submitSM("Your parcel ", udh8(7, 2, 1)))
	if first.Status != pdu.ESME_ROK {
		t.Fatal(first.Status)
	}
	done := make(chan error, 1)
	go func() { done <- f.srv.Shutdown(t.Context()) }()
	waitFor(t, f.srv.Draining)
	if r := e.call(t, submitSM("A whole one", nil)); r.Status != pdu.ESME_ROK {
		t.Errorf("a whole message while draining: %s, want ESME_ROK", r.Status)
	}
	if r := e.call(t, submitSM("Another ", udh8(8, 2, 1))); r.Status != pdu.ESME_RMSGQFUL {
		t.Errorf("a new long message while draining: %s, want ESME_RMSGQFUL", r.Status)
	}
	last := e.call(t, submitSM("is on its way", udh8(7, 2, 2)))
	id := last.Body.(*pdu.SubmitSMResp).MessageID
	if last.Status != pdu.ESME_ROK || id != first.Body.(*pdu.SubmitSMResp).MessageID {
		t.Fatalf("the last part: %s %s", last.Status, id)
	}
	if m, err := f.store.Message(t.Context(), sms.MessageID(id)); err != nil || m.Parts[0].Text != "Your parcel is on its way" {
		t.Errorf("the message: %+v, %v", m, err)
	}
	p := e.read(t)
	if p.Body.Command() != pdu.CmdUnbind {
		t.Fatalf("%s, want unbind", p.Body.Command())
	}
	e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
