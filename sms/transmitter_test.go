package sms_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/sms/smstest"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// handOvers is an Upstream in front of another that records every call:
// when it came (by the clock), its parts and the answers, and how often
// the network took each part.
type handOvers struct {
	next  sms.Upstream
	clock func() time.Time

	mu       sync.Mutex
	calls    []handOver
	taken    map[sms.PartKey]int
	inFlight int // parts in calls not yet answered
	maxIn    int // the most in flight at once
}

type handOver struct {
	at    time.Time
	parts []sms.PartKey
	errs  []error
}

func record(next sms.Upstream, clock func() time.Time) *handOvers {
	return &handOvers{next: next, clock: clock, taken: map[sms.PartKey]int{}}
}

func (h *handOvers) Send(ctx context.Context, parts []sms.OutboundPart) []error {
	at := h.clock()
	h.mu.Lock()
	h.inFlight += len(parts)
	h.maxIn = max(h.maxIn, h.inFlight)
	h.mu.Unlock()
	errs := h.next.Send(ctx, parts)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight -= len(parts)
	c := handOver{at: at, errs: errs}
	for i, p := range parts {
		k := sms.PartKey{MsgID: p.MsgID, PartNum: p.PartNum}
		c.parts = append(c.parts, k)
		if errs == nil || errs[i] == nil {
			h.taken[k]++
		}
	}
	h.calls = append(h.calls, c)
	return errs
}

// times is when the calls came, from start.
func (h *handOvers) times(start time.Time) []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []time.Duration
	for _, c := range h.calls {
		out = append(out, c.at.Sub(start))
	}
	return out
}

// takenOnce checks that the network took each of keys exactly once and
// nothing else.
func (h *handOvers) takenOnce(t *testing.T, keys []sms.PartKey) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range keys {
		if h.taken[k] != 1 {
			t.Errorf("part %d of %s taken %d times, want once", k.PartNum, k.MsgID, h.taken[k])
		}
	}
	if len(h.taken) != len(keys) {
		t.Errorf("the network took %d parts, want %d", len(h.taken), len(keys))
	}
}

// txFixture is a gateway, a simulated network and a transmitter to it,
// on one memstore and the manual clock.
type txFixture struct {
	*fixture
	net *simnet.Network
	up  *handOvers
	tx  *sms.Transmitter
}

func zeroJitter() float64 { return 0 }

// newTxFixture builds the fixture; the network and the transmitter take
// the fixture's clock. The account shop may spend 1000.
func newTxFixture(t *testing.T, net simnet.Options, tx sms.TransmitterOptions) *txFixture {
	f := &txFixture{fixture: newFixture(t)}
	if _, err := smstest.AddBalance(t.Context(), f.store, "shop", decimal.RequireFromString("990")); err != nil {
		t.Fatal(err)
	}
	net.Clock, tx.Clock = f.clock.Now, f.clock.Now
	f.net = simnet.New(net)
	f.up = record(f.net, f.clock.Now)
	f.tx = sms.NewTransmitter(f.store, f.up, tx)
	return f
}

// handingOver makes the fixture's gateway hand the parts it accepts to
// the transmitter in memory, as the server's does. Call it before any
// Submit.
func (f *txFixture) handingOver() *txFixture {
	f.gw = sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence(), Transmitter: f.tx})
	return f
}

