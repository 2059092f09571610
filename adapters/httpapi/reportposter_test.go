package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
)

func TestReportPoster(t *testing.T) {
	var gotBody, gotType string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody, gotType = string(b), r.Header.Get("Content-Type")
		if status == http.StatusFound {
			http.Redirect(w, r, "/elsewhere", status)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	p := httpapi.NewReportPoster(httpapi.ReportPosterOptions{})
	if err := p.PostReport(t.Context(), srv.URL+"/dlr", []byte(`{"event":"DELIVERED"}`)); err != nil {
		t.Fatal(err)
	}
	if gotBody != `{"event":"DELIVERED"}` || gotType != "application/json" {
		t.Errorf("posted %q as %q", gotBody, gotType)
	}
	for s, kind := range map[int]msgkit.Kind{
		http.StatusNoContent: 0, 500: msgkit.Unavailable, 503: msgkit.Unavailable, 429: msgkit.Unavailable, 408: msgkit.Unavailable,
		400: msgkit.Invalid, 404: msgkit.Invalid, 410: msgkit.Invalid, http.StatusFound: msgkit.Invalid,
	} {
		status = s
		err := p.PostReport(t.Context(), srv.URL, nil)
		if kind == 0 {
			if err != nil {
				t.Errorf("%d: %v", s, err)
			}
			continue
		}
		if msgkit.KindOf(err) != kind {
			t.Errorf("%d: %v, want kind %v", s, err, kind)
		}
	}
}

func TestReportPosterFailures(t *testing.T) {
	p := httpapi.NewReportPoster(httpapi.ReportPosterOptions{})
	// A closed port: a connection error is retried.
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	if err := p.PostReport(t.Context(), addr, nil); msgkit.KindOf(err) != msgkit.Unavailable {
		t.Errorf("connection refused: %v", err)
	}
	// A timeout is retried.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := p.PostReport(ctx, slow.URL, nil); msgkit.KindOf(err) != msgkit.Unavailable {
		t.Errorf("timeout: %v", err)
	}
	if err := p.PostReport(t.Context(), "://bad", nil); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("bad URL: %v", err)
	}
	// A forbidden range is refused for good, without a request.
	hit := false
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer local.Close()
	guarded := httpapi.NewReportPoster(httpapi.ReportPosterOptions{Forbidden: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	if err := guarded.PostReport(t.Context(), local.URL, nil); msgkit.KindOf(err) != msgkit.Invalid || hit {
		t.Errorf("forbidden address: %v, reached %v", err, hit)
	}
}
