package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance/financetest"
)

func TestFinanceDocuments(t *testing.T) {
	financetest.RunDocumentStoreTests(t, func(t *testing.T) financetest.DocumentStore { return memstore.New().Finance() })
}