// transmit runs rounds until one hands nothing over and returns how many
// parts the network took or refused.
func transmit(t *testing.T, tx *sms.Transmitter) int {
	t.Helper()
	total := 0
	for {
		n, err := tx.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
}

// runFor steps the clock by step for d, transmitting at every step.
func (f *txFixture) runFor(t *testing.T, d, step time.Duration) {
	t.Helper()
	for end := f.clock.Now().Add(d); !f.clock.Now().After(end); f.clock.Advance(step) {
		transmit(t, f.tx)
	}
}

// deliver lets the network report everything it planned to the gateway.
func (f *txFixture) deliver(t *testing.T) {
	t.Helper()
	for {
		due, ok := f.net.NextDue()
		if !ok {
			return
		}
		f.clock.Set(due)
		if _, err := f.net.RunDue(t.Context(), f.gw, due); err != nil {
			t.Fatal(err)
		}
	}
}

// submitN submits n one-part messages with reports of every event and
// returns their parts.
func (f *txFixture) submitN(t *testing.T, n int) []sms.PartKey {
	t.Helper()
	var keys []sms.PartKey
	for range n {
		keys = append(keys, sms.PartKey{MsgID: f.submit(t, 31, "hi")})
	}
	return keys
}

func (f *txFixture) requireMessage(t *testing.T, id sms.MessageID) sms.MessageRecord {
	t.Helper()
	m, err := f.store.Message(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// requireParts checks that every part of message id is in state with
// code, off the queue, and returns the message.
func (f *txFixture) requireParts(t *testing.T, id sms.MessageID, state sms.PartState, code sms.DLRError) sms.MessageRecord {
	t.Helper()
	m := f.requireMessage(t, id)
	for _, p := range m.Parts {
		if p.State != state || p.ErrorCode != code || !p.SendAt.IsZero() {
			t.Errorf("part %d of %s is %+v; want %v with %d, off the queue", p.Num, id, p, state, code)
		}
	}
	return m
}

func events(bodies []sms.ReportBody) []string {
	var out []string
	for _, b := range bodies {
		out = append(out, fmt.Sprintf("%d/%s/%d", b.PartNum, b.Event, b.ErrorCode))
	}
	slices.Sort(out)
	return out
}

// While the network is down, the parts wait with a backoff that doubles
// (1 s, 2 s, 4 s ... with the jitter at its lowest, half of 2 s, 4 s,
// 8 s ...); once it is back, the next attempt hands them over, once.
func TestTransmitterRetriesWhileTheNetworkIsDown(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f := newTxFixture(t,
		simnet.Options{Down: simnet.Outage(start, start.Add(time.Minute)), Default: simnet.Outcome{AcceptDelay: time.Second, Delay: time.Second}},
		sms.TransmitterOptions{BaseBackoff: 2 * time.Second, MaxBackoff: time.Hour, Jitter: zeroJitter}).handingOver()
	id := f.submit(t, 31, strings.Repeat("a", 200)) // two parts
	f.runFor(t, 30*time.Second, time.Second)
	for _, p := range f.requireMessage(t, id).Parts {
		if p.SendAttempts != 5 || !strings.Contains(p.SendError, "down") || !p.SendAt.Equal(start.Add(31*time.Second)) {
			t.Errorf("after 30 s part %d is %+v; want 5 failed attempts of a network that is down, the next at 31 s", p.Num, p)
		}
	}
	f.runFor(t, 90*time.Second, time.Second)

	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second, 31 * time.Second, 63 * time.Second}
	if got := f.up.times(start); !slices.Equal(got, want) {
		t.Errorf("hand-overs at %v, want %v", got, want)
	}
	f.up.takenOnce(t, []sms.PartKey{{MsgID: id, PartNum: 0}, {MsgID: id, PartNum: 1}})
	f.requireParts(t, id, sms.StateSubmitted, 0)
	f.deliver(t)
	f.requireParts(t, id, sms.StateDelivered, 0)
	if got, want := events(f.drain(t)), []string{"0/DELIVERED/0", "0/SENT_TO_SMSC/0", "1/DELIVERED/0", "1/SENT_TO_SMSC/0"}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}

// A connection that keeps dropping: every part gets through once, none
// while the network is down, some after failed attempts.
func TestTransmitterFlapping(t *testing.T) {
	down := simnet.Flapping(10*time.Second, 7*time.Second) // down 7 s of every 10
	f := newTxFixture(t, simnet.Options{Down: down},
		sms.TransmitterOptions{BaseBackoff: time.Second, MaxBackoff: 4 * time.Second, Jitter: func() float64 { return 0.5 }})
	var keys []sms.PartKey
	for range 6 { // messages arrive every 3 s for 18 s
		keys = append(keys, f.submitN(t, 3)...)
		f.runFor(t, 3*time.Second, time.Second)
	}
	f.runFor(t, time.Minute, time.Second)
	f.up.takenOnce(t, keys)
	failed := 0
	for _, c := range f.up.calls {
		if c.errs == nil && down(c.at) {
			t.Errorf("parts taken at %v, while the network was down", c.at)
		}
		if c.errs != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no hand-over failed: the network never flapped")
	}
	f.deliver(t)
	for _, k := range keys {
		f.requireParts(t, k.MsgID, sms.StateDelivered, 0)
	}
}

// A network that throttles at 4 parts a second: the parts beyond wait
// and go later, each once, never more than 4 in a second of the
// network's clock. With the transmitter's own rate set to the network's
// (and rounds a second apart, as a token bucket refills continuously),
// the network never has to throttle.
func TestTransmitterThrottled(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rate      float64
		throttled bool
	}{{"by the network", 0, true}, {"by the transmitter's rate", 4, false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newTxFixture(t, simnet.Options{MaxPerSecond: 4},
				sms.TransmitterOptions{Rate: tc.rate, BaseBackoff: time.Second, MaxBackoff: time.Second, Jitter: zeroJitter})
			keys := f.submitN(t, 10)
			f.runFor(t, 10*time.Second, time.Second)
			f.up.takenOnce(t, keys)
			perSecond := map[int64]int{}
			throttled := 0
			for _, c := range f.up.calls {
				for i := range c.parts {
					if c.errs == nil || c.errs[i] == nil {
						perSecond[c.at.Unix()]++
					} else if errors.Is(c.errs[i], msgkit.RateLimited) {
						throttled++
					} else {
						t.Errorf("hand-over error %v", c.errs[i])
					}
				}
			}
			for sec, n := range perSecond {
				if n > 4 {
					t.Errorf("%d parts taken in second %d", n, sec)
				}
			}
			if (throttled > 0) != tc.throttled {
				t.Errorf("%d parts throttled by the network", throttled)
			}
			if len(perSecond) != 3 {
				t.Errorf("parts taken in %d seconds, want 3 (4, 4, 2)", len(perSecond))
			}
		})
	}
}

