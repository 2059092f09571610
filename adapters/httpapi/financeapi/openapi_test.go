package financeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
)

func financeContract(t *testing.T) *httpapitest.Contract {
	t.Helper()
	return httpapitest.NewContract(t, OpenAPI())
}

// The document loads and lints (examples included), documents exactly
// the route table, and gives every operation the finance errors.
func TestOpenAPIOperations(t *testing.T) {
	financeContract(t).CheckRoutes(t, routes(&api{}))

	// OpenAPI hands out a copy.
	doc := OpenAPI()
	doc[0] = 'x'
	if !bytes.HasPrefix(OpenAPI(), []byte("{")) {
		t.Fatal("OpenAPI returned the embedded document itself")
	}

	d := loadDoc(t)
	for _, name := range []string{"NotFound", "MethodNotAllowed"} {
		if d.Components.Responses[name] == nil {
			t.Errorf("components/responses/%s is missing: the contract checker answers unrouted requests with it", name)
		}
	}
	for path, item := range d.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" || op.Summary == "" || op.Description == "" {
				t.Errorf("%s: operationId, summary and description are required", name)
			}
			want := []int{400, 401, 403, 404, 500}
			if op.RequestBody != nil {
				want = append(want, http.StatusRequestEntityTooLarge)
			}
			if strings.HasPrefix(path, strings.TrimSuffix(UploadBasePath, "/")) {
				want = append(want, http.StatusMethodNotAllowed)
			}
			for _, status := range want {
				r := op.Responses.Status(status)
				if r == nil || r.Value == nil {
					t.Errorf("%s: no %d answer", name, status)
					continue
				}
				if mt := r.Value.Content.Get("application/json"); mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Error" {
					t.Errorf("%s: %d does not answer the Error schema", name, status)
				}
			}
		}
	}
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	d, err := loader.LoadFromData(OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// strs is values as the document's enums hold them.
func strs[T ~string](values ...T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// The enumerations of the document are the finance package's lists.
func TestOpenAPIEnumerations(t *testing.T) {
	c := financeContract(t)
	statuses := strs(finance.Draft, finance.Approved, finance.Deleted, finance.Rejected, finance.Canceled, finance.Archived, finance.Imported)
	payment := strs(finance.PaymentNone, finance.PaymentOpen, finance.PaymentOnHold, finance.PaymentClosed)
	sync := strs(finance.SyncNone, finance.SyncWaiting, finance.SyncSyncing, finance.SyncDone, finance.SyncError, finance.SyncMisc,
		finance.SyncInvalid, finance.SyncExported)
	delivery := strs(finance.DeliveryNone, finance.DeliveryWaiting, finance.DeliverySending, finance.DeliverySent, finance.DeliveryError,
		finance.DeliveryMisc)
	classes, sources, domains := strs(finance.Classes()...), strs(finance.DataSources()...), strs(finance.Domains()...)
	withNull := func(v []any) []any { return append(slices.Clone(v), nil) }
	// An invoice created without classification has empty codes.
	withEmpty := func(v []any) []any { return append(slices.Clone(v), "") }
	for _, tt := range []struct {
		schema, field string
		want          []any
	}{
		{"Invoice", "status", statuses},
		{"Invoice", "paymentStatus", payment},
		{"Invoice", "syncStatus", sync},
		{"Invoice", "docsDeliveryStatus", delivery},
		{"Invoice", "classCodeName", classes},
		{"Invoice", "dataSourceCodeName", withEmpty(sources)},
		{"Invoice", "domainCodeName", withEmpty(domains)},
		{"InvoiceInput", "finDocClassCodeName", withNull(classes)},
		{"InvoiceInput", "dataSourceCodeName", withNull(sources)},
		{"InvoiceInput", "domainCodeName", withNull(domains)},
		{"InvoiceInput", "docsDeliveryStatus", withNull(delivery)},
		{"InvoiceConfig", "docClassCodeName", classes},
		{"InvoiceConfig", "dataSourceCodeName", sources},
		{"InvoiceConfig", "domainCodeName", domains},
		{"SheetRow", "paymentStatus", payment},
		{"SyncStatusChange", "status", sync},
		{"DocsDeliveryStatusChange", "status", delivery},
		{"FinanceDocument", "documentClassCodeName", classes},
		{"FinanceDocument", "dataSourceCodeName", withNull(sources)},
		{"FinanceDocument", "domainCodeName", withNull(domains)},
		{"FinanceDocument", "paymentStatus", payment},
		{"FinanceDocument", "syncStatus", sync},
		{"FinanceDocument", "docsDeliveryStatus", delivery},
	} {
		got := property(t, c, tt.schema, tt.field).Enum
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s.%s: enum %v, want %v", tt.schema, tt.field, got, tt.want)
		}
	}
	// A change of many sets every sync status but done and invalid.
	many := slices.DeleteFunc(slices.Clone(sync), func(s any) bool { return s == string(finance.SyncDone) || s == string(finance.SyncInvalid) })
	if got := property(t, c, "SyncStatusChangeMany", "status").Enum; !slices.Equal(got, many) {
		t.Errorf("SyncStatusChangeMany.status: enum %v, want %v", got, many)
	}
	// The id of a code is its place in the package's list, from 1.
	for _, tt := range []struct {
		field string
		n     int
	}{{"finDocClassId", len(finance.Classes())}, {"dataSourceId", len(finance.DataSources())}, {"domainId", len(finance.Domains())}} {
		s := property(t, c, "InvoiceInput", tt.field)
		if s.Min == nil || *s.Min != 1 || s.Max == nil || *s.Max != float64(tt.n) {
			t.Errorf("InvoiceInput.%s: ids %v to %v, want 1 to %d", tt.field, s.Min, s.Max, tt.n)
		}
	}
}

// property is field of the components schema name, looking into allOf.
func property(t *testing.T, c *httpapitest.Contract, name, field string) *openapi3.Schema {
	t.Helper()
	s := c.Schema(name)
	if s == nil {
		t.Fatalf("no schema %s", name)
	}
	for _, sub := range append([]*openapi3.SchemaRef{{Value: s}}, s.AllOf...) {
		if p := sub.Value.Properties[field]; p != nil {
			return p.Value
		}
	}
	t.Fatalf("schema %s has no property %s", name, field)
	return nil
}

// validate checks the JSON of v against components schema name.
func validate(c *httpapitest.Contract, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		return err
	}
	return c.Schema(name).VisitJSON(decoded, openapi3.EnableJSONSchema2020(), openapi3.EnableFormatValidation(), openapi3.MultiErrors())
}

