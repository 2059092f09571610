package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"golang.org/x/time/rate"
)

// TransmitterOptions configure a Transmitter. Zero values choose the
// defaults.
type TransmitterOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Batch is the most parts of one round: claimed together and handed
	// to the upstream in one Send call; default 64.
	Batch int
	// MaxInFlight is the most parts handed to the upstream and not yet
	// answered: Run runs MaxInFlight/Batch rounds at once (at least one);
	// default 256.
	MaxInFlight int
	// Rate, when above 0, caps the parts handed over per second (the
	// upstream's agreed rate); Burst is how many may go at once, default a
	// second's worth, at most Batch and at least 1. Parts are claimed only
	// as the rate allows, so a capped transmitter holds no leases while it
	// waits.
	Rate  float64
	Burst int
	// Timeout bounds one Send call; default 10 s.
	Timeout time.Duration
	// Lease is how long claimed parts are held before another transmitter
	// may take them (their claimer died); default 3 × Timeout. It must
	// outlast a round: the claim, a Send of up to Timeout and the
	// recording.
	Lease time.Duration
	// BaseBackoff doubles with each failed hand-over of a part up to
	// MaxBackoff; defaults 1 s and 5 min. Each wait is jittered between
	// half and all of it (see msgkit.Backoff).
	BaseBackoff, MaxBackoff time.Duration
	// Jitter returns a number in [0, 1); default math/rand/v2.
	Jitter func() float64
	// Idle is the pause of Run after a round that handed nothing over;
	// default 100 ms.
	Idle time.Duration
}

// Transmitter hands queued parts to the network: it claims due parts from
// the outbound queue under a lease, hands them to the Upstream, and
// records that the network took each one, or that it refused it for good
// (the part ends REJECTED, reported as the mask asks), or that the part
// will be tried again after a backoff. Several transmitters (replicas)
// may share one store; parts the network never takes end by validity
// expiry (Gateway.ExpireDue). See the package doc's outbound queue.
type Transmitter struct {
	store    TransmitterStore
	upstream Upstream
	opts     TransmitterOptions
	backoff  msgkit.Backoff
	limiter  *rate.Limiter // nil: no rate
	claimMu  sync.Mutex    // with a limiter: taking tokens and claiming are one step
}

// NewTransmitter returns a transmitter of store's queued parts to
// upstream.
func NewTransmitter(store TransmitterStore, upstream Upstream, opts TransmitterOptions) *Transmitter {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Batch = cmpOr(opts.Batch, 64)
	opts.MaxInFlight = cmpOr(opts.MaxInFlight, 256)
	opts.Timeout = cmpOr(opts.Timeout, 10*time.Second)
	opts.Lease = cmpOr(opts.Lease, 3*opts.Timeout)
	opts.BaseBackoff = cmpOr(opts.BaseBackoff, time.Second)
	opts.MaxBackoff = cmpOr(opts.MaxBackoff, 5*time.Minute)
	opts.Idle = cmpOr(opts.Idle, 100*time.Millisecond)
	t := &Transmitter{store: store, upstream: upstream, opts: opts,
		backoff: msgkit.Backoff{Base: opts.BaseBackoff, Max: opts.MaxBackoff, Jitter: opts.Jitter}}
	if opts.Rate > 0 {
		burst := cmpOr(opts.Burst, max(1, min(opts.Batch, int(opts.Rate))))
		t.limiter = rate.NewLimiter(rate.Limit(opts.Rate), burst)
	}
	return t
}

// Run transmits until ctx ends: MaxInFlight/Batch rounds at once (at
// least one), each pausing Idle after a round that handed nothing over
// (the queue is empty, the rate is spent, or the network is down).
func (t *Transmitter) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range max(1, t.opts.MaxInFlight/t.opts.Batch) {
		wg.Go(func() { poll(ctx, t.opts.Idle, t.opts.Logger, "transmitting parts", t.RunOnce) })
	}
	wg.Wait()
}

