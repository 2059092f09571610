package financeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/msgkittest"
)

// The clients of these tests, beside the fixture's: an administrator of
// every partner, a client of tenant B seeing its own partners only, the
// same holding every manage privilege as well, and a manager of supplier
// documents only (who sees every partner's).
const (
	admin         = "fin-admin"
	own           = "fin-own"
	ownManager    = "fin-own-manager"
	supplierAdmin = "fin-supplier"
	operator      = "fin-reference" // finance-reference.manage only
)

// Business partners: 1001 and 2001 are tenant B's, 1002 nobody's.
const (
	custB, custOther, suppB = 1001, 1002, 2001
)

type env struct {
	h      http.Handler
	f      *httpapitest.Fixture
	store  *memstore.FinanceStore
	tokens map[string]string
}

var loadContract = sync.OnceValues(func() (*httpapitest.Contract, error) { return httpapitest.LoadContract(OpenAPI()) })

func contract(t testing.TB) *httpapitest.Contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newOptions builds a finance service with every part over store, its
// files' bytes in a directory of the test's.
func newOptions(t testing.TB, f *httpapitest.Fixture, store *memstore.FinanceStore) finance.Options {
	t.Helper()
	blobs, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return finance.Options{Clock: f.Clock.Now, NewUUID: testUUIDs(), Balances: store, Sheets: store, Files: store, Blobs: blobs, Documents: store, Tenants: store,
		Partners: store, Export: store, ConfigStore: store}
}

// testUUIDs is the tests' id source: version-4 UUIDs numbered from 1, so
// the goldens' invUid values stay put.
func testUUIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
}

func newBackend(t testing.TB, f *httpapitest.Fixture, store *memstore.FinanceStore) Backend {
	t.Helper()
	return Backend{Service: finance.NewService(store, newOptions(t, f, store))}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	f := httpapitest.NewFixture(t)
	ctx := context.Background()
	nets := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	for _, c := range []struct {
		id       string
		services []msgkit.ServiceUUID
		privs    []auth.Privilege
	}{
		{admin, []msgkit.ServiceUUID{httpapitest.TenantA}, []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesManage, auth.PrivFinanceBalanceView}},
		{own, []msgkit.ServiceUUID{httpapitest.TenantB}, []auth.Privilege{auth.PrivFinanceInvoicesOwnView, auth.PrivFinanceBalanceOwnView}},
		{ownManager, []msgkit.ServiceUUID{httpapitest.TenantB}, []auth.Privilege{auth.PrivFinanceInvoicesOwnView, auth.PrivFinanceBalanceOwnView,
			auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage, auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage}},
		{supplierAdmin, []msgkit.ServiceUUID{httpapitest.TenantA}, []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceSupplierInvoicesManage}},
		{operator, []msgkit.ServiceUUID{httpapitest.TenantA}, []auth.Privilege{auth.PrivFinanceReferenceManage}},
	} {
		if _, _, err := f.Auth.CreateClient(ctx, auth.ClientSpec{ID: c.id, Secret: httpapitest.ClientSecret, Networks: nets,
			Services: c.services, Privileges: c.privs}); err != nil {
			t.Fatal(err)
		}
	}
	store := memstore.New().Finance()
	for _, p := range []finance.Partner{
		{ID: custB, Name: "Shop B d.o.o.", ShortName: "Shop B", City: "Ljubljana", Country: 705, Type: "customer"},
		{ID: custOther, Name: "Other Shop GmbH", ShortName: "Other", City: "Wien", Country: 40, Type: "customer"},
		{ID: suppB, Name: "Carrier B Ltd", ShortName: "Carrier B", City: "Zagreb", Country: 191, Type: "supplier"},
	} {
		if err := store.PutPartner(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []int64{custB, suppB} {
		if err := store.SetPartnerTenant(ctx, p, httpapitest.TenantB); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{h: Handler(f.Opts, newBackend(t, f, store)), f: f, store: store, tokens: map[string]string{}}
	for _, id := range []string{admin, own, ownManager, supplierAdmin, operator, httpapitest.FinanceViewer} {
		e.tokens[id] = f.Token(t, id)
	}
	return e
}

// do sends a request as client who through the contract checker: the
// request and the answer must follow the OpenAPI document.
func (e *env) do(t *testing.T, who, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	httpapitest.Bearer(r, e.tokens[who])
	return httpapitest.Serve(contract(t).Handler(t, e.h), r)
}

// bad is do for a request outside the document on purpose: only the
// answer is checked.
func (e *env) bad(t *testing.T, who, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	httpapitest.Bearer(r, e.tokens[who])
	return httpapitest.Serve(contract(t).Handler(t, e.h), httpapitest.SkipRequestCheck(r))
}

func decode(t *testing.T, w *httptest.ResponseRecorder, status int) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body)
	}
	return httpapitest.DecodeBody(t, w)
}

