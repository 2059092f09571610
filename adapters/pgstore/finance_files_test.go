package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
)

func TestFinanceFileStore(t *testing.T) {
	t.Parallel()
	financetest.RunFileStoreTests(t, func(t *testing.T) finance.FileStore { return newTestDB(t).Finance() })
	financetest.RunPartnerTenantTests(t, func(t *testing.T) finance.PartnerTenants { return newTestDB(t).Finance() })
}
