package memstore_test

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/msgkit/msgkit"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsStore(t *testing.T) {
	contactstest.RunStoreTests(t, func(t *testing.T) contacts.Store { return memstore.New().Contacts() })
}

// A million contacts: the heap they take, and page 1 of a filtered,
// sorted listing.
func BenchmarkContactsMillion(b *testing.B) {
	ctx := context.Background()
	s := memstore.New().Contacts()
	const svc msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
	list := contactstest.ListUUID(1)
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all"}); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 1_000_000
	base := time.Unix(1_767_225_600, 0).UTC()
	for i := range n {
		values := map[string]string{"first_name": fmt.Sprintf("Name%d", i%5000), "last_name": fmt.Sprintf("Surname%d", i%7919),
			"email": fmt.Sprintf("user%d@example.com", i), "gender": []string{"male", "female"}[i%2], "city": "Ljubljana"}
		if i%100 == 0 {
			values["mobile"] = fmt.Sprintf("+38640%06d", i/100) // a number costs ~14 µs to read
		}
		c := contactstest.NewContact(b, i, list, values)
		c.UUID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		c.Created, c.Updated = base.Add(time.Duration(i)*time.Millisecond), base
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	q, err := msgkit.ParseListQuery(url.Values{"gender": {"female"}, "sort": {"last_name"}}, contacts.ContactSpec())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		page, err := s.Contacts(ctx, svc, contacts.ContactQuery{List: q})
		if err != nil || page.Total != n/2 || len(page.Items) != 10 {
			b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heap-MB")
}
