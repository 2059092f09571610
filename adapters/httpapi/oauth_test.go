package httpapi_test

import (
	"context"
	"encoding/base64"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func basic(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}

func TestTokenEndpoint(t *testing.T) {
	f := httpapitest.NewFixture(t)
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	cc := func(id, secret string) url.Values {
		return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	}
	pw := func(user, pass string) url.Values {
		return url.Values{"grant_type": {"password"}, "username": {user}, "password": {pass}}
	}
	tests := []struct {
		name    string
		req     func() *http.Request
		status  int
		code    string // RFC 6749 error; "" for success
		ttl     int    // expires_in on success
		subject string // who the token speaks for on success
		wwwAuth string // WWW-Authenticate wanted, if any
		allow   string // Allow wanted, if any
		bad     bool   // the request breaks the document on purpose
	}{
		{name: "good client credentials", req: func() *http.Request { return formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret)) },
			status: 200, ttl: 3600, subject: httpapitest.ClientID},
		{name: "wrong secret", req: func() *http.Request { return formRequest(cc(httpapitest.ClientID, "wrong")) },
			status: 401, code: "invalid_client", wwwAuth: `Basic realm="msgkit"`},
		{name: "unknown client", req: func() *http.Request { return formRequest(cc("nobody", httpapitest.ClientSecret)) },
			status: 401, code: "invalid_client", wwwAuth: `Basic realm="msgkit"`},
		{name: "no client credentials", req: func() *http.Request {
			return formRequest(url.Values{"grant_type": {"client_credentials"}})
		}, status: 401, code: "invalid_client"},
		{name: "wrong IP", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.RemoteAddr = httpapitest.ForeignAddr
			return r
		}, status: 400, code: "unauthorized_client"},
		{name: "forwarded IP not trusted by default", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.RemoteAddr = "10.0.0.1:5000"
			r.Header.Set("X-Forwarded-For", "192.0.2.10")
			return r
		}, status: 400, code: "unauthorized_client"},
		{name: "missing grant_type", req: func() *http.Request {
			return formRequest(url.Values{"client_id": {httpapitest.ClientID}, "client_secret": {httpapitest.ClientSecret}})
		}, status: 400, code: "invalid_request", bad: true},
		{name: "empty grant_type", req: func() *http.Request {
			return formRequest(url.Values{"grant_type": {""}})
		}, status: 400, code: "invalid_request", bad: true},
		{name: "unsupported grant", req: func() *http.Request {
			return formRequest(url.Values{"grant_type": {"authorization_code"}, "code": {"x"}})
		}, status: 400, code: "unsupported_grant_type", bad: true},
		{name: "JSON content type", req: func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath,
				strings.NewReader(`{"grant_type":"client_credentials","client_id":"news-client"}`))
			r.Header.Set("Content-Type", "application/json")
			r.RemoteAddr = httpapitest.ClientAddr
			return r
		}, status: 400, code: "invalid_request", bad: true},
		{name: "no content type", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.Header.Del("Content-Type")
			return r
		}, status: 400, code: "invalid_request", bad: true},
		{name: "content type with charset", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.Header.Set("Content-Type", "Application/X-WWW-Form-Urlencoded; charset=utf-8")
			return r
		}, status: 200, ttl: 3600, subject: httpapitest.ClientID},
		{name: "credentials in the query string are ignored", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.URL.RawQuery = url.Values{"client_id": {httpapitest.ClientID}, "client_secret": {httpapitest.ClientSecret}}.Encode()
			return r
		}, status: 401, code: "invalid_client"},
		{name: "repeated parameter", req: func() *http.Request {
			v := cc(httpapitest.ClientID, httpapitest.ClientSecret)
			v.Add("client_secret", "other")
			return formRequest(v)
		}, status: 400, code: "invalid_request", bad: true},
		{name: "malformed form", req: func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath, strings.NewReader("grant_type=%zz"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.RemoteAddr = httpapitest.ClientAddr
			return r
		}, status: 400, code: "invalid_request", bad: true},
		{name: "body too large", req: func() *http.Request {
			v := cc(httpapitest.ClientID, httpapitest.ClientSecret)
			v.Set("padding", strings.Repeat("x", 9000))
			return formRequest(v)
		}, status: 413, code: "invalid_request", bad: true},
		{name: "body too large without Content-Length", req: func() *http.Request {
			v := cc(httpapitest.ClientID, httpapitest.ClientSecret)
			v.Set("padding", strings.Repeat("x", 9000))
			r := formRequest(v)
			r.ContentLength = -1
			return r
		}, status: 413, code: "invalid_request", bad: true},
		{name: "Basic authentication", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.Header.Set("Authorization", basic(httpapitest.ClientID, httpapitest.ClientSecret))
			return r
		}, status: 200, ttl: 3600, subject: httpapitest.ClientID},
		{name: "Basic authentication with the same client_id in the body", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {httpapitest.ClientID}})
			r.Header.Set("Authorization", basic(httpapitest.ClientID, httpapitest.ClientSecret))
			return r
		}, status: 200, ttl: 3600, subject: httpapitest.ClientID},
		{name: "Basic authentication with a form-encoded id", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.SetBasicAuth("news%2Dclient", url.QueryEscape(httpapitest.ClientSecret))
			return r
		}, status: 200, ttl: 3600, subject: httpapitest.ClientID},
		{name: "Basic authentication, wrong secret", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.Header.Set("Authorization", basic(httpapitest.ClientID, "wrong"))
			return r
		}, status: 401, code: "invalid_client", wwwAuth: `Basic realm="msgkit"`},
		{name: "Basic secret not form-encoded", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.SetBasicAuth(httpapitest.ClientID, "100%bad")
			return r
		}, status: 401, code: "invalid_client"},
		{name: "Basic and body secret together", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.Header.Set("Authorization", basic(httpapitest.ClientID, httpapitest.ClientSecret))
			return r
		}, status: 400, code: "invalid_request"},
		{name: "Bearer instead of Basic", req: func() *http.Request {
			r := formRequest(url.Values{"grant_type": {"client_credentials"}})
			r.Header.Set("Authorization", "Bearer abc")
			return r
		}, status: 401, code: "invalid_client"},
		{name: "password grant", req: func() *http.Request { return formRequest(pw(httpapitest.UserName, httpapitest.UserPassword)) },
			status: 200, ttl: 3600, subject: httpapitest.UserName},
		{name: "password grant, wrong password", req: func() *http.Request { return formRequest(pw(httpapitest.UserName, "nope")) },
			status: 400, code: "invalid_grant"},
		{name: "password grant, unknown user", req: func() *http.Request { return formRequest(pw("ghost", httpapitest.UserPassword)) },
			status: 400, code: "invalid_grant"},
		{name: "password grant without username", req: func() *http.Request {
			return formRequest(url.Values{"grant_type": {"password"}, "password": {httpapitest.UserPassword}})
		}, status: 400, code: "invalid_request"},
		{name: "GET", req: func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, httpapi.TokenPath, nil)
			r.RemoteAddr = httpapitest.ClientAddr
			return r
		}, status: 405, code: "invalid_request", allow: "POST", bad: true},
		{name: "unknown path under /oauth2/", req: func() *http.Request {
			r := formRequest(cc(httpapitest.ClientID, httpapitest.ClientSecret))
			r.URL.Path = "/oauth2/token"
			return r
		}, status: 404, code: "invalid_request", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.req()
			if tt.bad {
				r = httpapitest.SkipRequestCheck(r)
			}
			w := httpapitest.Serve(h, r)
			if got := w.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			if got := w.Header().Get("Pragma"); got != "no-cache" {
				t.Errorf("Pragma = %q, want no-cache", got)
			}
			if tt.wwwAuth != "" && w.Header().Get("WWW-Authenticate") != tt.wwwAuth {
				t.Errorf("WWW-Authenticate = %q, want %q", w.Header().Get("WWW-Authenticate"), tt.wwwAuth)
			}
			if tt.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
			if tt.allow != "" && w.Header().Get("Allow") != tt.allow {
				t.Errorf("Allow = %q, want %q", w.Header().Get("Allow"), tt.allow)
			}
			if tt.code != "" {
				m := httpapitest.WantError(t, w, httpapi.OAuth, tt.status, tt.code)
				if d, _ := m["error_description"].(string); d == "" {
					t.Errorf("empty error_description: %s", w.Body)
				}
				return
			}
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			m := httpapitest.DecodeBody(t, w)
			if len(m) != 3 || m["token_type"] != "Bearer" || m["expires_in"] != float64(tt.ttl) {
				t.Fatalf("body = %s, want access_token, token_type Bearer, expires_in %d", w.Body, tt.ttl)
			}
			tok, _ := m["access_token"].(string)
			p, err := f.Auth.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("the issued token does not verify: %v", err)
			}
			if p.Subject != tt.subject {
				t.Errorf("token subject = %q, want %q", p.Subject, tt.subject)
			}
		})
	}
}

