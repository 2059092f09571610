package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance/financetest"
)

func TestFinanceContract(t *testing.T) {
	financetest.Run(t, newFinanceStores)
}

// BenchmarkFinance: financetest.Bench on memstore (Balances, Invoices).
func BenchmarkFinance(b *testing.B) {
	financetest.Bench(b, newFinanceStores)
}

func newFinanceStores(testing.TB) financetest.Stores {
	return financetest.Stores{Finance: memstore.New().Finance()}
}
