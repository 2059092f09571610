package egress

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// loopback lets the tests' customer APIs, on this machine, be called.
var loopback = Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if msgkit.KindOf(err) != msgkit.Unavailable || msgkit.CodeOf(err) != code {
		t.Fatalf("%v, want Unavailable %s", err, code)
	}
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("the error names the token or the address: %v", err)
	}
}

func TestFetch(t *testing.T) {
	var gotHeader, gotQuery string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader, gotQuery = r.Header.Get("X-Customer-Token"), r.URL.Query().Get("token")
		switch r.URL.Path {
		case "/grid":
			w.Write([]byte(`{"data":[]}`))
		case "/moved":
			http.Redirect(w, r, "/grid", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/away":
			http.Redirect(w, r, "http://localhost:1/grid", http.StatusFound)
		case "/missing":
			http.NotFound(w, r)
		case "/broken":
			w.WriteHeader(http.StatusBadGateway)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 2048)))
		case "/slow":
			<-r.Context().Done()
		}
	}))
	defer api.Close()
	f := NewFetcher(FetcherOptions{Policy: loopback, MaxAnswer: 1024})
	ctx := context.Background()

	body, err := f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/grid", TokenHeader: "X-Customer-Token", Token: "s3cret"}, time.Second)
	if err != nil || string(body) != `{"data":[]}` || gotHeader != "s3cret" || gotQuery != "" {
		t.Fatalf("a header token: %s, %v (header %q, query %q)", body, err, gotHeader, gotQuery)
	}
	if _, err := f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/grid?token=s3cret"}, time.Second); err != nil || gotQuery != "s3cret" || gotHeader != "" {
		t.Fatalf("a query token: %v (header %q, query %q)", err, gotHeader, gotQuery)
	}
	if body, err := f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/moved", TokenHeader: "X-Customer-Token", Token: "s3cret"}, time.Second); err != nil || string(body) != `{"data":[]}` || gotHeader != "s3cret" {
		t.Errorf("a redirect on the same host: %s, %v", body, err)
	}
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/away?token=s3cret"}, time.Second)
	wantCode(t, err, CodeRedirect)
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/loop"}, time.Second)
	wantCode(t, err, CodeRedirect)
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/missing?token=s3cret"}, time.Second)
	wantCode(t, err, CodeStatus)
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("the status is not named: %v", err)
	}
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/broken"}, time.Second)
	wantCode(t, err, CodeStatus)
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/big"}, time.Second)
	wantCode(t, err, CodeTooLarge)
	_, err = f.Fetch(ctx, uiproxy.Call{URL: api.URL + "/slow?token=s3cret"}, 50*time.Millisecond)
	wantCode(t, err, CodeUnreachable)
	if !strings.Contains(err.Error(), "within 50ms") {
		t.Errorf("the timeout is not named: %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a timeout is not context.DeadlineExceeded for the proxy's metrics: %v", err)
	}

	// The default policy refuses loopback, as it refuses private ranges.
	strict := NewFetcher(FetcherOptions{})
	_, err = strict.Fetch(ctx, uiproxy.Call{URL: api.URL + "/grid?token=s3cret"}, time.Second)
	wantCode(t, err, CodeAddressRefused)
	_, err = strict.Fetch(ctx, uiproxy.Call{URL: "http://10.1.2.3/grid"}, time.Second)
	wantCode(t, err, CodeAddressRefused)
	// A name is checked by the addresses it resolves to: localhost is
	// loopback, however it is spelled.
	port := api.URL[strings.LastIndexByte(api.URL, ':')+1:]
	for _, host := range []string{"localhost", "127.1", "0x7f.0.0.1", "[::ffff:127.0.0.1]"} {
		_, err = strict.Fetch(ctx, uiproxy.Call{URL: "http://" + host + ":" + port + "/grid?token=s3cret"}, time.Second)
		wantCode(t, err, CodeAddressRefused)
	}

	// Nothing listens: unreachable.
	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	_, err = f.Fetch(ctx, uiproxy.Call{URL: addr + "/grid"}, time.Second)
	wantCode(t, err, CodeUnreachable)
}

// BenchmarkFetchGrid calls a local customer API for a page of ten grid
// rows and reads it, from 8 goroutines: the fetch and the check a proxied
// grid request costs beyond the direct call.
func BenchmarkFetchGrid(b *testing.B) {
	page, err := uiproxy.MockGrid("invoices", "7", msgkit.ListQuery{PageNumber: 1, PageSize: 10}, &url.URL{Path: "/grid"})
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer api.Close()
	c := uiproxy.Component{ID: "invoices", Type: uiproxy.Grid, URL: api.URL + "/grid?page={pageNumber}", Columns: []uiproxy.Column{
		{Name: "id", Kind: uiproxy.Number}, {Name: "url", Kind: uiproxy.String}, {Name: "invoiceDate", Kind: uiproxy.Date}, {Name: "invoiceDateTime", Kind: uiproxy.DateTime},
	}}
	f := NewFetcher(FetcherOptions{Policy: loopback})
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			got, err := f.Fetch(context.Background(), uiproxy.Build(c, uiproxy.Request{PageNumber: 1, PageSize: 10}), time.Second)
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := uiproxy.ParseGrid(c, got); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
