package sms

import (
	"context"
	"log/slog"
	"time"
)

// poll runs round until ctx ends, pausing for idle after a round that
// found nothing to do or failed (failures are logged as what), so that an
// idle queue costs one claim per pause. The workers of leased queues (the
// Dispatcher, the Transmitter) run their rounds with it.
func poll(ctx context.Context, idle time.Duration, log *slog.Logger, what string, round func(context.Context) (int, error)) {
	for ctx.Err() == nil {
		n, err := round(ctx)
		if err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, what, "err", err)
		}
		if n == 0 || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(idle):
			}
		}
	}
}