// wantFinanceError checks a finance error answer and that its Message
// holds each of parts.
func wantFinanceError(t *testing.T, w *httptest.ResponseRecorder, status int, parts ...string) {
	t.Helper()
	m := httpapitest.WantError(t, w, httpapi.Finance, status, "")
	msg, _ := m["Message"].(string)
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("Message %q does not say %q", msg, p)
		}
	}
}

const supplierBody = `{"custID": 2001, "currency": 978, "invType": 2, "invDate": "2025-01-31", "deliveryDate": "2025-01-31", "invDueDate": "2025-03-02",
	"supplierInvNumber": "CB-7781", "amountNoVat": 100.00, "amountVat": 120.00, "total": 120.00}`

// customerBody is a draft customer invoice of partner cust: gross 24.99
// at 20 %, which is 20.83 net and 4.16 VAT.
func customerBody(cust int64) string {
	return fmt.Sprintf(`{"custID": %d, "currency": 978, "invType": 1, "templateID": 3, "invNumberFix": "C-1", "invDate": "2025-01-31", "deliveryDate": "2025-01-31",
		"invDueDateDays": 30, "vatInPrice": 1, "vatPercent": 20, "dataSourceCodeName": "POSTPAID", "domainCodeName": "BULK",
		"items": [{"name": "SMS", "quantity": 1, "price": 24.99}]}`, cust)
}

func (e *env) create(t *testing.T, class, body string) map[string]any {
	t.Helper()
	return decode(t, e.do(t, admin, "POST", BasePath+"invoices?classCodeName="+class, body), http.StatusOK)
}

func id(m map[string]any) int64 { return int64(m["id"].(float64)) }

// A supplier invoice: approved, its number from supplierInvNumber, its
// amounts with the currency's two decimals, the due date as given.
func TestCreateSupplierInvoice(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, admin, "POST", BasePath+"invoices?classCodeName=SUPPLIER_INVOICE", supplierBody)
	m := decode(t, w, http.StatusOK)
	for k, want := range map[string]any{"status": "approved", "invNumberFix": "CB-7781", "classCodeName": "SUPPLIER_INVOICE",
		"custName": "Carrier B Ltd", "currencyCode": "EUR", "invDueDate": "2025-03-02", "paymentStatus": "open"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	for _, amt := range []string{`"amountNoVat":100.00`, `"amountVat":120.00`, `"vat":20.00`, `"total":120.00`, `"rounding":0.00`} {
		if !strings.Contains(w.Body.String(), amt) {
			t.Errorf("body lacks %s: %s", amt, w.Body)
		}
	}
	msgkittest.Golden(t, "testdata/create_supplier.json", httpapitest.Answer(w))
}

// A customer invoice at gross prices: VAT once on the document.
func TestCreateCustomerInvoiceAmounts(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, admin, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(custB))
	m := decode(t, w, http.StatusOK)
	if m["status"] != "draft" || m["invDueDate"] != "2025-03-02" {
		t.Errorf("status %v, invDueDate %v", m["status"], m["invDueDate"])
	}
	for _, amt := range []string{`"amountNoVat":20.83`, `"vat":4.16`, `"amountVat":24.99`} {
		if !strings.Contains(w.Body.String(), amt) {
			t.Errorf("body lacks %s: %s", amt, w.Body)
		}
	}
}

func TestCreateRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		name, query, body string
		status            int
		says              []string
	}{
		{"no class", "", supplierBody, 400, []string{"classCodeName"}},
		{"unknown class", "?classCodeName=INVOICE", supplierBody, 400, []string{"classCodeName"}},
		{"no due date", "?classCodeName=CUSTOMER_INVOICE", `{"custID": 1001, "currency": 978, "invNumberFix": "X"}`, 400, []string{"invDueDate"}},
		{"supplier without amounts", "?classCodeName=SUPPLIER_INVOICE", `{"custID": 2001, "currency": 978, "invType": 2, "invDate": "2025-01-31", "deliveryDate": "2025-01-31", "invDueDate": "2025-03-02", "supplierInvNumber": "A"}`,
			400, []string{"amountNoVat", "amountVat", "total"}},
		{"inconsistent amounts", "?classCodeName=SUPPLIER_INVOICE", strings.Replace(supplierBody, `"total": 120.00`, `"total": 125.00`, 1), 400, []string{"total"}},
		{"unknown partner", "?classCodeName=CUSTOMER_INVOICE", customerBody(999), 400, []string{"custID"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantFinanceError(t, e.bad(t, admin, "POST", BasePath+"invoices"+tt.query, tt.body), tt.status, tt.says...)
		})
	}
	t.Run("wrong JSON type", func(t *testing.T) {
		wantFinanceError(t, e.bad(t, admin, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", `{"custID": "1001"}`), 400, "custID")
	})
}

// Reading needs a view privilege, and -own sees its tenant's partners
// only: another's invoice is not found, as an unknown one is.
func TestGetAndScopes(t *testing.T) {
	e := newEnv(t)
	mine := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	other := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custOther)))
	path := func(n int64) string { return fmt.Sprintf("%sinvoices/%d", BasePath, n) }
	decode(t, e.do(t, own, "GET", path(mine), ""), 200)
	decode(t, e.do(t, httpapitest.FinanceViewer, "GET", path(other), ""), 200)
	wantFinanceError(t, e.do(t, own, "GET", path(other), ""), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.do(t, admin, "GET", path(99), ""), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"invoices/x", ""), 400, "invoiceid")
	// own's listing holds its partner's invoice only.
	m := decode(t, e.do(t, own, "GET", BasePath+"invoices", ""), 200)
	if data := m["data"].([]any); len(data) != 1 || id(data[0].(map[string]any)) != mine {
		t.Errorf("own's listing: %v", m["data"])
	}
	// Balances and sheets: the same scope.
	m = decode(t, e.do(t, own, "GET", fmt.Sprintf("%sbalances/biz-partners/customers/%d/sheets", BasePath, custOther), ""), 200)
	if len(m["data"].([]any)) != 0 {
		t.Errorf("own sees another partner's sheet: %v", m["data"])
	}
}

