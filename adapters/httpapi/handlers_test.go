package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
)

// A family of four routes: one served by a handler, one by a Serve whose
// failure the family maps, one the server was built without (501), one
// with a body limit of its own.
func TestFamilyHandler(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := []auth.Privilege{auth.PrivNews}
	next := &sentinel{}
	fails := func(http.ResponseWriter, *http.Request) error {
		return msgkit.New(msgkit.NotFound, "gone", "it is gone")
	}
	spec := httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/t/{serviceUuid}/served", Privileges: news, Handler: next},
		{Method: http.MethodGet, Path: "/t/{serviceUuid}/fails", Privileges: news, Serve: fails},
		{Method: http.MethodPost, Path: "/t/{serviceUuid}/later", Privileges: news, Idempotent: true, Missing: true},
		{Method: http.MethodPost, Path: "/t/{serviceUuid}/small", Privileges: news, MaxBody: 8, Idempotent: true, Missing: true},
	}, Errors: func(err error) error {
		return msgkit.Errorf(msgkit.KindOf(err), "mapped_"+msgkit.CodeOf(err), "%s", msgkit.MessageOf(err))
	}}
	h := httpapi.FamilyHandler(f.Opts, spec)
	tok := f.Token(t, httpapitest.ClientID)
	path := func(route string) string { return "/t/" + string(httpapitest.TenantA) + "/" + route }

	w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, path("served"), nil), tok))
	if w.Code != http.StatusNoContent || next.principal.Subject != httpapitest.ClientID || next.service != httpapitest.TenantA {
		t.Fatalf("served: status %d, principal %q, service %q", w.Code, next.principal.Subject, next.service)
	}
	w = httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodPost, path("small"), strings.NewReader("123456789")), tok))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)
	w = httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodPost, path("small"), strings.NewReader("12345678")), tok))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusNotImplemented, httpapi.CodeNotImplemented)
	w = httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodPost, path("later"), strings.NewReader("123456789")), tok))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusNotImplemented, httpapi.CodeNotImplemented)
	w = httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest(http.MethodGet, path("fails"), nil), tok))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusNotFound, "mapped_gone")

	httpapitest.CheckRoutes(t, spec, "/t/")
}

// An API-key family puts the key's record in the context and refuses a
// request without a key.
func TestFamilyHandlerAPIKey(t *testing.T) {
	f := httpapitest.NewFixture(t)
	next := &sentinel{}
	h := httpapi.FamilyHandler(f.Opts, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey,
		Routes: []httpapi.Route{{Method: http.MethodGet, Path: "/k", Handler: next}}})
	r := httptest.NewRequest(http.MethodGet, "/k", nil)
	r.Header.Set("X-API-Key", httpapitest.APIKeyValue)
	if w := httpapitest.Serve(h, r); w.Code != http.StatusNoContent || next.key.Name != "routing" {
		t.Fatalf("status %d, key %+v", w.Code, next.key)
	}
	w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/k", nil))
	httpapitest.WantError(t, w, httpapi.Routing, http.StatusUnauthorized, httpapi.CodeMissingCredentials)
}

// Mistakes of wiring panic when the handler is built, not when a request
// comes.
func TestWiringMistakesPanic(t *testing.T) {
	withAuth := httpapi.Options{Auth: httpapitest.GrantAll{}}
	privileged := []httpapi.Route{{Method: http.MethodGet, Path: "/x", Privileges: []auth.Privilege{auth.PrivNews}}}
	for _, tt := range []struct {
		name, panic string
		build       func()
	}{
		{"OAuthHandler without Auth", "Options.Auth", func() { httpapi.OAuthHandler(httpapi.Options{}) }},
		{"FamilyHandler without Auth", "Options.Auth", func() {
			httpapi.FamilyHandler(httpapi.Options{}, httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer})
		}},
		{"no scheme", "AuthScheme", func() { httpapi.FamilyHandler(withAuth, httpapi.FamilySpec{Family: httpapi.CDS}) }},
		{"tenant with an API key", "AuthBearer", func() {
			httpapi.FamilyHandler(withAuth, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Tenant: true})
		}},
		{"privileges with an API key", "AuthBearer", func() {
			httpapi.FamilyHandler(withAuth, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Routes: privileged})
		}},
		{"a route without a handler", "GET /y has no handler and is not marked Missing", func() {
			httpapi.FamilyHandler(withAuth, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey,
				Routes: []httpapi.Route{{Method: http.MethodGet, Path: "/y"}}})
		}},
		{"a route with two handlers", "GET /y has both Serve and Handler", func() {
			httpapi.FamilyHandler(withAuth, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey,
				Routes: []httpapi.Route{{Method: http.MethodGet, Path: "/y", Handler: &sentinel{},
					Serve: func(http.ResponseWriter, *http.Request) error { return nil }}}})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, tt.panic) {
					t.Errorf("recovered %q, want a panic naming %s", v, tt.panic)
				}
			}()
			tt.build()
		})
	}
	// Health needs no Auth.
	if w := httpapitest.Serve(httpapi.HealthHandler(httpapi.Options{}), httptest.NewRequest("GET", "/healthz", nil)); w.Code != 200 {
		t.Fatalf("HealthHandler without Auth: %d", w.Code)
	}
}

func TestNotFoundHandler(t *testing.T) {
	w := httpapitest.Serve(httpapi.NotFoundHandler(httpapi.Options{}), httptest.NewRequest(http.MethodPost, "/nope", nil))
	httpapitest.WantError(t, w, httpapi.TestSystem, http.StatusNotFound, httpapi.CodeNotFound) // {"code","message"}
	if w.Header().Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
	msgkittest.Golden(t, "testdata/not_found.json", httpapitest.Answer(w))
}

type pinger struct{ err error }

func (p pinger) Ping(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		return errors.New("no deadline")
	}
	return p.err
}

func TestHealth(t *testing.T) {
	f := httpapitest.NewFixture(t)
	for _, tt := range []struct {
		name   string
		pinger httpapi.Pinger
		method string
		path   string
		status int
		body   string
	}{
		{"healthz", pinger{errors.New("db down")}, "GET", "/healthz", 200, `{"status":"ok"}`},
		{"readyz without pinger", nil, "GET", "/readyz", 200, `{"status":"ok"}`},
		{"readyz ready", pinger{}, "GET", "/readyz", 200, `{"status":"ok"}`},
		{"readyz not ready", pinger{errors.New("db down at 10.0.0.5")}, "GET", "/readyz", 503, `{"status":"unavailable"}`},
		{"healthz POST", nil, "POST", "/healthz", 405, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := f.Opts
			opts.Pinger = tt.pinger
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.body == "" { // a method the document does not have
				r = httpapitest.SkipRequestCheck(r)
			}
			w := httpapitest.Serve(healthContract(t).Handler(t, httpapi.HealthHandler(opts)), r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.body == "" {
				httpapitest.WantError(t, w, httpapi.TestSystem, tt.status, httpapi.CodeMethodNotAllowed) // {"code","message"}
			} else if got := strings.TrimSpace(w.Body.String()); got != tt.body {
				t.Fatalf("body %s, want %s", got, tt.body)
			}
			msgkittest.Golden(t, filepath.Join("testdata", "health", strings.ReplaceAll(tt.name, " ", "_")+".json"), httpapitest.Answer(w))
		})
	}
	if !strings.Contains(f.Logs.String(), "db down at 10.0.0.5") {
		t.Fatalf("readiness failure not logged: %s", f.Logs)
	}
}
