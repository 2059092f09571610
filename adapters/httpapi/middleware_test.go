package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

// sentinel records whether it was called and what the context held.
type sentinel struct {
	called    bool
	principal auth.Principal
	service   msgkit.ServiceUUID
	key       auth.APIKey
}

func (s *sentinel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.called = true
	s.principal, _ = httpapi.PrincipalFrom(r.Context())
	s.service, _ = httpapi.ServiceFrom(r.Context())
	s.key, _ = httpapi.APIKeyFrom(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

// tenantStack is Bearer and Tenant on a {serviceUuid} route, as CDSHandler
// mounts them, ending in next.
func tenantStack(f *httpapitest.Fixture, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /news/v1/services/{serviceUuid}/cds/lists", httpapi.Tenant(httpapi.CDS)(next))
	return httpapi.Bearer(httpapi.CDS, f.Auth)(mux)
}

func listsPath(svc msgkit.ServiceUUID) string {
	return "/news/v1/services/" + string(svc) + "/cds/lists"
}

func TestBearer(t *testing.T) {
	f := httpapitest.NewFixture(t)
	good := f.Token(t, httpapitest.ClientID)
	tests := []struct {
		name    string
		auth    []string // Authorization header values
		status  int
		code    string
		wwwAuth string
	}{
		{name: "good token", auth: []string{"Bearer " + good}, status: 204},
		{name: "scheme in lower case", auth: []string{"bearer " + good}, status: 204},
		{name: "missing header", status: 401, code: httpapi.CodeMissingCredentials, wwwAuth: "Bearer"},
		{name: "Basic scheme", auth: []string{"Basic x"}, status: 401, code: httpapi.CodeMissingCredentials, wwwAuth: "Bearer"},
		{name: "Bearer alone", auth: []string{"Bearer"}, status: 401, code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
		{name: "Bearer and a space", auth: []string{"Bearer "}, status: 401, code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
		{name: "token with a space", auth: []string{"Bearer " + good + " x"}, status: 401, code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
		{name: "token with a bad character", auth: []string{"Bearer a,b"}, status: 401, code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
		{name: "garbage", auth: []string{"Bearer garbage!!"}, status: 401, code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
		{name: "two headers", auth: []string{"Bearer " + good, "Bearer " + good}, status: 401, code: httpapi.CodeMissingCredentials, wwwAuth: "Bearer"},
		{name: "unknown token", auth: []string{"Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, status: 401,
			code: auth.CodeInvalidToken, wwwAuth: `Bearer error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &sentinel{}
			r := httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil)
			for _, v := range tt.auth {
				r.Header.Add("Authorization", v)
			}
			w := httpapitest.Serve(tenantStack(f, next), r)
			if tt.code == "" {
				if w.Code != tt.status || !next.called {
					t.Fatalf("status %d, next called %v; want %d and called: %s", w.Code, next.called, tt.status, w.Body)
				}
				if next.principal.Subject != httpapitest.ClientID || next.service != httpapitest.TenantA {
					t.Fatalf("context principal %q service %q, want %q %q", next.principal.Subject, next.service, httpapitest.ClientID, httpapitest.TenantA)
				}
				return
			}
			httpapitest.WantError(t, w, httpapi.CDS, tt.status, tt.code)
			if next.called {
				t.Fatal("next handler called")
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tt.wwwAuth {
				t.Fatalf("WWW-Authenticate = %q, want %q", got, tt.wwwAuth)
			}
		})
	}
}

func TestBearerExpiredToken(t *testing.T) {
	f := httpapitest.NewFixture(t)
	tok := f.Token(t, httpapitest.ClientID)
	h := tenantStack(f, &sentinel{})
	if w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil), tok)); w.Code != http.StatusNoContent {
		t.Fatalf("fresh token: status %d: %s", w.Code, w.Body)
	}
	f.Clock.Advance(3600 * time.Second)
	next := &sentinel{}
	w := httpapitest.Serve(tenantStack(f, next), httpapitest.Bearer(httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil), tok))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusUnauthorized, auth.CodeInvalidToken)
	if next.called {
		t.Fatal("next handler called with an expired token")
	}
	if got := w.Header().Get("WWW-Authenticate"); got != `Bearer error="invalid_token"` {
		t.Fatalf("WWW-Authenticate = %q", got)
	}
}

func TestTenant(t *testing.T) {
	f := httpapitest.NewFixture(t)
	tok := f.Token(t, httpapitest.ClientID)
	tests := []struct {
		name    string
		path    string
		status  int
		code    string
		service msgkit.ServiceUUID
	}{
		{name: "own tenant", path: listsPath(httpapitest.TenantA), status: 204, service: httpapitest.TenantA},
		{name: "own tenant in upper case", path: listsPath(msgkit.ServiceUUID(strings.ToUpper(string(httpapitest.TenantA)))), status: 204, service: httpapitest.TenantA},
		{name: "other tenant", path: listsPath(httpapitest.TenantB), status: 403, code: httpapi.CodeForbiddenService},
		{name: "malformed serviceUuid", path: listsPath("not-a-uuid"), status: 400, code: msgkit.CodeInvalidServiceUUID},
		{name: "UUID without hyphens", path: listsPath("0b6a3d4e8f1c4c2a9a513f0e2d1c4b5a"), status: 400, code: msgkit.CodeInvalidServiceUUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &sentinel{}
			w := httpapitest.Serve(tenantStack(f, next), httpapitest.Bearer(httptest.NewRequest(http.MethodGet, tt.path, nil), tok))
			if tt.code == "" {
				if w.Code != tt.status || !next.called || next.service != tt.service {
					t.Fatalf("status %d, called %v, service %q; want %d, called, %q", w.Code, next.called, next.service, tt.status, tt.service)
				}
				return
			}
			m := httpapitest.WantError(t, w, httpapi.CDS, tt.status, tt.code)
			if next.called {
				t.Fatal("next handler called")
			}
			if tt.status == 400 {
				items, _ := m["items"].([]any)
				if len(items) != 1 || items[0].(map[string]any)["name"] != "serviceUuid" {
					t.Fatalf("items = %v, want one naming serviceUuid", m["items"])
				}
			}
		})
	}
}

func TestTenantAndPrivilegeNeedBearer(t *testing.T) {
	for name, mw := range map[string]func(http.Handler) http.Handler{
		"Tenant":     httpapi.Tenant(httpapi.CDS),
		"RequireAny": httpapi.RequireAny(httpapi.CDS, auth.PrivNews),
	} {
		t.Run(name, func(t *testing.T) {
			next := &sentinel{}
			mux := http.NewServeMux()
			mux.Handle("/news/v1/services/{serviceUuid}/cds/lists", mw(next))
			w := httpapitest.Serve(mux, httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil))
			httpapitest.WantError(t, w, httpapi.CDS, http.StatusInternalServerError, httpapi.CodeInternal)
			if next.called {
				t.Fatal("next handler called without a principal")
			}
		})
	}
}

func TestRequireAny(t *testing.T) {
	f := httpapitest.NewFixture(t)
	h := func(next http.Handler) http.Handler {
		return httpapi.Bearer(httpapi.Finance, f.Auth)(
			httpapi.RequireAny(httpapi.Finance, auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage)(next))
	}
	for _, client := range []string{httpapitest.FinanceViewer, httpapitest.Newsless} {
		next := &sentinel{}
		w := httpapitest.Serve(h(next), httpapitest.Bearer(httptest.NewRequest(http.MethodPost, "/finance/sit/v1/invoices", nil), f.Token(t, client)))
		m := httpapitest.WantError(t, w, httpapi.Finance, http.StatusForbidden, "")
		if m["Code"] != float64(403) || next.called {
			t.Fatalf("%s: Code %v, called %v; want 403 and not called", client, m["Code"], next.called)
		}
		if got := w.Header().Get("WWW-Authenticate"); got != `Bearer error="insufficient_scope"` {
			t.Fatalf("WWW-Authenticate = %q", got)
		}
	}
	// A principal with one of the privileges passes.
	next := &sentinel{}
	rq := httpapi.RequireAny(httpapi.Finance, auth.PrivFinanceInvoicesOwnView, auth.PrivFinanceInvoicesView)
	w := httpapitest.Serve(httpapi.Bearer(httpapi.Finance, f.Auth)(rq(next)),
		httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/finance/sit/v1/invoices", nil), f.Token(t, httpapitest.FinanceViewer)))
	if w.Code != http.StatusNoContent || !next.called {
		t.Fatalf("holder of a privilege: status %d, called %v", w.Code, next.called)
	}

	defer func() {
		if recover() == nil {
			t.Fatal("RequireAny without privileges did not panic")
		}
	}()
	httpapi.RequireAny(httpapi.CDS)
}

func TestAPIKey(t *testing.T) {
	f := httpapitest.NewFixture(t)
	tests := []struct {
		name   string
		keys   []string
		status int
		code   string
	}{
		{name: "good key", keys: []string{httpapitest.APIKeyValue}, status: 204},
		{name: "wrong key", keys: []string{"routing-key-wrong-0000000000"}, status: 401, code: auth.CodeInvalidAPIKey},
		{name: "missing key", status: 401, code: httpapi.CodeMissingCredentials},
		{name: "empty key", keys: []string{""}, status: 401, code: httpapi.CodeMissingCredentials},
		{name: "two keys", keys: []string{httpapitest.APIKeyValue, httpapitest.APIKeyValue}, status: 401, code: httpapi.CodeMissingCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &sentinel{}
			r := httptest.NewRequest(http.MethodGet, "/smsmtinbound/v1/smsmtin-routes", nil)
			for _, k := range tt.keys {
				r.Header.Add("X-API-Key", k)
			}
			w := httpapitest.Serve(httpapi.APIKey(httpapi.Routing, f.Auth)(next), r)
			if tt.code == "" {
				if w.Code != tt.status || !next.called || next.key.Name != "routing" {
					t.Fatalf("status %d, called %v, key %q", w.Code, next.called, next.key.Name)
				}
				return
			}
			httpapitest.WantError(t, w, httpapi.Routing, tt.status, tt.code)
			if next.called {
				t.Fatal("next handler called")
			}
		})
	}
}

func TestRecover(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	panicky := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret-xyz in the cause") })
	for _, fam := range []httpapi.Family{httpapi.CDS, httpapi.Finance, httpapi.Routing, httpapi.TestSystem, httpapi.OAuth} {
		t.Run(fam.String(), func(t *testing.T) {
			logs.Reset()
			h := httpapi.RequestID(func() string { return "req-1" })(httpapi.AccessLog(logger)(httpapi.Recover(fam)(panicky)))
			w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/x", nil))
			code := map[httpapi.Family]string{httpapi.OAuth: "server_error"}[fam]
			if code == "" {
				code = httpapi.CodeInternal
			}
			httpapitest.WantError(t, w, fam, http.StatusInternalServerError, code)
			if strings.Contains(w.Body.String(), "secret-xyz") {
				t.Fatalf("panic text leaks: %s", w.Body)
			}
			if !strings.Contains(w.Body.String(), "internal error") {
				t.Fatalf("no generic message: %s", w.Body)
			}
			var found bool
			for line := range strings.Lines(logs.String()) {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				if rec["msg"] == "internal error" {
					found = true
					if rec["request_id"] != "req-1" || !strings.Contains(rec["err"].(string), "secret-xyz") || rec["stack"] == nil {
						t.Fatalf("panic log lacks request id, cause or stack: %v", rec)
					}
				}
			}
			if !found {
				t.Fatalf("panic not logged: %s", logs.String())
			}
		})
	}
}

func TestRecoverAfterTheResponseBegan(t *testing.T) {
	h := httpapi.Recover(httpapi.CDS)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		panic("late")
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/", nil))
	t.Fatal("no panic")
}

func TestLimitBody(t *testing.T) {
	type body struct {
		Name string `json:"name"`
	}
	decode := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b body
		if err := httpapi.DecodeJSON(w, r, &b, httpapi.DecodeOptions{}); err != nil {
			httpapi.WriteError(w, r, httpapi.TestSystem, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	h := httpapi.LimitBody(httpapi.TestSystem, 32)(decode)
	big := `{"name":"` + strings.Repeat("x", 40) + `"}`

	w := httpapitest.Serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(big)))
	httpapitest.WantError(t, w, httpapi.TestSystem, http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)

	r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(big))) // length unknown
	r.ContentLength = -1
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.TestSystem, http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)

	if w := httpapitest.Serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"name":"ok"}`))); w.Code != http.StatusNoContent {
		t.Fatalf("small body: status %d: %s", w.Code, w.Body)
	}
	// The route's limit, not the default, is the one DecodeJSON keeps.
	wide := httpapi.LimitBody(httpapi.TestSystem, 4*httpapi.DefaultMaxBodyBytes)(decode)
	huge := `{"name":"ok","pad":[` + strings.Repeat(`"x",`, int(httpapi.DefaultMaxBodyBytes)/2) + `"x"]}`
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(huge))
	r.ContentLength = -1
	if w := httpapitest.Serve(wide, r); w.Code != http.StatusNoContent {
		t.Fatalf("body under a raised route limit: status %d: %s", w.Code, w.Body)
	}
}

func TestRequestID(t *testing.T) {
	gen := func() string { return "generated" }
	tests := []struct{ in, want string }{
		{"abc-123_X.y", "abc-123_X.y"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), "generated"},
		{"", "generated"},
		{"has space", "generated"},
		{"new\nline", "generated"},
		{"ünïcode", "generated"},
	}
	for _, tt := range tests {
		var seen string
		h := httpapi.RequestID(gen)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = httpapi.RequestIDFrom(r.Context())
		}))
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if tt.in != "" {
			r.Header["X-Request-Id"] = []string{tt.in}
		}
		w := httpapitest.Serve(h, r)
		if seen != tt.want || w.Header().Get("X-Request-Id") != tt.want {
			t.Errorf("X-Request-Id %q: context %q, header %q, want %q", tt.in, seen, w.Header().Get("X-Request-Id"), tt.want)
		}
	}
	// Applied twice, the id of the outer one stays.
	calls := 0
	count := func() string { calls++; return "id" + string(rune('0'+calls)) }
	var seen string
	h := httpapi.RequestID(count)(httpapi.RequestID(count)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen = httpapi.RequestIDFrom(r.Context())
	})))
	httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/", nil))
	if seen != "id1" || calls != 1 {
		t.Fatalf("nested RequestID: id %q after %d generations, want id1 after 1", seen, calls)
	}
	// The default generator makes distinct, valid ids.
	ids := map[string]bool{}
	for range 3 {
		w := httpapitest.Serve(httpapi.RequestID(nil)(http.NotFoundHandler()), httptest.NewRequest(http.MethodGet, "/", nil))
		id := w.Header().Get("X-Request-Id")
		if len(id) < 16 || ids[id] {
			t.Fatalf("default id %q is short or repeated", id)
		}
		ids[id] = true
	}
}

