package simnet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// recorder is a sink that keeps every event; fail, when set, refuses some.
type recorder struct {
	mu   sync.Mutex
	evs  []sms.StatusEvent
	fail func(sms.StatusEvent) error
}

func (r *recorder) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(ev); err != nil {
			return err
		}
	}
	r.evs = append(r.evs, ev)
	return nil
}

func (r *recorder) events() []sms.StatusEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

func part(id string, num int, to string) sms.OutboundPart {
	return sms.OutboundPart{MsgID: sms.MessageID(id), PartNum: num, NumParts: num + 1, Receiver: sms.MSISDN(to), ExpiresAt: t0.Add(24 * time.Hour)}
}

// drain runs the network from event to event until nothing is queued.
func drain(t testing.TB, n *Network, sink sms.StatusSink) {
	t.Helper()
	for range 100000 {
		due, ok := n.NextDue()
		if !ok {
			return
		}
		if _, err := n.RunDue(context.Background(), sink, due); err != nil {
			t.Fatalf("RunDue(%v): %v", due, err)
		}
	}
	t.Fatal("network never drained")
}

func ev(id string, num int, st sms.Status, code sms.DLRError, at time.Duration) sms.StatusEvent {
	return sms.StatusEvent{MsgID: sms.MessageID(id), PartNum: num, Status: st, ErrorCode: code, At: t0.Add(at)}
}

