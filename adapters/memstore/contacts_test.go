package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// The contacts contract; not parallel, as its import memory suite
// measures the process's heap.
func TestContactsContract(t *testing.T) {
	contactstest.Run(t, newContactStores)
}

// BenchmarkContacts: contactstest.Bench on memstore (Import, Million,
// Members).
func BenchmarkContacts(b *testing.B) {
	contactstest.Bench(b, newContactStores)
}

func newContactStores(testing.TB) contactstest.Stores {
	return contactstest.Stores{Contacts: memstore.New().Contacts(), InHeap: true}
}
