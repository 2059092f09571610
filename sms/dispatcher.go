package sms

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/prometheus/client_golang/prometheus"
)

// ReportPoster delivers one report body to a customer's URL. An error of
// kind msgkit.Invalid means the report can never go there (a 4xx answer,
// an address the poster refuses, too many redirects); any other error is
// retried.
type ReportPoster interface {
	PostReport(ctx context.Context, url string, body []byte) error
}

// DispatcherOptions configure a Dispatcher. Zero values choose the
// defaults.
type DispatcherOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Batch is how many reports one claim takes at most; default 200.
	Batch int
	// Timeout bounds one delivery attempt, redirects included; default
	// 10 s.
	Timeout time.Duration
	// Lease is how long a claimed report is held before another replica
	// may take it (its claimer died); default 3 × Timeout, and never less
	// than 2 × Timeout. A report starts its attempt with at least
	// 1.5 × Timeout of its lease left, or is given back (see Run).
	Lease time.Duration
	// MaxAttempts and MaxAge bound the retries of a report; defaults 15
	// and 48 h. A report past either is given up: recorded and counted.
	MaxAttempts int
	MaxAge      time.Duration
	// BaseBackoff doubles per failed attempt up to MaxBackoff; defaults
	// 2 s and 15 min. Each wait is jittered between half and all of it.
	BaseBackoff, MaxBackoff time.Duration
	// PerHost caps concurrent deliveries to one host; default 32. A line
	// goes no faster than PerHost reports per attempt's time: with 8, one
	// fast receiver on the same two cores as a busy gateway took about
	// 8,000 reports a second, fewer than the gateway made (four per
	// submission), and the backlog grew for as long as the load lasted.
	// Kannel and Jasmin keep hundreds of report requests pending; a slow
	// receiver still gets fewer (see the package doc's delivery reports
	// outbox).
	PerHost int
	// MaxHeldPerHost caps the reports of one host the dispatcher holds,
	// in flight and waiting; default 5 × Batch, and at least PerHost. A
	// slow host holds fewer: what it can start within the lease. Reports
	// handed over in memory (GatewayOptions.Dispatcher) come in the
	// network's bursts, a thousand at a time at 10,000 a second; with
	// 2 × Batch a fast receiver's line gave a third of them back, each
	// then claimed again.
	MaxHeldPerHost int
	// MaxHeld caps the reports held for all hosts; default 10 × Batch,
	// and at least Batch.
	MaxHeld int
	// Idle is the longest pause of Run between claims; default 200 ms.
	Idle time.Duration
	// Jitter returns a number in [0, 1); default math/rand/v2.
	Jitter func() float64
	// Metrics, when set, is where the dispatcher registers its metrics:
	// attempts by outcome, reports put off, the lines held back, and the
	// outbox's gauges, read from its store at each scrape; nil: none, at
	// no cost. Two dispatchers on one registry are a wiring mistake:
	// NewDispatcher panics.
	Metrics prometheus.Registerer
}

// Dispatcher delivers queued reports at least once: it claims due reports
// from the outbox, posts them, and records delivery, a retry with backoff,
// or that it gave up. Several dispatchers (replicas) may share one store.
//
// Each destination host has its own line: at most PerHost deliveries at a
// time, and at most what the caps allow waiting behind them, so a slow or
// dead receiver delays only its own reports. The package documentation
// (Delivery reports outbox) says how claiming, holding and giving back fit
// together.
type Dispatcher struct {
	store   OutboxStore
	poster  ReportPoster
	opts    DispatcherOptions
	backoff msgkit.Backoff
	margin  time.Duration // lease an attempt needs beyond Timeout, to record its outcome
	metrics *dispatcherMetrics

	wake    chan struct{}  // a full line or the dispatcher drained: claim again
	workers sync.WaitGroup // the lines' delivering goroutines and the recorder

	rmu       sync.Mutex
	outcomes  []outcome // attempts made, to be recorded
	recording bool      // the recorder runs

	mu       sync.Mutex
	lines    map[string]*line // by host; an empty line is forgotten after MaxBackoff
	held     int              // reports claimed or handed over, neither finished nor given back
	reserved int              // places promised to hand-overs under way (reserve)
	overfull bool             // held left no room for a whole batch
	running  context.Context  // Run's, while it runs: hand-overs are taken only then
}