func TestOutcomes(t *testing.T) {
	rules := []Rule{
		{Prefix: "491", Outcome: Outcome{Kind: Deliver, AcceptDelay: time.Second, Delay: 5 * time.Second}},
		{Prefix: "492", Outcome: Outcome{Kind: Absent, AcceptDelay: time.Second, Delay: time.Minute, Attempts: 2, RetryEvery: time.Hour}},
		{Prefix: "493", Outcome: Outcome{Kind: Unknown, AcceptDelay: time.Second, Delay: 2 * time.Second}},
		{Prefix: "494", Outcome: Outcome{Kind: Reject, AcceptDelay: 3 * time.Second}},
		{Prefix: "495", Outcome: Outcome{Kind: Silent, AcceptDelay: time.Second}},
		{Prefix: "496", Outcome: Outcome{Kind: Absent, Delay: time.Minute, Attempts: 100, RetryEvery: time.Hour}},
		{Prefix: "497", Outcome: Outcome{Kind: Unknown, ErrorCode: sms.DLRNoRoute}},
		{Prefix: "498", Outcome: Outcome{Kind: Absent, Delay: time.Minute}},
		{Prefix: "499", Outcome: Outcome{Kind: Deliver, Delay: 25 * time.Hour}},
	}
	const day = 24 * time.Hour
	tests := []struct {
		to           string
		reportExpiry bool
		want         []sms.StatusEvent
	}{
		{"+4911", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, time.Second),
			ev("m", 0, sms.StatusDelivered, 0, 6*time.Second),
		}},
		{"+4921", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, time.Second),
			ev("m", 0, sms.StatusTemporaryFailure, 29, time.Second+time.Minute),
			ev("m", 0, sms.StatusTemporaryFailure, 29, time.Second+time.Minute+time.Hour),
			ev("m", 0, sms.StatusDelivered, 0, time.Second+time.Minute+2*time.Hour),
		}},
		{"+4931", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, time.Second),
			ev("m", 0, sms.StatusPermanentFailure, 1, 3*time.Second),
		}},
		{"+4941", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusRejected, 989, 3*time.Second),
		}},
		{"+4951", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, time.Second),
		}},
		{"+4951", true, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, time.Second),
			ev("m", 0, sms.StatusExpired, 996, day),
		}},
		{"+4961", false, func() []sms.StatusEvent { // attempts outlive validity
			evs := []sms.StatusEvent{ev("m", 0, sms.StatusAccepted, 0, 0)}
			for i := range 24 {
				evs = append(evs, ev("m", 0, sms.StatusTemporaryFailure, 29, time.Minute+time.Duration(i)*time.Hour))
			}
			return append(evs, ev("m", 0, sms.StatusExpired, 996, day))
		}()},
		{"+4971", false, []sms.StatusEvent{
			ev("m", 0, sms.StatusAccepted, 0, 0),
			ev("m", 0, sms.StatusPermanentFailure, 998, 0),
		}},
		{"+4981", false, []sms.StatusEvent{ // Attempts 0 fails once
			ev("m", 0, sms.StatusAccepted, 0, 0),
			ev("m", 0, sms.StatusTemporaryFailure, 29, time.Minute),
			ev("m", 0, sms.StatusDelivered, 0, time.Minute),
		}},
		{"+4991", false, []sms.StatusEvent{ // delivery after validity
			ev("m", 0, sms.StatusAccepted, 0, 0),
			ev("m", 0, sms.StatusExpired, 996, day),
		}},
		{"+331", false, []sms.StatusEvent{ // default: at once
			ev("m", 0, sms.StatusAccepted, 0, 0),
			ev("m", 0, sms.StatusDelivered, 0, 0),
		}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/expiry=%v", tc.to, tc.reportExpiry), func(t *testing.T) {
			clock := msgkittest.NewClock(t0)
			rec := &recorder{}
			n := New(Options{Rules: rules, ReportExpiry: tc.reportExpiry, Clock: clock.Now})
			if err := n.Send(context.Background(), []sms.OutboundPart{part("m", 0, tc.to)}); err != nil {
				t.Fatal(err)
			}
			drain(t, n, rec)
			if diff := cmp.Diff(tc.want, rec.events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// The statuses a gateway sees drive the state machine to the state the
// outcome promises.
func TestOutcomesEndInState(t *testing.T) {
	tests := []struct {
		o            Outcome
		reportExpiry bool
		want         sms.PartState
	}{
		{Outcome{Kind: Deliver}, false, sms.StateDelivered},
		{Outcome{Kind: Absent, Attempts: 3, RetryEvery: time.Minute}, false, sms.StateDelivered},
		{Outcome{Kind: Absent, Attempts: 100, RetryEvery: time.Hour}, false, sms.StateUndelivered},
		{Outcome{Kind: Unknown}, false, sms.StateUndelivered},
		{Outcome{Kind: Reject}, false, sms.StateRejected},
		{Outcome{Kind: Silent}, false, sms.StateSentToSMSC},
		{Outcome{Kind: Silent}, true, sms.StateUndelivered},
	}
	for _, tc := range tests {
		rec := &recorder{}
		clock := msgkittest.NewClock(t0)
		n := New(Options{Default: tc.o, ReportExpiry: tc.reportExpiry, Clock: clock.Now})
		if err := n.Send(context.Background(), []sms.OutboundPart{part("m", 0, "+441")}); err != nil {
			t.Fatal(err)
		}
		drain(t, n, rec)
		state := sms.StateSubmitted
		for _, e := range rec.events() {
			state, _, _ = sms.Step(state, e.Status)
		}
		if state != tc.want {
			t.Errorf("%v (expiry %v): ends %v, want %v", tc.o.Kind, tc.reportExpiry, state, tc.want)
		}
	}
}

func TestLongestPrefix(t *testing.T) {
	n := New(Options{
		Default: Outcome{Kind: Silent},
		Rules: []Rule{
			{Prefix: "4", Outcome: Outcome{Kind: Deliver}},
			{Prefix: "49", Outcome: Outcome{Kind: Absent}},
			{Prefix: "49151", Outcome: Outcome{Kind: Unknown}},
			{Prefix: "4915", Outcome: Outcome{Kind: Reject}},
		},
	})
	tests := []struct {
		to   sms.MSISDN
		want Kind
	}{
		{"+4915112345678", Unknown},
		{"+4915212345678", Reject},
		{"+4930123456", Absent},
		{"+441234567", Deliver},
		{"+331234567", Silent},
		{"4915112345678", Unknown}, // without '+'
		{"+49", Absent},
		{"+", Silent},
	}
	for _, tc := range tests {
		if got := n.OutcomeFor(tc.to).Kind; got != tc.want {
			t.Errorf("OutcomeFor(%s) = %v, want %v", tc.to, got, tc.want)
		}
	}
	// An empty prefix is a catch-all that any longer prefix beats.
	n = New(Options{Rules: []Rule{{Prefix: "", Outcome: Outcome{Kind: Reject}}, {Prefix: "1", Outcome: Outcome{Kind: Silent}}}})
	if got := n.OutcomeFor("+33").Kind; got != Reject {
		t.Errorf("catch-all: %v", got)
	}
	if got := n.OutcomeFor("+12").Kind; got != Silent {
		t.Errorf("longer prefix: %v", got)
	}
}

func TestNewPanicsOnBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"plus in prefix", Options{Rules: []Rule{{Prefix: "+49"}}}},
		{"prefix twice", Options{Rules: []Rule{{Prefix: "49"}, {Prefix: "49"}}}},
		{"negative delay", Options{Default: Outcome{Delay: -1}}},
		{"negative attempts", Options{Rules: []Rule{{Prefix: "1", Outcome: Outcome{Attempts: -1}}}}},
		{"unknown kind", Options{Default: Outcome{Kind: 9}}},
		{"negative duplicates", Options{DuplicateEvery: -1}},
	}
	for _, tc := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New did not panic", tc.name)
				}
			}()
			New(tc.opts)
		}()
	}
}

