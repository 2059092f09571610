package routingapi

import (
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func TestRoutes(t *testing.T) {
	httpapitest.CheckRoutes(t, spec(&api{}), BasePath)
	if n := len(routes(&api{})); n != 5 {
		t.Errorf("%d routes, want 5", n)
	}
}

func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	routes := BasePath + "smsmtin-routes"
	httpapitest.CheckAnswers(t, Handler(f.Opts, Backend{}), httpapi.Routing, []httpapitest.AnswerCase{
		{Name: "with key", Method: "GET", Path: routes + "/5", APIKey: httpapitest.APIKeyValue,
			Status: 501, Code: httpapi.CodeNotImplemented, Golden: "501_not_implemented"},
		{Name: "without key", Method: "GET", Path: routes,
			Status: 401, Code: httpapi.CodeMissingCredentials, Golden: "401_missing_credentials"},
		{Name: "wrong key", Method: "POST", Path: routes, APIKey: "routing-key-not-this-one-00", Body: "{}",
			Status: 401, Code: auth.CodeInvalidAPIKey, Golden: "401_invalid_api_key"},
		{Name: "bearer is not a key", Method: "GET", Path: routes, Token: news,
			Status: 401, Code: httpapi.CodeMissingCredentials},
		{Name: "unknown path", Method: "GET", Path: BasePath + "nothing", APIKey: httpapitest.APIKeyValue,
			Status: 404, Code: httpapi.CodeNotFound, Golden: "404_not_found"},
		{Name: "method not allowed", Method: "PATCH", Path: routes + "/5", APIKey: httpapitest.APIKeyValue,
			Status: 405, Code: httpapi.CodeMethodNotAllowed, Allow: "DELETE, GET, HEAD, PUT", Golden: "405_method_not_allowed"},
		{Name: "body over the limit", Method: "POST", Path: routes, APIKey: httpapitest.APIKeyValue,
			Body:   `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`,
			Status: 413, Code: httpapi.CodeRequestTooLarge, Golden: "413_request_too_large"},
	})
}
