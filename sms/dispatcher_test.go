package sms_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// queue submits a message asking for reports to url and applies the
// network statuses, each queuing its report, due now.
func (f *fixture) queue(t *testing.T, url string, statuses ...sms.Status) sms.MessageID {
	t.Helper()
	sub := valid()
	mask := int64(31)
	sub.DLRMask, sub.DLRURL = &mask, url
	acc, err := f.gw.Submit(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range statuses {
		if err := f.gw.HandleStatus(t.Context(), sms.StatusEvent{MsgID: acc.MsgID, Status: st, At: f.clock.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return acc.MsgID
}

// slowFixture is a fixture on the bubble's clock with n reports due to
// slow.example.
func slowFixture(t *testing.T, n int) *fixture {
	f := newFixture(t)
	f.clock.Set(time.Now())
	for range n {
		f.queue(t, "https://slow.example/dlr", sms.StatusDelivered)
	}
	return f
}

// hangs is a receiver that never answers: the attempt ends with its
// timeout.
func hangs(ctx context.Context) error {
	<-ctx.Done()
	return msgkit.Wrap(ctx.Err(), msgkit.Unavailable, "dlr_unreachable", "the report URL did not answer")
}

// runDispatcher runs d until the test's bubble ends it.
func runDispatcher(t *testing.T, d *sms.Dispatcher) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// A slow receiver delays only its own reports: with 100 reports hanging
// on it, a report to another receiver goes out within a second.
func TestDispatcherNoHeadOfLineBlocking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slowFixture(t, 100)
		fast := make(chan time.Time, 1)
		var mu sync.Mutex
		inFlight := 0
		d := sms.NewDispatcher(f.store, posterFunc(func(ctx context.Context, url string, _ []byte) error {
			if strings.Contains(url, "slow") {
				mu.Lock()
				inFlight++
				mu.Unlock()
				defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
				return hangs(ctx)
			}
			fast <- time.Now()
			return nil
		}), sms.DispatcherOptions{}) // the defaults: 10 s timeout, 32 per host
		runDispatcher(t, d)
		synctest.Wait()
		mu.Lock()
		if inFlight != 32 {
			t.Errorf("%d deliveries to the slow host at once, want 32", inFlight)
		}
		mu.Unlock()

		time.Sleep(3 * time.Second) // the slow attempts are well under way
		queued := time.Now()
		f.clock.Set(queued)
		f.queue(t, "https://fast.example/dlr", sms.StatusDelivered)
		select {
		case at := <-fast:
			if waited := at.Sub(queued); waited > time.Second {
				t.Errorf("the fast report waited %v", waited)
			}
		case <-time.After(5 * time.Minute):
			t.Fatal("the fast report did not go out while the slow host hung")
		}
	})
}

// watchedOutbox is an OutboxStore that checks how the dispatcher uses
// leases: no attempt starts with less than the timeout left on its lease,
// no report is given back or finished after its lease ran out, and how
// many reports are claimed and not finished.
type watchedOutbox struct {
	sms.OutboxStore
	timeout time.Duration

	mu       sync.Mutex
	lease    map[int64]time.Time // lease end of each claimed report
	attempts map[int64]int       // attempts when claimed
	byBody   map[string]int64
	open     int // claimed and not finished
	gaveBack int
	problems []string
}

func watch(s sms.OutboxStore, timeout time.Duration) *watchedOutbox {
	return &watchedOutbox{OutboxStore: s, timeout: timeout, lease: map[int64]time.Time{}, attempts: map[int64]int{}, byBody: map[string]int64{}}
}

func (w *watchedOutbox) ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.Report, error) {
	rs, err := w.OutboxStore.ClaimReports(ctx, now, lease, limit)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range rs {
		w.lease[r.ID], w.attempts[r.ID], w.byBody[string(r.Body)] = now.Add(lease), r.Attempts, r.ID
		w.open++
	}
	return rs, err
}