// Submit answers once the message is accepted and queued, whatever the
// network does: a network that holds every hand-over until released does
// not hold a single 202.
func TestSubmitDoesNotWaitForTheNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		f := newTxFixture(t, simnet.Options{Hold: func(ctx context.Context) error {
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}, sms.TransmitterOptions{}).handingOver()
		first := f.submitN(t, 1)
		held := make(chan int)
		go func() { held <- transmit(t, f.tx) }()
		synctest.Wait() // the transmitter is inside the held Send

		accepted := make(chan sms.MessageID, 5)
		go func() {
			for range 5 {
				acc, err := f.gw.Submit(context.Background(), valid())
				if err != nil {
					t.Error(err)
				}
				accepted <- acc.MsgID
			}
			close(accepted)
		}()
		synctest.Wait()
		var later []sms.PartKey
		for {
			select {
			case id, ok := <-accepted:
				if !ok {
					goto answered
				}
				later = append(later, sms.PartKey{MsgID: id})
			default:
				t.Fatalf("Submit waits for the network: %d of 5 answered while a hand-over is held", len(later))
			}
		}
	answered:
		close(release)
		if n := <-held; n != 6 {
			t.Errorf("the transmitter handed over %d parts once released, want 6", n)
		}
		f.up.takenOnce(t, append(first, later...))
	})
}

// countingClaims is a TransmitterStore that counts the parts its claims
// return.
type countingClaims struct {
	sms.TransmitterStore
	claimed *int
}

func (c countingClaims) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	qs, err := c.TransmitterStore.ClaimParts(ctx, now, lease, limit)
	*c.claimed += len(qs)
	return qs, err
}

