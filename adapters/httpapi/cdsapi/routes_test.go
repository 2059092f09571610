package cdsapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func TestRoutes(t *testing.T) {
	httpapitest.CheckRoutes(t, spec(&api{}), BasePath+"services/{serviceUuid}/")
	// Contacts 7, lists 5, fields 6, segmentation 10, subscriptions 12,
	// groups 5, group lists 4, group segmentation 4, touchpoints 7,
	// interests 7, campaigns 6.
	if n := len(routes(&api{})); n != 73 {
		t.Errorf("%d routes, want 73", n)
	}
}

func listsPath(svc msgkit.ServiceUUID) string {
	return BasePath + "services/" + string(svc) + "/cds/lists"
}

func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	noNews := f.Token(t, httpapitest.Newsless) // tenant A, finance-balance-view only
	tenantA := BasePath + "services/" + string(httpapitest.TenantA)
	tooLarge := `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`
	httpapitest.CheckAnswers(t, Handler(f.Opts, Backend{}), httpapi.CDS, []httpapitest.AnswerCase{
		{Name: "without token", Method: "GET", Path: listsPath(httpapitest.TenantA),
			Status: 401, Code: httpapi.CodeMissingCredentials, Golden: "401_missing_credentials"},
		{Name: "unknown token", Method: "GET", Path: listsPath(httpapitest.TenantA), Token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
			Status: 401, Code: auth.CodeInvalidToken, Golden: "401_invalid_token"},
		{Name: "own tenant", Method: "GET", Path: listsPath(httpapitest.TenantA), Token: news,
			Status: 501, Code: httpapi.CodeNotImplemented, Golden: "501_not_implemented"},
		{Name: "other tenant", Method: "GET", Path: listsPath(httpapitest.TenantB), Token: news,
			Status: 403, Code: httpapi.CodeForbiddenService, Golden: "403_forbidden_service"},
		{Name: "malformed tenant", Method: "GET", Path: listsPath("nope"), Token: news,
			Status: 400, Code: msgkit.CodeInvalidServiceUUID, Golden: "400_invalid_service_uuid"},
		{Name: "without privilege news", Method: "GET", Path: listsPath(httpapitest.TenantA), Token: noNews,
			Status: 403, Code: httpapi.CodeInsufficientPrivilege, Golden: "403_insufficient_privilege"},
		{Name: "campaign", Method: "PATCH", Path: tenantA + "/campaigns/c-1", Token: news, Body: "{}",
			Status: 501, Code: httpapi.CodeNotImplemented},
		{Name: "unknown path", Method: "GET", Path: tenantA + "/cds/nothing", Token: news,
			Status: 404, Code: httpapi.CodeNotFound, Golden: "404_not_found"},
		{Name: "unknown path without token", Method: "GET", Path: BasePath + "whatever",
			Status: 401, Code: httpapi.CodeMissingCredentials},
		{Name: "method not allowed", Method: "PATCH", Path: listsPath(httpapitest.TenantA), Token: news,
			Status: 405, Code: httpapi.CodeMethodNotAllowed, Allow: "GET, HEAD, POST", Golden: "405_method_not_allowed"},
		{Name: "body over the limit", Method: "POST", Path: listsPath(httpapitest.TenantA), Token: news, Body: tooLarge,
			Status: 413, Code: httpapi.CodeRequestTooLarge, Golden: "413_request_too_large"},
		{Name: "import takes a larger body", Method: "POST", Path: tenantA + "/cds/imports", Token: news, Body: tooLarge,
			Status: 501, Code: httpapi.CodeNotImplemented},
	})
}

// The handler mounted alone under another ServeMux works the same.
func TestHandlerMountedAlone(t *testing.T) {
	f := httpapitest.NewFixture(t)
	mux := http.NewServeMux()
	mux.Handle(BasePath, Handler(f.Opts, Backend{}))
	w := httpapitest.Serve(mux, httpapitest.Bearer(httptest.NewRequest("GET", listsPath(httpapitest.TenantB), nil), f.Token(t, httpapitest.ClientID)))
	httpapitest.WantError(t, w, httpapi.CDS, 403, httpapi.CodeForbiddenService)
}