func TestAccessLog(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	h := httpapi.RequestID(func() string { return "rid" })(httpapi.AccessLog(logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte("12345"))
	})))
	r := httptest.NewRequest(http.MethodPut, "/a/b?q=secret", nil)
	r.RemoteAddr = "192.0.2.1:999"
	httpapitest.Serve(h, r)
	var rec map[string]any
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("log: %v: %s", err, logs.String())
	}
	want := map[string]any{
		"msg": "http request", "level": "INFO", "method": "PUT", "path": "/a/b", "status": float64(418),
		"bytes": float64(5), "request_id": "rid", "remote": "192.0.2.1:999", "aborted": false,
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("log %s = %v, want %v", k, rec[k], v)
		}
	}
	if _, ok := rec["duration"]; !ok {
		t.Error("log lacks duration")
	}
	if strings.Contains(logs.String(), "secret") {
		t.Error("the query string is logged")
	}
}

// The writer AccessLog hands down keeps flushing and hijacking reachable.
func TestAccessLogWriterPassesThrough(t *testing.T) {
	srv := httptest.NewServer(httpapi.AccessLog(nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.URL.Path == "/flush" {
			if err := rc.Flush(); err != nil {
				t.Errorf("Flush: %v", err)
			}
			return
		}
		conn, buf, err := rc.Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 299 Hijacked\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		_ = buf.Flush()
	})))
	defer srv.Close()
	for path, want := range map[string]int{"/flush": http.StatusOK, "/hijack": 299} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
}

