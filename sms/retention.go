package sms

import (
	"context"
	"time"

	"github.com/msgkit/msgkit"
)

// RetentionStore is what Retention needs of storage: the removal of
// finished messages. memstore and pgstore implement it.
type RetentionStore interface {
	// ForgetFinished removes up to limit finished messages whose parts
	// were all last updated before before, with their parts, their
	// finished (delivered or given-up) reports and whatever else the
	// store keeps of them, and says how many it removed. A message is
	// finished when every part is in a final state (PartState.Final) and
	// none of its reports is pending; a message in flight, or with a
	// report still to deliver, is never removed, however old. A removed
	// message is NotFound afterwards, as is a late update of its parts.
	// Reports that belong to no message (a test session's callback) are
	// removed alike once finished and queued before before, up to limit
	// a call, uncounted; a store may drop them sooner (memstore keeps no
	// finished report). A limit of zero or less removes nothing.
	ForgetFinished(ctx context.Context, before time.Time, limit int) (int, error)
}

// RetentionOptions configure a Retention. Zero values choose the
// defaults.
type RetentionOptions struct {
	Clock msgkit.Clock
	// KeepFor is how long a finished message is kept after its last
	// part's update (its finish, by the network's report time); default
	// DefaultKeepFinishedFor.
	KeepFor time.Duration
	// Batch is how many messages one store call removes at most; default
	// 1,000: on PostgreSQL one call is one short transaction, so no lock
	// is held long and the WAL grows in small steps.
	Batch int
}

// DefaultKeepFinishedFor is RetentionOptions.KeepFor's default: 30 days,
// as long as customers look messages up after delivery.
const DefaultKeepFinishedFor = 30 * 24 * time.Hour

// Retention removes the finished messages older than its KeepFor from a
// store (see the package doc's Retention). Servers call ForgetDue
// periodically.
type Retention struct {
	store RetentionStore
	opts  RetentionOptions
}

// NewRetention returns a Retention of store.
func NewRetention(store RetentionStore, opts RetentionOptions) *Retention {
	opts.KeepFor = cmpOr(opts.KeepFor, DefaultKeepFinishedFor)
	opts.Batch = cmpOr(opts.Batch, 1000)
	return &Retention{store: store, opts: opts}
}

// ForgetDue removes the messages that finished KeepFor ago or earlier,
// a Batch per store call, until a call finds fewer than a Batch or ctx
// ends; it returns how many it removed. The cutoff is taken once, so a
// run ends even while messages keep finishing.
func (r *Retention) ForgetDue(ctx context.Context) (int, error) {
	before := r.opts.Clock.Now().Add(-r.opts.KeepFor)
	total := 0
	for {
		n, err := r.store.ForgetFinished(ctx, before, r.opts.Batch)
		total += n
		if err != nil || n < r.opts.Batch {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}
