package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/auth/authtest"
)

func TestAuthStore(t *testing.T) {
	authtest.RunStoreTests(t, func(t *testing.T) auth.Store { return memstore.New() })
}