func TestSendRefusesBadParts(t *testing.T) {
	n := New(Options{Clock: msgkittest.NewClock(t0).Now})
	errs := n.Send(context.Background(), []sms.OutboundPart{part("a", 0, "+1"), part("", 0, "+1"), part("b", -1, "+1")})
	if len(errs) != 3 || errs[0] != nil || !errors.Is(errs[1], msgkit.Invalid) || !errors.Is(errs[2], msgkit.Invalid) {
		t.Errorf("Send = %v; want the good part taken and the others Invalid", errs)
	}
	if n.Pending() != 2 {
		t.Errorf("%d events queued, want the good part's 2", n.Pending())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errs = n.Send(ctx, []sms.OutboundPart{part("c", 0, "+1")})
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("cancelled: %v", errs)
	}
}

// sendOne sends one part and returns its error.
func sendOne(t *testing.T, n *Network, p sms.OutboundPart) error {
	t.Helper()
	errs := n.Send(t.Context(), []sms.OutboundPart{p})
	if errs == nil {
		return nil
	}
	if len(errs) != 1 {
		t.Fatalf("Send answered %d errors for one part", len(errs))
	}
	return errs[0]
}

func TestRefuse(t *testing.T) {
	n := New(Options{Rules: []Rule{
		{Prefix: "1", Outcome: Outcome{Kind: Refuse}},
		{Prefix: "2", Outcome: Outcome{Kind: Refuse, ErrorCode: sms.DLRNoRoute}},
	}})
	for _, tc := range []struct {
		to   string
		code sms.DLRError
	}{{"+11", 0}, {"+21", sms.DLRNoRoute}} {
		err := sendOne(t, n, part("a", 0, tc.to))
		r, ok := errors.AsType[*sms.Refusal](err)
		if !ok || r.Code != tc.code || msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("to %s: %v; want a Refusal with code %d, of kind Invalid", tc.to, err, tc.code)
		}
	}
	if n.Pending() != 0 {
		t.Errorf("refused parts queued %d events", n.Pending())
	}
}

func TestDown(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	n := New(Options{Clock: clock.Now, Down: Outage(t0.Add(time.Minute), t0.Add(2*time.Minute))})
	at := []time.Duration{0, time.Minute, 90 * time.Second, 2*time.Minute - time.Nanosecond, 2 * time.Minute}
	want := []bool{false, true, true, true, false}
	for i, d := range at {
		clock.Set(t0.Add(d))
		errs := n.Send(t.Context(), []sms.OutboundPart{part("a", i, "+1"), part("b", i, "+1")})
		down := errs != nil
		if down != want[i] {
			t.Errorf("at +%v: errors %v, want down %v", d, errs, want[i])
		}
		for _, err := range errs {
			if !errors.Is(err, msgkit.Unavailable) {
				t.Errorf("at +%v: %v, want Unavailable", d, err)
			}
		}
	}
	if n.Pending() != 2*2*2 {
		t.Errorf("%d events queued, want those of the 4 parts sent while up", n.Pending())
	}
}

func TestFlapping(t *testing.T) {
	down := Flapping(time.Minute, 20*time.Second)
	epoch := time.Unix(0, 0)
	for _, tc := range []struct {
		at   time.Time
		down bool
	}{
		{epoch, true}, {epoch.Add(19 * time.Second), true}, {epoch.Add(20 * time.Second), false},
		{epoch.Add(59 * time.Second), false}, {epoch.Add(time.Minute), true},
		{epoch.Add(-time.Second), false}, {epoch.Add(-time.Minute + time.Second), true},
	} {
		if got := down(tc.at); got != tc.down {
			t.Errorf("down at %v = %v, want %v", tc.at.Sub(epoch), got, tc.down)
		}
	}
	for _, bad := range [][2]time.Duration{{0, 0}, {time.Minute, -time.Second}, {time.Minute, 2 * time.Minute}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Flapping(%v, %v) did not panic", bad[0], bad[1])
				}
			}()
			Flapping(bad[0], bad[1])
		}()
	}
}

