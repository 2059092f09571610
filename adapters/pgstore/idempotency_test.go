package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/idempotency/idempotencytest"
)

func TestIdempotencyStore(t *testing.T) {
	t.Parallel()
	idempotencytest.RunStoreTests(t, func(t *testing.T) idempotencytest.Store { return newTestDB(t).Idempotency() })
}
