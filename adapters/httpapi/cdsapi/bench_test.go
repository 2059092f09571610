package cdsapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
)

// BenchmarkListContactsWithLists measures GET /cds/contacts with
// fields=lists: a page of 100 of a tenant's 10,000 contacts, spread over
// 20 lists, each contact answered with its list's name.
func BenchmarkListContactsWithLists(b *testing.B) {
	ctx := context.Background()
	f := httpapitest.NewFixture(b)
	st := memstore.New().Contacts()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const lists, n = 20, 10_000
	for i := range lists {
		l := contacts.List{UUID: fmt.Sprintf("00000000-0000-4000-8000-1%011d", i), Name: fmt.Sprintf("List %d", i), Status: contacts.ListActive, Created: now, Updated: now}
		if _, err := st.CreateList(ctx, httpapitest.TenantA, l); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		list, first := fmt.Sprintf("00000000-0000-4000-8000-1%011d", i%lists), fmt.Sprintf("Ana %d", i)
		at := now.Add(time.Duration(i) * time.Millisecond)
		c := contacts.Contact{UUID: fmt.Sprintf("00000000-0000-4000-8000-2%011d", i), Created: at, Updated: at}
		if err := contacts.Fill(&c, contacts.Input{ListUUID: &list, Values: map[string]*string{"first_name": &first}}, true); err != nil {
			b.Fatal(err)
		}
		if _, err := st.CreateContact(ctx, httpapitest.TenantA, c); err != nil {
			b.Fatal(err)
		}
	}
	h := Handler(f.Opts, Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: st, Catalog: st, Imports: st}, f.Clock.Now, nil)})
	token := f.Token(b, httpapitest.ClientID)
	path := tenantPath(httpapitest.TenantA, "/cds/contacts?fields=lists&page_size=100&page_number=3")
	b.ReportAllocs()
	for b.Loop() {
		w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, path, nil), token))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