func TestMaxPerSecond(t *testing.T) {
	clock := msgkittest.NewClock(t0.Add(300 * time.Millisecond))
	n := New(Options{Clock: clock.Now, MaxPerSecond: 3})
	errs := n.Send(t.Context(), []sms.OutboundPart{part("a", 0, "+1"), part("a", 1, "+1")})
	if errs != nil {
		t.Fatalf("within the limit: %v", errs)
	}
	clock.Advance(600 * time.Millisecond) // the same second
	errs = n.Send(t.Context(), []sms.OutboundPart{part("b", 0, "+1"), part("b", 1, "+1"), part("b", 2, "+1")})
	if len(errs) != 3 || errs[0] != nil || !errors.Is(errs[1], msgkit.RateLimited) || !errors.Is(errs[2], msgkit.RateLimited) {
		t.Fatalf("beyond the limit: %v; want the third part of the second taken, the rest RateLimited", errs)
	}
	clock.Advance(100 * time.Millisecond) // the next second
	if err := sendOne(t, n, part("c", 0, "+1")); err != nil {
		t.Errorf("a new second: %v", err)
	}
	if n.Pending() != 4*2 {
		t.Errorf("%d events queued, want those of the 4 parts taken", n.Pending())
	}
}

func TestHold(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	n := New(Options{Clock: msgkittest.NewClock(t0).Now, Hold: func(ctx context.Context) error {
		close(entered)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}})
	done := make(chan []error)
	go func() { done <- n.Send(context.Background(), []sms.OutboundPart{part("a", 0, "+1")}) }()
	<-entered
	if n.Pending() != 0 {
		t.Fatal("a held Send scheduled events")
	}
	close(release)
	if errs := <-done; errs != nil {
		t.Fatalf("released: %v", errs)
	}
	if n.Pending() != 2 {
		t.Errorf("%d events after the release, want 2", n.Pending())
	}
}

func TestLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New(Options{Hold: Latency(time.Second)})
		start := time.Now()
		if errs := n.Send(t.Context(), []sms.OutboundPart{part("a", 0, "+1")}); errs != nil {
			t.Fatal(errs)
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("Send took %v, want 1s", took)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		errs := n.Send(ctx, []sms.OutboundPart{part("b", 0, "+1")})
		if len(errs) != 1 || !errors.Is(errs[0], context.DeadlineExceeded) {
			t.Errorf("a call that times out: %v", errs)
		}
	})
}

// jittery has every kind and a jitter, so that the order of events is
// decided by the seed.
func jittery(seed uint64, clock msgkit.Clock) Options {
	j := 30 * time.Second
	return Options{
		Seed:  seed,
		Clock: clock,
		Rules: []Rule{
			{Prefix: "1", Outcome: Outcome{Kind: Deliver, AcceptDelay: time.Second, Delay: time.Minute, Jitter: j}},
			{Prefix: "2", Outcome: Outcome{Kind: Absent, AcceptDelay: time.Second, Delay: time.Minute, Attempts: 3, RetryEvery: time.Minute, Jitter: j}},
			{Prefix: "3", Outcome: Outcome{Kind: Unknown, AcceptDelay: time.Second, Delay: time.Minute, Jitter: j}},
			{Prefix: "4", Outcome: Outcome{Kind: Reject, AcceptDelay: time.Second, Jitter: j}},
			{Prefix: "5", Outcome: Outcome{Kind: Silent, AcceptDelay: time.Second, Jitter: j}},
		},
	}
}

func manyParts(k int) []sms.OutboundPart {
	var parts []sms.OutboundPart
	for i := range k {
		for p := range 3 {
			parts = append(parts, part(fmt.Sprintf("msg-%03d", i), p, fmt.Sprintf("+%d%d", 1+i%5, 100+i)))
		}
	}
	return parts
}

