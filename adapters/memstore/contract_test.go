package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/auth/authtest"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
	"github.com/msgkit/msgkit/sms/smstest"
)

func TestAuthContract(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Store { return memstore.New().Auth() })
}

func TestSMSContract(t *testing.T) {
	smstest.Run(t, func(t *testing.T) smstest.Store { return memstore.New().SMS() })
}

func TestFinanceStore(t *testing.T) {
	financetest.RunStoreTests(t, func(t *testing.T) finance.Store { return memstore.New().Finance() })
}

func TestFinanceBalances(t *testing.T) {
	financetest.RunBalanceStoreTests(t, func(t *testing.T) financetest.BalanceStore { return memstore.New().Finance() })
}

func TestFinanceFiles(t *testing.T) {
	financetest.RunFileStoreTests(t, func(t *testing.T) finance.FileStore { return memstore.New().Finance() })
	financetest.RunPartnerTenantTests(t, func(t *testing.T) finance.PartnerTenants { return memstore.New().Finance() })
}