// line is one host's reports in the dispatcher, and how fast the host
// takes them.
type line struct {
	waiting  []heldReport // in claim order
	held     int          // waiting and in flight
	active   int          // workers delivering from this line
	full     bool         // held is above the refill mark: Run waits for it to drain
	latency  time.Duration
	progress time.Time // when the line last finished an attempt, or became busy
}

// outcome is an attempt at a report of line l, with its outcome in r.
type outcome struct {
	r Report
	l *line
}

// heldReport is a claimed report waiting for its line, and the last
// moment its attempt may start for its lease to outlast it.
type heldReport struct {
	Report
	startBy time.Time
}

// NewDispatcher returns a dispatcher over store posting with poster.
func NewDispatcher(store OutboxStore, poster ReportPoster, opts DispatcherOptions) *Dispatcher {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Batch = cmpOr(opts.Batch, 200)
	opts.Timeout = cmpOr(opts.Timeout, 10*time.Second)
	opts.Lease = max(cmpOr(opts.Lease, 3*opts.Timeout), 2*opts.Timeout)
	opts.MaxAttempts = cmpOr(opts.MaxAttempts, 15)
	opts.MaxAge = cmpOr(opts.MaxAge, 48*time.Hour)
	opts.BaseBackoff = cmpOr(opts.BaseBackoff, 2*time.Second)
	opts.MaxBackoff = cmpOr(opts.MaxBackoff, 15*time.Minute)
	opts.PerHost = cmpOr(opts.PerHost, 32)
	opts.MaxHeldPerHost = max(cmpOr(opts.MaxHeldPerHost, 5*opts.Batch), opts.PerHost)
	opts.MaxHeld = max(cmpOr(opts.MaxHeld, 10*opts.Batch), opts.Batch)
	opts.Idle = cmpOr(opts.Idle, 200*time.Millisecond)
	if opts.Jitter == nil {
		opts.Jitter = rand.Float64
	}
	d := &Dispatcher{
		store: store, poster: poster, opts: opts, margin: opts.Timeout / 2,
		backoff: msgkit.Backoff{Base: opts.BaseBackoff, Max: opts.MaxBackoff, Jitter: opts.Jitter},
		wake:    make(chan struct{}, 1), lines: map[string]*line{},
	}
	d.metrics = newDispatcherMetrics(opts.Metrics, d)
	return d
}

// heldBack counts the lines that are full (their hosts' further reports
// are put off until they drain) and the reports they hold.
func (d *Dispatcher) heldBack() (lines, reports int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.lines {
		if l.full {
			lines++
			reports += l.held
		}
	}
	return lines, reports
}

// cmpOr is v when positive, else def.
func cmpOr[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Run delivers reports until ctx ends. It claims whenever there is room:
// at once while claims come back full and their lines take more, when a
// line or the dispatcher drains, and every Idle otherwise; it never waits
// for deliveries to end before claiming again. When ctx ends it waits for
// the attempts in flight (their calls end with ctx) and gives back the
// reports still waiting, so another replica takes them without waiting
// for their leases.
func (d *Dispatcher) Run(ctx context.Context) {
	d.mu.Lock()
	d.running = ctx // until stop
	d.mu.Unlock()
	for ctx.Err() == nil {
		_, more, err := d.claim(ctx)
		if err != nil && ctx.Err() == nil {
			d.opts.Logger.ErrorContext(ctx, "claiming reports", "err", err)
		}
		d.sweep(ctx)
		if more {
			continue
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-time.After(d.opts.Idle):
		}
	}
	d.stop(ctx)
}

// RunOnce claims once (at most Batch due reports, as the caps allow),
// hands them to their lines and waits until every report it holds is
// delivered, retried, given up or given back; it returns how many it
// claimed. This batch barrier is for tests and tools that step a manual
// clock; Run does not wait like this, and the two are not to run at once.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	n, _, err := d.claim(ctx)
	done := make(chan struct{})
	go func() { d.workers.Wait(); close(done) }()
	for {
		select {
		case <-done:
			d.stop(ctx)
			return n, err
		case <-time.After(d.opts.Idle):
			d.sweep(ctx)
		}
	}
}