// RunOnce runs one round: it claims up to Batch due parts (fewer when the
// rate allows fewer), hands them to the upstream in one Send call bounded
// by Timeout, and records what became of each. It returns how many parts
// the network took or refused for good; parts left for a later attempt do
// not count, so that a caller looping until nothing is done stops while
// the network is down.
//
// A part is never handed over after its message expired: the claim
// passes over expired messages, and a part whose message expired while
// it was being claimed is left to its lease (ExpireDue ends it). The
// outcomes are recorded even when ctx ends during the call, so that a
// part the network took is not sent again after a shutdown.
func (t *Transmitter) RunOnce(ctx context.Context) (int, error) {
	claimed, err := t.claim(ctx, t.opts.Clock.Now())
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	now := t.opts.Clock.Now()
	send := make([]QueuedPart, 0, len(claimed))
	for _, q := range claimed {
		if q.ExpiresAt.After(now) {
			send = append(send, q)
		}
	}
	if len(send) == 0 {
		return 0, nil
	}
	parts := make([]OutboundPart, len(send))
	for i, q := range send {
		parts[i] = q.OutboundPart
	}
	callCtx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	errs := t.upstream.Send(callCtx, parts)
	cancel()
	if errs != nil && len(errs) != len(parts) {
		err := fmt.Errorf("the upstream answered %d results for %d parts", len(errs), len(parts))
		t.opts.Logger.ErrorContext(ctx, "handing parts over", "err", err)
		errs = FailAll(len(parts), err) // nothing is known: all are tried again
	}
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.opts.Timeout)
	defer cancel()
	return t.record(recordCtx, send, errs)
}

// claim claims up to Batch due parts, as many as the rate allows.
func (t *Transmitter) claim(ctx context.Context, now time.Time) ([]QueuedPart, error) {
	if t.limiter == nil {
		return t.store.ClaimParts(ctx, now, t.opts.Lease, t.opts.Batch)
	}
	t.claimMu.Lock()
	defer t.claimMu.Unlock()
	n := min(t.opts.Batch, int(t.limiter.TokensAt(now)))
	if n <= 0 {
		return nil, nil
	}
	claimed, err := t.store.ClaimParts(ctx, now, t.opts.Lease, n)
	t.limiter.AllowN(now, len(claimed)) // there are tokens for n
	return claimed, err
}

// record saves the outcome of handing send over (errs as the Upstream
// answered) and returns how many parts the network took or refused.
func (t *Transmitter) record(ctx context.Context, send []QueuedPart, errs []error) (int, error) {
	now := t.opts.Clock.Now()
	results := make([]SendResult, 0, len(send))
	var (
		refused  []StatusEvent
		retries  int
		firstErr error
	)
	for i, q := range send {
		key := PartKey{q.MsgID, q.PartNum}
		var err error
		if errs != nil {
			err = errs[i]
		}
		switch {
		case err == nil:
			results = append(results, SendResult{Key: key, LeaseUntil: q.LeaseUntil, Handed: true, Attempts: q.Attempts})
		case msgkit.KindOf(err) == msgkit.Invalid:
			t.opts.Logger.InfoContext(ctx, "part refused by the network", "msgId", q.MsgID, "partNum", q.PartNum, "err", err)
			refused = append(refused, StatusEvent{MsgID: q.MsgID, PartNum: q.PartNum, Status: StatusRejected, ErrorCode: refusalCode(err), At: now})
		default:
			attempts := q.Attempts + 1
			results = append(results, SendResult{Key: key, LeaseUntil: q.LeaseUntil, Attempts: attempts,
				NextAt: now.Add(t.backoff.Wait(attempts)), LastError: errorText(err)})
			retries++
			firstErr = cmp.Or(firstErr, err)
		}
	}
	if retries > 0 {
		t.opts.Logger.WarnContext(ctx, "handing parts over failed; they are tried again later", "parts", retries, "err", firstErr)
	}
	recorded, err := t.store.FinishParts(ctx, results)
	if err != nil {
		return 0, fmt.Errorf("recording %d hand-overs: %w", len(results), err)
	}
	if recorded < len(results) {
		// A claim was lost: the network reported the part first, or the
		// lease ran out and another transmitter took it over.
		t.opts.Logger.InfoContext(ctx, "parts finished elsewhere", "parts", len(results)-recorded)
	}
	for _, ev := range refused {
		if err := applyStatus(ctx, t.store, t.opts.Clock, t.opts.Logger, ev); err != nil {
			return 0, fmt.Errorf("recording a refusal of part %d of %s: %w", ev.PartNum, ev.MsgID, err)
		}
	}
	return len(results) - retries + len(refused), nil
}

// refusalCode is the report error code of a part the network refused for
// good: a Refusal's, else 989 (supplier rejected).
func refusalCode(err error) DLRError {
	if r, ok := errors.AsType[*Refusal](err); ok {
		return r.code()
	}
	return DLRSupplierRejected
}
