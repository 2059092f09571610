package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/prometheus/client_golang/prometheus"
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

// BenchmarkIdempotentCreate is a create through a family's handler
// (Bearer, Tenant, privileges, Idempotent) on memstore: without a key,
// with a new key each time (the body fingerprinted, the record begun and
// finished), and retried with one key (the answer given again).
func BenchmarkIdempotentCreate(b *testing.B) {
	f := httpapitest.NewFixture(b)
	tok := f.Token(b, httpapitest.ClientID)
	h := httpapi.FamilyHandler(f.Opts, httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: thingsPath, Privileges: []auth.Privilege{auth.PrivNews}, Idempotent: true,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "/things/1")
				httpapi.WriteJSON(w, http.StatusCreated, map[string]string{"uuid": "00000000-0000-4000-8000-000000000001", "name": "Newsletter"})
			})},
	}})
	const body = `{"name":"Newsletter","list_status":"active"}`
	run := func(b *testing.B, key func(i int) string) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			r := post(tok, key(i), body)
			w := &noopWriter{h: http.Header{}}
			h.ServeHTTP(w, r)
		}
	}
	b.Run("no key", func(b *testing.B) { run(b, func(int) string { return "" }) })
	b.Run("new key", func(b *testing.B) { run(b, func(i int) string { return "k" + strconv.Itoa(i) }) })
	b.Run("replay", func(b *testing.B) { run(b, func(int) string { return "same" }) })
}

// BenchmarkFamilyMetrics is one request through a family's handler
// (request id, access log, Bearer, Tenant, privileges) without and with
// Options.Metrics: what measuring a request costs.
func BenchmarkFamilyMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run("metrics="+strconv.FormatBool(on), func(b *testing.B) {
			f := httpapitest.NewFixture(b)
			if on {
				f.Opts.Metrics = httpapi.NewMetrics(prometheus.NewRegistry())
			}
			h := httpapi.FamilyHandler(f.Opts, httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
				{Method: http.MethodGet, Path: "/t/{serviceUuid}/lists", Privileges: []auth.Privilege{auth.PrivNews},
					Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })},
			}})
			r := httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/t/"+string(httpapitest.TenantA)+"/lists", nil), f.Token(b, httpapitest.ClientID))
			w := &noopWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}
