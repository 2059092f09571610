package financeapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
)

func TestRoutes(t *testing.T) {
	f := httpapitest.NewFixture(t)
	httpapitest.CheckRoutes(t, spec(&api{b: newBackend(t, f, memstore.New().Finance())}), BasePath, UploadBasePath)
	if n := len(routes(&api{})); n != 29 {
		t.Errorf("%d routes, want 29", n)
	}
}

// The privileges of the finance interface: reading needs a view
// privilege, balances a balance privilege, everything else a manage one;
// the operator's reference data (partners, accounts, records, types,
// configurations and what the export adds to a document) needs
// finance-reference.manage only.
func TestPrivilegeTable(t *testing.T) {
	reference := []string{"/biz-partners", "/billing-accounts/", "/source-records/", "/document-types/", "/invoice-configs/",
		"/domestic-rate", "/traffic-reports"}
	view := []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesOwnView}
	balance := []auth.Privilege{auth.PrivFinanceBalanceView, auth.PrivFinanceBalanceOwnView}
	for _, rt := range routes(&api{}) {
		var want []auth.Privilege
		switch {
		case slices.ContainsFunc(reference, func(p string) bool { return strings.Contains(rt.Path, p) && !strings.Contains(rt.Path, "/balances/") }):
			want = []auth.Privilege{auth.PrivFinanceReferenceManage}
		case strings.Contains(rt.Path, "/balances/"):
			want = balance
		case rt.Method == http.MethodGet:
			want = view
		default:
			want = []auth.Privilege{
				auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage,
				auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage,
			}
		}
		if !slices.Equal(rt.Privileges, want) {
			t.Errorf("%s %s: privileges %v, want %v", rt.Method, rt.Path, rt.Privileges, want)
		}
	}
}

// Finance's Code is a number, so the cases give no code: CheckAnswers
// checks that Code is the status.
func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	news := f.Token(t, httpapitest.ClientID)
	noNews := f.Token(t, httpapitest.Newsless) // finance-balance-view only
	finView := f.Token(t, httpapitest.FinanceViewer)
	tooLarge := `"` + strings.Repeat("x", int(httpapi.DefaultMaxBodyBytes)) + `"`
	store := memstore.New().Finance()
	o := newOptions(t, f, store)
	o.Documents = nil // a part left out: its route answers 501
	h := Handler(f.Opts, Backend{Service: finance.NewService(store, o)})
	httpapitest.CheckAnswers(t, h, httpapi.Finance, []httpapitest.AnswerCase{
		{Name: "without token", Method: "GET", Path: BasePath + "invoices", Status: 401, Golden: "401_missing_credentials"},
		{Name: "unknown token", Method: "GET", Path: BasePath + "invoices", Token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
			Status: 401, Golden: "401_invalid_token"},
		{Name: "not released", Method: "GET", Path: BasePath + "finance-documents", Token: finView, Status: 501, Golden: "501_not_implemented"},
		{Name: "manage with view only", Method: "POST", Path: BasePath + "invoices", Token: finView, Body: "{}",
			Status: 403, Golden: "403_insufficient_privilege"},
		{Name: "without finance privileges", Method: "GET", Path: BasePath + "invoices/7", Token: news, Status: 403},
		{Name: "balances of no partner", Method: "GET", Path: BasePath + "balances/biz-partners/customers?amountNovat=1", Token: noNews, Status: 400},
		{Name: "balances with view only", Method: "GET", Path: BasePath + "balances/biz-partners/suppliers/3/sheets", Token: finView, Status: 403},
		{Name: "upload", Method: "POST", Path: UploadBasePath + "invoices/7/files", Token: finView, Status: 403},
		{Name: "unknown path", Method: "GET", Path: BasePath + "nothing", Token: finView, Status: 404, Golden: "404_not_found"},
		{Name: "method not allowed", Method: "PATCH", Path: BasePath + "invoices/7", Token: finView,
			Status: 405, Allow: "DELETE, GET, HEAD, PUT", Golden: "405_method_not_allowed"},
		// The body limit comes before the privilege check.
		{Name: "body over the limit", Method: "POST", Path: BasePath + "invoices", Token: finView, Body: tooLarge,
			Status: 413, Golden: "413_request_too_large"},
	})
}