func runAll(t *testing.T, seed uint64, parts []sms.OutboundPart, oneByOne bool) []sms.StatusEvent {
	t.Helper()
	clock := msgkittest.NewClock(t0)
	rec := &recorder{}
	n := New(jittery(seed, clock.Now))
	if oneByOne {
		for _, p := range parts {
			if err := n.Send(context.Background(), []sms.OutboundPart{p}); err != nil {
				t.Fatal(err)
			}
		}
	} else if err := n.Send(context.Background(), parts); err != nil {
		t.Fatal(err)
	}
	drain(t, n, rec)
	return rec.events()
}

func byPart(evs []sms.StatusEvent) map[string][]sms.StatusEvent {
	m := map[string][]sms.StatusEvent{}
	for _, e := range evs {
		k := fmt.Sprintf("%s/%d", e.MsgID, e.PartNum)
		m[k] = append(m[k], e)
	}
	return m
}

func TestDeterminism(t *testing.T) {
	parts := manyParts(40)
	a := runAll(t, 7, parts, false)
	if len(a) == 0 {
		t.Fatal("no events")
	}
	if diff := cmp.Diff(a, runAll(t, 7, parts, false)); diff != "" {
		t.Errorf("same seed, same sends, different events:\n%s", diff)
	}

	shuffled := slices.Clone(parts)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	b := runAll(t, 7, shuffled, true)
	if diff := cmp.Diff(byPart(a), byPart(b)); diff != "" {
		t.Errorf("another order of Send calls changed a part's events:\n%s", diff)
	}
	// With one clock time for every send, the whole sequence is the same.
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("another order of Send calls changed the sequence:\n%s", diff)
	}

	// A part's events do not depend on the other parts sent.
	alone := runAll(t, 7, parts[30:31], false)
	key := fmt.Sprintf("%s/%d", parts[30].MsgID, parts[30].PartNum)
	if diff := cmp.Diff(byPart(a)[key], alone); diff != "" {
		t.Errorf("part %s changed when sent alone:\n%s", key, diff)
	}

	// Another seed moves the jitter.
	c := runAll(t, 8, parts, false)
	if cmp.Equal(a, c) {
		t.Error("seeds 7 and 8 gave identical events; the jitter ignores the seed")
	}
	if len(c) != len(a) {
		t.Errorf("seed changed the number of events: %d vs %d", len(c), len(a))
	}
}

func TestJitterBounds(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	rec := &recorder{}
	n := New(Options{Seed: 3, Clock: clock.Now, Default: Outcome{AcceptDelay: time.Second, Delay: time.Minute, Jitter: 10 * time.Second}})
	if err := n.Send(context.Background(), manyParts(50)); err != nil {
		t.Fatal(err)
	}
	drain(t, n, rec)
	distinct := map[time.Time]bool{}
	for k, evs := range byPart(rec.events()) {
		if len(evs) != 2 {
			t.Fatalf("%s: %d events", k, len(evs))
		}
		acc, dlv := evs[0].At.Sub(t0), evs[1].At.Sub(evs[0].At)
		if acc < time.Second || acc >= 11*time.Second || dlv < time.Minute || dlv >= time.Minute+10*time.Second {
			t.Errorf("%s: accepted after %v, delivered %v later; outside the jitter", k, acc, dlv)
		}
		distinct[evs[0].At] = true
	}
	if len(distinct) < 50 {
		t.Errorf("only %d distinct acceptance times for 150 parts", len(distinct))
	}
}

