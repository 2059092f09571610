package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/idempotency/idempotencytest"
)

func TestIdempotencyContract(t *testing.T) {
	t.Parallel()
	idempotencytest.Run(t, func(t *testing.T) idempotencytest.Store { return newTestDB(t).Idempotency() })
}
