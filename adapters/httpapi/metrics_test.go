package httpapi_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/prometheus/client_golang/prometheus"
)

// Requests are counted by family, the pattern of the route they are for
// and status, whether the route answered or a check before it refused;
// requests for no route count as unmatched; the in-flight gauge holds a
// request while it is served and lets it go after.
func TestMetrics(t *testing.T) {
	f := httpapitest.NewFixture(t)
	reg := prometheus.NewRegistry()
	f.Opts.Metrics = httpapi.NewMetrics(reg)
	var inFlight float64
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight = msgkittest.MustMetric(t, reg, "msgkit_http_requests_in_flight", "family", "cds")
		w.WriteHeader(http.StatusNoContent)
	})
	const pattern = "GET /t/{serviceUuid}/served"
	spec := httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/t/{serviceUuid}/served", Privileges: []auth.Privilege{auth.PrivNews}, Handler: served},
		{Method: http.MethodGet, Path: "/t/{serviceUuid}/panics", Privileges: []auth.Privilege{auth.PrivNews}, Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })},
	}}
	h := httpapi.FamilyHandler(f.Opts, spec)
	tok := f.Token(t, httpapitest.ClientID)
	path := "/t/" + string(httpapitest.TenantA) + "/served"

	for range 3 {
		httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, path, nil), tok))
	}
	httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, path, nil))                                                                 // 401 before the route
	httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/t/nowhere", nil), tok))                                // 404
	httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodDelete, path, nil), tok))                                     // 405
	httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/t/"+string(httpapitest.TenantA)+"/panics", nil), tok)) // 500

	if inFlight != 1 {
		t.Errorf("in flight during a request: %v, want 1", inFlight)
	}
	if got := msgkittest.MustMetric(t, reg, "msgkit_http_requests_in_flight", "family", "cds"); got != 0 {
		t.Errorf("in flight after: %v, want 0", got)
	}
	for _, c := range []struct {
		route, status string
		want          float64
	}{
		{pattern, "204", 3},
		{pattern, "401", 1},
		{httpapi.RouteUnmatched, "404", 1},
		{httpapi.RouteUnmatched, "405", 1},
		{"GET /t/{serviceUuid}/panics", "500", 1},
	} {
		labels := []string{"family", "cds", "route", c.route, "status", c.status}
		if got, _ := msgkittest.Metric(t, reg, "msgkit_http_requests_total", labels...); got != c.want {
			t.Errorf("requests %v: %v, want %v", labels, got, c.want)
		}
	}
	if got, _ := msgkittest.Metric(t, reg, "msgkit_http_request_seconds", "family", "cds", "route", pattern); got != 4 {
		t.Errorf("durations of %s: %v, want 4", pattern, got)
	}
}

// Without Metrics the handlers serve as ever, and NewMetrics of no
// registry is no metrics.
func TestMetricsOff(t *testing.T) {
	if httpapi.NewMetrics(nil) != nil {
		t.Fatal("NewMetrics(nil) is not nil")
	}
	f := httpapitest.NewFixture(t)
	w := httpapitest.Serve(httpapi.HealthHandler(f.Opts), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("healthz without metrics: %d", w.Code)
	}
}

// GET /version answers the build information, as its document says.
func TestVersion(t *testing.T) {
	f := httpapitest.NewFixture(t)
	w := httpapitest.Serve(healthContract(t).Handler(t, httpapi.HealthHandler(f.Opts)), httptest.NewRequest(http.MethodGet, "/version", nil))
	var v httpapi.Version
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &v) != nil {
		t.Fatalf("version: %d %s", w.Code, w.Body)
	}
	if v.GoVersion != runtime.Version() || v.Version == "" || v.Msgkit == "" {
		t.Fatalf("version %+v: want Go %s and versions named", v, runtime.Version())
	}
	if v != httpapi.ReadVersion() {
		t.Fatalf("version %+v, ReadVersion %+v", v, httpapi.ReadVersion())
	}
}

// A service that logs with the request's context has the request id in
// its line, and so has the access log line, once.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(httpapi.LogHandler(slog.NewJSONHandler(&buf, nil)))
	if httpapi.LogHandler(logger.Handler()) != logger.Handler() {
		t.Error("LogHandler wrapped itself")
	}
	h := httpapi.RequestID(func() string { return "rid-9" })(httpapi.AccessLog(logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.InfoContext(r.Context(), "a service speaks")
		logger.With("part", "x").WarnContext(r.Context(), "a part of it too")
	})))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	logger.Info("outside a request")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	for i, line := range lines {
		want := 1
		if i == 3 {
			want = 0
		}
		if n := strings.Count(line, `"request_id"`); n != want || want == 1 && !strings.Contains(line, `"request_id":"rid-9"`) {
			t.Errorf("line %d has request_id %d times, want %d: %s", i, n, want, line)
		}
	}
}