// A gateway with a transmitter hands it the parts it accepts in memory:
// they are stored leased to it (SendAt at the lease's end), so no other
// transmitter claims them, and it sends them without a claim. If it never
// does (its process died), any transmitter claims them once the lease has
// run out; parts that do not fit its buffer are queued for a claim at
// once.
func TestGatewayHandsPartsOver(t *testing.T) {
	claimed := 0
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{Buffer: 3})
	f.tx = sms.NewTransmitter(countingClaims{f.store, &claimed}, f.up, sms.TransmitterOptions{Clock: f.clock.Now, Buffer: 3})
	f.handingOver()
	other := sms.NewTransmitter(f.store, f.up, sms.TransmitterOptions{Clock: f.clock.Now})
	start := f.clock.Now()
	lease := start.Add(30 * time.Second) // the default: 3 × the 10 s Timeout

	handed := f.submitN(t, 2)
	for _, k := range handed {
		if p := f.requireMessage(t, k.MsgID).Parts[0]; !p.SendAt.Equal(lease) {
			t.Errorf("a part handed over in memory is queued at %v, want the lease's end %v", p.SendAt, lease)
		}
	}
	if n := transmit(t, other); n != 0 {
		t.Fatalf("another transmitter claimed %d parts leased to the gateway's", n)
	}
	if n := transmit(t, f.tx); n != 2 || claimed != 0 {
		t.Fatalf("the gateway's transmitter sent %d parts, %d of them claimed; want 2 from memory", n, claimed)
	}
	f.up.takenOnce(t, handed)
	for _, k := range handed {
		f.requireParts(t, k.MsgID, sms.StateSubmitted, 0) // sent: off the queue
	}

	// The buffer holds 3 parts: of 4 one-part messages, the last is
	// queued for a claim at once. Then the transmitter dies.
	later := f.submitN(t, 4)
	if p := f.requireMessage(t, later[3].MsgID).Parts[0]; !p.SendAt.Equal(start) {
		t.Errorf("a part beyond the buffer is queued at %v, want at once (%v)", p.SendAt, start)
	}
	if n := transmit(t, other); n != 1 {
		t.Errorf("another transmitter sent %d parts, want the one beyond the buffer", n)
	}
	f.clock.Advance(30*time.Second - time.Microsecond)
	if n := transmit(t, other); n != 0 {
		t.Errorf("another transmitter sent %d parts leased to the dead one", n)
	}
	f.clock.Advance(time.Microsecond)
	if n := transmit(t, other); n != 3 {
		t.Errorf("once the lease ran out another transmitter sent %d parts, want 3", n)
	}
	f.up.takenOnce(t, append(handed, later...))
}

// A part that waited in memory until too little of its lease is left to
// send and record it is left to the store, and claimed once the lease has
// run out: it never goes out twice.
func TestHandedOverPartsNearTheirLeaseEnd(t *testing.T) {
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{}).handingOver()
	keys := f.submitN(t, 1)
	f.clock.Advance(11 * time.Second) // 19 s of the 30 s lease left, under two 10 s Timeouts
	if n := transmit(t, f.tx); n != 0 {
		t.Fatalf("sent %d parts with too little lease left", n)
	}
	f.clock.Advance(19 * time.Second)
	if n := transmit(t, f.tx); n != 1 {
		t.Fatalf("once the lease ran out, sent %d parts, want 1", n)
	}
	f.up.takenOnce(t, keys)
}

// upstreamFunc is an Upstream of a function.
type upstreamFunc func(ctx context.Context, parts []sms.OutboundPart) []error

func (u upstreamFunc) Send(ctx context.Context, parts []sms.OutboundPart) []error {
	return u(ctx, parts)
}

// A part the network refuses for good ends REJECTED with the refusal's
// code (989 when it gives none), reported as the mask asks, and is never
// offered again.
func TestTransmitterRefusal(t *testing.T) {
	f := newTxFixture(t, simnet.Options{Rules: []simnet.Rule{{Prefix: "38640", Outcome: simnet.Outcome{Kind: simnet.Refuse, ErrorCode: sms.DLRNoRoute}}}},
		sms.TransmitterOptions{})
	id := f.submit(t, 31, "hi")
	if n := transmit(t, f.tx); n != 1 {
		t.Fatalf("handled %d parts, want the refused one", n)
	}
	f.requireParts(t, id, sms.StateRejected, sms.DLRNoRoute)
	if got, want := events(f.drain(t)), []string{"0/REJECTED/998"}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
	f.clock.Advance(time.Hour)
	if n := transmit(t, f.tx); n != 0 || len(f.up.calls) != 1 {
		t.Errorf("a refused part was offered again: %d calls", len(f.up.calls))
	}

	invalid := sms.NewTransmitter(f.store, upstreamFunc(func(ctx context.Context, parts []sms.OutboundPart) []error {
		return sms.FailAll(len(parts), msgkit.Errorf(msgkit.Invalid, "bad_pdu", "the SMSC does not take this part"))
	}), sms.TransmitterOptions{Clock: f.clock.Now})
	id = f.submit(t, 31, "hi")
	if n := transmit(t, invalid); n != 1 {
		t.Fatalf("handled %d parts", n)
	}
	f.requireParts(t, id, sms.StateRejected, sms.DLRSupplierRejected)
	if got, want := events(f.drain(t)), []string{"0/REJECTED/989"}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}

