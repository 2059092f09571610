package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func TestFamilies(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	noNews := f.Token(t, httpapitest.Newsless) // tenant A, finance-balance-view only
	finView := f.Token(t, httpapitest.FinanceViewer)
	tester := f.UserToken(t, httpapitest.UserName)
	plain := f.UserToken(t, httpapitest.PlainUser)
	h := httpapi.New(f.Opts)

	type creds struct{ bearer, apiKey string }
	tests := []struct {
		name   string
		method string
		path   string
		creds  creds
		body   string
		fam    httpapi.Family
		status int
		code   string // for Finance: ignored, Code is checked against status
		allow  string
	}{
		// CDS
		{"cds without token", "GET", listsPath(httpapitest.TenantA), creds{}, "", httpapi.CDS, 401, httpapi.CodeMissingCredentials, ""},
		{"cds own tenant", "GET", listsPath(httpapitest.TenantA), creds{bearer: news}, "", httpapi.CDS, 501, httpapi.CodeNotImplemented, ""},
		{"cds other tenant", "GET", listsPath(httpapitest.TenantB), creds{bearer: news}, "", httpapi.CDS, 403, httpapi.CodeForbiddenService, ""},
		{"cds malformed tenant", "GET", listsPath("nope"), creds{bearer: news}, "", httpapi.CDS, 400, "invalid_service_uuid", ""},
		{"cds without privilege news", "GET", listsPath(httpapitest.TenantA), creds{bearer: noNews}, "", httpapi.CDS, 403, httpapi.CodeInsufficientPrivilege, ""},
		{"cds campaign", "PATCH", "/news/v1/services/" + string(httpapitest.TenantA) + "/campaigns/c-1", creds{bearer: news}, "{}", httpapi.CDS, 501, httpapi.CodeNotImplemented, ""},
		{"cds unknown path", "GET", "/news/v1/services/" + string(httpapitest.TenantA) + "/cds/nothing", creds{bearer: news}, "", httpapi.CDS, 404, httpapi.CodeNotFound, ""},
		{"cds unknown path without token", "GET", "/news/v1/whatever", creds{}, "", httpapi.CDS, 401, httpapi.CodeMissingCredentials, ""},
		{"cds method not allowed", "PATCH", listsPath(httpapitest.TenantA), creds{bearer: news}, "", httpapi.CDS, 405, httpapi.CodeMethodNotAllowed, "GET, HEAD, POST"},
		{"cds body over the limit", "POST", listsPath(httpapitest.TenantA), creds{bearer: news}, `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`, httpapi.CDS, 413, httpapi.CodeRequestTooLarge, ""},
		{"cds import takes a larger body", "POST", "/news/v1/services/" + string(httpapitest.TenantA) + "/cds/imports", creds{bearer: news}, `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`, httpapi.CDS, 501, httpapi.CodeNotImplemented, ""},
		// Finance
		{"finance without token", "GET", "/finance/sit/v1/invoices", creds{}, "", httpapi.Finance, 401, "", ""},
		{"finance view", "GET", "/finance/sit/v1/invoices", creds{bearer: finView}, "", httpapi.Finance, 501, "", ""},
		{"finance manage with view only", "POST", "/finance/sit/v1/invoices", creds{bearer: finView}, "{}", httpapi.Finance, 403, "", ""},
		{"finance without finance privileges", "GET", "/finance/sit/v1/invoices/7", creds{bearer: news}, "", httpapi.Finance, 403, "", ""},
		{"finance balances", "GET", "/finance/sit/v1/balances/biz-partners/customers", creds{bearer: noNews}, "", httpapi.Finance, 501, "", ""},
		{"finance balances with view only", "GET", "/finance/sit/v1/balances/biz-partners/suppliers/3/sheets", creds{bearer: finView}, "", httpapi.Finance, 403, "", ""},
		{"finance upload", "POST", "/invoice-docs/v2/invoices/7/files", creds{bearer: finView}, "", httpapi.Finance, 403, "", ""},
		{"finance unknown path", "GET", "/finance/sit/v1/nothing", creds{bearer: finView}, "", httpapi.Finance, 404, "", ""},
		// Routing
		{"routing with key", "GET", "/smsmtinbound/v1/smsmtin-routes/5", creds{apiKey: httpapitest.APIKeyValue}, "", httpapi.Routing, 501, httpapi.CodeNotImplemented, ""},
		{"routing without key", "GET", "/smsmtinbound/v1/smsmtin-routes", creds{}, "", httpapi.Routing, 401, httpapi.CodeMissingCredentials, ""},
		{"routing wrong key", "POST", "/smsmtinbound/v1/smsmtin-routes", creds{apiKey: "routing-key-not-this-one-00"}, "{}", httpapi.Routing, 401, auth.CodeInvalidAPIKey, ""},
		{"routing bearer is not a key", "GET", "/smsmtinbound/v1/smsmtin-routes", creds{bearer: news}, "", httpapi.Routing, 401, httpapi.CodeMissingCredentials, ""},
		{"routing method not allowed", "PATCH", "/smsmtinbound/v1/smsmtin-routes/5", creds{apiKey: httpapitest.APIKeyValue}, "", httpapi.Routing, 405, httpapi.CodeMethodNotAllowed, "DELETE, GET, HEAD, PUT"},
		// Test system
		{"testsystem user", "GET", "/gate/testsystem/v1/test/operator", creds{bearer: tester}, "", httpapi.TestSystem, 501, httpapi.CodeNotImplemented, ""},
		{"testsystem delete gate", "DELETE", "/gate/testsystem/v1/test/route/gate/g1", creds{bearer: tester}, "", httpapi.TestSystem, 501, httpapi.CodeNotImplemented, ""},
		{"testsystem user without privilege", "GET", "/gate/testsystem/v1/test/operator", creds{bearer: plain}, "", httpapi.TestSystem, 403, httpapi.CodeInsufficientPrivilege, ""},
		{"testsystem client without privilege", "GET", "/gate/testsystem/v1/test/route", creds{bearer: news}, "", httpapi.TestSystem, 403, httpapi.CodeInsufficientPrivilege, ""},
		{"testsystem without token", "GET", "/gate/testsystem/v1/test/route", creds{}, "", httpapi.TestSystem, 401, httpapi.CodeMissingCredentials, ""},
		// Outside every family
		{"unknown path", "GET", "/nope", creds{}, "", httpapi.TestSystem, 404, httpapi.CodeNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.creds.bearer != "" {
				httpapitest.Bearer(r, tt.creds.bearer)
			}
			if tt.creds.apiKey != "" {
				r.Header.Set("X-API-Key", tt.creds.apiKey)
			}
			w := httpapitest.Serve(h, r)
			m := httpapitest.WantError(t, w, tt.fam, tt.status, tt.code)
			if tt.fam == httpapi.Finance && m["Code"] != float64(tt.status) {
				t.Fatalf("finance Code = %v, want %d", m["Code"], tt.status)
			}
			if tt.status == 501 {
				msg, _ := m["message"].(string)
				if msg == "" {
					msg, _ = m["Message"].(string)
				}
				if !strings.Contains(msg, "later release") || !strings.Contains(msg, tt.method+" /") {
					t.Fatalf("501 message %q does not name the operation and the release", msg)
				}
			}
			if tt.allow != "" && w.Header().Get("Allow") != tt.allow {
				t.Fatalf("Allow = %q, want %q", w.Header().Get("Allow"), tt.allow)
			}
			if w.Header().Get("X-Request-Id") == "" {
				t.Fatal("no X-Request-Id")
			}
		})
	}
}

