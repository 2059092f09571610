package adminapi

import (
	"slices"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
)

func TestRoutes(t *testing.T) {
	httpapitest.CheckRoutes(t, spec(&api{}), BasePath)
	for _, rt := range routes(&api{}) {
		for _, p := range rt.Privileges {
			if !slices.Contains(auth.AdminPrivileges(), p) {
				t.Errorf("%s %s needs %s, a tenant's privilege: the administration is the operator's", rt.Method, rt.Path, p)
			}
		}
	}
}

// The document documents exactly the route table.
func TestOpenAPIOperations(t *testing.T) {
	httpapitest.NewContract(t, OpenAPI()).CheckRoutes(t, routes(&api{}))
}

func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	op := f.Token(t, httpapitest.Operator)
	httpapitest.CheckAnswers(t, Handler(f.Opts, Backend{}), httpapi.Admin, []httpapitest.AnswerCase{
		{Name: "without a service", Method: "GET", Path: BasePath + "tenants", Token: op,
			Status: 501, Code: httpapi.CodeNotImplemented, Golden: "501_not_implemented"},
		{Name: "without a token", Method: "GET", Path: BasePath + "tenants",
			Status: 401, Code: httpapi.CodeMissingCredentials, Golden: "401_missing_credentials"},
		{Name: "a tenant's client", Method: "GET", Path: BasePath + "clients", Token: news,
			Status: 403, Code: httpapi.CodeInsufficientPrivilege, Golden: "403_insufficient_privilege"},
		{Name: "unknown path", Method: "GET", Path: BasePath + "nothing", Token: op,
			Status: 404, Code: httpapi.CodeNotFound},
		{Name: "other method", Method: "PUT", Path: BasePath + "tenants", Token: op,
			Status: 405, Code: httpapi.CodeMethodNotAllowed, Allow: "GET, HEAD, POST"},
	})
}
