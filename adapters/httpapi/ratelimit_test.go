package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"golang.org/x/time/rate"
	"pgregory.net/rapid"
)

func TestLimiter(t *testing.T) {
	clk := httpapitest.NewClock()
	l := httpapi.NewLimiter(httpapi.RateLimit{Rate: 2, Burst: 3}, clk.Now)
	for i := range 3 {
		d := l.Allow("a")
		if !d.Allowed || d.Limit != 3 || d.Remaining != 2-i {
			t.Fatalf("request %d: %+v, want allowed with %d remaining", i+1, d, 2-i)
		}
	}
	d := l.Allow("a")
	if d.Allowed || d.Remaining != 0 || d.RetryAfter != 500*time.Millisecond || d.Reset != 1500*time.Millisecond {
		t.Fatalf("fourth request: %+v, want refused, retry in 500ms, full in 1.5s", d)
	}
	if !l.Allow("b").Allowed {
		t.Fatal("key b shares a's bucket")
	}
	clk.Advance(500 * time.Millisecond)
	if d := l.Allow("a"); !d.Allowed {
		t.Fatalf("after the refill: %+v", d)
	}
	clk.Advance(time.Hour)
	if d := l.Allow("a"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("after an hour the bucket is full again: %+v", d)
	}
}

func TestLimiterDefaults(t *testing.T) {
	clk := httpapitest.NewClock()
	if d := httpapi.NewLimiter(httpapi.RateLimit{Rate: 4.5}, clk.Now).Allow("k"); d.Limit != 5 {
		t.Fatalf("burst of rate 4.5 = %d, want 5", d.Limit)
	}
	inf := httpapi.NewLimiter(httpapi.RateLimit{Rate: rate.Inf}, clk.Now)
	for range 1000 {
		if !inf.Allow("k").Allowed {
			t.Fatal("rate.Inf refused")
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("zero rate did not panic")
		}
	}()
	httpapi.NewLimiter(httpapi.RateLimit{}, nil)
}

func TestLimiterEvictsLeastRecentlyUsed(t *testing.T) {
	clk := httpapitest.NewClock()
	l := httpapi.NewLimiter(httpapi.RateLimit{Rate: 1, Burst: 1, MaxKeys: 2}, clk.Now)
	l.Allow("a")
	l.Allow("b")
	l.Allow("a") // a is now the most recent; refused, its bucket is empty
	l.Allow("c") // evicts b
	if l.Len() != 2 {
		t.Fatalf("Len = %d, want 2", l.Len())
	}
	if l.Allow("a").Allowed {
		t.Fatal("a was evicted although used more recently than b")
	}
	if !l.Allow("b").Allowed {
		t.Fatal("b was kept although least recently used")
	}
}

// Law: with no time passing and a burst of 1, a request is allowed exactly
// when its key is not among the MaxKeys most recently used keys, and the
// limiter never holds more than MaxKeys buckets.
func TestLimiterLRULaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxKeys := rapid.IntRange(1, 5).Draw(t, "maxKeys")
		keys := rapid.SliceOf(rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g"})).Draw(t, "keys")
		clk := httpapitest.NewClock()
		l := httpapi.NewLimiter(httpapi.RateLimit{Rate: 1, Burst: 1, MaxKeys: maxKeys}, clk.Now)
		var recent []string // the model: most recent first
		for _, k := range keys {
			wantAllowed := !slices.Contains(recent, k)
			if got := l.Allow(k).Allowed; got != wantAllowed {
				t.Fatalf("key %s after %v: allowed %v, want %v", k, recent, got, wantAllowed)
			}
			recent = slices.DeleteFunc(recent, func(s string) bool { return s == k })
			recent = append([]string{k}, recent...)
			if len(recent) > maxKeys {
				recent = recent[:maxKeys]
			}
			if l.Len() != len(recent) {
				t.Fatalf("Len = %d, want %d", l.Len(), len(recent))
			}
		}
	})
}

