package uiproxyapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/uiproxy"
)

// BenchmarkGrid measures a page of ten grid rows over loopback HTTP, side
// by side: direct, a client asking the customer API itself; proxied, a
// UI asking the proxy (bearer token checked, request read against the
// columns, the customer called through the egress dialer, its answer
// checked and answered with the proxy's links). The difference of the
// two is the proxy's overhead; the target is at least 5,000 proxied
// requests a second.
func BenchmarkGrid(b *testing.B) {
	page, err := uiproxy.MockGrid("invoices", "ACME-1", msgkit.ListQuery{PageNumber: 1, PageSize: 10}, &url.URL{Path: "/grid"})
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	customer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer customer.Close()

	f := httpapitest.NewFixture(b)
	proxy := uiproxy.NewProxy(memstore.New().UIProxy(), egress.NewFetcher(egress.FetcherOptions{Policy: loopback}), uiproxy.Options{})
	if err := proxy.Put(context.Background(), uiproxy.Component{
		ID: "invoices", Type: uiproxy.Grid, Service: httpapitest.TenantA, Token: "s3cret", TokenHeader: "X-Token",
		URL: customer.URL + "/grid/{componentId}?reference_id={referenceId}&page={pageNumber}&size={pageSize}&sort={sort}", Columns: uiproxy.MockColumns(),
	}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(Handler(f.Opts, Backend{Proxy: proxy}))
	defer srv.Close()
	token := f.Token(b, httpapitest.UIClient)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	run := func(b *testing.B, url, token string) {
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n < 500 {
					b.Errorf("status %d, %d bytes", resp.StatusCode, n)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	}
	b.Run("direct", func(b *testing.B) {
		run(b, customer.URL+"/grid/invoices?reference_id=ACME-1&page=1&size=10&sort=-id", "")
	})
	b.Run("proxied", func(b *testing.B) {
		run(b, srv.URL+BasePath+"grid/invoices?reference_id=ACME-1&sort=-id", token)
	})
}