// claim leases as many due reports as the caps leave room for, hands each
// to its host's line, starting workers up to PerHost, and gives back at
// once what a full line cannot take, put off until the line may have
// room. It returns how many reports it claimed, and whether claiming
// again at once is worthwhile: the claim came back full and a line it fed
// is not full, i.e. takes a whole claim more (asking for more than the
// lines take would only put reports off). A full line wakes Run when it
// drains (unhold).
func (d *Dispatcher) claim(ctx context.Context) (n int, more bool, err error) {
	d.mu.Lock()
	limit := min(d.opts.Batch, d.opts.MaxHeld-d.held-d.reserved)
	d.mu.Unlock()
	if limit <= 0 {
		return 0, false, nil
	}
	now := d.opts.Clock.Now()
	reports, err := d.store.ClaimReports(ctx, now, d.opts.Lease, limit)
	if err != nil || len(reports) == 0 {
		return 0, false, err
	}
	d.mu.Lock()
	room := d.holdLocked(ctx, reports, now, now.Add(d.opts.Lease))
	d.mu.Unlock()
	return len(reports), len(reports) == limit && room && !d.overfull, nil
}

// reserve promises a hand-over (GatewayOptions.Dispatcher) room for up to
// Batch reports, as much as the caps leave, and returns how many reports
// it may lease and the end of their lease; zero while Run does not run.
// The hand-over gives the places back with handOver.
func (d *Dispatcher) reserve() (int, time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running == nil || d.running.Err() != nil {
		return 0, time.Time{}
	}
	n := max(0, min(d.opts.Batch, d.opts.MaxHeld-d.held-d.reserved))
	d.reserved += n
	return n, d.opts.Clock.Now().Add(d.opts.Lease)
}

// handOver takes reports a store leased to this dispatcher until until
// in the places reserve promised (reserved of them), into their lines as
// if claimed, and gives back the places not used.
func (d *Dispatcher) handOver(reports []Report, reserved int, until time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reserved -= reserved
	if len(reports) == 0 {
		return
	}
	ctx := d.running
	if ctx == nil || ctx.Err() != nil {
		// Run ended or is ending (its stop may have given back what
		// waited already): the leases run out and a claim takes the
		// reports, here or on another replica.
		return
	}
	d.holdLocked(ctx, reports, d.opts.Clock.Now(), until)
}

// holdLocked hands each report, leased until until, to its host's line,
// starting workers (with ctx, Run's) up to PerHost, and gives back at
// once what a full line cannot take, put off until the line may have
// room. It reports whether a line it fed takes a whole claim more. d.mu is
// held; it is released while reports are given back.
func (d *Dispatcher) holdLocked(ctx context.Context, reports []Report, now, until time.Time) (room bool) {
	startBy := until.Add(-d.opts.Timeout - d.margin)
	var (
		putOff []Report
		fed    []*line
		turned = map[*line]int{}
	)
	for _, r := range reports {
		host := hostOf(r.URL)
		l := d.lines[host]
		if l == nil {
			l = &line{}
			d.lines[host] = l
		}
		if l.held >= d.capacity(l, now) {
			l.full = true
			r.NextAt = now.Add(d.deferral(l, now, l.held+turned[l]))
			turned[l]++
			putOff = append(putOff, r)
			continue
		}
		l.waiting = append(l.waiting, heldReport{r, startBy})
		l.held++
		d.held++
		fed = append(fed, l)
		if l.active < d.opts.PerHost {
			if l.active == 0 {
				l.progress = now // busy from now on
			}
			l.active++
			d.workers.Go(func() { d.work(ctx, l) })
		}
	}
	for _, l := range fed {
		if l.held > d.refill(l, now) {
			l.full = true
		} else {
			room = true
		}
	}
	d.overfull = d.opts.MaxHeld-d.held < d.opts.Batch
	if len(putOff) > 0 {
		d.mu.Unlock()
		d.giveBack(ctx, putOff, putOffLineFull)
		d.mu.Lock()
	}
	return room
}