func TestRunDueOrder(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	rec := &recorder{}
	n := New(Options{Clock: clock.Now, Rules: []Rule{
		{Prefix: "1", Outcome: Outcome{AcceptDelay: 2 * time.Second, Delay: 2 * time.Second}},
		{Prefix: "2", Outcome: Outcome{AcceptDelay: time.Second, Delay: 5 * time.Second}},
	}})
	ctx := context.Background()
	// Sent in an order that differs from the order of ties.
	if err := n.Send(ctx, []sms.OutboundPart{part("b", 1, "+11"), part("b", 0, "+11"), part("a", 0, "+11"), part("c", 0, "+21")}); err != nil {
		t.Fatal(err)
	}
	if due, ok := n.NextDue(); !ok || !due.Equal(t0.Add(time.Second)) {
		t.Fatalf("NextDue = %v, %v; want t0+1s", due, ok)
	}
	if got, err := n.RunDue(ctx, rec, t0.Add(999*time.Millisecond)); got != 0 || err != nil {
		t.Fatalf("RunDue before anything is due = %d, %v", got, err)
	}
	got, err := n.RunDue(ctx, rec, t0.Add(4*time.Second))
	if err != nil || got != 7 {
		t.Fatalf("RunDue(t0+4s) = %d, %v; want 7", got, err)
	}
	want := []sms.StatusEvent{
		ev("c", 0, sms.StatusAccepted, 0, time.Second),
		ev("a", 0, sms.StatusAccepted, 0, 2*time.Second),
		ev("b", 0, sms.StatusAccepted, 0, 2*time.Second),
		ev("b", 1, sms.StatusAccepted, 0, 2*time.Second),
		ev("a", 0, sms.StatusDelivered, 0, 4*time.Second),
		ev("b", 0, sms.StatusDelivered, 0, 4*time.Second),
		ev("b", 1, sms.StatusDelivered, 0, 4*time.Second),
	}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if n.Pending() != 1 {
		t.Errorf("Pending = %d, want 1", n.Pending())
	}
	if due, ok := n.NextDue(); !ok || !due.Equal(t0.Add(6*time.Second)) {
		t.Errorf("NextDue = %v, %v; want t0+6s", due, ok)
	}
	if got, _ := n.RunDue(ctx, rec, t0.Add(time.Hour)); got != 1 {
		t.Errorf("last RunDue = %d", got)
	}
	if _, ok := n.NextDue(); ok || n.Pending() != 0 {
		t.Error("queue not empty")
	}
}

