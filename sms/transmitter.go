package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// TransmitterOptions configure a Transmitter. Zero values choose the
// defaults.
type TransmitterOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Batch is the most parts of one round: claimed together and handed
	// to the upstream in one Send call; default 64, at most MaxInFlight.
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
	// Idle is the pause of Run after a round that did not hand over a
	// full Batch; default 100 ms. A round under a steady flow of parts
	// from a gateway also claims from the store at least this often.
	Idle time.Duration
	// Buffer is how many parts a Gateway may hand to this transmitter in
	// memory (GatewayOptions.Transmitter) before its Submits leave them to
	// the store's queue alone; default 4 × MaxInFlight.
	Buffer int
	// Metrics, when set, is where the transmitter registers its metrics
	// (the outbound queue's gauges, read from its store at each scrape,
	// and what became of the parts in msgkit_sms_parts_total, which it
	// shares with a Gateway of the same registry); nil: none, at no cost.
	// Two transmitters on one registry are a wiring mistake:
	// NewTransmitter panics.
	Metrics prometheus.Registerer
}

// Transmitter hands queued parts to the network: it claims due parts from
// the outbound queue under a lease (or takes those a Gateway of the same
// process leased to it when it accepted them), hands them to the
// Upstream, and records that the network took each one, or that it
// refused it for good (the part ends REJECTED, reported as the mask
// asks), or that the part will be tried again after a backoff. Several
// transmitters (replicas) may share one store; parts the network never
// takes end by validity expiry (Gateway.ExpireDue). See the package doc's
// outbound queue.
type Transmitter struct {
	store    TransmitterStore
	upstream Upstream
	opts     TransmitterOptions
	backoff  msgkit.Backoff
	limiter  *rate.Limiter // nil: no rate
	claimMu  sync.Mutex    // with a limiter: taking tokens and parts are one step

	// local holds the parts a Gateway handed over in memory, leased to
	// this transmitter in the store; reserved counts its places taken,
	// by parts in it and by Submits that are storing theirs.
	local     chan QueuedPart
	reserved  atomic.Int64
	lastClaim atomic.Int64  // Unix nanoseconds of the last claim from the store
	backlog   atomic.Bool   // the last claim was full: more parts may be due
	wake      chan struct{} // tells a pausing round that a batch is waiting in local
	metrics   *transmitterMetrics
}

// NewTransmitter returns a transmitter of store's queued parts to
// upstream.
func NewTransmitter(store TransmitterStore, upstream Upstream, opts TransmitterOptions) *Transmitter {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.MaxInFlight = cmpOr(opts.MaxInFlight, 256)
	opts.Batch = min(cmpOr(opts.Batch, 64), opts.MaxInFlight)
	opts.Timeout = cmpOr(opts.Timeout, 10*time.Second)
	opts.Lease = cmpOr(opts.Lease, 3*opts.Timeout)
	opts.BaseBackoff = cmpOr(opts.BaseBackoff, time.Second)
	opts.MaxBackoff = cmpOr(opts.MaxBackoff, 5*time.Minute)
	opts.Idle = cmpOr(opts.Idle, 100*time.Millisecond)
	opts.Buffer = cmpOr(opts.Buffer, 4*opts.MaxInFlight)
	t := &Transmitter{store: store, upstream: upstream, opts: opts, local: make(chan QueuedPart, opts.Buffer), wake: make(chan struct{}, 1),
		backoff: msgkit.Backoff{Base: opts.BaseBackoff, Max: opts.MaxBackoff, Jitter: opts.Jitter}}
	if opts.Rate > 0 {
		burst := cmpOr(opts.Burst, max(1, min(opts.Batch, int(opts.Rate))))
		t.limiter = rate.NewLimiter(rate.Limit(opts.Rate), burst)
	}
	t.metrics = newTransmitterMetrics(opts.Metrics, store, opts.Clock.Now)
	return t
}

// Run transmits until ctx ends: MaxInFlight/Batch rounds at once (at
// least one), each pausing Idle after a round that did not hand over a
// full Batch (the queue had no more due parts, the rate was spent, or the
// network failed some), or until a gateway has handed a full batch over
// in memory. Under light load a part so waits up to Idle and rounds carry
// what came meanwhile; a flow from a gateway or a backlog goes round
// after round.
func (t *Transmitter) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range max(1, t.opts.MaxInFlight/t.opts.Batch) {
		wg.Go(func() {
			msgkit.Poll(ctx, t.opts.Idle, t.opts.Batch, t.wake, t.opts.Logger, "transmitting parts",
				func(ctx context.Context) (int, error) { return t.round(ctx, true) })
		})
	}
	wg.Wait()
}