func TestDecodeJSONUnknownFieldsAndUnmarshalers(t *testing.T) {
	type inner struct {
		Price float64 `json:"price"`
	}
	type body struct {
		CustID int    `json:"custID"`
		Item   inner  `json:"item"`
		When   civil  `json:"when"`
		Name   string `json:"name"`
	}
	tests := []struct {
		name   string
		in     string
		strict bool
		status int
		field  string
	}{
		{name: "good", in: `{"custID":1,"item":{"price":2.5},"name":"x"}`, status: 204},
		{name: "unknown member ignored", in: `{"custID":1,"uuid":"read-only"}`, status: 204},
		{name: "unknown member refused when strict", in: `{"custID":1,"uuid":"read-only"}`, strict: true, status: 400, field: "uuid"},
		{name: "string for an integer", in: `{"custID":"12"}`, status: 400, field: "custID"},
		{name: "fraction for an integer", in: `{"custID":1.5}`, status: 400, field: "custID"},
		{name: "nested type error", in: `{"item":{"price":"cheap"}}`, status: 400, field: "item.price"},
		{name: "array at the top", in: `[1,2]`, status: 400, field: "body"},
		{name: "syntax error", in: `{"custID":}`, status: 400, field: "body"},
		{name: "truncated", in: `{"custID":1`, status: 400, field: "body"},
		{name: "empty", in: ``, status: 400, field: "body"},
		{name: "two values", in: `{"custID":1} {"custID":2}`, status: 400, field: "body"},
		{name: "trailing garbage", in: `{"custID":1} x`, status: 400, field: "body"},
		{name: "trailing white space", in: "{\"custID\":1}\n\t ", status: 204},
		{name: "unmarshaler's msgkit error kept", in: `{"when":"2026-02-30"}`, status: 400, field: "when"},
		{name: "unmarshaler's plain error", in: `{"when":"boom"}`, status: 400, field: "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var b body
				if err := httpapi.DecodeJSON(w, r, &b, httpapi.DecodeOptions{DisallowUnknownFields: tt.strict}); err != nil {
					httpapi.WriteError(w, r, httpapi.CDS, err)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			w := httpapitest.Serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.in)))
			if tt.field == "" {
				if w.Code != tt.status {
					t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
				}
				return
			}
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			m := httpapitest.DecodeBody(t, w)
			items, _ := m["items"].([]any)
			if len(items) == 0 || items[0].(map[string]any)["name"] != tt.field {
				t.Fatalf("items %v, want the first naming %q", m["items"], tt.field)
			}
		})
	}
}

