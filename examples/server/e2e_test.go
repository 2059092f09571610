package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/adapters/pgstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// receiver is a customer's report endpoint that can fail for a while.
type receiver struct {
	mu      sync.Mutex
	failing int // answer 503 to this many more requests
	got     []sms.ReportBody
	srv     *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.failing > 0 {
			r.failing--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var b sms.ReportBody
		if err := json.NewDecoder(req.Body).Decode(&b); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.got = append(r.got, b)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.got {
		out = append(out, fmt.Sprintf("%s/%d/%s/%d", b.MsgID, b.PartNum, b.Event, b.ErrorCode))
	}
	slices.Sort(out)
	return out
}

// gatewayNode is one gateway replica, built as the server builds its bulk
// SMS family (the network, the gateway, the transmitter and the dispatcher
// on a shared store),
// serving the family's routes over HTTP.
type gatewayNode struct {
	*bulkSMS
	api *httptest.Server
}

// newNode builds a node; change, when given, changes its options.
func newNode(t *testing.T, store smsStore, clock *msgkittest.Clock, change ...func(*bulkSMSOptions)) *gatewayNode {
	o := bulkSMSOptions{
		Gateway: sms.GatewayOptions{Clock: clock.Now, BcryptCost: bcrypt.MinCost},
		Network: simnet.Options{
			Seed: 1, Clock: clock.Now, Default: simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 2 * time.Second},
			Rules: []simnet.Rule{
				{Prefix: "4915", Outcome: simnet.Outcome{Kind: simnet.Absent, AcceptDelay: time.Second, Delay: time.Second, Attempts: 2, RetryEvery: time.Minute}},
				{Prefix: "4917", Outcome: simnet.Outcome{Kind: simnet.Unknown, AcceptDelay: time.Second, Delay: time.Second}},
			},
		},
		Transmitter: sms.TransmitterOptions{Clock: clock.Now, Jitter: func() float64 { return 0 }},
		Dispatcher:  sms.DispatcherOptions{Clock: clock.Now, BaseBackoff: time.Second, MaxBackoff: time.Minute, Jitter: func() float64 { return 0 }},
		Poster:      egress.ReportPosterOptions{Policy: egress.Policy{Allow: loopback()}}, // the receivers listen on loopback
	}
	for _, c := range change {
		c(&o)
	}
	b := newBulkSMS(store, o)
	n := &gatewayNode{bulkSMS: b, api: httptest.NewServer(platform{families: []family{b.family()}}.smsHandler())}
	t.Cleanup(n.api.Close)
	return n
}

// step moves time and lets the transmitter, the network and the
// dispatcher do what is due.
func (n *gatewayNode) step(t *testing.T, clock *msgkittest.Clock, d time.Duration) {
	t.Helper()
	clock.Advance(d)
	n.transmit(t)
	if _, err := n.network.RunDue(t.Context(), n.gateway, clock.Now()); err != nil {
		t.Fatal(err)
	}
	for {
		k, err := n.dispatcher.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			return
		}
	}
}

// transmit hands every due part to the network, round after round, and
// returns how many the network took or refused.
func (n *gatewayNode) transmit(t *testing.T) int {
	t.Helper()
	total := 0
	for {
		k, err := n.transmitter.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			return total
		}
		total += k
	}
}

func (n *gatewayNode) submit(t *testing.T, receiver, text, dlrURL string) (string, int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"type": "text", "auth": map[string]string{"username": "shop", "password": "pw"}, "sender": "Shop",
		"receiver": receiver, "dcs": "gsm", "text": text, "dlrMask": 31, "dlrUrl": dlrURL, "custom": map[string]int{"order": 1},
	})
	resp, err := http.Post(n.api.URL+bulksmsapi.SendSMSPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var acc struct {
		MsgID    string `json:"msgId"`
		NumParts int    `json:"numParts"`
	}
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(b, &acc) != nil {
		t.Fatalf("submit: %d %s", resp.StatusCode, b)
	}
	return acc.MsgID, acc.NumParts
}