// A manage privilege never widens what the caller sees: a client of
// tenant B that sees its own partners only may change nothing of another
// partner's (every change answers as for an unknown invoice, and nothing
// changes) and create nothing for another partner, while its own
// partner's invoices change as usual.
func TestChangesStayInViewScope(t *testing.T) {
	e := newEnv(t)
	other := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custOther)))
	mine := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	const unknown = 99
	before, err := e.store.Invoice(context.Background(), finance.InvoiceID(other))
	if err != nil {
		t.Fatal(err)
	}
	pdf := []byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	changes := []struct {
		name, method, path, body string
	}{
		{"update", "PUT", BasePath + "invoices/%d", `{"comment": "B was here"}`},
		{"sync status", "PUT", BasePath + "invoices/%d/sync-status", `{"status": "exported"}`},
		{"docs delivery status", "PUT", BasePath + "invoices/%d/docs-delivery-status", `{"status": "sent"}`},
		{"files", "GET", BasePath + "invoices/%d/files", ""},
		{"delete", "DELETE", BasePath + "invoices/%d", ""},
	}
	// answer is a request's status and body with the invoice's id
	// replaced, so that answers about two ids compare.
	answer := func(w *httptest.ResponseRecorder, n int64) string {
		return fmt.Sprint(w.Code, " ", strings.ReplaceAll(w.Body.String(), fmt.Sprint(n), "{id}"))
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			got := e.do(t, ownManager, c.method, fmt.Sprintf(c.path, other), c.body)
			wantFinanceError(t, got, 404, "INVOICE_NOTFOUND")
			if a, b := answer(got, other), answer(e.do(t, ownManager, c.method, fmt.Sprintf(c.path, unknown), c.body), unknown); a != b {
				t.Errorf("another partner's invoice answers %s, an unknown one %s", a, b)
			}
		})
	}
	t.Run("upload", func(t *testing.T) {
		got := e.upload(t, ownManager, other, uploadField, "x.pdf", pdf, true)
		wantFinanceError(t, got, 404, "INVOICE_NOTFOUND")
		if a, b := answer(got, other), answer(e.upload(t, ownManager, unknown, uploadField, "x.pdf", pdf, true), unknown); a != b {
			t.Errorf("another partner's invoice answers %s, an unknown one %s", a, b)
		}
	})
	t.Run("sync status of many", func(t *testing.T) {
		res := decode(t, e.do(t, ownManager, "PUT", fmt.Sprintf("%sinvoices-list/%d,%d/sync-status", BasePath, other, unknown), `{"status": "exported"}`), 200)["result"].([]any)
		a, _ := json.Marshal(res[0].(map[string]any)["error"])
		b, _ := json.Marshal(res[1].(map[string]any)["error"])
		if res[0].(map[string]any)["opStatus"] != "ERROR" || strings.ReplaceAll(string(a), fmt.Sprint(other), "{id}") != strings.ReplaceAll(string(b), fmt.Sprint(unknown), "{id}") {
			t.Errorf("another partner's invoice in a change of many: %v", res)
		}
	})
	t.Run("create for another partner", func(t *testing.T) {
		got := e.do(t, ownManager, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(custOther))
		wantFinanceError(t, got, 400, "custID")
		unknownPartner := e.do(t, ownManager, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(999))
		if a, b := answer(got, custOther), answer(unknownPartner, 999); a != b {
			t.Errorf("another's partner answers %s, an unknown partner %s", a, b)
		}
	})
	after, err := e.store.Invoice(context.Background(), finance.InvoiceID(other))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("another partner's invoice changed (-before +after):\n%s", diff)
	}
	files, err := e.store.Files(context.Background(), finance.InvoiceID(other))
	if err != nil || len(files) != 0 {
		t.Errorf("another partner's invoice has files %v (%v)", files, err)
	}
	m := decode(t, e.do(t, admin, "GET", BasePath+"invoices", ""), 200)
	if n := len(m["data"].([]any)); n != 2 {
		t.Errorf("%d invoices, want the 2 the administrator made", n)
	}
	// Its own partner's invoice: every change works.
	decode(t, e.do(t, ownManager, "PUT", fmt.Sprintf("%sinvoices/%d", BasePath, mine), `{"comment": "ours"}`), 200)
	decode(t, e.do(t, ownManager, "PUT", fmt.Sprintf("%sinvoices/%d/docs-delivery-status", BasePath, mine), `{"status": "sent"}`), 200)
	decode(t, e.upload(t, ownManager, mine, uploadField, "x.pdf", pdf, true), http.StatusCreated)
	decode(t, e.do(t, ownManager, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(custB)), 200)
	if w := e.do(t, ownManager, "DELETE", fmt.Sprintf("%sinvoices/%d", BasePath, mine), ""); w.Code != 200 {
		t.Errorf("deleting its own partner's invoice: %d %s", w.Code, w.Body)
	}
}

// The class-specific manage privileges change their classes only.
func TestManageByClass(t *testing.T) {
	e := newEnv(t)
	cust := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	wantFinanceError(t, e.do(t, supplierAdmin, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(custB)), 403, "CUSTOMER_INVOICE")
	decode(t, e.do(t, supplierAdmin, "POST", BasePath+"invoices?classCodeName=SUPPLIER_INVOICE", supplierBody), 200)
	wantFinanceError(t, e.do(t, supplierAdmin, "DELETE", fmt.Sprintf("%sinvoices/%d", BasePath, cust), ""), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.do(t, httpapitest.FinanceViewer, "DELETE", fmt.Sprintf("%sinvoices/%d", BasePath, cust), ""), 403)
}