func TestTokenEndpointTrustedProxy(t *testing.T) {
	f := httpapitest.NewFixture(t)
	f.Opts.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {httpapitest.ClientID}, "client_secret": {httpapitest.ClientSecret}}

	r := formRequest(form)
	r.RemoteAddr = "10.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9, 192.0.2.10, 10.0.0.2")
	if w := httpapitest.Serve(h, r); w.Code != http.StatusOK {
		t.Fatalf("client behind trusted proxies: status %d, want 200: %s", w.Code, w.Body)
	}

	r = formRequest(form)
	r.RemoteAddr = "10.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", "192.0.2.10, 203.0.113.9")
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.OAuth, 400, "unauthorized_client")
}

func TestTokenEndpointBruteForce(t *testing.T) {
	f := httpapitest.NewFixture(t)
	f.Opts.TokenRateLimit = httpapi.RateLimit{} // the default: 10 a second, burst 20
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	wrong := url.Values{"grant_type": {"client_credentials"}, "client_id": {httpapitest.ClientID}, "client_secret": {"guess"}}
	for i := range 20 {
		if w := httpapitest.Serve(h, formRequest(wrong)); w.Code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: status %d, want 401: %s", i+1, w.Code, w.Body)
		}
	}
	w := httpapitest.Serve(h, formRequest(wrong))
	httpapitest.WantError(t, w, httpapi.OAuth, http.StatusTooManyRequests, "temporarily_unavailable")
	if got := w.Header().Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q on 429, want no-store", got)
	}
	// The right secret is refused too while the address is over its limit.
	good := url.Values{"grant_type": {"client_credentials"}, "client_id": {httpapitest.ClientID}, "client_secret": {httpapitest.ClientSecret}}
	if w := httpapitest.Serve(h, formRequest(good)); w.Code != http.StatusTooManyRequests {
		t.Fatalf("good secret while limited: status %d, want 429", w.Code)
	}
	// Another address has its own bucket.
	other := formRequest(wrong)
	other.RemoteAddr = "192.0.2.11:1"
	if w := httpapitest.Serve(h, other); w.Code != http.StatusUnauthorized {
		t.Fatalf("other address: status %d, want 401", w.Code)
	}
	// A tenth of a second later one token is back.
	f.Clock.Advance(100 * time.Millisecond)
	if w := httpapitest.Serve(h, formRequest(good)); w.Code != http.StatusOK {
		t.Fatalf("after the refill: status %d, want 200: %s", w.Code, w.Body)
	}
	if w := httpapitest.Serve(h, formRequest(good)); w.Code != http.StatusTooManyRequests {
		t.Fatalf("second request after one refill: status %d, want 429", w.Code)
	}
}