func (w *watchedOutbox) FinishReports(ctx context.Context, rs []sms.Report) []error {
	w.mu.Lock()
	now := time.Now()
	for _, r := range rs {
		if now.After(w.lease[r.ID]) {
			w.problems = append(w.problems, fmt.Sprintf("report %d finished at %v, its lease ended at %v", r.ID, now, w.lease[r.ID]))
		}
		if r.State == sms.ReportPending && r.Attempts == w.attempts[r.ID] {
			w.gaveBack++
		}
		w.open--
	}
	w.mu.Unlock()
	return w.OutboxStore.FinishReports(ctx, rs)
}

// started checks the lease of the report with body as its attempt starts.
func (w *watchedOutbox) started(body []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := w.byBody[string(body)]
	if left := w.lease[id].Sub(time.Now()); left < w.timeout {
		w.problems = append(w.problems, fmt.Sprintf("report %d started with %v of its lease left", id, left))
	}
}

func (w *watchedOutbox) check(t *testing.T) (open int) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Error(p)
	}
	w.problems = nil
	return w.open
}

// A host that hangs holds at most its cap of reports, and those that wait
// behind its hanging attempts go back to the outbox before their leases
// run out, put off; other hosts are served all along; when the host comes
// back every report reaches it, each part's in order.
func TestDispatcherBoundsASlowHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock.Set(time.Now())
		const timeout, perHost, maxHeld = 10 * time.Second, 4, 20
		store := watch(f.store, timeout)
		var ids []sms.MessageID
		for range 50 { // 100 reports, two per part
			ids = append(ids, f.queue(t, "https://slow.example/dlr", sms.StatusAccepted, sms.StatusDelivered))
		}
		recovers := time.Now().Add(time.Minute)
		var (
			mu       sync.Mutex
			inFlight int
			got      = map[sms.MessageID][]string{}
		)
		fast := make(chan struct{}, 1)
		d := sms.NewDispatcher(store, posterFunc(func(ctx context.Context, url string, body []byte) error {
			store.started(body)
			if strings.Contains(url, "fast") {
				fast <- struct{}{}
				return nil
			}
			mu.Lock()
			inFlight++
			if inFlight > perHost {
				t.Errorf("%d deliveries to one host at once", inFlight)
			}
			mu.Unlock()
			defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
			if time.Now().Before(recovers) {
				return hangs(ctx)
			}
			var b sms.ReportBody
			json.Unmarshal(body, &b)
			mu.Lock()
			defer mu.Unlock()
			if b.Event == "DELIVERED" && !slices.Contains(got[b.MsgID], "SENT_TO_SMSC") {
				t.Errorf("%s: DELIVERED posted before SENT_TO_SMSC was taken", b.MsgID)
			}
			got[b.MsgID] = append(got[b.MsgID], b.Event)
			return nil
		}), sms.DispatcherOptions{
			Timeout: timeout, PerHost: perHost, MaxHeldPerHost: maxHeld, Batch: 10,
			BaseBackoff: time.Second, MaxBackoff: 30 * time.Second, Jitter: func() float64 { return 0 },
		})
		runDispatcher(t, d)

		sentFast := 0
		for time.Now().Before(recovers) {
			synctest.Wait()
			if open := store.check(t); open > maxHeld {
				t.Fatalf("at %v the dispatcher holds %d reports of one host, cap %d", time.Now(), open, maxHeld)
			}
			if time.Now().Second()%10 == 5 { // now and then, another customer's report
				f.clock.Set(time.Now())
				f.queue(t, "https://fast.example/dlr", sms.StatusDelivered)
				sentFast++
				select {
				case <-fast:
				case <-time.After(time.Second):
					t.Fatalf("at %v another host's report waited more than a second", time.Now())
				}
			}
			time.Sleep(time.Second)
		}
		store.mu.Lock()
		gaveBack := store.gaveBack
		store.mu.Unlock()
		if gaveBack == 0 {
			t.Error("no report was given back while the host hung")
		}

		for deadline := time.Now().Add(time.Hour); time.Now().Before(deadline); time.Sleep(time.Second) {
			if c := counts(t, f); c[sms.ReportPending] == 0 {
				break
			}
		}
		store.check(t)
		if c := counts(t, f); c[sms.ReportDelivered] != 100+sentFast || c[sms.ReportPending] != 0 {
			t.Errorf("counts %v, want every report delivered", c)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			if !slices.Equal(got[id], []string{"SENT_TO_SMSC", "DELIVERED"}) {
				t.Errorf("%s: the host got %v", id, got[id])
			}
		}
	})
}