func createShop(t *testing.T, gw *sms.Gateway) {
	_, err := gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("100"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "49", Price: decimal.RequireFromString("0.07")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

func storesForE2E(t *testing.T) map[string]func(t *testing.T) smsStore {
	return map[string]func(t *testing.T) smsStore{
		"memory":   func(t *testing.T) smsStore { return memstore.New().SMS() },
		"postgres": func(t *testing.T) smsStore { return openPG(t, pgConfig(t)).SMS() },
	}
}

func openPG(t *testing.T, cfg config) *pgstore.DB {
	s, err := pgstore.Open(t.Context(), cfg.pgDSN, pgstore.Options{Schema: cfg.pgSchema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// firstOfTwo starts the first of two gateways sharing one PostgreSQL
// schema, with the shop account, for the restart tests: the second is
// newNode(t, openPG(t, cfg).SMS(), clock). Without MSGKIT_TEST_PG the test
// is skipped.
func firstOfTwo(t *testing.T, change ...func(*bulkSMSOptions)) (config, *msgkittest.Clock, *gatewayNode) {
	t.Helper()
	if os.Getenv("MSGKIT_TEST_PG") == "" {
		t.Skip("MSGKIT_TEST_PG is not set")
	}
	cfg := pgConfig(t)
	clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	first := newNode(t, openPG(t, cfg).SMS(), clock, change...)
	createShop(t, first.gateway)
	return cfg, clock, first
}

// Submit over HTTP, the simulated network delivers, and the customer's
// endpoint gets every report the mask asks for, one per part, also after
// failing for a while.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	for name, newStore := range storesForE2E(t) {
		t.Run(name, func(t *testing.T) {
			clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
			node := newNode(t, newStore(t), clock)
			createShop(t, node.gateway)
			rcv := newReceiver(t)
			rcv.failing = 3 // the endpoint is down for the first three calls

			delivered, parts := node.submit(t, "493012345678", strings.Repeat("a", 200), rcv.srv.URL) // 2 parts
			absent, _ := node.submit(t, "4915112345678", "hi", rcv.srv.URL)
			unknown, _ := node.submit(t, "4917012345678", "hi", rcv.srv.URL)
			if parts != 2 {
				t.Fatalf("%d parts", parts)
			}
			for range 10 {
				node.step(t, clock, 30*time.Second)
			}
			want := []string{
				absent + "/0/BUFFERED/29", absent + "/0/BUFFERED/29", absent + "/0/DELIVERED/0", absent + "/0/SENT_TO_SMSC/0",
				delivered + "/0/DELIVERED/0", delivered + "/0/SENT_TO_SMSC/0", delivered + "/1/DELIVERED/0", delivered + "/1/SENT_TO_SMSC/0",
				unknown + "/0/SENT_TO_SMSC/0", unknown + "/0/UNDELIVERED/1",
			}
			slices.Sort(want)
			if got := rcv.reports(); !slices.Equal(got, want) {
				t.Errorf("reports\n got %v\nwant %v", got, want)
			}
		})
	}
}

// A gateway that stops with reports still to deliver loses none: another
// one on the same database delivers them.
func TestRestartKeepsPendingReports(t *testing.T) {
	t.Parallel()
	cfg, clock, first := firstOfTwo(t)
	rcv := newReceiver(t)
	rcv.failing = 1 << 30 // down while the first gateway runs
	id, _ := first.submit(t, "493012345678", "hello", rcv.srv.URL)
	for range 3 {
		first.step(t, clock, 10*time.Second)
	}
	first.api.Close() // the first gateway stops

	rcv.mu.Lock()
	rcv.failing = 0
	rcv.mu.Unlock()
	second := newNode(t, openPG(t, cfg).SMS(), clock)
	for range 20 {
		second.dispatcherOnly(t, clock, time.Minute)
	}
	want := []string{id + "/0/DELIVERED/0", id + "/0/SENT_TO_SMSC/0"}
	if got := rcv.reports(); !slices.Equal(got, want) {
		t.Errorf("after the restart the receiver got %v, want %v", got, want)
	}
}

// A server that stops with parts its simulated network holds (taken,
// reported SENT_TO_SMSC, delivery still to come) does not leave them
// silent until their validity ends: the next one restores its network
// from the store, and the parts are delivered and reported, once each.
func TestRestartRestoresTheNetwork(t *testing.T) {
	t.Parallel()
	cfg, clock, first := firstOfTwo(t, func(o *bulkSMSOptions) {
		o.Network.Default.Delay = time.Hour // delivered long after the first server stops
	})
	rcv := newReceiver(t)
	long, _ := first.submit(t, "493012345678", strings.Repeat("a", 200), rcv.srv.URL) // 2 parts
	short, _ := first.submit(t, "493012345679", "hello", rcv.srv.URL)
	for range 3 {
		first.step(t, clock, 10*time.Second)
	}
	sent := []string{long + "/0/SENT_TO_SMSC/0", long + "/1/SENT_TO_SMSC/0", short + "/0/SENT_TO_SMSC/0"}
	slices.Sort(sent) // reports() sorts, and message ids are random
	if got := rcv.reports(); !slices.Equal(got, sent) {
		t.Fatalf("before the restart the receiver got %v, want %v", got, sent)
	}
	first.api.Close() // the first server stops, and its network's events with it

	second := newNode(t, openPG(t, cfg).SMS(), clock)
	n, err := second.network.Restore(t.Context(), second.store)
	if err != nil || n != 3 {
		t.Fatalf("Restore = %d, %v; want the 3 parts the network held", n, err)
	}
	for range 10 {
		second.step(t, clock, 10*time.Second)
	}
	want := append(slices.Clone(sent), long+"/0/DELIVERED/0", long+"/1/DELIVERED/0", short+"/0/DELIVERED/0")
	slices.Sort(want)
	if got := rcv.reports(); !slices.Equal(got, want) {
		t.Errorf("after the restart the receiver got %v, want %v", got, want)
	}
	if n, err := second.network.Restore(t.Context(), second.store); err != nil || n != 0 {
		t.Errorf("Restore after delivery = %d, %v; want nothing held", n, err)
	}
}

// A gateway that stops with accepted parts it never handed to the network
// loses none: they are rows of the queue, and another gateway on the same
// database sends them, once each, and their reports follow.
func TestRestartResumesUnsentParts(t *testing.T) {
	t.Parallel()
	// The first gateway's network is down the whole time it runs.
	cfg, clock, first := firstOfTwo(t, func(o *bulkSMSOptions) {
		o.Network.Down = func(time.Time) bool { return true }
	})
	rcv := newReceiver(t)
	long, _ := first.submit(t, "493012345678", strings.Repeat("a", 200), rcv.srv.URL) // 2 parts
	short, _ := first.submit(t, "493012345679", "hello", rcv.srv.URL)
	for range 3 {
		first.step(t, clock, 10*time.Second)
	}
	if got := rcv.reports(); len(got) != 0 {
		t.Fatalf("reports while the network was down: %v", got)
	}
	store := openPG(t, cfg).SMS()
	for _, id := range []string{long, short} {
		m, err := store.Message(t.Context(), sms.MessageID(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Parts {
			if p.SendAttempts == 0 || p.SendAt.IsZero() {
				t.Errorf("part %d of %s: %d failed attempts, next at %v; want queued after the first gateway's failures", p.Num, id, p.SendAttempts, p.SendAt)
			}
		}
	}
	// The last one is accepted, handed to the first gateway's transmitter
	// in memory, and lost with it: its lease runs out.
	last, _ := first.submit(t, "493012345670", "bye", rcv.srv.URL)
	first.api.Close() // the first gateway stops

	second := newNode(t, store, clock)
	handed := 0
	for range 20 {
		clock.Advance(30 * time.Second)
		handed += second.transmit(t)
		second.step(t, clock, 0)
	}
	if handed != 4 {
		t.Errorf("the second gateway handed %d parts over, want the 4 left unsent", handed)
	}
	want := []string{
		long + "/0/DELIVERED/0", long + "/0/SENT_TO_SMSC/0", long + "/1/DELIVERED/0", long + "/1/SENT_TO_SMSC/0",
		short + "/0/DELIVERED/0", short + "/0/SENT_TO_SMSC/0", last + "/0/DELIVERED/0", last + "/0/SENT_TO_SMSC/0",
	}
	slices.Sort(want)
	if got := rcv.reports(); !slices.Equal(got, want) {
		t.Errorf("after the restart the receiver got %v, want %v", got, want)
	}
	for _, id := range []string{long, short, last} {
		m, err := store.Message(t.Context(), sms.MessageID(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Parts {
			if !p.SendAt.IsZero() || p.State != sms.StateDelivered {
				t.Errorf("part %d of %s is %v, next at %v; want delivered and off the queue", p.Num, id, p.State, p.SendAt)
			}
		}
	}
}

// An accept-only server (-sms-send false) charges and queues, hands
// nothing over in memory and runs no job; a sending server on the same
// database sends what it queued, and the reports follow.
func TestAcceptOnlyLeavesSendingToAnother(t *testing.T) {
	t.Parallel()
	cfg, clock, front := firstOfTwo(t, func(o *bulkSMSOptions) { o.AcceptOnly = true })
	if jobs := front.family().jobs; len(jobs) != 0 {
		t.Fatalf("an accept-only family runs %d jobs", len(jobs))
	}
	rcv := newReceiver(t)
	id, _ := front.submit(t, "493012345678", "hello", rcv.srv.URL)
	sender := newNode(t, openPG(t, cfg).SMS(), clock)
	if handed := sender.transmit(t); handed != 1 {
		t.Fatalf("the sending server handed %d parts over at once, want the 1 queued (nothing leased by the front)", handed)
	}
	for range 5 {
		sender.step(t, clock, 10*time.Second)
	}
	want := []string{id + "/0/DELIVERED/0", id + "/0/SENT_TO_SMSC/0"}
	if got := rcv.reports(); !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}

// dispatcherOnly runs a node's dispatcher alone (its network has nothing).
func (n *gatewayNode) dispatcherOnly(t *testing.T, clock *msgkittest.Clock, d time.Duration) {
	t.Helper()
	clock.Advance(d)
	if _, err := n.dispatcher.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReportDelivery measures delivery reports posted over loopback
// HTTP to a local receiver by one running dispatcher, from a memstore
// outbox. The dispatcher reads the system clock, as in production.
func BenchmarkReportDelivery(b *testing.B) {
	clock := msgkittest.NewClock(time.Now())
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{Clock: clock.Now, BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("1000000000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "49", Price: decimal.RequireFromString("0.07")}},
	}}); err != nil {
		b.Fatal(err)
	}
	var (
		mu       sync.Mutex
		received int
		all      = make(chan struct{})
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		if received++; received == b.N {
			close(all)
		}
		mu.Unlock()
	}))
	defer rcv.Close()
	mask := int64(1)
	for range b.N {
		acc, err := gw.Submit(context.Background(), sms.Submission{
			Type: "text", Username: "shop", Password: "pw", Sender: "Shop", Receiver: "493012345678",
			Text: "hello", DLRMask: &mask, DLRURL: rcv.URL + "/dlr", ClientIP: netip.MustParseAddr("127.0.0.1"),
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := gw.HandleStatus(context.Background(), sms.StatusEvent{MsgID: acc.MsgID, Status: sms.StatusDelivered, At: clock.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	poster := egress.NewReportPoster(egress.ReportPosterOptions{Policy: egress.Policy{Allow: loopback()}})
	d := sms.NewDispatcher(store, poster, sms.DispatcherOptions{PerHost: 32, Batch: 500})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	go func() { d.Run(ctx); close(done) }()
	select {
	case <-all:
	case <-time.After(time.Minute + time.Duration(b.N)*time.Millisecond): // a guard, far beyond any run
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("received %d of %d reports", received, b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-done
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "reports/s")
}

// N submissions against credit for N/2 parts through the gateway, on each
// store: exactly N/2 accepted, the balance exactly zero, the rest 113.
func TestConcurrentCredit(t *testing.T) {
	t.Parallel()
	for name, newStore := range storesForE2E(t) {
		t.Run(name, func(t *testing.T) {
			store := newStore(t)
			gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
			const n = 32
			if _, err := gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
				Username: "tight", Enabled: true, Balance: decimal.RequireFromString("1.12"), Currency: "EUR", // 16 parts at 0.07
				Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
				Prices:   []sms.Price{{Prefix: "49", Price: decimal.RequireFromString("0.07")}},
			}}); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			codes := make([]sms.Code, n)
			for i := range n {
				wg.Go(func() {
					_, err := gw.Submit(context.Background(), sms.Submission{
						Type: "text", Username: "tight", Password: "pw", Sender: "Shop", Receiver: "493012345678",
						Text: "hi", ClientIP: netip.MustParseAddr("127.0.0.1"),
					})
					if err != nil {
						codes[i] = sms.CodeOf(err)
					}
				})
			}
			wg.Wait()
			accepted, refused := 0, 0
			for _, c := range codes {
				switch c {
				case 0:
					accepted++
				case sms.CodeNoCredit:
					refused++
				default:
					t.Errorf("code %d", c)
				}
			}
			a, err := store.Account(t.Context(), "tight")
			if err != nil {
				t.Fatal(err)
			}
			if accepted != n/2 || refused != n/2 || !a.Balance.IsZero() {
				t.Errorf("%d accepted, %d refused, balance %s; want %d, %d, 0", accepted, refused, a.Balance, n/2, n/2)
			}
		})
	}
}

// Bad input gets the same answer on both stores, and never 101: a NUL in
// a UCS text is 109 naming the text.
func TestNULTextSameOnBothStores(t *testing.T) {
	t.Parallel()
	for name, newStore := range storesForE2E(t) {
		t.Run(name, func(t *testing.T) {
			node := newNode(t, newStore(t), msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
			createShop(t, node.gateway)
			resp, err := http.Post(node.api.URL+bulksmsapi.SendSMSPath, "application/json", strings.NewReader(
				`{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"Shop","receiver":"4930123456","dcs":"UCS","text":"a\u0000b"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 420 || !strings.Contains(string(body), `"code":"109"`) || !strings.Contains(string(body), "text") {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}
}