// failingUpdates is a TransmitterStore whose UpdatePart fails while
// down is true.
type failingUpdates struct {
	sms.TransmitterStore
	down *bool
}

func (f failingUpdates) UpdatePart(ctx context.Context, key sms.PartKey, fn func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	if *f.down {
		return msgkit.Errorf(msgkit.Internal, "storage_error", "the store is down")
	}
	return f.TransmitterStore.UpdatePart(ctx, key, fn)
}

// A refusal that cannot be recorded leaves its part queued, to be offered
// again once its lease runs out, and costs the parts handed over in the
// same round nothing: they are recorded and never offered again.
func TestTransmitterRefusalNotRecorded(t *testing.T) {
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{})
	refusedID, takenID := f.submit(t, 31, "hi"), f.submit(t, 31, "hi")
	down := true
	var offered []sms.MessageID
	tx := sms.NewTransmitter(failingUpdates{f.store, &down}, upstreamFunc(func(ctx context.Context, parts []sms.OutboundPart) []error {
		errs := make([]error, len(parts))
		for i, p := range parts {
			offered = append(offered, p.MsgID)
			if p.MsgID == refusedID {
				errs[i] = &sms.Refusal{Code: sms.DLRNoRoute, Reason: "no route"}
			}
		}
		return errs
	}), sms.TransmitterOptions{Clock: f.clock.Now})
	if _, err := tx.RunOnce(t.Context()); err == nil {
		t.Fatal("a refusal that was not recorded went unreported")
	}
	f.requireParts(t, takenID, sms.StateSubmitted, 0) // handed over: off the queue
	if m := f.requireMessage(t, refusedID); m.Parts[0].State != sms.StateSubmitted || m.Parts[0].SendAt.IsZero() {
		t.Fatalf("the refused part is %+v; want it submitted and queued", m.Parts[0])
	}
	down = false
	f.clock.Advance(31 * time.Second) // the 30 s lease ran out
	if n := transmit(t, tx); n != 1 {
		t.Fatalf("handled %d parts after the lease, want the refused one", n)
	}
	f.requireParts(t, refusedID, sms.StateRejected, sms.DLRNoRoute)
	if want := []sms.MessageID{refusedID, takenID, refusedID}; !slices.Equal(offered, want) {
		t.Errorf("offered %v, want %v", offered, want)
	}
}

// claimHook is a TransmitterStore that runs a function after each claim.
type claimHook struct {
	sms.TransmitterStore
	after func()
}

func (c claimHook) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	qs, err := c.TransmitterStore.ClaimParts(ctx, now, lease, limit)
	c.after()
	return qs, err
}