func TestListInvoices(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		e.create(t, "CUSTOMER_INVOICE", customerBody(custB))
	}
	e.create(t, "CUSTOMER_INVOICE", customerBody(custOther))
	e.create(t, "SUPPLIER_INVOICE", supplierBody)
	w := e.do(t, admin, "GET", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE&sort=-id&page_size=2&page_number=2", "")
	m := decode(t, w, 200)
	p := m["meta"].(map[string]any)["pagination"].(map[string]any)
	if p["total"] != 4.0 || p["count"] != 2.0 || p["perPage"] != 2.0 || p["currentPage"] != 2.0 || p["totalPages"] != 2.0 {
		t.Errorf("pagination %v", p)
	}
	if data := m["data"].([]any); id(data[0].(map[string]any)) != 2 || id(data[1].(map[string]any)) != 1 {
		t.Errorf("page 2 by -id: %v", data)
	}
	msgkittest.Golden(t, "testdata/list_invoices.json", httpapitest.Answer(w))
	// q searches names; the operator form filters.
	m = decode(t, e.do(t, admin, "GET", BasePath+"invoices?q=other", ""), 200)
	if len(m["data"].([]any)) != 1 {
		t.Errorf("q=other: %d invoices", len(m["data"].([]any)))
	}
	m = decode(t, e.do(t, admin, "GET", BasePath+"invoices?in(custID)=1001,2001&showAccountManager=yes", ""), 200)
	data := m["data"].([]any)
	if len(data) != 4 {
		t.Errorf("in(custID): %d invoices", len(data))
	}
	if v, ok := data[0].(map[string]any)["accountManagerId"]; !ok || v != nil {
		t.Errorf("showAccountManager=yes: accountManagerId %v, %v", v, ok)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"invoices?nosuch=1", ""), 400, "nosuch")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"invoices?page_size=101", ""), 400, "page_size")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"invoices?showAccountManager=maybe", ""), 400, "showAccountManager")
}

func TestUpdateAndDelete(t *testing.T) {
	e := newEnv(t)
	draft := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	path := fmt.Sprintf("%sinvoices/%d", BasePath, draft)
	m := decode(t, e.do(t, admin, "PUT", path, `{"comment": "checked", "invDueDateDays": 10}`), 200)
	if m["comment"] != "checked" || m["invDueDate"] != "2025-02-10" {
		t.Errorf("updated: comment %v, invDueDate %v", m["comment"], m["invDueDate"])
	}
	decode(t, e.do(t, admin, "PUT", path, `{"status": "approved"}`), 200)
	wantFinanceError(t, e.do(t, admin, "PUT", path, `{"comment": "again"}`), 409)
	w := e.do(t, admin, "DELETE", path, "")
	if w.Code != 200 || w.Body.Len() != 0 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	wantFinanceError(t, e.do(t, admin, "GET", path, ""), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.do(t, admin, "DELETE", path, ""), 404, "INVOICE_NOTFOUND")
}