func sampleInvoice(t *testing.T) finance.Invoice {
	t.Helper()
	eur, ok := finance.CurrencyByNumeric(978)
	if !ok {
		t.Fatal("no EUR")
	}
	date := func(s string) msgkit.Date {
		d, err := msgkit.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	at := time.Date(2026, 2, 2, 9, 15, 0, 0, time.UTC)
	d := decimal.RequireFromString
	return finance.Invoice{
		ID: 1042, InstanceID: 1, OwnerID: 1, UID: "5f0c6b1e-2f4a-4d8e-9b1a-7c3d2e1f0a9b",
		Class: finance.CustomerInvoice, DataSource: finance.Postpaid, Domain: finance.Bulk, Selector: finance.PartPayment,
		Customer: finance.Partner{ID: 120, Name: "Shop d.o.o.", ShortName: "Shop", City: "Ljubljana", Country: 705, Type: "customer"},
		InvType:  1, TemplateID: 3, Lang: "en", InvNumberFix: "R-2026-0012",
		InvDate: date("2026-01-31"), DeliveryDate: date("2026-01-31"), InvDueDate: date("2026-03-02"),
		Currency: eur, VatInPrice: finance.Gross, VatPercent: d("22"),
		Amounts: finance.Amounts{AmountNoVat: d("20.48"), AmountVat: d("24.99"), Vat: d("4.51"), Total: d("24.99"),
			TotalUnpaid: d("24.99")},
		Status: finance.Approved, PaymentStatus: finance.PaymentOpen, SyncStatus: finance.SyncDone,
		DocsDeliveryStatus: finance.DeliverySent, CollectionMode: "none", ReminderStatus: "enabled",
		DocumentSync: json.RawMessage(`{"externalId":"FIN-1"}`),
		Items: []finance.Item{{Name: "SMS", ItemType: 1, Quantity: d("1"), Price: d("24.99"), VatPercent: d("22"),
			TotalNoVat: d("20.48"), TotalVat: d("4.51")}},
		InsertDt: at, StatusDt: at, SyncStatusDt: at, DeliveryDt: at,
	}
}

// sampleView is inv's view with everything a view can name: the type,
// the owner, the partner's reference, a domestic rate, a netting
// statement and a collection lead with its own statement.
func sampleView(inv finance.Invoice, today msgkit.Date) finance.View {
	eur, _ := finance.CurrencyByCode("EUR")
	usd, _ := finance.CurrencyByCode("USD")
	stmt := finance.Invoice{ID: 900, InvNumberFix: "NET-2026-0009", Class: finance.NettingInvoice, Status: finance.Draft,
		PaymentStatus: finance.PaymentOpen, Currency: eur, Amounts: finance.Amounts{Total: decimal.RequireFromString("-12.5")}}
	lead := finance.Invoice{ID: 901, InvNumberFix: "INV-2026-0042", Status: finance.Approved, PaymentStatus: finance.PaymentOpen,
		Currency: eur, NettingInvoiceID: 900}
	inv.NettingInvoiceID, inv.CollectionLeadID, inv.OwnerID = 900, 901, 7
	inv.ProcessingStatus, inv.DisputeStatus, inv.DisputeDt, inv.InvoicingDatePolicy, inv.SyncMode = "scheduled", "open", inv.InsertDt, "delivery", "manual"
	return finance.ViewOf(&inv, finance.DocumentData{
		Owner: &finance.Partner{ID: 7, Name: "Operator d.o.o.", ShortName: "Operator"}, Partner: finance.PartnerExport{ExternalRefID: "ERP-1"},
		Type: &finance.DocumentType{ID: inv.InvType, Name: "Invoice", SelfBilling: true}, Domestic: &finance.DomesticRate{Currency: usd, Rate: decimal.RequireFromString("1.0832")},
		Netting: &stmt, Lead: &lead, LeadNetting: &stmt,
	}, today)
}

// The JSON of every wire type, made from sample records, follows its
// schema.
func TestOpenAPIWireTypes(t *testing.T) {
	c := financeContract(t)
	inv := sampleInvoice(t)
	today, _ := msgkit.ParseDate("2026-03-10")
	draft := inv
	draft.ID, draft.Status, draft.PaymentStatus, draft.SyncStatus, draft.DocumentSync = 7, finance.Draft, finance.PaymentNone, finance.SyncNone, nil
	draft.Selector, draft.DataSource, draft.Items = "", finance.FinanceSource, nil
	draft.InvDate, draft.DeliveryDate, draft.InvDueDate = msgkit.Date{}, msgkit.Date{}, msgkit.Date{}
	withManager := invoiceOf(sampleView(inv, today))
	withManager.AccountManagerID, withManager.AccountManagerName = jsonNull, jsonNull

	rec := finance.FileRecord{ID: 77, InvoiceID: 1042, FileTypeID: finance.SupplierInvoiceFileTypeID,
		FileTypeCode: finance.SupplierInvoiceFileTypeCode, Filename: "a b.pdf", StoredName: "a b.pdf", Size: 48213,
		Status: "available", StorageStatus: "stored", StatusDt: inv.InsertDt, StorageDt: inv.InsertDt, InsertDt: inv.InsertDt}
	bal := finance.Balance{Partner: inv.Customer, Currency: inv.Currency, OwnerID: 1, Amounts: inv.Amounts, Documents: 1,
		Group: map[string]msgkit.Value{"domainCodeName": msgkit.StringValue("BULK"), "documentTypeId": msgkit.IntValue(1),
			"dataSourceId": msgkit.Null()},
		Aging: &finance.Aging{Current: decimal.RequireFromString("24.99")}}
	row := finance.SheetRowOf(&inv)
	cfg := finance.InvoiceConfig{TypeID: 11, InstanceID: 1, Name: "Invoice", Status: "active", Domain: finance.Bulk,
		DataSource: finance.Postpaid, DataSourceDefault: "yes", DocClass: finance.CustomerInvoice, SelfBilling: "no",
		CollectionCode: "none", Selector: finance.PartPayment, TemplateID: 3, TemplateLang: "en", TemplateName: "Invoice (en)",
		TemplateFileName: "invoice_en.odt", StatusDt: inv.InsertDt}
	supplierCfg := finance.InvoiceConfig{TypeID: 21, Name: "Supplier invoice", Domain: finance.Bulk,
		DataSource: finance.SupplierInvoiceSource, DocClass: finance.SupplierInvoice, SelfBilling: "no"}
	q := msgkit.ListQuery{PageNumber: 2, PageSize: 1}
	partner := finance.PartnerRecord{Partner: inv.Customer, Service: "7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e",
		Export: finance.PartnerExport{PartnerID: inv.Customer.ID, ExternalRefID: "ERP-310",
			CustomAttributes: []finance.CustomAttribute{{CodeName: "segment", Value: json.RawMessage(`{"tier": 1}`)}}}}
	syncResults := struct {
		Result []syncResultJSON `json:"result"`
	}{Result: []syncResultJSON{{ID: "1042", OpStatus: "OK"},
		{ID: "9", OpStatus: "ERROR", Error: &syncErrorJSON{Code: 404, Message: "INVOICE_NOTFOUND: invoice 9 not found"}}}}

	for _, tt := range []struct {
		name, schema string
		value        any
	}{
		{"invoice", "Invoice", invoiceOf(sampleView(inv, today))},
		{"draft without dates", "Invoice", invoiceOf(finance.ViewOf(&draft, finance.DocumentData{}, today))},
		{"invoice with account manager", "Invoice", withManager},
		{"invoice list", "InvoiceList", httpapi.ListOf(msgkit.Page[finance.View]{Items: []finance.View{sampleView(inv, today)}, Total: 3}, q, invoiceOf)},
		{"empty invoice list", "InvoiceList", httpapi.ListOf(msgkit.Page[finance.View]{}, msgkit.ListQuery{PageNumber: 1, PageSize: 10}, invoiceOf)},
		{"balance", "Balance", balanceOf(bal)},
		{"balance list", "BalanceList", httpapi.ListOf(msgkit.Page[finance.Balance]{Items: []finance.Balance{bal, {Currency: inv.Currency}}, Total: 2}, q, balanceOf)},
		{"sheet", "SheetRow", sheetOf(row)},
		{"sheet list", "SheetList", httpapi.ListOf(msgkit.Page[finance.SheetRow]{Items: []finance.SheetRow{row}, Total: 1}, q, sheetOf)},
		{"file", "FileRecord", fileOf(rec)},
		{"file list", "FileList", httpapi.ListOf(msgkit.Page[finance.FileRecord]{Items: []finance.FileRecord{rec}, Total: 1}, q, fileOf)},
		{"upload", "Upload", uploadOf(rec)},
		{"config", "InvoiceConfig", configOf(cfg)},
		{"supplier config", "InvoiceConfig", configOf(supplierCfg)},
		{"sync results", "SyncResults", syncResults},
		{"error", "Error", syncErrorJSON{Code: 400, Message: "custID: is required"}},
		{"partner", "BizPartner", partnerOf(partner)},
		{"partner without export data or tenant", "BizPartner", partnerOf(finance.PartnerRecord{Partner: finance.Partner{ID: 9, Name: "X"}})},
		{"partner list", "BizPartnerList", httpapi.ListOf(msgkit.Page[finance.PartnerRecord]{Items: []finance.PartnerRecord{partner}, Total: 2}, q, partnerOf)},
		{"billing account", "BillingAccount", accountOf(&finance.BillingAccount{ID: 7, BizPartnerID: 310, Currency: inv.Currency, Name: "main",
			SMSConnections: []finance.Connection{{ID: 1, InstanceID: 1, Name: "c", AuthName: "a", Protocol: "HTTP"}}})},
		{"source record", "SourceRecord", sourceRecordJSON{Kind: "credit", RecordID: 31, BillingAccountID: 7}},
		{"document type", "DocumentType", documentTypeJSON{TypeID: 3, Name: "Invoice", SelfBilling: "yes"}},
		{"domestic rate", "DomesticRate", domesticRateOut{InvoiceID: 1042, DomesticCurrency: 978, DomesticCurrencyCode: "EUR", DomesticCurrencyRate: "1.0"}},
		{"traffic reports", "TrafficReports", trafficBody[trafficJSON]{TrafficReports: []trafficJSON{trafficOf(finance.TrafficReport{BizPartnerID: 310,
			StartDt: inv.InsertDt, EndDt: inv.InsertDt, Currency: inv.Currency, Price: decimal.RequireFromString("0.045")})}}},
		{"no traffic reports", "TrafficReports", trafficBody[trafficJSON]{TrafficReports: []trafficJSON{}}},
	} {
		if err := validate(c, tt.schema, tt.value); err != nil {
			t.Errorf("%s does not follow %s: %v", tt.name, tt.schema, err)
		}
	}
}

// A value that breaks its schema is refused: the schemas are not
// permissive by accident.
func TestOpenAPIRefusesBrokenValues(t *testing.T) {
	c := financeContract(t)
	today, _ := msgkit.ParseDate("2026-03-10")
	good := func(schema string, v any) map[string]any {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if err := validate(c, schema, m); err != nil {
			t.Fatalf("the unbroken %s fails: %v", schema, err)
		}
		return m
	}
	inv := sampleInvoice(t)
	row := finance.SheetRowOf(&inv)
	for _, tt := range []struct {
		name, schema string
		value        any
		breaks       func(m map[string]any)
	}{
		{"missing status", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { delete(m, "status") }},
		{"amount as a string", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["total"] = "24.99" }},
		{"unknown status", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["status"] = "paid" }},
		{"unknown class", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["classCodeName"] = "RECEIPT" }},
		{"null amount", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["amountVat"] = nil }},
		{"time as a date", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["invDate"] = "2026-01-31T00:00:00Z" }},
		{"unknown field", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) { m["paid"] = true }},
		{"item amount as a string", "Invoice", invoiceOf(sampleView(inv, today)), func(m map[string]any) {
			m["items"].([]any)[0].(map[string]any)["totalVat"] = "4.51"
		}},
		{"sheet without documentId", "SheetRow", sheetOf(row), func(m map[string]any) { delete(m, "documentId") }},
		{"sheet with an unknown field", "SheetRow", sheetOf(row), func(m map[string]any) { m["extra"] = 1 }},
		{"sheet payment status", "SheetRow", sheetOf(row), func(m map[string]any) { m["paymentStatus"] = "paid" }},
		{"balance without total", "Balance", balanceOf(finance.Balance{Currency: inv.Currency}), func(m map[string]any) { delete(m, "total") }},
		{"balance amount as a string", "Balance", balanceOf(finance.Balance{Currency: inv.Currency}), func(m map[string]any) { m["amountVat"] = "0.00" }},
		{"pagination without total", "InvoiceList", httpapi.ListOf(msgkit.Page[finance.View]{}, msgkit.ListQuery{PageNumber: 1, PageSize: 10}, invoiceOf),
			func(m map[string]any) { delete(m["meta"].(map[string]any)["pagination"].(map[string]any), "total") }},
		{"config without typeId", "InvoiceConfig", configOf(finance.InvoiceConfig{Domain: finance.Bulk, DataSource: finance.Postpaid,
			DocClass: finance.CustomerInvoice, SelfBilling: "no"}), func(m map[string]any) { delete(m, "typeId") }},
		{"upload size as a string", "Upload", uploadOf(finance.FileRecord{ID: 1, InvoiceID: 1, Size: 10}), func(m map[string]any) { m["size"] = "10" }},
		{"error code as a string", "Error", syncErrorJSON{Code: 404, Message: "x"}, func(m map[string]any) { m["Code"] = "INVOICE_NOTFOUND" }},
		{"error with more", "Error", syncErrorJSON{Code: 404, Message: "x"}, func(m map[string]any) { m["detail"] = "y" }},
	} {
		m := good(tt.schema, tt.value)
		tt.breaks(m)
		if err := validate(c, tt.schema, m); err == nil {
			t.Errorf("%s: a broken %s passed", tt.name, tt.schema)
		}
	}
}

