package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// noopWriter is a ResponseWriter that costs nothing, so the benchmark
// measures the middleware.
type noopWriter struct{ h http.Header }

func (w *noopWriter) Header() http.Header         { return w.h }
func (w *noopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *noopWriter) WriteHeader(int)             {}

// BenchmarkBearerAuth is one request through Bearer and Tenant with a
// valid token on memstore.
func BenchmarkBearerAuth(b *testing.B) {
	f := httpapitest.NewFixture(b)
	tok := f.Token(b, httpapitest.ClientID)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := httpapi.ServiceFrom(r.Context()); !ok {
			b.Fatal("no tenant")
		}
	})
	h := tenantStack(f, next)
	r := httpapitest.Bearer(httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil), tok)
	w := &noopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// BenchmarkVerify is auth.Service.Verify alone on memstore; the target is
// at most 2 µs and 2 allocations.
func BenchmarkVerify(b *testing.B) {
	f := httpapitest.NewFixture(b)
	tok := f.Token(b, httpapitest.ClientID)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Auth.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}
