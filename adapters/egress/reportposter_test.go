package egress_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/egress"
)

// loopbackPoster may post to loopback, where the tests' receivers listen.
func loopbackPoster() *egress.ReportPoster {
	return egress.NewReportPoster(egress.ReportPosterOptions{Policy: egress.Policy{Allow: []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
	}}})
}

// hit is what a receiver saw of one request.
type hit struct{ method, path, body, contentType string }

// receiver records the requests it gets and answers with answer.
type receiver struct {
	mu   sync.Mutex
	hits []hit
	srv  *httptest.Server
}

func newReceiver(t *testing.T, answer http.HandlerFunc) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{r.Method, r.URL.Path, string(b), r.Header.Get("Content-Type")})
		rc.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) got() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

func TestReportPoster(t *testing.T) {
	status := http.StatusOK
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) })
	p := loopbackPoster()
	if err := p.PostReport(t.Context(), rc.srv.URL+"/dlr", []byte(`{"event":"DELIVERED"}`)); err != nil {
		t.Fatal(err)
	}
	if got := rc.got(); len(got) != 1 || got[0] != (hit{"POST", "/dlr", `{"event":"DELIVERED"}`, "application/json"}) {
		t.Errorf("posted %+v", got)
	}
	for s, kind := range map[int]msgkit.Kind{
		http.StatusNoContent: 0, 500: msgkit.Unavailable, 503: msgkit.Unavailable, 429: msgkit.Unavailable, 408: msgkit.Unavailable,
		400: msgkit.Invalid, 404: msgkit.Invalid, 410: msgkit.Invalid,
		http.StatusMultipleChoices: msgkit.Invalid, http.StatusSeeOther: msgkit.Invalid, http.StatusNotModified: msgkit.Invalid,
	} {
		status = s
		err := p.PostReport(t.Context(), rc.srv.URL, nil)
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
	p := loopbackPoster()
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
}

// withHost is u with its host replaced, the port kept.
func withHost(t *testing.T, u, host string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + net.JoinHostPort(host, port) + "/dlr"
}

// Closed to SSRF by default: no spelling of loopback, nor the cloud's
// metadata address, is posted to; allowing loopback lets every spelling
// of it through.
func TestReportPosterRefusesSpecialAddresses(t *testing.T) {
	rc := newReceiver(t, func(http.ResponseWriter, *http.Request) {})
	hosts := []string{"127.0.0.1", "::ffff:127.0.0.1", "0x7f.1", "2130706433", "017700000001", "127.1", "localhost"}
	def := egress.NewReportPoster(egress.ReportPosterOptions{})
	for _, h := range append(hosts, "169.254.169.254", "::1", "10.0.0.1") {
		err := def.PostReport(t.Context(), withHost(t, rc.srv.URL, h), []byte("{}"))
		if msgkit.KindOf(err) != msgkit.Invalid || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s: %v, want refused for good", h, err)
		}
	}
	if got := rc.got(); len(got) != 0 {
		t.Fatalf("the default poster reached loopback: %+v", got)
	}
	dev := loopbackPoster()
	for _, h := range hosts {
		if err := dev.PostReport(t.Context(), withHost(t, rc.srv.URL, h), []byte("{}")); err != nil {
			t.Errorf("%s with loopback allowed: %v", h, err)
		}
	}
	if got := rc.got(); len(got) != len(hosts) {
		t.Errorf("%d of %d posts arrived", len(got), len(hosts))
	}
	// Forbid beats Allow.
	strict := egress.NewReportPoster(egress.ReportPosterOptions{Policy: egress.Policy{
		Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Forbid: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	}})
	if err := strict.PostReport(t.Context(), rc.srv.URL, nil); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("forbidden over allowed: %v", err)
	}
}

// Redirects 301, 302, 307 and 308 are followed with the same POST and
// body, as relative and absolute locations.
func TestReportPosterFollowsRedirects(t *testing.T) {
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var rc *receiver
			rc = newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/old":
					http.Redirect(w, r, "/moved", code)
				case "/moved":
					http.Redirect(w, r, rc.srv.URL+"/new", code)
				}
			})
			body := `{"msgId":"m-1","event":"DELIVERED"}`
			if err := loopbackPoster().PostReport(t.Context(), rc.srv.URL+"/old", []byte(body)); err != nil {
				t.Fatal(err)
			}
			want := []hit{{"POST", "/old", body, "application/json"}, {"POST", "/moved", body, "application/json"}, {"POST", "/new", body, "application/json"}}
			if got := rc.got(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("hops\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// At most three redirects are followed; a fourth is refused for good, and
// so is a redirect without a usable location.
func TestReportPosterRedirectLimit(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		switch n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/")); {
		case r.URL.Path == "/nowhere":
			w.WriteHeader(http.StatusFound)
		case r.URL.Path == "/ftp":
			w.Header().Set("Location", "ftp://example.com/dlr")
			w.WriteHeader(http.StatusTemporaryRedirect)
		case n > 0:
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusTemporaryRedirect)
		}
	})
	p := loopbackPoster()
	if err := p.PostReport(t.Context(), rc.srv.URL+"/hop/3", []byte("x")); err != nil {
		t.Errorf("three redirects: %v", err)
	}
	if n := len(rc.got()); n != 4 {
		t.Errorf("three redirects: %d requests, want 4", n)
	}
	err := p.PostReport(t.Context(), rc.srv.URL+"/hop/4", []byte("x"))
	if msgkit.KindOf(err) != msgkit.Invalid || !strings.Contains(err.Error(), "redirected more than 3 times") {
		t.Errorf("four redirects: %v", err)
	}
	if got := rc.got(); len(got) != 8 || got[7].path != "/hop/1" {
		t.Errorf("four redirects: %d requests, the last %+v; want 4 more, ending before /hop/0", len(got)-4, got[len(got)-1])
	}
	for _, path := range []string{"/nowhere", "/ftp"} {
		if err := p.PostReport(t.Context(), rc.srv.URL+path, nil); msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// A redirect is dialled through the same policy as the first hop: a
// receiver allowed by the policy cannot send a report to an address the
// policy refuses.
func TestReportPosterRedirectToForbiddenAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	inner := &receiver{}
	inner.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.mu.Lock()
		inner.hits = append(inner.hits, hit{method: r.Method, path: r.URL.Path})
		inner.mu.Unlock()
	}))
	inner.srv.Listener.Close()
	inner.srv.Listener = ln
	inner.srv.Start()
	defer inner.srv.Close()
	_, innerPort, _ := net.SplitHostPort(ln.Addr().String())

	targets := map[string]string{
		"metadata": "http://169.254.169.254/latest/meta-data/",
		"numeric":  "http://2130706434:" + innerPort + "/", // 127.0.0.2
		"mapped":   "http://[::ffff:127.0.0.2]:" + innerPort + "/",
	}
	outer := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, targets[strings.TrimPrefix(r.URL.Path, "/")], http.StatusTemporaryRedirect)
	})
	p := egress.NewReportPoster(egress.ReportPosterOptions{Policy: egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	for name := range targets {
		err := p.PostReport(t.Context(), outer.srv.URL+"/"+name, []byte("{}"))
		if msgkit.KindOf(err) != msgkit.Invalid || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s: %v, want refused for good", name, err)
		}
	}
	if got := inner.got(); len(got) != 0 {
		t.Errorf("a redirect reached a refused address: %+v", got)
	}
}