// A dispatcher that stops gives back the reports it held but had not
// started, so a replica takes them at once, not when their leases end.
func TestDispatcherStopGivesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slowFixture(t, 20)
		ctx, cancel := context.WithCancel(t.Context())
		d := sms.NewDispatcher(f.store, posterFunc(func(ctx context.Context, _ string, _ []byte) error { return hangs(ctx) }),
			sms.DispatcherOptions{PerHost: 2})
		done := make(chan struct{})
		go func() { d.Run(ctx); close(done) }()
		synctest.Wait()
		cancel()
		<-done
		rs, err := f.store.ClaimReports(t.Context(), time.Now(), time.Minute, 100)
		if err != nil || len(rs) != 18 {
			t.Errorf("a replica claims %d reports at once, want the 18 that waited (%v)", len(rs), err)
		}
	})
}

// Replicas sharing a store deliver every report, whichever takes it.
func TestDispatcherReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock.Set(time.Now())
		for i := range 60 {
			f.queue(t, fmt.Sprintf("https://h%d.example/dlr", i%3), sms.StatusAccepted, sms.StatusDelivered)
		}
		var mu sync.Mutex
		posted := map[string]int{}
		poster := posterFunc(func(ctx context.Context, _ string, body []byte) error {
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			posted[string(body)]++
			mu.Unlock()
			return nil
		})
		for range 2 {
			runDispatcher(t, sms.NewDispatcher(f.store, poster, sms.DispatcherOptions{Batch: 7, PerHost: 2}))
		}
		for c := counts(t, f); c[sms.ReportPending] > 0; c = counts(t, f) {
			time.Sleep(100 * time.Millisecond)
		}
		if c := counts(t, f); c[sms.ReportDelivered] != 120 {
			t.Errorf("counts %v", c)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(posted) != 120 {
			t.Errorf("%d distinct reports posted, want 120", len(posted))
		}
	})
}

// gatedOutbox holds its first FinishReports until release is closed, and
// counts the calls.
type gatedOutbox struct {
	sms.OutboxStore
	release chan struct{}

	mu    sync.Mutex
	sizes []int
}

func (g *gatedOutbox) FinishReports(ctx context.Context, rs []sms.Report) []error {
	g.mu.Lock()
	g.sizes = append(g.sizes, len(rs))
	first := len(g.sizes) == 1
	g.mu.Unlock()
	if first {
		select {
		case <-g.release:
		case <-time.After(time.Minute):
		}
	}
	return g.OutboxStore.FinishReports(ctx, rs)
}

// Lines do not wait for the store: while the first call records what was
// queued first, every other report is posted and its outcome queued, and
// those outcomes are recorded together in one more call. The store's gate
// opens once everything else in the bubble waits (synctest.Wait): by then
// every post is done, whatever order the goroutines ran in.
func TestDispatcherRecordsByTheBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock.Set(time.Now())
		const n = 50
		for range n {
			f.queue(t, "https://fast.example/dlr", sms.StatusDelivered)
		}
		store := &gatedOutbox{OutboxStore: f.store, release: make(chan struct{})}
		var posted atomic.Int32
		d := sms.NewDispatcher(store, posterFunc(func(ctx context.Context, url string, body []byte) error {
			posted.Add(1)
			return nil
		}), sms.DispatcherOptions{Clock: f.clock.Now})
		start := time.Now()
		var (
			got  int
			err  error
			done = make(chan struct{})
		)
		go func() {
			defer close(done)
			got, err = d.RunOnce(t.Context())
		}()
		synctest.Wait()
		if p := posted.Load(); p != n {
			t.Errorf("%d of %d reports posted while the first outcomes were being recorded: the lines waited for the store", p, n)
		}
		close(store.release)
		<-done
		if err != nil || got != n {
			t.Fatalf("RunOnce = %d, %v", got, err)
		}
		if took := time.Since(start); took >= time.Minute {
			t.Errorf("the lines waited for the first record (%v)", took)
		}
		if len(store.sizes) > 3 {
			t.Errorf("recorded in %d calls %v, want 3 at most", len(store.sizes), store.sizes)
		}
		if counts, _ := f.store.ReportCounts(t.Context()); counts[sms.ReportDelivered] != n || counts[sms.ReportPending] != 0 {
			t.Errorf("counts %v", counts)
		}
	})
}