func TestTokenEndpointInternalErrorIsGeneric(t *testing.T) {
	f := httpapitest.NewFixture(t)
	f.Opts.Auth = failingAuth{f.Auth}
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	w := httpapitest.Serve(h, formRequest(url.Values{"grant_type": {"password"}, "username": {"u"}, "password": {"p"}}))
	m := httpapitest.WantError(t, w, httpapi.OAuth, http.StatusInternalServerError, "server_error")
	if m["error_description"] != "internal error" || strings.Contains(w.Body.String(), "database") {
		t.Fatalf("internal error leaks: %s", w.Body)
	}
	if !strings.Contains(f.Logs.String(), "database on fire") {
		t.Fatalf("internal error not logged: %s", f.Logs)
	}
}

// failingAuth fails grants with an unclassified error.
type failingAuth struct{ *auth.Service }

func (failingAuth) Password(context.Context, string, string) (auth.IssuedToken, error) {
	return auth.IssuedToken{}, errors.New("database on fire at 10.1.2.3")
}

func TestTokenInfo(t *testing.T) {
	f := httpapitest.NewFixture(t)
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	for _, tc := range []struct {
		token, idKey string
	}{{f.Token(t, httpapitest.ClientID), "client_id"}, {f.UserToken(t, httpapitest.UserName), "username"}} {
		w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, httpapi.TokenInfoPath, nil), tc.token))
		if w.Code != http.StatusOK {
			t.Fatalf("token-info: %d %s", w.Code, w.Body)
		}
		got := httpapitest.DecodeBody(t, w)
		if got["active"] != true || got["sub"] == "" || got[tc.idKey] != got["sub"] || got["expires_in"] != float64(3600) {
			t.Errorf("token-info %v", got)
		}
	}
	// token-info is a bearer resource: its challenges are Bearer ones
	// (RFC 6750 3), not the token endpoint's Basic.
	for _, tc := range []struct {
		name, authorization, message, wwwAuth string
	}{
		{"no token", "", "", "Bearer"},
		{"forged token", "Bearer forged", "", `Bearer error="invalid_token"`},
		{"malformed token", "Bearer garbage!!", "the bearer access token is malformed", `Bearer error="invalid_token"`},
	} {
		r := httptest.NewRequest(http.MethodGet, httpapi.TokenInfoPath, nil)
		if tc.authorization != "" {
			r.Header.Set("Authorization", tc.authorization)
		}
		w := httpapitest.Serve(h, r)
		got := httpapitest.WantError(t, w, httpapi.OAuth, http.StatusUnauthorized, "invalid_token")
		if h := w.Header().Get("WWW-Authenticate"); h != tc.wwwAuth {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", tc.name, h, tc.wwwAuth)
		}
		if tc.message != "" && got["error_description"] != tc.message {
			t.Errorf("%s: body %v, want the description %q", tc.name, got, tc.message)
		}
	}
}