// A refused event is offered again a second later, the part's later events
// wait behind it, and other parts go on.
func TestRequeueOnSinkError(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	refusals := 2
	rec := &recorder{}
	rec.fail = func(e sms.StatusEvent) error {
		if e.MsgID == "a" && e.Status == sms.StatusAccepted && refusals > 0 {
			refusals--
			return errors.New("store down")
		}
		return nil
	}
	n := New(Options{Clock: clock.Now, Default: Outcome{Delay: 500 * time.Millisecond}})
	ctx := context.Background()
	if err := n.Send(ctx, []sms.OutboundPart{part("a", 0, "+1"), part("b", 0, "+1")}); err != nil {
		t.Fatal(err)
	}
	got, err := n.RunDue(ctx, rec, t0.Add(time.Second))
	if err == nil || got != 2 {
		t.Fatalf("RunDue = %d, %v; want 2 and an error", got, err)
	}
	if due, _ := n.NextDue(); !due.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("re-queued for %v, want t0+2s", due)
	}
	if n.Pending() != 2 {
		t.Errorf("Pending = %d, want the refused event and the one behind it", n.Pending())
	}
	if _, err := n.RunDue(ctx, rec, t0.Add(2*time.Second)); err == nil {
		t.Error("second refusal not reported")
	}
	if got, err := n.RunDue(ctx, rec, t0.Add(3*time.Second)); err != nil || got != 2 {
		t.Errorf("third RunDue = %d, %v; want 2, nil", got, err)
	}
	want := []sms.StatusEvent{
		ev("b", 0, sms.StatusAccepted, 0, 0),
		ev("b", 0, sms.StatusDelivered, 0, 500*time.Millisecond),
		ev("a", 0, sms.StatusAccepted, 0, 0), // keeps the time it happened
		ev("a", 0, sms.StatusDelivered, 0, 500*time.Millisecond),
	}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestSinkRetryOption(t *testing.T) {
	rec := &recorder{fail: func(sms.StatusEvent) error { return errors.New("no") }}
	n := New(Options{Clock: msgkittest.NewClock(t0).Now, SinkRetry: time.Minute})
	if err := n.Send(context.Background(), []sms.OutboundPart{part("a", 0, "+1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.RunDue(context.Background(), rec, t0); err == nil {
		t.Fatal("no error")
	}
	if due, _ := n.NextDue(); !due.Equal(t0.Add(time.Minute)) {
		t.Errorf("re-queued for %v, want t0+1m", due)
	}
	if n.Pending() != 2 {
		t.Errorf("Pending = %d, want 2 (nothing lost)", n.Pending())
	}
}

func TestRunDueStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	rec.fail = func(sms.StatusEvent) error {
		cancel() // the first event is taken, then the context ends
		return nil
	}
	n := New(Options{Clock: msgkittest.NewClock(t0).Now})
	if err := n.Send(ctx, []sms.OutboundPart{part("a", 0, "+1"), part("b", 0, "+1")}); err != nil {
		t.Fatal(err)
	}
	got, err := n.RunDue(ctx, rec, t0)
	if !errors.Is(err, context.Canceled) || got != 1 {
		t.Errorf("RunDue = %d, %v; want 1, canceled", got, err)
	}
	if n.Pending() != 3 {
		t.Errorf("Pending = %d, want 3", n.Pending())
	}
}

func TestDuplicates(t *testing.T) {
	rec := &recorder{}
	n := New(Options{Clock: msgkittest.NewClock(t0).Now, DuplicateEvery: 3})
	if err := n.Send(context.Background(), []sms.OutboundPart{part("a", 0, "+1"), part("b", 0, "+1"), part("c", 0, "+1")}); err != nil {
		t.Fatal(err)
	}
	got, err := n.RunDue(context.Background(), rec, t0)
	if err != nil || got != 8 {
		t.Fatalf("RunDue = %d, %v; want 6 events and 2 duplicates", got, err)
	}
	want := []sms.StatusEvent{
		ev("a", 0, sms.StatusAccepted, 0, 0),
		ev("a", 0, sms.StatusDelivered, 0, 0),
		ev("b", 0, sms.StatusAccepted, 0, 0),
		ev("b", 0, sms.StatusAccepted, 0, 0),
		ev("b", 0, sms.StatusDelivered, 0, 0),
		ev("c", 0, sms.StatusAccepted, 0, 0),
		ev("c", 0, sms.StatusDelivered, 0, 0),
		ev("c", 0, sms.StatusDelivered, 0, 0),
	}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Sends and runs from many goroutines lose nothing and keep each part in
// order. Run with -race.
func TestConcurrent(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	rec := &recorder{}
	n := New(jittery(11, clock.Now))
	ctx := context.Background()
	const senders, perSender = 8, 50
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range perSender {
				p := part(fmt.Sprintf("s%d-%d", s, i), 0, fmt.Sprintf("+%d9", 1+i%5))
				if err := n.Send(ctx, []sms.OutboundPart{p}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	stop := make(chan struct{})
	var runners sync.WaitGroup
	for range 3 {
		runners.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := n.RunDue(ctx, rec, t0.Add(time.Hour)); err != nil {
					t.Error(err)
				}
				n.NextDue()
				n.Pending()
			}
		})
	}
	wg.Wait()
	close(stop)
	runners.Wait()
	drain(t, n, rec)

	parts := byPart(rec.events())
	if len(parts) != senders*perSender {
		t.Fatalf("events for %d parts, want %d", len(parts), senders*perSender)
	}
	for k, evs := range parts {
		if !slices.IsSortedFunc(evs, func(a, b sms.StatusEvent) int { return a.At.Compare(b.At) }) {
			t.Errorf("%s: events out of order: %v", k, evs)
		}
		if evs[0].Status != sms.StatusAccepted && evs[0].Status != sms.StatusRejected {
			t.Errorf("%s: first event %v", k, evs[0].Status)
		}
	}
}

// Run hands due events to the sink on its ticker with the clock's time
// (the synthetic time of a synctest bubble, so nothing really waits).
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		n := New(Options{Default: Outcome{AcceptDelay: time.Minute, Delay: time.Minute}})
		start := time.Now()
		if err := n.Send(t.Context(), []sms.OutboundPart{part("a", 0, "+1")}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			n.Run(ctx, rec, time.Second)
			close(done)
		}()
		time.Sleep(90 * time.Second)
		synctest.Wait()
		want := []sms.StatusEvent{{MsgID: "a", Status: sms.StatusAccepted, At: start.Add(time.Minute)}}
		if diff := cmp.Diff(want, rec.events()); diff != "" {
			t.Errorf("after 90s (-want +got):\n%s", diff)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(rec.events()); got != 2 || n.Pending() != 0 {
			t.Errorf("after 150s: %d events, %d pending; want 2, 0", got, n.Pending())
		}
		cancel()
		<-done
	})
}

func BenchmarkSendAndRun(b *testing.B) {
	clock := msgkittest.NewClock(t0)
	rec := &discard{}
	n := New(jittery(1, clock.Now))
	ctx := context.Background()
	parts := manyParts(100) // 300 parts of every kind
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Send(ctx, parts); err != nil {
			b.Fatal(err)
		}
		for {
			due, ok := n.NextDue()
			if !ok {
				break
			}
			if _, err := n.RunDue(ctx, rec, due); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rec.n)/float64(b.N), "events/op")
}