func TestLimitRateMiddleware(t *testing.T) {
	clk := httpapitest.NewClock()
	for _, headers := range []bool{false, true} {
		l := httpapi.NewLimiter(httpapi.RateLimit{Rate: 1, Burst: 2, Headers: headers}, clk.Now)
		h := httpapi.LimitRate(httpapi.TestSystem, l, httpapi.ByClientIP(nil))(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}))
		var last *httptest.ResponseRecorder
		for i := range 3 {
			r := httptest.NewRequest(http.MethodPost, "/gate/testsystem/v1/test/sms", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			last = httpapitest.Serve(h, r)
			if i < 2 && last.Code != http.StatusNoContent {
				t.Fatalf("request %d: status %d", i+1, last.Code)
			}
			if headers {
				wantRemaining := strconv.Itoa(max(1-i, 0))
				if got := last.Header().Get("X-Ratelimit-Remaining"); got != wantRemaining {
					t.Errorf("request %d: X-Ratelimit-Remaining %q, want %s", i+1, got, wantRemaining)
				}
				if got := last.Header().Get("X-Ratelimit-Limit"); got != "2" {
					t.Errorf("X-Ratelimit-Limit %q, want 2", got)
				}
				wantReset := strconv.Itoa(i + 1)
				if i == 2 {
					wantReset = "2"
				}
				if got := last.Header().Get("X-Ratelimit-Reset"); got != wantReset {
					t.Errorf("request %d: X-Ratelimit-Reset %q, want %s", i+1, got, wantReset)
				}
			} else if last.Header().Get("X-Ratelimit-Limit") != "" {
				t.Errorf("X-Ratelimit headers without the option")
			}
		}
		httpapitest.WantError(t, last, httpapi.TestSystem, http.StatusTooManyRequests, httpapi.CodeTestSystemRateLimit)
		if got := last.Header().Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want 1", got)
		}
		// A peer on another port is the same client.
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.RemoteAddr = "192.0.2.1:5555"
		if w := httpapitest.Serve(h, r); w.Code != http.StatusTooManyRequests {
			t.Errorf("another port of the same address: %d, want 429", w.Code)
		}
		clk.Advance(time.Second)
	}
}

func TestBySubject(t *testing.T) {
	key := httpapi.BySubject(nil)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "192.0.2.1:1"
	if got := key(r); got != "ip:192.0.2.1" {
		t.Fatalf("without principal: %q", got)
	}
	var got string
	h := httpapi.Bearer(httpapi.TestSystem, verifierFunc(func(string) auth.Principal {
		return auth.Principal{Kind: auth.SubjectUser, Subject: "alice"}
	}))(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = key(r) }))
	httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/", nil), "tok"))
	if got != "sub:2:alice" {
		t.Fatalf("with principal: %q", got)
	}
}

type verifierFunc func(string) auth.Principal

func (f verifierFunc) Verify(_ context.Context, tok string) (auth.Principal, error) {
	return f(tok), nil
}

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	tests := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"peer", "192.0.2.1:1234", nil, nil, "192.0.2.1"},
		{"peer IPv6", "[2001:db8::1]:1234", nil, nil, "2001:db8::1"},
		{"IPv4-mapped peer", "[::ffff:192.0.2.1]:1234", nil, nil, "192.0.2.1"},
		{"forwarded ignored without trusted proxies", "10.0.0.1:1", []string{"203.0.113.5"}, nil, "10.0.0.1"},
		{"forwarded ignored from an untrusted peer", "192.0.2.1:1", []string{"203.0.113.5"}, proxies, "192.0.2.1"},
		{"trusted proxy", "10.0.0.1:1", []string{"203.0.113.5"}, proxies, "203.0.113.5"},
		{"spoofed left entries skipped", "10.0.0.1:1", []string{"6.6.6.6, 203.0.113.5, 10.0.0.2"}, proxies, "203.0.113.5"},
		{"several headers", "10.0.0.1:1", []string{"6.6.6.6", "203.0.113.5"}, proxies, "203.0.113.5"},
		{"all hops trusted", "10.0.0.1:1", []string{"10.0.0.3, 10.0.0.2"}, proxies, "10.0.0.3"},
		{"no header from a trusted proxy", "10.0.0.1:1", nil, proxies, "10.0.0.1"},
		{"garbage hop stops the walk", "10.0.0.1:1", []string{"203.0.113.5, garbage, 10.0.0.2"}, proxies, "10.0.0.2"},
		{"hop with a port", "[fd00::1]:1", []string{"203.0.113.5:4711"}, proxies, "203.0.113.5"},
		{"unparsable peer", "pipe", nil, nil, "invalid IP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := httpapi.ClientIP(r, tt.trusted).String(); got != tt.want {
				t.Fatalf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}
