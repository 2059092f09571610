package testsystemapi

import (
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func TestRoutes(t *testing.T) {
	httpapitest.CheckRoutes(t, spec(&api{}), BasePath)
	if n := len(routes(&api{})); n != 14 {
		t.Errorf("%d routes, want 14", n)
	}
}

func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	tester := f.UserToken(t, httpapitest.UserName)
	plain := f.UserToken(t, httpapitest.PlainUser)
	test := BasePath + "test"
	httpapitest.CheckAnswers(t, Handler(f.Opts, Backend{}), httpapi.TestSystem, []httpapitest.AnswerCase{
		{Name: "user", Method: "GET", Path: test + "/operator", Token: tester,
			Status: 501, Code: httpapi.CodeNotImplemented, Golden: "501_not_implemented"},
		{Name: "delete gate", Method: "DELETE", Path: test + "/route/gate/g1", Token: tester,
			Status: 501, Code: httpapi.CodeNotImplemented},
		{Name: "user without privilege", Method: "GET", Path: test + "/operator", Token: plain,
			Status: 403, Code: httpapi.CodeInsufficientPrivilege, Golden: "403_insufficient_privilege"},
		{Name: "client without privilege", Method: "GET", Path: test + "/route", Token: news,
			Status: 403, Code: httpapi.CodeInsufficientPrivilege},
		{Name: "without token", Method: "GET", Path: test + "/route",
			Status: 401, Code: httpapi.CodeMissingCredentials, Golden: "401_missing_credentials"},
		{Name: "unknown token", Method: "GET", Path: test + "/route", Token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
			Status: 401, Code: auth.CodeInvalidToken, Golden: "401_invalid_token"},
		{Name: "unknown path", Method: "GET", Path: test + "/nothing", Token: tester,
			Status: 404, Code: httpapi.CodeNotFound, Golden: "404_not_found"},
		{Name: "method not allowed", Method: "PUT", Path: test + "/route", Token: tester,
			Status: 405, Code: httpapi.CodeMethodNotAllowed, Allow: "GET, HEAD, POST", Golden: "405_method_not_allowed"},
		{Name: "body over the limit", Method: "POST", Path: test + "/sms", Token: tester,
			Body:   `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`,
			Status: 413, Code: httpapi.CodeRequestTooLarge, Golden: "413_request_too_large"},
	})
}