func TestNewMountsTheTokenEndpoint(t *testing.T) {
	f := httpapitest.NewFixture(t)
	h := httpapi.New(f.Opts)
	w := httpapitest.Serve(h, formRequest(url.Values{"grant_type": {"password"}, "username": {httpapitest.UserName}, "password": {httpapitest.UserPassword}}))
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	tok, _ := httpapitest.DecodeBody(t, w)["access_token"].(string)
	// The token opens the test system.
	r := httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/gate/testsystem/v1/test/sms/language", nil), tok)
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.TestSystem, 501, httpapi.CodeNotImplemented)
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
			for name, h := range map[string]http.Handler{"New": httpapi.New(opts), "HealthHandler": httpapi.HealthHandler(opts)} {
				w := httpapitest.Serve(h, httptest.NewRequest(tt.method, tt.path, nil))
				if w.Code != tt.status {
					t.Fatalf("%s: status %d, want %d: %s", name, w.Code, tt.status, w.Body)
				}
				if tt.body == "" {
					httpapitest.WantError(t, w, httpapi.TestSystem, tt.status, httpapi.CodeMethodNotAllowed) // {"code","message"}
					continue
				}
				if got := strings.TrimSpace(w.Body.String()); got != tt.body {
					t.Fatalf("%s: body %s, want %s", name, got, tt.body)
				}
			}
		})
	}
	if !strings.Contains(f.Logs.String(), "db down at 10.0.0.5") {
		t.Fatalf("readiness failure not logged: %s", f.Logs)
	}
}

func TestHandlersNeedAuth(t *testing.T) {
	for name, mk := range map[string]func(httpapi.Options) http.Handler{
		"New": httpapi.New, "OAuthHandler": httpapi.OAuthHandler, "CDSHandler": httpapi.CDSHandler,
		"FinanceHandler": httpapi.FinanceHandler, "RoutingHandler": httpapi.RoutingHandler,
		"TestSystemHandler": httpapi.TestSystemHandler,
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(v.(string), "Options.Auth") {
					t.Errorf("%s without Auth: recovered %v, want a panic naming Options.Auth", name, v)
				}
			}()
			mk(httpapi.Options{})
		}()
	}
	// Health needs no Auth.
	if w := httpapitest.Serve(httpapi.HealthHandler(httpapi.Options{}), httptest.NewRequest("GET", "/healthz", nil)); w.Code != 200 {
		t.Fatalf("HealthHandler without Auth: %d", w.Code)
	}
}

// A family handler mounted alone under another ServeMux works the same.
func TestFamilyHandlerMountedAlone(t *testing.T) {
	f := httpapitest.NewFixture(t)
	mux := http.NewServeMux()
	mux.Handle("/news/v1/", httpapi.CDSHandler(f.Opts))
	w := httpapitest.Serve(mux, httpapitest.Bearer(httptest.NewRequest("GET", listsPath(httpapitest.TenantB), nil), f.Token(t, httpapitest.ClientID)))
	httpapitest.WantError(t, w, httpapi.CDS, 403, httpapi.CodeForbiddenService)
}