func TestStatusChanges(t *testing.T) {
	e := newEnv(t)
	a := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	b := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	m := decode(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d/sync-status", BasePath, a),
		`{"status": "done", "documentSync": {"ref": "ERP-1"}, "reportData": {"ok": true}}`), 200)
	if m["syncStatus"] != "done" || m["documentSync"].(map[string]any)["ref"] != "ERP-1" {
		t.Errorf("sync done: %v %v", m["syncStatus"], m["documentSync"])
	}
	wantFinanceError(t, e.bad(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d/sync-status", BasePath, a), `{"status": "lost"}`), 400, "UNKNOWN_STATUS")
	wantFinanceError(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d/sync-status", BasePath, 99), `{"status": "done"}`), 404, "INVOICE_NOTFOUND")
	w := e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices-list/%d,%d,99/sync-status", BasePath, a, b), `{"status": "exported"}`)
	res := decode(t, w, 200)["result"].([]any)
	if len(res) != 3 || res[0].(map[string]any)["opStatus"] != "OK" || res[2].(map[string]any)["opStatus"] != "ERROR" {
		t.Errorf("result %v", res)
	}
	msgkittest.Golden(t, "testdata/sync_many.json", httpapitest.Answer(w))
	res = decode(t, e.bad(t, admin, "PUT", fmt.Sprintf("%sinvoices-list/%d/sync-status", BasePath, a), `{"status": "done"}`), 200)["result"].([]any)
	if msg := res[0].(map[string]any)["error"].(map[string]any)["Message"].(string); !strings.Contains(msg, "INVALID_VALUE") {
		t.Errorf("done in a change of many: %q", msg)
	}
	wantFinanceError(t, e.bad(t, admin, "PUT", BasePath+"invoices-list/1,x/sync-status", `{"status": "none"}`), 400, "invoicesList")
	m = decode(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d/docs-delivery-status", BasePath, b), `{"status": "sent"}`), 200)
	if m["docsDeliveryStatus"] != "sent" || m["docsDeliveryStatusDate"] == nil {
		t.Errorf("delivery: %v %v", m["docsDeliveryStatus"], m["docsDeliveryStatusDate"])
	}
	wantFinanceError(t, e.bad(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d/docs-delivery-status", BasePath, b), `{"status": "read"}`), 400)
}

func TestDefaultConfig(t *testing.T) {
	e := newEnv(t)
	m := decode(t, e.do(t, admin, "GET", BasePath+"default-invoice-config?domainCodeName=BULK&dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE&templateLang=de", ""), 200)
	if m["templateLang"] != "de" || m["domainCodeName"] != "BULK" {
		t.Errorf("config %v", m)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"default-invoice-config?dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE", ""), 400, "domainCodeName")
	wantFinanceError(t, e.do(t, admin, "GET", BasePath+"default-invoice-config?domainCodeName=BULK-MNP&dataSourceCodeName=PREPAID&docClassCodeName=NETTING_INVOICE", ""), 404, "CONFIG_NOTFOUND")
}

// multipartBody is a form with one file field.
func multipartBody(t *testing.T, field, filename string, content []byte) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(content)
	mw.Close()
	return mw.FormDataContentType(), &b
}

func (e *env) upload(t *testing.T, who string, inv int64, field, filename string, content []byte, check bool) *httptest.ResponseRecorder {
	t.Helper()
	ct, body := multipartBody(t, field, filename, content)
	r := httptest.NewRequest("POST", fmt.Sprintf("%sinvoices/%d/files", UploadBasePath, inv), body)
	r.Header.Set("Content-Type", ct)
	httpapitest.Bearer(r, e.tokens[who])
	if !check {
		r = httpapitest.SkipRequestCheck(r)
	}
	return httpapitest.Serve(contract(t).Handler(t, e.h), r)
}

func TestUploadAndFiles(t *testing.T) {
	e := newEnv(t)
	inv := id(e.create(t, "SUPPLIER_INVOICE", supplierBody))
	pdf := []byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	m := decode(t, e.upload(t, admin, inv, uploadField, "CB-7781.pdf", pdf, true), http.StatusCreated)
	if m["filename"] != "CB-7781.pdf" || m["size"] != float64(len(pdf)) || m["invoiceId"] != float64(inv) {
		t.Errorf("upload answer %v", m)
	}
	// A PNG named .pdf is refused as a validation exception, 405.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	wantFinanceError(t, e.upload(t, admin, inv, uploadField, "forged.pdf", png, true), validationStatus, "supplierInvoice")
	wantFinanceError(t, e.upload(t, admin, inv, uploadField, "notes.txt", []byte("hello"), true), validationStatus)
	wantFinanceError(t, e.upload(t, admin, inv, "file", "CB.pdf", pdf, false), 400, "supplierInvoice")
	wantFinanceError(t, e.upload(t, admin, 99, uploadField, "CB.pdf", pdf, true), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.upload(t, httpapitest.FinanceViewer, inv, uploadField, "CB.pdf", pdf, true), 403)
	wantFinanceError(t, e.bad(t, admin, "POST", fmt.Sprintf("%sinvoices/%d/files", UploadBasePath, inv), `{}`), 400, "multipart")
	// 10 MB is the file's limit, read as 10 × 2^20 bytes; the body may
	// hold 64 KiB of envelope more.
	big := append(append([]byte{}, pdf...), bytes.Repeat([]byte{' '}, finance.MaxFileSize-len(pdf)+1)...)
	wantFinanceError(t, e.upload(t, admin, inv, uploadField, "big.pdf", big, true), validationStatus, "supplierInvoice")
	huge := append(big, bytes.Repeat([]byte{' '}, 100<<10)...)
	wantFinanceError(t, e.upload(t, admin, inv, uploadField, "huge.pdf", huge, true), http.StatusRequestEntityTooLarge)
	m = decode(t, e.do(t, admin, "GET", fmt.Sprintf("%sinvoices/%d/files", BasePath, inv), ""), 200)
	files := m["data"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["fileSystemFileStatus"] != "stored" {
		t.Errorf("files %v", files)
	}
}

func TestBalancesAndSheets(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{customerBody(custB), customerBody(custB), customerBody(custOther)} {
		inv := id(e.create(t, "CUSTOMER_INVOICE", body))
		decode(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d", BasePath, inv), `{"status": "approved"}`), 200)
	}
	w := e.do(t, admin, "GET", BasePath+"balances/biz-partners/customers?group=domainCodeName,dataSourceCodeName&sort=-total&asOf=2025-03-20", "")
	m := decode(t, w, 200)
	data := m["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("balances %v", data)
	}
	first := data[0].(map[string]any)
	if first["bizPartnerId"] != float64(custB) || first["domainCodeName"] != "BULK" || first["dataSourceCodeName"] != "POSTPAID" || first["aging"] == nil {
		t.Errorf("first balance %v", first)
	}
	if !strings.Contains(w.Body.String(), `"total":49.98`) {
		t.Errorf("two invoices of 24.99: %s", w.Body)
	}
	msgkittest.Golden(t, "testdata/balances.json", httpapitest.Answer(w))
	m = decode(t, e.do(t, own, "GET", BasePath+"balances/biz-partners/customers", ""), 200)
	if data := m["data"].([]any); len(data) != 1 || data[0].(map[string]any)["bizPartnerId"] != float64(custB) {
		t.Errorf("own's balances %v", data)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"balances/biz-partners/customers?amountNovat=10", ""), 400, "amountNovat")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"balances/biz-partners/customers?group=color", ""), 400, "group")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"balances/biz-partners/suppliers?asOf=yesterday", ""), 400, "asOf")
	m = decode(t, e.do(t, admin, "GET", fmt.Sprintf("%sbalances/biz-partners/customers/%d/sheets?dir=desc&startDate=2025-01-01", BasePath, custB), ""), 200)
	rows := m["data"].([]any)
	if len(rows) != 2 || rows[0].(map[string]any)["documentId"].(float64) < rows[1].(map[string]any)["documentId"].(float64) {
		t.Errorf("sheet, dir=desc: %v", rows)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", fmt.Sprintf("%sbalances/biz-partners/customers/%d/sheets?dir=up", BasePath, custB), ""), 400, "dir")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"balances/biz-partners/customers/0/sheets", ""), 400, "bizPartnerId")
}

// Every body the API answers decodes into the wire types it was written
// from: the JSON names are the types' names.
func TestInvoiceJSONRoundTrip(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, admin, "POST", BasePath+"invoices?classCodeName=CUSTOMER_INVOICE", customerBody(custB))
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	var got invoiceJSON
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.CustID != custB || got.AmountNoVat.Value.String() != "20.83" {
		t.Errorf("decoded %+v", got)
	}
}

