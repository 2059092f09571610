package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/idempotency/idempotencytest"
)

func TestIdempotencyStore(t *testing.T) {
	idempotencytest.RunStoreTests(t, func(t *testing.T) idempotencytest.Store { return memstore.New().Idempotency() })
}
