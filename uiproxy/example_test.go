package uiproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/uiproxy"
)

// customerAPI makes the calls of the example's components: it prints the
// customer address the proxy built and answers as the package's mock grid
// operation does. A program passes the adapter's fetcher
// (adapters/httpapi/uiproxyapi.NewFetcher), which dials only addresses
// its policy allows.
type customerAPI struct{}

func (customerAPI) Fetch(_ context.Context, call uiproxy.Call, _ time.Duration) ([]byte, error) {
	fmt.Println("call:", call.URL, "with", call.TokenHeader)
	u, err := url.Parse(call.URL)
	if err != nil {
		return nil, err
	}
	q, err := uiproxy.MockQuery(u.Query())
	if err != nil {
		return nil, err
	}
	page, err := uiproxy.MockGrid("invoices", u.Query().Get("reference_id"), q, u)
	if err != nil {
		return nil, err
	}
	return json.Marshal(page)
}

// A grid component of one tenant: the proxy checks the UI's request
// against the configured columns, builds the customer's address from the
// template, keeps only the configured columns of the answer and points the
// page links at its own address, never at the customer's.
func ExampleProxy_Grid() {
	ctx := context.Background()
	tenant := msgkit.ServiceUUID("6f1c2a9e-8d4b-4c1e-9a57-3b2d0e4f5a61")
	proxy := uiproxy.NewProxy(memstore.New().UIProxy(), customerAPI{}, uiproxy.Options{})
	err := proxy.Put(ctx, uiproxy.Component{
		ID: "invoices", Type: uiproxy.Grid, Service: tenant,
		URL:         "https://erp.example/api/{referenceId}/invoices?reference_id={referenceId}&page_number={pageNumber}&page_size={pageSize}&sort={sort}",
		TokenHeader: "X-Customer-Token", Token: "customer-secret",
		Columns: []uiproxy.Column{
			{Name: "id", Kind: uiproxy.Number, Sortable: true},
			{Name: "invoiceDate", Kind: uiproxy.Date, Filterable: true, Sortable: true},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	viewer := auth.Principal{Services: []msgkit.ServiceUUID{tenant}}
	q := url.Values{"reference_id": {"ACME-1"}, "page_size": {"2"}, "sort": {"-id"}}
	page, err := proxy.Grid(ctx, viewer, "invoices", q, "/ui/v1/grid/invoices")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range page.Data {
		fmt.Println(string(row))
	}
	p := page.Meta.Pagination
	fmt.Println(p.Total, "rows,", p.TotalPages, "pages; next:", *p.Links.Next)

	// A filter on a column the component does not configure is refused
	// before any call; another tenant's viewer finds no component.
	q.Set("gt(url)", "x")
	_, err = proxy.Grid(ctx, viewer, "invoices", q, "/ui/v1/grid/invoices")
	fmt.Println(msgkit.KindOf(err), msgkit.CodeOf(err))
	other := auth.Principal{Services: []msgkit.ServiceUUID{"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"}}
	_, err = proxy.Grid(ctx, other, "invoices", url.Values{"reference_id": {"ACME-1"}}, "/ui/v1/grid/invoices")
	fmt.Println(msgkit.KindOf(err))
	// Output:
	// call: https://erp.example/api/ACME-1/invoices?reference_id=ACME-1&page_number=1&page_size=2&sort=-id with X-Customer-Token
	// {"id":42,"invoiceDate":"2026-02-11"}
	// {"id":41,"invoiceDate":"2026-02-10"}
	// 42 rows, 21 pages; next: /ui/v1/grid/invoices?page_number=2&page_size=2&reference_id=ACME-1&sort=-id
	// invalid invalid_query
	// not found
}