// claimCounter counts the reports a dispatcher gets by claiming.
type claimCounter struct {
	sms.OutboxStore
	claimed atomic.Int64
}

func (c *claimCounter) ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.Report, error) {
	rs, err := c.OutboxStore.ClaimReports(ctx, now, lease, limit)
	c.claimed.Add(int64(len(rs)))
	return rs, err
}

// With GatewayOptions.Dispatcher, the reports of the network's events go
// to the running dispatcher in memory, leased in the same UpdateParts: the
// dispatcher delivers them without claiming one, in order per part (a
// part's second report waits for its first to be delivered). Without a
// running dispatcher they are queued for a claim.
func TestHandleStatusesHandsReportsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.clock.Set(time.Now())
		var (
			mu     sync.Mutex
			posted []string
		)
		counter := &claimCounter{OutboxStore: f.store}
		d := sms.NewDispatcher(counter, posterFunc(func(_ context.Context, _ string, body []byte) error {
			var b sms.ReportBody
			if err := json.Unmarshal(body, &b); err != nil {
				return err
			}
			mu.Lock()
			posted = append(posted, fmt.Sprintf("%s/%d %s", b.MsgID, b.PartNum, b.Event))
			mu.Unlock()
			return nil
		}), sms.DispatcherOptions{Clock: f.clock.Now})
		gw := sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, Dispatcher: d})

		// Not running yet: the report is queued for a claim.
		first := f.queue(t, "https://shop.example/dlr")
		if errs := gw.HandleStatuses(t.Context(), []sms.StatusEvent{{MsgID: first, Status: sms.StatusAccepted, At: f.clock.Now()}}); errs[0] != nil {
			t.Fatal(errs[0])
		}
		runDispatcher(t, d)
		synctest.Wait()
		if got := counter.claimed.Load(); got != 1 {
			t.Fatalf("%d reports claimed, want the one queued before Run", got)
		}

		// One after the other, each delivered before the next comes:
		// both handed over.
		id := f.queue(t, "https://shop.example/dlr")
		for _, st := range []sms.Status{sms.StatusAccepted, sms.StatusDelivered} {
			if errs := gw.HandleStatuses(t.Context(), []sms.StatusEvent{{MsgID: id, Status: st, At: f.clock.Now()}}); errs[0] != nil {
				t.Fatal(errs[0])
			}
			synctest.Wait()
		}
		// Both at once: the second is the part's second report and waits
		// for a claim after the first is delivered.
		third := f.queue(t, "https://shop.example/dlr")
		if errs := gw.HandleStatuses(t.Context(), []sms.StatusEvent{
			{MsgID: third, Status: sms.StatusAccepted, At: f.clock.Now()},
			{MsgID: third, Status: sms.StatusDelivered, At: f.clock.Now()},
		}); errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		synctest.Wait()
		time.Sleep(time.Second) // the dispatcher's next claims (Idle)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		want := []string{
			fmt.Sprintf("%s/0 SENT_TO_SMSC", first),
			fmt.Sprintf("%s/0 SENT_TO_SMSC", id), fmt.Sprintf("%s/0 DELIVERED", id),
			fmt.Sprintf("%s/0 SENT_TO_SMSC", third), fmt.Sprintf("%s/0 DELIVERED", third),
		}
		if !slices.Equal(posted, want) {
			t.Errorf("posted %q, want %q", posted, want)
		}
		if got := counter.claimed.Load(); got != 2 {
			t.Errorf("%d reports claimed, want 2: the one queued before Run and the part's second of one call", got)
		}
	})
}
