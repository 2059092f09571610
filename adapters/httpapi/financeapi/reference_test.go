package financeapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/msgkittest"
)

const partnerBody = `{"name": "New Shop d.o.o.", "briefName": "New Shop", "partnerType": "customer", "attn": "Accounts", "address": "Trg 1",
	"post": "2000", "city": "Maribor", "vatNumber": "SI99887766", "country": 705, "externalRefId": "ERP-3001",
	"customAttributes": [{"codeName": "segment", "value": "retail"}, {"codeName": "limits", "value": {"credit": 500}}],
	"serviceUuid": "` + string(httpapitest.TenantB) + `"}`

// A partner put through the API is stored whole and idempotently, read
// back and listed; invoices can then name it, and a caller of its tenant
// with an -own privilege sees them.
func TestPartners(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, operator, "PUT", BasePath+"biz-partners/3001", partnerBody)
	m := decode(t, w, http.StatusOK)
	if m["bizPartnerId"] != 3001.0 || m["briefName"] != "New Shop" || m["externalRefId"] != "ERP-3001" || m["serviceUuid"] != string(httpapitest.TenantB) {
		t.Errorf("put partner: %v", m)
	}
	msgkittest.Golden(t, "testdata/biz_partner.json", httpapitest.Answer(w))
	again := e.do(t, operator, "PUT", BasePath+"biz-partners/3001", partnerBody)
	if again.Code != 200 || again.Body.String() != w.Body.String() {
		t.Errorf("the same put again: %d %s", again.Code, again.Body)
	}
	if got := e.do(t, operator, "GET", BasePath+"biz-partners/3001", ""); got.Body.String() != w.Body.String() {
		t.Errorf("get: %s, want the put's answer %s", got.Body, w.Body)
	}
	m = decode(t, e.do(t, operator, "GET", BasePath+"biz-partners?sort=-bizPartnerId&eq(partnerType)=customer&page_size=2", ""), 200)
	data := m["data"].([]any)
	if len(data) != 2 || data[0].(map[string]any)["bizPartnerId"] != 3001.0 || data[1].(map[string]any)["bizPartnerId"] != float64(custOther) {
		t.Errorf("listing: %v", m)
	}
	if p := m["meta"].(map[string]any)["pagination"].(map[string]any); p["total"] != 3.0 {
		t.Errorf("pagination %v, want 3 customers", p)
	}
	m = decode(t, e.do(t, operator, "GET", BasePath+"biz-partners?q=erp-3001", ""), 200)
	if n := len(m["data"].([]any)); n != 1 {
		t.Errorf("q=erp-3001 finds %d partners, want 1", n)
	}

	// An invoice of the new partner copies its data; the partner's tenant
	// sees it with its -own privilege.
	inv := e.create(t, "CUSTOMER_INVOICE", customerBody(3001))
	if inv["custName"] != "New Shop d.o.o." || inv["custCity"] != "Maribor" {
		t.Errorf("invoice of the new partner: %v", inv)
	}
	if m := decode(t, e.do(t, own, "GET", BasePath+"invoices?custID=3001", ""), 200); len(m["data"].([]any)) != 1 {
		t.Errorf("the partner's tenant sees %v", m["data"])
	}
	// Unlinked (serviceUuid absent), the tenant no longer sees it.
	decode(t, e.do(t, operator, "PUT", BasePath+"biz-partners/3001", `{"name": "New Shop d.o.o."}`), 200)
	if m := decode(t, e.do(t, own, "GET", BasePath+"invoices?custID=3001", ""), 200); len(m["data"].([]any)) != 0 {
		t.Errorf("an unlinked partner's invoices are seen: %v", m["data"])
	}
}

