package msgkit

import (
	"context"
	"log/slog"
	"time"
)

// Poll runs round until ctx ends, pausing for idle, or until wake
// receives (a nil wake never does), after a round that handled fewer than
// full items (the queue had no more due) or failed (failures are logged
// with what). So an idle queue costs one claim per pause; a busy one is
// worked through round after round, and under a steady trickle rounds
// gather what came during a pause instead of claiming a few items each,
// as fast as the store answers. The workers of leased work (outbound
// parts, campaign tasks, test judgements) run their rounds with it, with
// Backoff for what failed; the leases are their stores'.
func Poll(ctx context.Context, idle time.Duration, full int, wake <-chan struct{}, log *slog.Logger, what string, round func(context.Context) (int, error)) {
	for ctx.Err() == nil {
		n, err := round(ctx)
		if err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, what, "err", err)
		}
		if n < full || err != nil {
			t := time.NewTimer(idle)
			select {
			case <-ctx.Done():
			case <-t.C:
			case <-wake:
			}
			t.Stop()
		}
	}
}