// The password grant's client may stay anonymous, but credentials it sends
// are verified (RFC 6749 4.3.2): a wrong secret is invalid_client, whether
// in the body or as HTTP Basic.
func TestPasswordGrantVerifiesClientCredentials(t *testing.T) {
	f := httpapitest.NewFixture(t)
	h := oauthContract(t).Handler(t, httpapi.OAuthHandler(f.Opts))
	pw := url.Values{"grant_type": {"password"}, "username": {httpapitest.UserName}, "password": {httpapitest.UserPassword}}
	with := func(extra ...string) url.Values {
		v := maps.Clone(pw)
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		return v
	}
	basic := func(id, secret string) *http.Request {
		r := formRequest(pw)
		r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret)) // form-encoded first (RFC 6749 2.3.1)
		return r
	}
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		code   string
	}{
		{"anonymous client", formRequest(pw), 200, ""},
		{"right client in the body", formRequest(with("client_id", httpapitest.ClientID, "client_secret", httpapitest.ClientSecret)), 200, ""},
		{"right client as Basic", basic(httpapitest.ClientID, httpapitest.ClientSecret), 200, ""},
		{"wrong secret in the body", formRequest(with("client_id", httpapitest.ClientID, "client_secret", "wrong")), 401, "invalid_client"},
		{"wrong secret as Basic", basic(httpapitest.ClientID, "wrong"), 401, "invalid_client"},
		{"a secret without an id", formRequest(with("client_secret", httpapitest.ClientSecret)), 401, "invalid_client"},
		{"an id without a secret", formRequest(with("client_id", httpapitest.ClientID)), 401, "invalid_client"},
	} {
		w := httpapitest.Serve(h, tc.req)
		if tc.code == "" {
			if w.Code != http.StatusOK {
				t.Errorf("%s: %d %s", tc.name, w.Code, w.Body)
			}
			continue
		}
		httpapitest.WantError(t, w, httpapi.OAuth, tc.status, tc.code)
	}
}