// Bad partner requests are 400 naming the field, 404 for an unknown
// partner, 403 without finance-reference.manage; never 500.
func TestPartnerRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		name, method, path, body string
		status                   int
		says                     string
		inDoc                    bool
	}{
		{"no name", "PUT", "biz-partners/3001", `{"city": "Maribor"}`, 400, "name", false},
		{"blank name", "PUT", "biz-partners/3001", `{"name": "  "}`, 400, "name", true},
		{"unknown member", "PUT", "biz-partners/3001", `{"name": "X", "nmae": "Y"}`, 400, "nmae", false},
		{"tenant not a UUID", "PUT", "biz-partners/3001", `{"name": "X", "serviceUuid": "tenant-b"}`, 400, "serviceUuid", true},
		{"country out of range", "PUT", "biz-partners/3001", `{"name": "X", "country": 1000}`, 400, "country", false},
		{"attribute a number", "PUT", "biz-partners/3001", `{"name": "X", "customAttributes": [{"codeName": "n", "value": 1}]}`, 400, "customAttributes[0].value", false},
		{"attribute without a code", "PUT", "biz-partners/3001", `{"name": "X", "customAttributes": [{"codeName": "", "value": "v"}]}`, 400, "customAttributes[0].codeName", true},
		{"type of a field", "PUT", "biz-partners/3001", `{"name": 7}`, 400, "name", false},
		{"not JSON", "PUT", "biz-partners/3001", `{"name": `, 400, "", false},
		{"id zero", "PUT", "biz-partners/0", `{"name": "X"}`, 400, "bizPartnerId", false},
		{"id not a number", "GET", "biz-partners/x", ``, 400, "bizPartnerId", false},
		{"unknown partner", "GET", "biz-partners/999", ``, 404, "business partner 999", true},
		{"query on a get", "GET", "biz-partners/1001?x=1", ``, 400, "x", false},
		{"unknown filter", "GET", "biz-partners?eq(custName)=x", ``, 400, "custName", false},
		{"page too large", "GET", "biz-partners?page_size=101", ``, 400, "page_size", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			call := e.bad
			if tt.inDoc {
				call = e.do
			}
			wantFinanceError(t, call(t, operator, tt.method, BasePath+tt.path, tt.body), tt.status, tt.says)
		})
	}
	// Operator data: the finance privileges of invoices do not reach it.
	for _, who := range []string{admin, own, ownManager} {
		wantFinanceError(t, e.do(t, who, "GET", BasePath+"biz-partners", ""), 403)
		wantFinanceError(t, e.do(t, who, "PUT", BasePath+"biz-partners/3001", `{"name": "X"}`), 403)
	}
	if _, err := e.store.Partner(t.Context(), 3001); err == nil {
		t.Error("a refused put stored the partner")
	}
}

// The export's operator data put through the API shows in the finance
// documents export: the partner's reference, the billing account of the
// invoice's billing record, the document type's name, the domestic rate
// and the traffic reports.
func TestExportReferenceData(t *testing.T) {
	e := newEnv(t)
	body := strings.Replace(customerBody(custB), `"dataSourceCodeName": "POSTPAID",`, `"dataSourceCodeName": "POSTPAID", "invoiceSourceRecord": {"billingRecordId": 31},`, 1)
	inv := id(e.create(t, "CUSTOMER_INVOICE", body))
	invPath := BasePath + "invoices/" + itoa(inv)
	decode(t, e.do(t, operator, "PUT", BasePath+"biz-partners/1001", `{"name": "Shop B d.o.o.", "briefName": "Shop B", "externalRefId": "ERP-1001"}`), 200)
	m := decode(t, e.do(t, operator, "PUT", BasePath+"billing-accounts/7", `{"instanceId": 1, "bizPartnerId": 1001, "currency": 978, "billingTypeCodeName": "POSTPAID",
		"name": "Shop B main", "smsConnections": [{"id": 70, "instanceId": 1, "name": "shopb-http", "authName": "shopb", "protocol": "HTTP"}]}`), 200)
	if m["id"] != 7.0 || m["currencyCode"] != "EUR" || len(m["smsConnections"].([]any)) != 1 {
		t.Errorf("billing account: %v", m)
	}
	m = decode(t, e.do(t, operator, "PUT", BasePath+"source-records/billing/31", `{"billingAccountId": 7}`), 200)
	if m["kind"] != "billing" || m["recordId"] != 31.0 || m["billingAccountId"] != 7.0 {
		t.Errorf("source record: %v", m)
	}
	m = decode(t, e.do(t, operator, "PUT", BasePath+"document-types/1", `{"name": "Customer invoice", "selfBilling": "no"}`), 200)
	if m["typeId"] != 1.0 || m["name"] != "Customer invoice" {
		t.Errorf("document type: %v", m)
	}
	m = decode(t, e.do(t, operator, "PUT", invPath+"/domestic-rate", `{"domesticCurrency": 978, "domesticCurrencyRate": 1.0}`), 200)
	if m["domesticCurrencyCode"] != "EUR" || m["invoiceId"] != float64(inv) {
		t.Errorf("domestic rate: %v", m)
	}
	m = decode(t, e.do(t, operator, "PUT", invPath+"/traffic-reports", `{"trafficReports": [{"bizPartnerId": 1001, "bizPartnerBriefName": "Shop B",
		"billingAccountId": 7, "billingAccountName": "Shop B main", "countryId": 705, "countryName": "Slovenia", "countryCode2": "SI",
		"operatorId": 1, "operatorName": "Telekom Slovenije", "mcc": "293", "mnc": "41", "startDt": "2025-01-01T00:00:00Z",
		"endDt": "2025-01-31T23:59:59Z", "smsCnt": 555, "currency": 978, "price": 0.045, "totalAmount": 24.98}]}`), 200)
	if rows := m["trafficReports"].([]any); len(rows) != 1 || rows[0].(map[string]any)["mnc"] != "41" {
		t.Errorf("traffic reports: %v", m)
	}

	m = decode(t, e.do(t, admin, "GET", BasePath+"finance-documents?embed=trafficReports&eq(documentClassCodeName)=CUSTOMER_INVOICE", ""), 200)
	docs := m["data"].([]any)
	if len(docs) != 1 {
		t.Fatalf("documents %v", docs)
	}
	d := docs[0].(map[string]any)
	src, _ := d["dataSource"].(map[string]any)
	acct, _ := src["billingTotalBalance"].(map[string]any)
	if d["bizPartnerExternalRefId"] != "ERP-1001" || d["documentTypeName"] != "Customer invoice" || d["domesticCurrencyCode"] != "EUR" ||
		acct == nil || acct["name"] != "Shop B main" || len(d["trafficReports"].([]any)) != 1 {
		t.Errorf("document %v", d)
	}
	// An empty list clears the traffic reports.
	decode(t, e.do(t, operator, "PUT", invPath+"/traffic-reports", `{"trafficReports": []}`), 200)
	m = decode(t, e.do(t, admin, "GET", BasePath+"finance-documents?embed=trafficReports&eq(documentClassCodeName)=CUSTOMER_INVOICE", ""), 200)
	if rows, _ := m["data"].([]any)[0].(map[string]any)["trafficReports"].([]any); len(rows) != 0 {
		t.Errorf("cleared traffic reports: %v", rows)
	}
}

