package httpapi

import (
	"net/http"

	"github.com/msgkit/msgkit/auth"
)

// FinanceHandler serves the finance API (document 2) under /finance/sit/v1/
// and the invoice file upload under /invoice-docs/v2/: a bearer token and
// the privileges of document 2, section 5, per route; errors in the finance
// body. It panics when opts.Auth is nil.
func FinanceHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	o.needAuth("FinanceHandler")
	m := newFamilyMux(Finance)
	m.register(o, false, financeRoutes())
	return o.base(Finance, Bearer(Finance, o.Auth)(m))
}

// financeUploadMaxBody is the 10 MB file limit of document 2, 4.2, plus room
// for the multipart envelope.
const financeUploadMaxBody = 10<<20 + 64<<10

// financeRoutes are the operations of document 2, section 4. Where the
// document shows no method or path, the choice is marked "chosen".
func financeRoutes() []route {
	const f = "/finance/sit/v1"
	view := []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesOwnView}
	manage := []auth.Privilege{
		auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage,
		auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage,
	}
	balance := []auth.Privilege{auth.PrivFinanceBalanceView, auth.PrivFinanceBalanceOwnView}
	return []route{
		// 4.1 invoices
		{method: http.MethodGet, path: f + "/invoices", privs: view},
		{method: http.MethodPost, path: f + "/invoices", privs: manage},
		{method: http.MethodGet, path: f + "/invoices/{invoiceid}", privs: view},      // chosen
		{method: http.MethodPut, path: f + "/invoices/{invoiceid}", privs: manage},    // chosen
		{method: http.MethodDelete, path: f + "/invoices/{invoiceid}", privs: manage}, // chosen
		{method: http.MethodGet, path: f + "/default-invoice-config", privs: view},
		// 4.2 file upload (Invoice Docs domain)
		{method: http.MethodPost, path: "/invoice-docs/v2/invoices/{invoiceId}/files", privs: manage, maxBody: financeUploadMaxBody}, // chosen
		// 4.3 balances
		{method: http.MethodGet, path: f + "/balances/biz-partners/customers", privs: balance},
		{method: http.MethodGet, path: f + "/balances/biz-partners/suppliers", privs: balance},
		{method: http.MethodGet, path: f + "/balances/biz-partners/customers/{bizPartnerId}/sheets", privs: balance},
		{method: http.MethodGet, path: f + "/balances/biz-partners/suppliers/{bizPartnerId}/sheets", privs: balance},
		// 4.4 finance documents export
		{method: http.MethodGet, path: f + "/finance-documents", privs: view}, // chosen
		// 4.5 status changes and files
		{method: http.MethodPut, path: f + "/invoices/{invoiceid}/sync-status", privs: manage},          // chosen
		{method: http.MethodPut, path: f + "/invoices-list/{invoicesList}/sync-status", privs: manage},  // chosen
		{method: http.MethodPut, path: f + "/invoices/{invoiceid}/docs-delivery-status", privs: manage}, // chosen
		{method: http.MethodGet, path: f + "/invoices/{invoiceid}/files", privs: view},                  // chosen
	}
}
