package contacts_test

import (
	"bytes"
	"testing"

	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// BenchmarkReadImport reads a body of 100,000 contacts with mobile
// numbers (the cost of the phone numbers is most of it).
func BenchmarkReadImport(b *testing.B) {
	body := contactstest.ImportBody(0, 100_000)
	o := importOpts(b, "")
	for b.Loop() {
		items, err := contacts.ReadImport(bytes.NewReader(body), o)
		if err != nil || items.Len() != 100_000 {
			b.Fatal(err)
		}
	}
}