// capacity is how many reports line l may hold: MaxHeldPerHost, or for a
// slow line what its workers can start within the wait a lease leaves.
func (d *Dispatcher) capacity(l *line, now time.Time) int {
	pace := d.pace(l, now)
	if pace <= 0 {
		return d.opts.MaxHeldPerHost
	}
	wait := d.opts.Lease - d.opts.Timeout - d.margin
	rounds := float64(wait)/float64(pace) + 1
	return int(min(float64(d.opts.PerHost)*rounds, float64(d.opts.MaxHeldPerHost)))
}

// refill is how many reports line l may hold and still take a whole
// claim (or half its capacity, when that is less): above it the line is
// full, and Run waits for it to drain back to it.
func (d *Dispatcher) refill(l *line, now time.Time) int {
	c := d.capacity(l, now)
	return c - min(d.opts.Batch, c/2)
}

// pace is how long an attempt of line l takes: the moving average of its
// attempts or, while attempts are in flight, the time since it last
// finished one when that is longer (a receiver that hangs finishes none).
func (d *Dispatcher) pace(l *line, now time.Time) time.Duration {
	if l.active == 0 {
		return l.latency
	}
	return max(l.latency, now.Sub(l.progress))
}

// deferral is how long to put off a report that would stand at position
// pos of line l: until the line could start it, at least Idle and at most
// MaxBackoff.
func (d *Dispatcher) deferral(l *line, now time.Time, pos int) time.Duration {
	wait := time.Duration(float64(d.pace(l, now)) * float64(pos) / float64(d.opts.PerHost))
	return min(max(wait, d.opts.Idle), d.opts.MaxBackoff)
}

// work delivers line l's reports one after the other until the line is
// empty or ctx ends; up to PerHost workers share a line.
func (d *Dispatcher) work(ctx context.Context, l *line) {
	for {
		d.mu.Lock()
		var stale []Report
		if ctx.Err() == nil { // when stopping, stop gives back what waits
			stale = d.takeStale(l, d.opts.Clock.Now())
		}
		if len(l.waiting) == 0 || ctx.Err() != nil {
			l.active--
			d.mu.Unlock()
			d.giveBack(ctx, stale, putOffLeaseRunningOut)
			return
		}
		r := l.waiting[0]
		l.waiting[0] = heldReport{} // the body is not kept alive by the backing array
		l.waiting = l.waiting[1:]
		d.mu.Unlock()
		d.giveBack(ctx, stale, putOffLeaseRunningOut)

		start := d.opts.Clock.Now()
		done, ok := d.attempt(ctx, r.Report)
		d.mu.Lock()
		if ok {
			end := d.opts.Clock.Now()
			if took := end.Sub(start); l.latency == 0 {
				l.latency = took
			} else {
				l.latency += (took - l.latency) / 8
			}
			l.progress = end
		} else {
			d.unhold(l, 1)
		}
		d.mu.Unlock()
		if ok {
			d.record(ctx, outcome{done, l})
		}
	}
}

// record queues the outcome of an attempt for the recorder, starting it
// unless it runs. The report stays held until its outcome is recorded.
func (d *Dispatcher) record(ctx context.Context, o outcome) {
	d.rmu.Lock()
	defer d.rmu.Unlock()
	d.outcomes = append(d.outcomes, o)
	if !d.recording {
		d.recording = true
		d.workers.Go(func() { d.recordAll(ctx) })
	}
}