// RunOnce runs one round: it takes up to Batch parts (fewer when the
// rate allows fewer), hands them to the upstream in one Send call bounded
// by Timeout, and records what became of each. The parts are those a
// Gateway handed over in memory or, when there are none, due parts
// claimed from the store; while parts flow from the gateway, the store
// gets half a batch every Idle, so that retries and parts of other
// replicas are never starved, and the flow costs no claims. It returns
// how many parts the network took or refused for good; parts left for a
// later attempt do not count, so that a caller looping until nothing is
// done stops while the network is down.
//
// A part is never handed over after its message expired: the claim
// passes over expired messages, and a part whose message expired since it
// was claimed or handed over in memory is left to its lease (ExpireDue
// ends it). A part handed over in memory whose lease has less than two
// Timeouts left is left to the store too, to be claimed when it ends. The
// outcomes are recorded even when ctx ends during the call, so that a
// part the network took is not sent again after a shutdown.
func (t *Transmitter) RunOnce(ctx context.Context) (int, error) {
	return t.round(ctx, false)
}

// round is RunOnce; in Run's rounds (sparing true), a transmitter with
// nothing in memory claims from the store once per Idle, whichever round
// wakes first, unless its last claim was full (a backlog is drained round
// after round).
func (t *Transmitter) round(ctx context.Context, sparing bool) (int, error) {
	taken, claimErr := t.take(ctx, t.opts.Clock.Now(), sparing)
	now := t.opts.Clock.Now()
	send := slices.DeleteFunc(taken, func(q QueuedPart) bool { return !q.ExpiresAt.After(now) })
	if len(send) == 0 {
		return 0, claimErr
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
	n, err := t.record(recordCtx, send, errs)
	return n, cmp.Or(err, claimErr)
}

// take takes up to Batch parts, as many as the rate allows: those handed
// over in memory first, then due parts claimed from the store. A claim
// that fails leaves the parts taken from memory to be sent, and its error
// is returned with them.
func (t *Transmitter) take(ctx context.Context, now time.Time, sparing bool) ([]QueuedPart, error) {
	budget := t.opts.Batch
	if t.limiter != nil {
		t.claimMu.Lock()
		defer t.claimMu.Unlock()
		budget = min(budget, int(t.limiter.TokensAt(now)))
		if budget <= 0 {
			return nil, nil
		}
	}
	// The store's turn comes every Idle, to one round (the one that wins
	// the swap), whatever the rounds in memory.
	last := t.lastClaim.Load()
	storesTurn := now.UnixNano()-last >= int64(t.opts.Idle) && t.lastClaim.CompareAndSwap(last, now.UnixNano())
	fromMemory := budget
	if storesTurn {
		fromMemory = budget / 2 // see RunOnce
	}
	parts := t.takeLocal(now, fromMemory)
	var err error
	if storesTurn && len(parts) < budget || len(parts) == 0 && (!sparing || t.backlog.Load()) {
		t.lastClaim.Store(now.UnixNano())
		var claimed []QueuedPart
		want := budget - len(parts)
		claimed, err = t.store.ClaimParts(ctx, now, t.opts.Lease, want)
		t.backlog.Store(err == nil && len(claimed) == want)
		if len(parts) == 0 {
			parts = claimed
		} else {
			parts = append(parts, claimed...)
		}
	}
	if t.limiter != nil {
		t.limiter.AllowN(now, len(parts)) // there were tokens for budget
	}
	return parts, err
}

// takeLocal takes up to n parts handed over in memory, passing over those
// whose lease is too short to be sent and recorded within it.
func (t *Transmitter) takeLocal(now time.Time, n int) []QueuedPart {
	waiting := min(n, len(t.local))
	if waiting == 0 {
		return nil
	}
	parts := make([]QueuedPart, 0, waiting) // one allocation: a part is a few hundred bytes
	for len(parts) < n {
		select {
		case q := <-t.local:
			t.reserved.Add(-1)
			if q.LeaseUntil.Sub(now) >= 2*t.opts.Timeout {
				parts = append(parts, q)
			}
		default:
			return parts
		}
	}
	return parts
}

// reserve takes n places in the in-memory hand-over for a Submit, and
// reports whether there were n free.
func (t *Transmitter) reserve(n int) bool {
	if t.reserved.Add(int64(n)) > int64(cap(t.local)) {
		t.reserved.Add(-int64(n))
		return false
	}
	return true
}

// release gives back n places a Submit did not use (its Accept failed).
func (t *Transmitter) release(n int) { t.reserved.Add(-int64(n)) }

// leaseFrom is the end of the lease of parts handed over in memory at
// now, to the microsecond, as stores keep it.
func (t *Transmitter) leaseFrom(now time.Time) time.Time {
	return now.Add(t.opts.Lease).Truncate(time.Microsecond).UTC()
}

// handOver puts the parts of m, stored with their SendAt at lease (the end
// of their lease), in the in-memory hand-over, in the places reserved for
// them.
func (t *Transmitter) handOver(m MessageRecord, lease time.Time) {
	for _, p := range m.Parts {
		t.local <- QueuedPart{
			OutboundPart: OutboundPart{
				MsgID: m.ID, PartNum: p.Num, NumParts: len(m.Parts), Sender: m.Sender, Receiver: m.Receiver,
				DCS: m.DCS, Flash: m.Flash, Text: p.Text, Data: p.Data, UDH: p.UDH, ExpiresAt: m.ExpiresAt,
			},
			LeaseUntil: lease,
		}
	}
	if len(t.local) >= t.opts.Batch {
		select {
		case t.wake <- struct{}{}:
		default: // a round is awake already
		}
	}
}

// record saves the outcome of handing send over (errs as the Upstream
// answered) and returns how many parts the network took or refused. A
// refused part ends REJECTED and then goes to FinishParts with the parts
// handed over, which does not count it (the update ended its claim), so
// that a store that keeps an updated part's row until its claim is
// finished, as pgstore does, frees it at once. A refusal that cannot be
// recorded leaves its part queued, to be offered again when its lease
// runs out; the other parts are recorded all the same.
func (t *Transmitter) record(ctx context.Context, send []QueuedPart, errs []error) (int, error) {
	now := t.opts.Clock.Now()
	results := make([]SendResult, 0, len(send))
	var (
		refused   []SendResult
		retries   int
		firstErr  error
		refuseErr error
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
			ev := StatusEvent{MsgID: q.MsgID, PartNum: q.PartNum, Status: StatusRejected, ErrorCode: refusalCode(err), At: now}
			if err := applyStatus(ctx, t.store, t.opts.Clock, t.opts.Logger, ev); err != nil {
				// Left queued: its lease runs out and it is tried again.
				refuseErr = cmp.Or(refuseErr, fmt.Errorf("recording a refusal of part %d of %s: %w", ev.PartNum, ev.MsgID, err))
				continue
			}
			refused = append(refused, SendResult{Key: key, LeaseUntil: q.LeaseUntil, Handed: true, Attempts: q.Attempts})
		default:
			attempts := q.Attempts + 1
			results = append(results, SendResult{Key: key, LeaseUntil: q.LeaseUntil, Attempts: attempts,
				NextAt: now.Add(t.backoff.Wait(attempts)), LastError: errorText(err)})
			retries++
			firstErr = cmp.Or(firstErr, err)
		}
	}
	t.metrics.round(len(results)-retries, len(refused), retries)
	if retries > 0 {
		t.opts.Logger.WarnContext(ctx, "handing parts over failed; they are tried again later", "parts", retries, "err", firstErr)
	}
	recorded, err := t.store.FinishParts(ctx, append(results, refused...))
	if err != nil {
		return 0, fmt.Errorf("recording %d hand-overs: %w", len(results), err)
	}
	if recorded < len(results) {
		// A claim was lost: the network reported the part first, or the
		// lease ran out and another transmitter took it over.
		t.opts.Logger.InfoContext(ctx, "parts finished elsewhere", "parts", len(results)-recorded)
	}
	return len(results) - retries + len(refused), refuseErr
}

// refusalCode is the report error code of a part the network refused for
// good: a Refusal's, else 989 (supplier rejected).
func refusalCode(err error) DLRError {
	if r, ok := errors.AsType[*Refusal](err); ok {
		return r.code()
	}
	return DLRSupplierRejected
}