// The finance documents export: the invoice with its partner's export
// data, its billing record's account and connections, traffic reports when
// embedded, the export's filters, and at most 50 a page.
func TestDocuments(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	eur, _ := finance.CurrencyByNumeric(978)
	body := strings.Replace(customerBody(custB), `"dataSourceCodeName": "POSTPAID",`, `"dataSourceCodeName": "POSTPAID", "invoiceSourceRecord": {"billingRecordId": 31},`, 1)
	inv := id(e.create(t, "CUSTOMER_INVOICE", body))
	e.create(t, "SUPPLIER_INVOICE", supplierBody)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.store.PutBillingAccount(ctx, finance.BillingAccount{ID: 7, BizPartnerID: custB, Currency: eur, BillingType: "POSTPAID", Name: "Shop B main",
		SMSConnections: []finance.Connection{{ID: 70, InstanceID: 1, Name: "shopb-http", AuthName: "shopb", Protocol: "HTTP"}}}))
	must(e.store.PutSourceRecord(ctx, finance.SourceRef{Kind: finance.BillingRecord, ID: 31}, 7))
	must(e.store.PutPartnerExport(ctx, finance.PartnerExport{PartnerID: custB, ExternalRefID: "ERP-1001"}))
	must(e.store.PutTrafficReports(ctx, finance.InvoiceID(inv), []finance.TrafficReport{{BizPartnerID: custB, BizPartnerBriefName: "Shop B",
		BillingAccountID: 7, BillingAccountName: "Shop B main", CountryID: 705, CountryName: "Slovenia", CountryCode2: "SI", OperatorID: 1,
		OperatorName: "Telekom Slovenije", MCC: "293", MNC: "41", StartDt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		EndDt: time.Date(2025, 1, 31, 23, 59, 59, 0, time.UTC), SMSCount: 555, Currency: eur,
		Price: decimal.RequireFromString("0.045"), TotalAmount: decimal.RequireFromString("24.98")}}))

	w := e.do(t, admin, "GET", BasePath+"finance-documents?embed=trafficReports&eq(documentClassCodeName)=CUSTOMER_INVOICE", "")
	m := decode(t, w, 200)
	docs := m["data"].([]any)
	if len(docs) != 1 {
		t.Fatalf("documents %v", docs)
	}
	d := docs[0].(map[string]any)
	src, _ := d["dataSource"].(map[string]any)
	if d["bizPartnerExternalRefId"] != "ERP-1001" || src == nil || src["id"] != 31.0 || d["trafficReports"] == nil {
		t.Errorf("document %v", d)
	}
	if acct, _ := src["billingTotalBalance"].(map[string]any); acct == nil || acct["name"] != "Shop B main" {
		t.Errorf("dataSource %v", src)
	}
	msgkittest.Golden(t, "testdata/documents.json", httpapitest.Answer(w))
	m = decode(t, e.do(t, admin, "GET", BasePath+"finance-documents?q=carrier", ""), 200)
	if docs := m["data"].([]any); len(docs) != 1 || docs[0].(map[string]any)["documentClassCodeName"] != "SUPPLIER_INVOICE" {
		t.Errorf("q=carrier: %v", docs)
	}
	m = decode(t, e.do(t, own, "GET", BasePath+"finance-documents", ""), 200)
	if n := len(m["data"].([]any)); n != 2 {
		t.Errorf("own sees %d documents of its partners, want 2", n)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"finance-documents?page_size=51", ""), 400, "page_size")
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"finance-documents?embed=items", ""), 400, "embed")
}

