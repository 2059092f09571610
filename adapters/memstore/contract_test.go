package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/auth/authtest"
	"github.com/msgkit/msgkit/sms/smstest"
)

func TestAuthContract(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Store { return memstore.New().Auth() })
}

func TestSMSContract(t *testing.T) {
	smstest.Run(t, func(t *testing.T) smstest.Store { return memstore.New().SMS() })
}
