package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/msgkit/msgkit/idempotency"
)

// idempotencyKeys is the housekeeping of the Idempotency-Keys that every
// family keeps in one store (the REST creates through httpapi.Options,
// bulk SMS through the gateway): expired keys are purged every 10
// minutes, by every replica (a purge is a delete of what expired, so
// replicas do not get in each other's way).
func idempotencyKeys(keys *idempotency.Service, logger *slog.Logger) family {
	return family{
		name: "idempotency keys",
		jobs: []func(context.Context){every(10*time.Minute, "purging expired idempotency keys", logger, keys.Purge)},
	}
}