// Bad bodies of the export's routes are 400 naming the field; an
// unknown invoice 404; a caller without finance-reference.manage 403.
func TestExportReferenceRefusals(t *testing.T) {
	e := newEnv(t)
	inv := itoa(id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB))))
	for _, tt := range []struct {
		name, path, body string
		status           int
		says             string
		inDoc            bool
	}{
		{"account without partner", "billing-accounts/7", `{"name": "A"}`, 400, "bizPartnerId", false},
		{"account of an unknown currency", "billing-accounts/7", `{"bizPartnerId": 1001, "currency": 999}`, 400, "currency", true},
		{"account's attribute a number", "billing-accounts/7", `{"bizPartnerId": 1001, "customAttributes": [{"codeName": "n", "value": 2}]}`, 400, "customAttributes[0].value", false},
		{"account's connection without a name", "billing-accounts/7", `{"bizPartnerId": 1001, "smsConnections": [{"id": 1}]}`, 400, "", false},
		{"record of another kind", "source-records/debit/31", `{"billingAccountId": 7}`, 400, "kind", false},
		{"record without account", "source-records/credit/31", `{}`, 400, "billingAccountId", false},
		{"type without name", "document-types/1", `{"selfBilling": "no"}`, 400, "name", false},
		{"type's self-billing", "document-types/1", `{"name": "T", "selfBilling": "maybe"}`, 400, "selfBilling", false},
		{"rate zero", "invoices/" + inv + "/domestic-rate", `{"domesticCurrency": 978, "domesticCurrencyRate": 0}`, 400, "domesticCurrencyRate", false},
		{"rate without currency", "invoices/" + inv + "/domestic-rate", `{"domesticCurrencyRate": 1.2}`, 400, "domesticCurrency", false},
		{"rate without rate", "invoices/" + inv + "/domestic-rate", `{"domesticCurrency": 978}`, 400, "domesticCurrencyRate", false},
		{"rate of an unknown invoice", "invoices/999/domestic-rate", `{"domesticCurrency": 978, "domesticCurrencyRate": 1.2}`, 404, "INVOICE_NOTFOUND", true},
		{"traffic without rows", "invoices/" + inv + "/traffic-reports", `{}`, 400, "trafficReports", false},
		{"traffic of an unknown currency", "invoices/" + inv + "/traffic-reports",
			`{"trafficReports": [{"startDt": "2025-01-01T00:00:00Z", "endDt": "2025-01-02T00:00:00Z", "currency": 1}]}`, 400, "trafficReports[0].currency", true},
		{"traffic's date", "invoices/" + inv + "/traffic-reports", `{"trafficReports": [{"startDt": "yesterday", "endDt": "2025-01-02T00:00:00Z"}]}`, 400, "startDt", false},
		{"traffic of an unknown invoice", "invoices/999/traffic-reports", `{"trafficReports": []}`, 404, "INVOICE_NOTFOUND", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			call := e.bad
			if tt.inDoc {
				call = e.do
			}
			wantFinanceError(t, call(t, operator, "PUT", BasePath+tt.path, tt.body), tt.status, tt.says)
		})
	}
	wantFinanceError(t, e.do(t, admin, "PUT", BasePath+"document-types/1", `{"name": "T"}`), 403)
	wantFinanceError(t, e.do(t, ownManager, "PUT", BasePath+"invoices/"+inv+"/domestic-rate", `{"domesticCurrency": 978, "domesticCurrencyRate": 1.2}`), 403)
}