type discard struct{ n int }

func (d *discard) HandleStatus(context.Context, sms.StatusEvent) error { d.n++; return nil }

// heldList is a HeldParts of a list of parts, in key order, counting the
// pages asked for.
type heldList struct {
	parts []sms.OutboundPart
	pages int
}

func (h *heldList) HandedParts(_ context.Context, _ time.Time, after sms.PartKey, limit int) ([]sms.OutboundPart, error) {
	h.pages++
	i, _ := slices.BinarySearchFunc(h.parts, after, func(p sms.OutboundPart, k sms.PartKey) int {
		if p.MsgID == k.MsgID {
			return p.PartNum - k.PartNum
		}
		return strings.Compare(string(p.MsgID), string(k.MsgID))
	})
	for i < len(h.parts) && h.parts[i].MsgID == after.MsgID && h.parts[i].PartNum <= after.PartNum {
		i++
	}
	return h.parts[i:min(i+limit, len(h.parts))], nil
}

// Restore plans every held part, page after page, whether or not the
// network is down now (it took them once), and the sink hears of each.
func TestRestore(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	n := New(Options{Clock: clock.Now, Default: Outcome{Kind: Deliver, Delay: time.Second}, Down: func(time.Time) bool { return true }})
	held := &heldList{}
	for i := range 1200 {
		held.parts = append(held.parts, part(fmt.Sprintf("m-%04d", i), 0, "38640123456"))
	}
	got, err := n.Restore(t.Context(), held)
	if err != nil || got != 1200 || held.pages != 3 {
		t.Fatalf("Restore = %d, %v in %d pages; want 1200 in 3", got, err, held.pages)
	}
	sink := &recorder{}
	drain(t, n, sink)
	delivered := 0
	for _, ev := range sink.events() {
		if ev.Status == sms.StatusDelivered {
			delivered++
		}
	}
	if delivered != 1200 {
		t.Errorf("%d parts delivered, want 1200", delivered)
	}
}

// batchRecorder is a StatusBatchSink: it records each call's size and
// refuses, once, the events of the part refuse names (and the later ones
// of that part in the batch, as the gateway does).
type batchRecorder struct {
	recorder
	sizes  []int
	refuse sms.PartKey
}

func (r *batchRecorder) HandleStatuses(ctx context.Context, evs []sms.StatusEvent) []error {
	r.sizes = append(r.sizes, len(evs))
	errs := make([]error, len(evs))
	refusing := r.refuse.MsgID != ""
	for i, ev := range evs {
		if refusing && ev.MsgID == r.refuse.MsgID && ev.PartNum == r.refuse.PartNum {
			errs[i] = errors.New("busy")
			continue
		}
		errs[i] = r.HandleStatus(ctx, ev)
	}
	if refusing {
		r.refuse = sms.PartKey{}
	}
	return errs
}

// A batch sink gets the due events in batches, in order; events it
// refuses come again later, still in their part's order.
func TestRunDueBatches(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	n := New(Options{Clock: clock.Now, Default: Outcome{Kind: Deliver, AcceptDelay: time.Second, Delay: time.Second}, SinkRetry: time.Minute})
	var parts []sms.OutboundPart
	for i := range 300 {
		parts = append(parts, part(fmt.Sprintf("m-%03d", i), 0, "38640123456"))
	}
	if errs := n.Send(t.Context(), parts); errs != nil {
		t.Fatal(errs)
	}
	sink := &batchRecorder{refuse: sms.PartKey{MsgID: "m-007"}}
	if _, err := n.RunDue(t.Context(), sink, t0.Add(time.Hour)); err == nil {
		t.Fatal("a refused event was not reported")
	}
	// m-007's delivery is held back behind its refused acceptance.
	if want := []int{256, 256, 87}; !slices.Equal(sink.sizes, want) {
		t.Errorf("batches of %v, want %v", sink.sizes, want)
	}
	drain(t, n, sink)
	var seven []sms.Status
	for _, ev := range sink.events() {
		if ev.MsgID == "m-007" {
			seven = append(seven, ev.Status)
		}
	}
	if want := []sms.Status{sms.StatusAccepted, sms.StatusDelivered}; !slices.Equal(seven, want) || len(sink.events()) != 600 {
		t.Errorf("m-007 got %v of %d events, want %v of 600", seven, len(sink.events()), want)
	}
}
