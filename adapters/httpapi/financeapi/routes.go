package financeapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
)

// The prefixes of the family's paths, where a platform's ServeMux mounts
// Handler: the finance API and the invoice file upload of the Invoice Docs
// domain.
const (
	BasePath       = "/finance/sit/v1/"
	UploadBasePath = "/invoice-docs/v2/"
)

// Handler serves the finance API under /finance/sit/v1/ and the invoice
// file upload under /invoice-docs/v2/: a bearer token and, per route, the
// finance interface's privileges; errors in the finance body. It panics
// when opts.Auth is nil.
func Handler(opts httpapi.Options) http.Handler { return httpapi.FamilyHandler(opts, spec()) }

func spec() httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Finance, Auth: httpapi.AuthBearer, Routes: routes()}
}

// uploadMaxBody is the finance interface's 10 MB file limit, plus room for
// the multipart envelope.
const uploadMaxBody = 10<<20 + 64<<10

// routes are the operations of the finance interface. Where it shows no
// method or path, the choice is marked "chosen".
func routes() []httpapi.Route {
	const f = BasePath
	view := []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesOwnView}
	manage := []auth.Privilege{
		auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage,
		auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage,
	}
	balance := []auth.Privilege{auth.PrivFinanceBalanceView, auth.PrivFinanceBalanceOwnView}
	return []httpapi.Route{
		// invoices
		{Method: http.MethodGet, Path: f + "invoices", Privileges: view},
		{Method: http.MethodPost, Path: f + "invoices", Privileges: manage},
		{Method: http.MethodGet, Path: f + "invoices/{invoiceid}", Privileges: view},      // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}", Privileges: manage},    // chosen
		{Method: http.MethodDelete, Path: f + "invoices/{invoiceid}", Privileges: manage}, // chosen
		{Method: http.MethodGet, Path: f + "default-invoice-config", Privileges: view},
		// file upload (Invoice Docs domain)
		{Method: http.MethodPost, Path: UploadBasePath + "invoices/{invoiceId}/files", Privileges: manage, MaxBody: uploadMaxBody}, // chosen
		// balances
		{Method: http.MethodGet, Path: f + "balances/biz-partners/customers", Privileges: balance},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/suppliers", Privileges: balance},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/customers/{bizPartnerId}/sheets", Privileges: balance},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/suppliers/{bizPartnerId}/sheets", Privileges: balance},
		// finance documents export
		{Method: http.MethodGet, Path: f + "finance-documents", Privileges: view}, // chosen
		// status changes and files
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/sync-status", Privileges: manage},          // chosen
		{Method: http.MethodPut, Path: f + "invoices-list/{invoicesList}/sync-status", Privileges: manage},  // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/docs-delivery-status", Privileges: manage}, // chosen
		{Method: http.MethodGet, Path: f + "invoices/{invoiceid}/files", Privileges: view},                  // chosen
	}
}