// The handler keeps the document: a walk through every operation, each
// request and answer validated by the contract (bad requests only their
// answer).
func TestOpenAPIExchanges(t *testing.T) {
	c := financeContract(t)
	f := httpapitest.NewFixture(t)
	ctx := context.Background()
	const manager = "openapi-manager"
	if _, _, err := f.Auth.CreateClient(ctx, auth.ClientSpec{ID: manager, Secret: httpapitest.ClientSecret,
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, Services: []msgkit.ServiceUUID{httpapitest.TenantA},
		Privileges: []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesManage, auth.PrivFinanceBalanceView}}); err != nil {
		t.Fatal(err)
	}
	store := memstore.New().Finance()
	for _, p := range []finance.Partner{
		{ID: 120, Name: "Shop d.o.o.", ShortName: "Shop", City: "Ljubljana", Country: 705, Type: "customer"},
		{ID: 310, Name: "Carrier Ltd", ShortName: "Carrier", City: "Zagreb", Country: 191, Type: "supplier"},
	} {
		if err := store.PutPartner(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	blobs, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc := finance.NewService(store, finance.Options{Clock: f.Clock.Now, Balances: store, Sheets: store, Files: store, Blobs: blobs, Tenants: store})
	h := c.Handler(t, Handler(f.Opts, Backend{Service: svc}))
	token := f.Token(t, manager)
	send := func(r *http.Request, status int) map[string]any {
		t.Helper()
		httpapitest.Bearer(r, token)
		w := httpapitest.Serve(h, r)
		if w.Code != status {
			t.Fatalf("%s %s: %d, want %d: %s", r.Method, r.URL, w.Code, status, w.Body)
		}
		var m map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		return m
	}
	do := func(method, path, body string, status int) map[string]any {
		t.Helper()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		return send(r, status)
	}
	bad := func(method, path, body string, status int) {
		t.Helper()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		send(httpapitest.SkipRequestCheck(r), status)
	}
	f64 := func(v any) int64 { n, _ := v.(float64); return int64(n) }

	const b = BasePath
	sup := do("POST", b+"invoices?classCodeName=SUPPLIER_INVOICE", `{"custID": 310, "currency": 978, "invType": 21,
		"invDate": "2026-03-01", "invDueDate": "2026-04-01", "supplierInvNumber": "CB-7781",
		"amountNoVat": 100.00, "amountVat": 120.00, "total": 120.00}`, 200)
	cust := do("POST", b+"invoices?classCodeName=CUSTOMER_INVOICE", `{"custID": 120, "currency": 978, "invType": 102,
		"templateId": 503, "lang": "en", "invNumberFix": "C-1", "invDate": "2026-03-01", "invDueDateDays": 30, "vatInPrice": 1,
		"dataSourceCodeName": "POSTPAID", "domainCodeName": "BULK", "dtsSelectorCodeName": "PART-PAYMENT",
		"items": [{"name": "SMS", "quantity": 1, "price": 24.99, "vatPercent": 22}]}`, 200)
	supID, custID := f64(sup["id"]), f64(cust["id"])
	do("PUT", fmt.Sprintf("%sinvoices/%d", b, custID), `{"status": "approved", "comment": "checked"}`, 200)
	do("GET", fmt.Sprintf("%sinvoices/%d", b, supID), "", 200)
	do("GET", b+"invoices?page_size=5&sort=-invDate&paymentStatus=open&in(classCodeName)=SUPPLIER_INVOICE,CUSTOMER_INVOICE&q=Carrier&showAccountManager=yes", "", 200)
	do("GET", b+"default-invoice-config?domainCodeName=BULK&dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE&templateLang=fr", "", 200)
	do("GET", b+"default-invoice-config?domainCodeName=BULK&dataSourceCodeName=SUPPLIER-INVOICE&docClassCodeName=SUPPLIER_INVOICE", "", 200)
	do("GET", b+"default-invoice-config?domainCodeName=BULK-MNP&dataSourceCodeName=PREPAID&docClassCodeName=NETTING_INVOICE", "", 404)
	do("PUT", fmt.Sprintf("%sinvoices/%d/sync-status", b, supID), `{"status": "done", "documentSync": {"externalId": "FIN-1"}}`, 200)
	do("PUT", fmt.Sprintf("%sinvoices-list/%d,%d,99/sync-status", b, supID, custID), `{"status": "waiting"}`, 200)
	do("PUT", fmt.Sprintf("%sinvoices/%d/docs-delivery-status", b, supID), `{"status": "sent"}`, 200)
	do("GET", b+"balances/biz-partners/customers?group=domainCodeName,documentTypeId&asOf=2026-05-01&lt(total)=1000", "", 200)
	do("GET", b+"balances/biz-partners/suppliers?sort=-total", "", 200)
	do("GET", b+"balances/biz-partners/customers/120/sheets?startDate=2026-01-01&endDate=2026-12-31&dir=desc", "", 200)
	do("GET", b+"balances/biz-partners/suppliers/310/sheets", "", 200)
	do("GET", b+"finance-documents?embed=trafficReports&page_size=50", "", http.StatusNotImplemented)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile(uploadField, "CB-7781.pdf")
	fw.Write([]byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n"))
	mw.Close()
	up := httptest.NewRequest("POST", fmt.Sprintf("%sinvoices/%d/files", UploadBasePath, supID), &body)
	up.Header.Set("Content-Type", mw.FormDataContentType())
	send(up, http.StatusCreated)
	body.Reset()
	mw = multipart.NewWriter(&body)
	fw, _ = mw.CreateFormFile(uploadField, "CB-7781.pdf")
	fw.Write([]byte("MZ not a pdf"))
	mw.Close()
	forged := httptest.NewRequest("POST", fmt.Sprintf("%sinvoices/%d/files", UploadBasePath, supID), &body)
	forged.Header.Set("Content-Type", mw.FormDataContentType())
	send(forged, http.StatusMethodNotAllowed)
	do("GET", fmt.Sprintf("%sinvoices/%d/files", b, supID), "", 200)

	do("DELETE", fmt.Sprintf("%sinvoices/%d", b, custID), "", 200)
	do("GET", fmt.Sprintf("%sinvoices/%d", b, custID), "", 404)
	bad("PUT", fmt.Sprintf("%sinvoices/%d/sync-status", b, supID), `{"status": "paid"}`, 400)
	bad("GET", b+"invoices?page_size=500", "", 400)
	bad("GET", b+"invoices?nosuch=1", "", 400)
	bad("POST", b+"invoices?classCodeName=CUSTOMER_INVOICE", `{"custID": "120"}`, 400)
	bad("GET", b+"nothing", "", 404)
	bad("PATCH", fmt.Sprintf("%sinvoices/%d", b, supID), "{}", 405)
}

// Each listing's description names every attribute its spec filters and
// sorts by, documents q exactly when the spec searches, and gives its
// maximum page size.
func TestOpenAPIListings(t *testing.T) {
	d := loadDoc(t)
	const b = "/finance/sit/v1/"
	for _, tt := range []struct {
		path string
		spec msgkit.ListSpec
	}{
		{b + "invoices", finance.InvoiceSpec()},
		{b + "balances/biz-partners/customers", finance.BalanceSpec()},
		{b + "balances/biz-partners/suppliers", finance.BalanceSpec()},
		{b + "balances/biz-partners/customers/{bizPartnerId}/sheets", finance.SheetSpec()},
		{b + "balances/biz-partners/suppliers/{bizPartnerId}/sheets", finance.SheetSpec()},
		{b + "finance-documents", finance.DocumentSpec()},
	} {
		op := d.Paths.Find(tt.path).Get
		if op == nil {
			t.Fatalf("no GET %s", tt.path)
		}
		names := slices.Concat(slices.Collect(maps.Keys(tt.spec.Filter)), tt.spec.Sort)
		if strings.Contains(tt.path, "/balances/biz-partners/") && !strings.HasSuffix(tt.path, "/sheets") {
			// grouping attributes are named in the description of group
			names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(finance.GroupAttrNames(), n) })
		}
		for _, name := range names {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(op.Description) {
				t.Errorf("GET %s: the description does not name the attribute %s", tt.path, name)
			}
		}
		if q := op.Parameters.GetByInAndName("query", "q"); (q != nil) != (len(tt.spec.Search) > 0) {
			t.Errorf("GET %s: q documented %v, the listing searches %v", tt.path, q != nil, tt.spec.Search)
		}
		for _, a := range tt.spec.Search {
			if !strings.Contains(op.Description, a) {
				t.Errorf("GET %s: the description does not say that q searches %s", tt.path, a)
			}
		}
		size := op.Parameters.GetByInAndName("query", "page_size")
		if size == nil || size.Schema.Value.Max == nil || *size.Schema.Value.Max != float64(tt.spec.MaxPageSize) {
			t.Errorf("GET %s: page_size maximum is not %d", tt.path, tt.spec.MaxPageSize)
		}
	}
}
