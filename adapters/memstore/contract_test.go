package memstore_test

import (
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/audit/audittest"
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

func TestAuditContract(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audit.Store { return memstore.New().Audit() })
}