// A configuration put at run time answers the default configuration
// query of its domain, data source and class, winning over the built-in
// one, and names its type in the export.
func TestInvoiceConfigs(t *testing.T) {
	e := newEnv(t)
	const q = "default-invoice-config?domainCodeName=BULK&dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE&templateLang=sl"
	before := decode(t, e.do(t, admin, "GET", BasePath+q, ""), 200)
	if before["templateLang"] != "en" {
		t.Fatalf("the seed answers %v", before)
	}
	w := e.do(t, operator, "PUT", BasePath+"invoice-configs/900/templates/sl", `{"name": "Račun", "domainCodeName": "BULK",
		"dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE", "templateId": 950, "templateName": "Račun (sl)",
		"templateFileName": "racun-sl.odt"}`)
	m := decode(t, w, 200)
	if m["typeId"] != 900.0 || m["templateLang"] != "sl" || m["status"] != "active" || m["selfBilling"] != "no" {
		t.Errorf("put config: %v", m)
	}
	msgkittest.Golden(t, "testdata/invoice_config.json", httpapitest.Answer(w))
	got := decode(t, e.do(t, admin, "GET", BasePath+q, ""), 200)
	if got["typeId"] != 900.0 || got["templateLang"] != "sl" || got["templateId"] != 950.0 {
		t.Errorf("the stored configuration does not answer: %v", got)
	}
	// Its type names the export's documents of the type.
	inv := strings.Replace(customerBody(custB), `"invType": 1`, `"invType": 900`, 1)
	e.create(t, "CUSTOMER_INVOICE", inv)
	docs := decode(t, e.do(t, admin, "GET", BasePath+"finance-documents", ""), 200)["data"].([]any)
	if len(docs) != 1 || docs[0].(map[string]any)["documentTypeName"] != "Račun" {
		t.Errorf("documents %v", docs)
	}

	for _, tt := range []struct {
		name, path, body, says string
		inDoc                  bool
	}{
		{"unknown class", "invoice-configs/900/templates/sl", `{"name": "X", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "BILL"}`, "docClassCodeName", false},
		{"no name", "invoice-configs/900/templates/sl", `{"domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}`, "name", false},
		{"language in capitals", "invoice-configs/900/templates/SL", `{"name": "X", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}`, "templateLang", false},
		{"type zero", "invoice-configs/0/templates/sl", `{"name": "X", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}`, "typeId", false},
		{"unknown member", "invoice-configs/900/templates/sl", `{"name": "X", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE", "lang": "sl"}`, "lang", false},
		{"blank name", "invoice-configs/900/templates/sl", `{"name": " ", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}`, "name", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			call := e.bad
			if tt.inDoc {
				call = e.do
			}
			wantFinanceError(t, call(t, operator, "PUT", BasePath+tt.path, tt.body), 400, tt.says)
		})
	}
	wantFinanceError(t, e.do(t, admin, "PUT", BasePath+"invoice-configs/900/templates/sl", `{"name": "X", "domainCodeName": "BULK", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}`), 403)
}

// A Service built without the reference parts answers their routes 501.
func TestReferenceNotServed(t *testing.T) {
	e := newEnv(t)
	store := memstore.New().Finance()
	o := newOptions(t, e.f, store)
	o.Partners, o.Export, o.ConfigStore = nil, nil, nil
	h := Handler(e.f.Opts, Backend{Service: finance.NewService(store, o)})
	for _, path := range []string{"biz-partners/1", "document-types/1", "invoice-configs/1/templates/en"} {
		r := httptestRequest("PUT", BasePath+path, `{"name": "X"}`, e.tokens[operator])
		if w := httpapitest.Serve(h, r); w.Code != http.StatusNotImplemented {
			t.Errorf("%s: %d %s, want 501", path, w.Code, w.Body)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// httptestRequest is a JSON request with a bearer token, outside the
// contract checker.
func httptestRequest(method, path, body, token string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	httpapitest.Bearer(r, token)
	return r
}
