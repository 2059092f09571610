package main

import (
	"github.com/msgkit/msgkit/adapters/httpapi/adminapi"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
)

// restAPI is the REST listener's handler of the platform, over the
// fixture's auth service.
func restAPI(t *testing.T) http.Handler {
	f := httpapitest.NewFixture(t)
	fin, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := stores{finance: memstore.New().Finance(), tests: memstore.New().TestSystem(), blobs: fin}
	families := append(restFamilies(f.Auth, adminapi.Backend{Auth: f.Auth}, f.Opts, st, time.Second, nil, nil), uiProxyFamily(f.Opts, nil))
	return platform{opts: f.Opts, families: families}.apiHandler()
}

// apiHandler mounts each family at its prefixes: a request without
// credentials gets the family's 401; any other path is 404 {"code","message"}.
func TestAPIHandlerMountsEveryFamily(t *testing.T) {
	h := restAPI(t)
	for _, tt := range []struct {
		path   string
		fam    httpapi.Family
		status int
		code   string
	}{
		{"/news/v1/whatever", httpapi.CDS, 401, httpapi.CodeMissingCredentials},
		{"/finance/sit/v1/invoices", httpapi.Finance, 401, ""},
		{"/invoice-docs/v2/invoices/7/files", httpapi.Finance, 401, ""},
		{"/smsmtinbound/v1/smsmtin-routes", httpapi.Routing, 401, httpapi.CodeMissingCredentials},
		{"/gate/testsystem/v1/test/route", httpapi.TestSystem, 401, httpapi.CodeMissingCredentials},
		{"/ui/v1/grid/demo-invoices", httpapi.UIProxy, 401, httpapi.CodeMissingCredentials},
		{"/ui/v1/mock/kpi/x?page_size=1", httpapi.UIProxy, 400, "invalid_query"},
		{"/oauth2/token-info", httpapi.OAuth, 401, auth.CodeInvalidToken},
		{"/nope", httpapi.TestSystem, 404, httpapi.CodeNotFound}, // {"code","message"}
	} {
		w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, tt.path, nil))
		httpapitest.WantError(t, w, tt.fam, tt.status, tt.code)
		if w.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", tt.path)
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, path, nil))
		if got := strings.TrimSpace(w.Body.String()); w.Code != 200 || got != `{"status":"ok"}` {
			t.Errorf("%s: %d %s", path, w.Code, got)
		}
	}
}

func TestAPIHandlerMountsTheTokenEndpoint(t *testing.T) {
	h := restAPI(t)
	form := url.Values{"grant_type": {"password"}, "username": {httpapitest.UserName}, "password": {httpapitest.UserPassword}}
	r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httpapitest.Serve(h, r)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	tok, _ := httpapitest.DecodeBody(t, w)["access_token"].(string)
	// The token opens the test system.
	r = httpapitest.Bearer(httptest.NewRequest(http.MethodGet, "/gate/testsystem/v1/test/sms/language", nil), tok)
	if w := httpapitest.Serve(h, r); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"code":"en"`) {
		t.Errorf("languages: %d %s", w.Code, w.Body)
	}
}