// invUid is the Service's UUID for the invoice: a client's is ignored, no
// change alters it, the listing finds it by eq and by q, and the export
// and balance sheets show it as documentUuid and documentUuId.
func TestInvoiceUID(t *testing.T) {
	e := newEnv(t)
	e.create(t, "CUSTOMER_INVOICE", customerBody(custB))
	body := strings.Replace(customerBody(custB), "{", `{"invUid": "11111111-1111-4111-8111-111111111111", `, 1)
	created := e.create(t, "CUSTOMER_INVOICE", body)
	uid, inv := created["invUid"], id(created)
	if uid != "00000000-0000-4000-8000-000000000002" {
		t.Fatalf("invUid %v, want the id source's second UUID", uid)
	}
	path := fmt.Sprintf("%sinvoices/%d", BasePath, inv)
	for _, c := range []struct{ method, path, body string }{
		{"PUT", path, `{"comment": "checked", "invUid": "11111111-1111-4111-8111-111111111111"}`},
		{"PUT", path, `{"status": "approved"}`},
		{"PUT", path + "/sync-status", `{"status": "waiting"}`},
		{"PUT", path + "/docs-delivery-status", `{"status": "sent"}`},
		{"GET", path, ""},
	} {
		if m := decode(t, e.do(t, admin, c.method, c.path, c.body), 200); m["invUid"] != uid {
			t.Errorf("%s %s %s: invUid %v, want %v", c.method, c.path, c.body, m["invUid"], uid)
		}
	}
	for _, q := range []string{"eq(invUid)=" + uid.(string), "invUid=" + uid.(string), "q=" + strings.ToUpper(uid.(string)[24:])} {
		data := decode(t, e.do(t, admin, "GET", BasePath+"invoices?"+q, ""), 200)["data"].([]any)
		if len(data) != 1 || id(data[0].(map[string]any)) != inv {
			t.Errorf("invoices?%s: %v, want invoice %d", q, data, inv)
		}
	}
	data := decode(t, e.do(t, admin, "GET", BasePath+"invoices?sort=-invUid", ""), 200)["data"].([]any)
	if len(data) != 2 || id(data[0].(map[string]any)) != inv {
		t.Errorf("sort=-invUid: %v, want invoice %d first", data, inv)
	}
	docs := decode(t, e.do(t, admin, "GET", BasePath+"finance-documents?eq(documentUuid)="+uid.(string), ""), 200)["data"].([]any)
	if len(docs) != 1 || docs[0].(map[string]any)["documentUuid"] != uid {
		t.Errorf("finance-documents by documentUuid: %v", docs)
	}
	rows := decode(t, e.do(t, admin, "GET", fmt.Sprintf("%sbalances/biz-partners/customers/%d/sheets", BasePath, custB), ""), 200)["data"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["documentUuId"] != uid {
		t.Errorf("sheet rows: %v, want the approved invoice's documentUuId %v", rows, uid)
	}
}