// recordAll records the outcomes queued, up to Batch at a time
// (OutboxStore.FinishReports), until none is left: the outcomes that arrive
// while a batch is recorded make the next one, so the lines never wait
// for the store, and the store sees a transaction per batch rather than
// per report. Outcomes are recorded even when ctx has ended, each batch
// within Timeout: an attempt made is worth keeping.
func (d *Dispatcher) recordAll(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for {
		d.rmu.Lock()
		n := min(len(d.outcomes), d.opts.Batch)
		if n == 0 {
			d.outcomes, d.recording = nil, false
			d.rmu.Unlock()
			return
		}
		batch := d.outcomes[:n:n]
		d.outcomes = d.outcomes[n:]
		d.rmu.Unlock()

		rs := make([]Report, n)
		for i, o := range batch {
			rs[i] = o.r
		}
		callCtx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
		errs := d.store.FinishReports(callCtx, rs)
		cancel()
		for i, err := range errs {
			switch {
			case errors.Is(err, msgkit.NotFound):
				// Our lease ran out and another replica finished the
				// report: the customer may get it twice, which
				// at-least-once allows.
				d.opts.Logger.InfoContext(ctx, "report finished elsewhere", "id", rs[i].ID)
			case err != nil:
				d.opts.Logger.ErrorContext(ctx, "recording a report", "id", rs[i].ID, "err", err)
			}
		}
		d.mu.Lock()
		for _, o := range batch {
			d.unhold(o.l, 1)
		}
		d.mu.Unlock()
	}
}

// takeStale removes from line l the waiting reports whose attempt could
// no longer start in time, and returns them put off. d.mu is held.
func (d *Dispatcher) takeStale(l *line, now time.Time) []Report {
	n := 0
	for n < len(l.waiting) && now.After(l.waiting[n].startBy) {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]Report, n)
	for i, h := range l.waiting[:n] {
		out[i] = h.Report
		out[i].NextAt = now.Add(d.deferral(l, now, l.active+i))
	}
	l.waiting = l.waiting[n:]
	d.unhold(l, n)
	return out
}

// unhold counts n reports of line l as no longer held, and wakes Run
// when a full line has drained to its refill mark or the dispatcher has
// room for a whole claim again.
// d.mu is held.
func (d *Dispatcher) unhold(l *line, n int) {
	l.held -= n
	d.held -= n
	wake := false
	if l.full && l.held <= d.refill(l, d.opts.Clock.Now()) {
		l.full, wake = false, true
	}
	if d.overfull && d.opts.MaxHeld-d.held >= d.opts.Batch {
		d.overfull, wake = false, true
	}
	if wake {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// sweep gives back, from every line, the waiting reports whose attempt
// could no longer start in time (their lines are stuck behind slow
// attempts), and forgets the lines that have been empty for MaxBackoff.
func (d *Dispatcher) sweep(ctx context.Context) {
	if ctx.Err() != nil {
		return // stop gives back what waits
	}
	d.mu.Lock()
	now := d.opts.Clock.Now()
	var stale []Report
	for host, l := range d.lines {
		stale = append(stale, d.takeStale(l, now)...)
		if l.held == 0 && l.active == 0 && now.Sub(l.progress) > d.opts.MaxBackoff {
			delete(d.lines, host)
		}
	}
	d.mu.Unlock()
	d.giveBack(ctx, stale, putOffLeaseRunningOut)
}

// stop waits for the workers, which have ended or end with ctx, and gives
// back the reports still waiting, due as they were, so another replica
// can take them at once.
func (d *Dispatcher) stop(ctx context.Context) {
	d.mu.Lock()
	d.running = nil // no hand-over starts a worker while they are waited for
	d.mu.Unlock()
	d.workers.Wait()
	d.mu.Lock()
	var left []Report
	for _, l := range d.lines {
		for _, h := range l.waiting {
			left = append(left, h.Report)
		}
		d.unhold(l, len(l.waiting))
		l.waiting = nil
	}
	d.mu.Unlock()
	if len(left) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.opts.Timeout)
	defer cancel()
	d.giveBack(ctx, left, putOffStopping)
}

// giveBack ends the leases of reports that were not attempted: they are
// finished with their state and attempts as claimed, and NextAt as the
// caller set it. A report another replica finished meanwhile is NotFound,
// and fine.
func (d *Dispatcher) giveBack(ctx context.Context, rs []Report, why int) {
	if len(rs) == 0 {
		return
	}
	d.metrics.gaveBack(why, len(rs))
	for batch := range slices.Chunk(rs, d.opts.Batch) {
		for i, err := range d.store.FinishReports(ctx, batch) {
			if err != nil && !errors.Is(err, msgkit.NotFound) {
				d.opts.Logger.WarnContext(ctx, "giving back a report", "id", batch[i].ID, "err", err)
			}
		}
	}
	d.opts.Logger.DebugContext(ctx, "reports given back", "count", len(rs), "why", putOffReasonLabels[why], "url", rs[0].URL)
}

// hostOf is the line a report URL belongs to: its host and port.
func hostOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		return strings.ToLower(u.Host)
	}
	return rawURL // an account's binds (BindURL): a line each
}