// civil stands for a domain type whose UnmarshalJSON returns a *msgkit.Error.
type civil struct{}

func (c *civil) UnmarshalJSON(b []byte) error {
	if string(b) == `"boom"` {
		return errors.New("boom is not a date")
	}
	return msgkit.Invalidf("invalid_date", "when", "when is not a calendar date")
}

func TestDecodeJSONOwnLimit(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]string
		err := httpapi.DecodeJSON(w, r, &v, httpapi.DecodeOptions{MaxBytes: 10})
		httpapi.WriteError(w, r, httpapi.Routing, err)
	})
	w := httpapitest.Serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":"0123456789"}`)))
	m := httpapitest.WantError(t, w, httpapi.Routing, http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)
	if !strings.Contains(m["Message"].(string), "10 bytes") {
		t.Fatalf("message does not give the limit: %v", m["Message"])
	}
	// Without a LimitBody, the default limit applies.
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any
		httpapi.WriteError(w, r, httpapi.Routing, httpapi.DecodeJSON(w, r, &v, httpapi.DecodeOptions{}))
	})
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`"`+strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes))+`"`))
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.Routing, http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)
}

func TestWriteJSON(t *testing.T) {
	w := httptest.NewRecorder()
	if err := httpapi.WriteJSON(w, http.StatusCreated, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusCreated || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != "{\"a\":1}\n" {
		t.Fatalf("got %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	w = httptest.NewRecorder()
	err := httpapi.WriteJSON(w, http.StatusOK, func() {})
	if msgkit.KindOf(err) != msgkit.Internal || w.Body.Len() != 0 || len(w.Header()) != 0 {
		t.Fatalf("unencodable value: err %v, wrote %q %v", err, w.Body, w.Header())
	}
}
