package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
)

// ReportPoster delivers one report body to a customer's URL. An error of
// kind msgkit.Invalid means the URL refused the report for good (a 4xx
// answer); any other error is retried.
type ReportPoster interface {
	PostReport(ctx context.Context, url string, body []byte) error
}

// DispatcherOptions configure a Dispatcher. Zero values choose the
// defaults.
type DispatcherOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Batch is how many reports one round claims; default 200.
	Batch int
	// Timeout bounds one delivery attempt; default 10 s.
	Timeout time.Duration
	// Lease is how long a claimed report is held before another replica
	// may take it (its claimer died); default 3 × Timeout.
	Lease time.Duration
	// MaxAttempts and MaxAge bound the retries of a report; defaults 15
	// and 48 h. A report past either is given up: recorded and counted.
	MaxAttempts int
	MaxAge      time.Duration
	// BaseBackoff doubles per failed attempt up to MaxBackoff; defaults
	// 2 s and 15 min. Each wait is jittered between half and all of it.
	BaseBackoff, MaxBackoff time.Duration
	// PerHost caps concurrent deliveries to one host; default 8.
	PerHost int
	// Idle is the pause of Run when nothing is due; default 200 ms.
	Idle time.Duration
	// Jitter returns a number in [0, 1); default math/rand/v2.
	Jitter func() float64
}

// Dispatcher delivers queued reports at least once: it claims due reports
// from the outbox, posts them, and records delivery, a retry with backoff,
// or that it gave up. Several dispatchers (replicas) may share one store.
type Dispatcher struct {
	store   OutboxStore
	poster  ReportPoster
	opts    DispatcherOptions
	backoff msgkit.Backoff

	mu    sync.Mutex
	hosts map[string]chan struct{} // per-host semaphores
}

// NewDispatcher returns a dispatcher over store posting with poster.
func NewDispatcher(store OutboxStore, poster ReportPoster, opts DispatcherOptions) *Dispatcher {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Batch = cmpOr(opts.Batch, 200)
	opts.Timeout = cmpOr(opts.Timeout, 10*time.Second)
	opts.Lease = cmpOr(opts.Lease, 3*opts.Timeout)
	opts.MaxAttempts = cmpOr(opts.MaxAttempts, 15)
	opts.MaxAge = cmpOr(opts.MaxAge, 48*time.Hour)
	opts.BaseBackoff = cmpOr(opts.BaseBackoff, 2*time.Second)
	opts.MaxBackoff = cmpOr(opts.MaxBackoff, 15*time.Minute)
	opts.PerHost = cmpOr(opts.PerHost, 8)
	opts.Idle = cmpOr(opts.Idle, 200*time.Millisecond)
	return &Dispatcher{store: store, poster: poster, opts: opts, hosts: map[string]chan struct{}{},
		backoff: msgkit.Backoff{Base: opts.BaseBackoff, Max: opts.MaxBackoff, Jitter: opts.Jitter}}
}

// cmpOr is v when positive, else def.
func cmpOr[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Run delivers reports until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	poll(ctx, d.opts.Idle, 1, nil, d.opts.Logger, "delivering reports", d.RunOnce)
}

// RunOnce claims one batch of due reports, delivers them (at most PerHost
// at a time to one host) and records each outcome. It returns how many it
// handled.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	now := d.opts.Clock.Now()
	reports, err := d.store.ClaimReports(ctx, now, d.opts.Lease, d.opts.Batch)
	if err != nil || len(reports) == 0 {
		return 0, err
	}
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for _, r := range reports {
		sem := d.host(r.URL)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := d.deliver(ctx, r); err != nil {
				errMu.Lock()
				firstErr = cmp.Or(firstErr, err)
				errMu.Unlock()
			}
		})
	}
	wg.Wait()
	return len(reports), firstErr
}

// host returns the semaphore of the URL's host.
func (d *Dispatcher) host(rawURL string) chan struct{} {
	h := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		h = u.Host
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	sem, ok := d.hosts[h]
	if !ok {
		if len(d.hosts) > 10_000 {
			clear(d.hosts) // bounded; running deliveries keep their own channel
		}
		sem = make(chan struct{}, d.opts.PerHost)
		d.hosts[h] = sem
	}
	return sem
}

// deliver makes one attempt and records its outcome.
func (d *Dispatcher) deliver(ctx context.Context, r Report) error {
	callCtx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	err := d.poster.PostReport(callCtx, r.URL, r.Body)
	cancel()
	if ctx.Err() != nil {
		return nil // shutting down: the lease runs out and the report is tried again
	}
	now := d.opts.Clock.Now()
	r.Attempts++
	switch {
	case err == nil:
		r.State, r.LastError = ReportDelivered, ""
	case msgkit.KindOf(err) == msgkit.Invalid:
		r.State, r.LastError = ReportGivenUp, errorText(err)
	default:
		r.LastError = errorText(err)
		wait := d.backoff.Wait(r.Attempts)
		if r.Attempts >= d.opts.MaxAttempts || now.Add(wait).Sub(r.CreatedAt) > d.opts.MaxAge {
			r.State = ReportGivenUp
		} else {
			r.NextAt = now.Add(wait)
		}
	}
	if r.State == ReportGivenUp {
		d.opts.Logger.WarnContext(ctx, "delivery report given up", "msgId", r.MsgID, "partNum", r.PartNum,
			"url", r.URL, "attempts", r.Attempts, "err", r.LastError)
	}
	err = d.store.FinishReport(ctx, r)
	if errors.Is(err, msgkit.NotFound) {
		// Our lease ran out and another replica finished the report: the
		// customer may get it twice, which at-least-once allows.
		d.opts.Logger.InfoContext(ctx, "report finished elsewhere", "id", r.ID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("recording report %d: %w", r.ID, err)
	}
	return nil
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
