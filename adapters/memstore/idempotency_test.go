package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/idempotency/idempotencytest"
)

func TestIdempotencyContract(t *testing.T) {
	idempotencytest.Run(t, func(t *testing.T) idempotencytest.Store { return memstore.New().Idempotency() })
}
