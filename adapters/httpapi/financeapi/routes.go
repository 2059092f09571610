package financeapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
)

// The prefixes of the family's paths, where a platform's ServeMux mounts
// Handler: the finance API and the invoice file upload of the Invoice Docs
// domain.
const (
	BasePath       = "/finance/sit/v1/"
	UploadBasePath = "/invoice-docs/v2/"
)

// Handler serves the finance API under /finance/sit/v1/ and the invoice
// file upload under /invoice-docs/v2/ from b: a bearer token and, per
// route, the finance interface's privileges; errors in the finance body.
// It panics when opts.Auth or b.Service is nil.
func Handler(opts httpapi.Options, b Backend) http.Handler {
	if b.Service == nil {
		panic("financeapi: Handler needs a finance.Service")
	}
	return httpapi.FamilyHandler(opts, spec(&api{b: b}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Finance, Auth: httpapi.AuthBearer, Routes: routes(a), Errors: named}
}

// uploadMaxBody is the finance interface's 10 MB file limit, plus room for
// the multipart envelope.
const uploadMaxBody = 10<<20 + 64<<10

// routes are the operations of the finance interface. Where it shows no
// method or path, the choice is marked "chosen".
func routes(a *api) []httpapi.Route {
	const f = BasePath
	view := []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesOwnView}
	manage := []auth.Privilege{
		auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage,
		auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage,
	}
	balance := []auth.Privilege{auth.PrivFinanceBalanceView, auth.PrivFinanceBalanceOwnView}
	// Reference data is the operator's: one privilege reads and writes it.
	reference := []auth.Privilege{auth.PrivFinanceReferenceManage}
	partners, export, configs := !a.b.Service.HasPartners(), !a.b.Service.HasExport(), !a.b.Service.HasConfigStore()
	return []httpapi.Route{
		// invoices
		{Method: http.MethodGet, Path: f + "invoices", Privileges: view, Serve: a.listInvoices},
		{Method: http.MethodPost, Path: f + "invoices", Privileges: manage, Idempotent: true, Serve: a.createInvoice},
		{Method: http.MethodGet, Path: f + "invoices/{invoiceid}", Privileges: view, Serve: a.getInvoice},         // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}", Privileges: manage, Serve: a.updateInvoice},    // chosen
		{Method: http.MethodDelete, Path: f + "invoices/{invoiceid}", Privileges: manage, Serve: a.deleteInvoice}, // chosen
		{Method: http.MethodGet, Path: f + "default-invoice-config", Privileges: view, Serve: a.defaultConfig},
		// file upload (Invoice Docs domain)
		{Method: http.MethodPost, Path: UploadBasePath + "invoices/{invoiceId}/files", Privileges: manage, MaxBody: uploadMaxBody,
			Idempotent: true, Serve: a.upload, Missing: !a.b.Service.HasFiles()}, // chosen
		// balances
		{Method: http.MethodGet, Path: f + "balances/biz-partners/customers", Privileges: balance, Serve: a.balances(finance.Customers), Missing: !a.b.Service.HasBalances()},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/suppliers", Privileges: balance, Serve: a.balances(finance.Suppliers), Missing: !a.b.Service.HasBalances()},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/customers/{bizPartnerId}/sheets", Privileges: balance, Serve: a.sheet(finance.Customers), Missing: !a.b.Service.HasSheets()},
		{Method: http.MethodGet, Path: f + "balances/biz-partners/suppliers/{bizPartnerId}/sheets", Privileges: balance, Serve: a.sheet(finance.Suppliers), Missing: !a.b.Service.HasSheets()},
		// finance documents export
		{Method: http.MethodGet, Path: f + "finance-documents", Privileges: view, Serve: a.documents, Missing: !a.b.Service.HasDocuments()}, // chosen
		// status changes and files
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/sync-status", Privileges: manage, Serve: a.setSyncStatus},                       // chosen
		{Method: http.MethodPut, Path: f + "invoices-list/{invoicesList}/sync-status", Privileges: manage, Serve: a.setSyncStatusMany},           // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/docs-delivery-status", Privileges: manage, Serve: a.setDeliveryStatus},          // chosen
		{Method: http.MethodGet, Path: f + "invoices/{invoiceid}/files", Privileges: view, Serve: a.listFiles, Missing: !a.b.Service.HasFiles()}, // chosen
		// netting and collection membership
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/netting", Privileges: manage, Serve: a.join(finance.Netting)},           // chosen
		{Method: http.MethodDelete, Path: f + "invoices/{invoiceid}/netting", Privileges: manage, Serve: a.leave(finance.Netting)},       // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/collection", Privileges: manage, Serve: a.join(finance.Collection)},     // chosen
		{Method: http.MethodDelete, Path: f + "invoices/{invoiceid}/collection", Privileges: manage, Serve: a.leave(finance.Collection)}, // chosen
		// reference data: business partners, billing accounts, source
		// records, document types, configurations, and what the export
		// adds to one document
		{Method: http.MethodGet, Path: f + "biz-partners", Privileges: reference, Serve: a.listPartners, Missing: partners},                                  // chosen
		{Method: http.MethodGet, Path: f + "biz-partners/{bizPartnerId}", Privileges: reference, Serve: a.getPartner, Missing: partners},                     // chosen
		{Method: http.MethodPut, Path: f + "biz-partners/{bizPartnerId}", Privileges: reference, Serve: a.putPartner, Missing: partners},                     // chosen
		{Method: http.MethodPut, Path: f + "billing-accounts/{billingAccountId}", Privileges: reference, Serve: a.putBillingAccount, Missing: export},        // chosen
		{Method: http.MethodPut, Path: f + "source-records/{kind}/{recordId}", Privileges: reference, Serve: a.putSourceRecord, Missing: export},             // chosen
		{Method: http.MethodPut, Path: f + "document-types/{typeId}", Privileges: reference, Serve: a.putDocumentType, Missing: export},                      // chosen
		{Method: http.MethodPut, Path: f + "invoice-configs/{typeId}/templates/{templateLang}", Privileges: reference, Serve: a.putConfig, Missing: configs}, // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/domestic-rate", Privileges: reference, Serve: a.putDomesticRate, Missing: export},           // chosen
		{Method: http.MethodPut, Path: f + "invoices/{invoiceid}/traffic-reports", Privileges: reference, Serve: a.putTrafficReports, Missing: export},       // chosen
	}
}