// attempt posts r and returns it with the outcome to record: delivered,
// given up, or to retry with backoff. ok is false when ctx ended during
// the attempt: nothing is recorded, the lease runs out and the report is
// tried again.
func (d *Dispatcher) attempt(ctx context.Context, r Report) (done Report, ok bool) {
	callCtx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	err := d.poster.PostReport(callCtx, r.URL, r.Body)
	cancel()
	if ctx.Err() != nil {
		return r, false
	}
	now := d.opts.Clock.Now()
	if h, held := holdOf(err); held {
		// Not an attempt: the report waits for what this replica lacks.
		r.LastError = errorText(h)
		if now.Add(h.After).Sub(r.CreatedAt) > d.opts.MaxAge {
			r.State = ReportGivenUp
			d.metrics.attempted(attemptGivenUp)
			d.opts.Logger.WarnContext(ctx, "delivery report given up", "msgId", r.MsgID, "partNum", r.PartNum,
				"url", r.URL, "attempts", r.Attempts, "err", r.LastError)
		} else {
			// Jittered, up to half as long again: replicas that poll on
			// the same period would otherwise keep their phase, and the
			// one that held it would claim it first every time.
			r.NextAt = now.Add(h.After + time.Duration(d.opts.Jitter()*float64(h.After)/2))
			d.metrics.gaveBack(putOffHeld, 1)
		}
		return r, true
	}
	r.Attempts++
	r.AttemptedAt = now
	switch {
	case err == nil:
		r.State, r.LastError = ReportDelivered, ""
		d.metrics.attempted(attemptDelivered)
	case msgkit.KindOf(err) == msgkit.Invalid:
		r.State, r.LastError = ReportGivenUp, errorText(err)
		d.metrics.attempted(attemptRefused)
	default:
		r.LastError = errorText(err)
		wait := d.backoff.Wait(r.Attempts)
		if r.Attempts >= d.opts.MaxAttempts || now.Add(wait).Sub(r.CreatedAt) > d.opts.MaxAge {
			r.State = ReportGivenUp
			d.metrics.attempted(attemptGivenUp)
		} else {
			r.NextAt = now.Add(wait)
			d.metrics.attempted(attemptRetried)
		}
	}
	if r.State == ReportGivenUp {
		d.opts.Logger.WarnContext(ctx, "delivery report given up", "msgId", r.MsgID, "partNum", r.PartNum,
			"url", r.URL, "attempts", r.Attempts, "err", r.LastError)
	}
	return r, true
}

// errorText is an error as the outbox keeps it: valid UTF-8 without NUL
// (what any store can hold), and short.
func errorText(err error) string {
	s := strings.ReplaceAll(strings.ToValidUTF8(err.Error(), "?"), "\x00", "")
	if len(s) > 500 {
		s = strings.ToValidUTF8(s[:500], "")
	}
	return s
}
