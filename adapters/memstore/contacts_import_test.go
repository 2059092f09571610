package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsImport(t *testing.T) {
	contactstest.RunImportStoreTests(t, func(t *testing.T) contactstest.ImportStore { return memstore.New().Contacts() })
}

// BenchmarkImport: contactstest.BenchmarkImport on memstore.
func BenchmarkImport(b *testing.B) {
	contactstest.BenchmarkImport(b, func(testing.TB) contactstest.ImportStore { return memstore.New().Contacts() }, nil)
}

// The import's memory: not parallel, as it measures the process's heap.
func TestImportMemory(t *testing.T) {
	contactstest.RunImportMemoryTest(t, func(testing.TB) contactstest.ImportStore { return memstore.New().Contacts() }, true)
}