// Parts still unsent when their validity ends are UNDELIVERED with 996,
// reported as the mask asks, and never sent afterwards: not when the
// network comes back, nor when the validity ends while they are being
// claimed.
func TestTransmitterNeverSendsExpiredParts(t *testing.T) {
	down := true
	f := newTxFixture(t, simnet.Options{Down: func(time.Time) bool { return down }},
		sms.TransmitterOptions{BaseBackoff: time.Second, MaxBackoff: 10 * time.Second})
	f.account(t, "brief", func(a *sms.Account) { a.Validity = time.Minute })
	sub := valid()
	sub.Username, sub.DLRMask = "brief", new(int64(31))
	acc, err := f.gw.Submit(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	expiry := f.clock.Now().Add(time.Minute)
	f.runFor(t, 2*time.Minute, time.Second)
	for _, at := range f.up.times(expiry) {
		if at >= 0 {
			t.Errorf("a hand-over was tried %v after the validity ended", at)
		}
	}
	if n, err := f.gw.ExpireDue(t.Context()); n != 1 || err != nil {
		t.Fatalf("ExpireDue = %d, %v; want the unsent part", n, err)
	}
	f.requireParts(t, acc.MsgID, sms.StateUndelivered, sms.DLRValidityExpired)
	if got, want := events(f.drain(t)), []string{"0/UNDELIVERED/996"}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
	down = false
	calls := len(f.up.calls)
	f.runFor(t, time.Minute, time.Second)
	if len(f.up.calls) != calls {
		t.Error("an expired part was sent once the network came back")
	}

	// The validity ends between the claim and the hand-over.
	acc, err = f.gw.Submit(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	late := sms.NewTransmitter(claimHook{f.store, func() { f.clock.Advance(time.Minute) }}, f.up, sms.TransmitterOptions{Clock: f.clock.Now})
	if n, err := late.RunOnce(t.Context()); n != 0 || err != nil || len(f.up.calls) != calls {
		t.Errorf("a part that expired while it was claimed: RunOnce = %d, %v, %d calls; want nothing sent", n, err, len(f.up.calls)-calls)
	}
}

// crashAtRecording is a TransmitterStore whose process dies between the
// hand-over and recording it: FinishParts records nothing.
type crashAtRecording struct{ sms.TransmitterStore }

func (crashAtRecording) FinishParts(context.Context, []sms.SendResult) (int, error) {
	return 0, errors.New("the process died")
}

// A transmitter that dies loses nothing: a fresh one on the same store
// sends every part once its lease has run out. A part goes out twice only
// when the crash fell between its hand-over and the recording of it.
func TestTransmitterCrash(t *testing.T) {
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{})
	keys := f.submitN(t, 12)

	// One dies after claiming 3 parts, before handing them over.
	if _, err := f.store.ClaimParts(t.Context(), f.clock.Now(), 30*time.Second, 3); err != nil {
		t.Fatal(err)
	}
	// Another dies after handing 4 parts over, before recording it.
	dying := sms.NewTransmitter(crashAtRecording{f.store}, f.up, sms.TransmitterOptions{Clock: f.clock.Now, Batch: 4, Lease: 30 * time.Second})
	if _, err := dying.RunOnce(t.Context()); err == nil {
		t.Fatal("the crash at the recording went unnoticed")
	}
	window := slices.Clone(f.up.calls[0].parts)

	if n := transmit(t, f.tx); n != 12-3-4 {
		t.Errorf("a fresh transmitter sent %d parts while the dead ones' leases ran, want 5", n)
	}
	f.clock.Advance(30 * time.Second)
	if n := transmit(t, f.tx); n != 3+4 {
		t.Errorf("once the leases ran out the fresh transmitter sent %d parts, want 7", n)
	}
	f.clock.Advance(time.Hour)
	if n := transmit(t, f.tx); n != 0 {
		t.Errorf("%d parts sent again", n)
	}
	var twice []sms.PartKey
	for _, k := range keys {
		switch f.up.taken[k] {
		case 1:
		case 2:
			twice = append(twice, k)
		default:
			t.Errorf("part %v taken %d times", k, f.up.taken[k])
		}
	}
	cmpKeys := func(a, b sms.PartKey) int { return strings.Compare(string(a.MsgID), string(b.MsgID)) }
	slices.SortFunc(twice, cmpKeys)
	slices.SortFunc(window, cmpKeys)
	if diff := cmp.Diff(window, twice); diff != "" {
		t.Errorf("parts sent twice are not those handed over before the crash (-window +twice):\n%s", diff)
	}
	f.deliver(t)
	for _, k := range keys {
		f.requireParts(t, k.MsgID, sms.StateDelivered, 0)
	}
}

// Run runs MaxInFlight/Batch rounds at once: all the parts go out once,
// never more than MaxInFlight in flight.
func TestTransmitterRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memstore.New().SMS()
		gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
		f := &fixture{gw: gw, store: store}
		f.account(t, "shop", func(a *sms.Account) { a.Balance = decimal.RequireFromString("1000") })
		var keys []sms.PartKey
		for range 300 {
			acc, err := gw.Submit(t.Context(), valid())
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, sms.PartKey{MsgID: acc.MsgID})
		}
		up := record(simnet.New(simnet.Options{Hold: simnet.Latency(50 * time.Millisecond)}), time.Now)
		tx := sms.NewTransmitter(store, up, sms.TransmitterOptions{Batch: 8, MaxInFlight: 32})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			tx.Run(ctx)
			close(done)
		}()
		time.Sleep(time.Second) // 300 parts, 32 at a time, 50 ms each: 0.5 s
		cancel()
		<-done
		up.takenOnce(t, keys)
		if up.maxIn > 32 || up.maxIn < 16 {
			t.Errorf("at most %d parts in flight, want up to 32 in 4 rounds at once", up.maxIn)
		}
	})
}

// BenchmarkTransmitter measures parts handed from a memstore queue to
// simnet (pgstore runs the same benchmark).
func BenchmarkTransmitter(b *testing.B) {
	smstest.BenchmarkTransmitter(b, memstore.New().SMS())
}
