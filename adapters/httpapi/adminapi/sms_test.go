package adminapi

import (
	"encoding/csv"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
)

const shopAccount = `{"username":"shop","password":"s3cret pass","tenant":"` + shop + `","networks":["192.0.2.0/24"],"currency":"EUR",
	"creditLimit":"20","validity":"6h","throughput":50,"maxParts":6,"blacklistedSenderWords":{"SI":["bank"]},
	"prices":[{"prefix":"386","price":"0.035"},{"prefix":"38640","price":"0.030","validTo":"2026-12-31"},{"prefix":"38640","price":"0.028","validFrom":"2027-01-01"}]}`

func TestSMSAccounts(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, "POST", "sms-accounts", shopAccount)
	m := want(t, w, 201)
	msgkittest.Golden(t, "testdata/sms_account_create.json", httpapitest.Answer(w))
	if strings.Contains(w.Body.String(), "$2a$") || m["balance"] != "0" {
		t.Errorf("created: %s", w.Body)
	}
	httpapitest.WantError(t, e.do(t, "POST", "sms-accounts", shopAccount), httpapi.Admin, 409, "account_exists")
	m = httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts", `{"username":"x","password":"p","currency":"EUR","prices":[{"prefix":"1","price":"1"},{"prefix":"1","price":"2"}]}`),
		httpapi.Admin, 400, sms.CodeAccountInvalid)
	if fs := m["fields"].([]any); fs[0].(map[string]any)["name"] != "prices[1]" {
		t.Errorf("overlapping prices: %v", m)
	}
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts", `{"username":"x","password":"p","currency":"EURO"}`), httpapi.Admin, 400, sms.CodeAccountInvalid)
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts", `{"username":"x","password":"p","currency":"EUR","validity":"forever"}`), httpapi.Admin, 400, sms.CodeAccountInvalid)
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts", `{"username":"x","password":"p","currency":"EUR","tenant":"nobody"}`), httpapi.Admin, 400, sms.CodeAccountInvalid)

	w = e.do(t, "PATCH", "sms-accounts/shop", `{"enabled":false,"throughput":10}`)
	if m := want(t, w, 200); m["enabled"] != false || m["throughput"] != float64(10) || m["maxParts"] != float64(6) {
		t.Errorf("suspended: %v", m)
	}
	m = want(t, e.do(t, "GET", "sms-accounts?enabled=false", ""), 200)
	if d := m["data"].([]any); len(d) != 1 {
		t.Errorf("suspended accounts: %v", m)
	}
	httpapitest.WantError(t, e.do(t, "GET", "sms-accounts/nobody", ""), httpapi.Admin, 404, sms.CodeAccountNotFound)
	httpapitest.WantError(t, e.do(t, "PATCH", "sms-accounts/nobody", `{"enabled":true}`), httpapi.Admin, 404, sms.CodeAccountNotFound)
	httpapitest.WantError(t, e.bad(t, "PATCH", "sms-accounts/shop", `{"currency":"USD"}`), httpapi.Admin, 400, httpapi.CodeInvalidJSON)
	m = want(t, e.do(t, "GET", "audit?resource=sms_account", ""), 200)
	if d := m["data"].([]any); len(d) != 2 || d[1].(map[string]any)["action"] != "suspend" {
		t.Errorf("the account's trail: %v", m)
	}
}

// The ledger: top-ups and adjustments change the balance, which is the
// sum of the entries; the floor holds; the export streams CSV; the
// reconciliation finds nothing to report.
func TestLedger(t *testing.T) {
	e := newEnv(t)
	want(t, e.do(t, "POST", "sms-accounts", shopAccount), 201)
	w := e.do(t, "POST", "sms-accounts/shop/ledger", `{"kind":"top_up","amount":"100.50","currency":"EUR","note":"invoice 2026-17"}`)
	m := want(t, w, 201)
	if m["balanceAfter"] != "100.5" || m["actor"] != "client:"+httpapitest.Operator {
		t.Errorf("top-up: %v", m)
	}
	want(t, e.do(t, "POST", "sms-accounts/shop/ledger", `{"kind":"adjustment","amount":-120,"currency":"EUR","note":"goodwill reversed"}`), 201)
	// 100.50 - 120 = -19.50: within the credit limit of 20; one more euro
	// is below the floor.
	httpapitest.WantError(t, e.do(t, "POST", "sms-accounts/shop/ledger", `{"kind":"adjustment","amount":"-1","currency":"EUR"}`), httpapi.Admin, 409, "below_credit_floor")
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts/shop/ledger", `{"kind":"top_up","amount":"-1","currency":"EUR"}`), httpapi.Admin, 400, sms.CodeLedgerInvalid)
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts/shop/ledger", `{"kind":"top_up","amount":"1","currency":"USD"}`), httpapi.Admin, 400, sms.CodeLedgerInvalid)
	httpapitest.WantError(t, e.bad(t, "POST", "sms-accounts/shop/ledger", `{"kind":"charge","amount":"1","currency":"EUR"}`), httpapi.Admin, 400, sms.CodeLedgerInvalid)
	httpapitest.WantError(t, e.do(t, "POST", "sms-accounts/nobody/ledger", `{"kind":"top_up","amount":"1","currency":"EUR"}`), httpapi.Admin, 404, sms.CodeAccountNotFound)
	want(t, e.do(t, "POST", "sms-accounts/shop/ledger", `{"kind":"top_up","amount":"5","currency":"EUR"}`), 201)
	if m := want(t, e.do(t, "GET", "sms-accounts/shop", ""), 200); m["balance"] != "-14.5" {
		t.Errorf("balance: %v", m["balance"])
	}
	w = e.do(t, "GET", "sms-accounts/shop/ledger?kind=top_up&sort=-id", "")
	m = want(t, w, 200)
	if d := m["data"].([]any); len(d) != 2 || d[0].(map[string]any)["amount"] != "5" {
		t.Errorf("top-ups, newest first: %v", m)
	}
	msgkittest.Golden(t, "testdata/ledger_list.json", httpapitest.Answer(w))
	sum := decimal.Zero
	for _, x := range want(t, e.do(t, "GET", "sms-accounts/shop/ledger", ""), 200)["data"].([]any) {
		sum = sum.Add(decimal.RequireFromString(x.(map[string]any)["amount"].(string)))
	}
	if sum.String() != "-14.5" {
		t.Errorf("the entries sum to %s", sum)
	}
	w = e.do(t, "GET", "sms-accounts/shop/ledger/export", "")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", w.Code, w.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(w.Body.String())).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][3] != "amount" || rows[1][7] != "invoice 2026-17" || rows[3][3] != "5" {
		t.Errorf("the CSV (export pages of 2): %q, %v", rows, err)
	}
	httpapitest.WantError(t, e.bad(t, "GET", "sms-accounts/shop/ledger/export?from=yesterday", ""), httpapi.Admin, 400, "invalid_query")
	httpapitest.WantError(t, e.do(t, "GET", "sms-accounts/nobody/ledger/export", ""), httpapi.Admin, 404, sms.CodeAccountNotFound)
	w = e.do(t, "GET", "reconciliation", "")
	if strings.TrimSpace(w.Body.String()) != `{"data":[]}` {
		t.Errorf("reconciliation: %s", w.Body)
	}
	m = want(t, e.do(t, "GET", "audit?resource=sms_account&action=top_up", ""), 200)
	if d := m["data"].([]any); len(d) != 2 {
		t.Errorf("the top-ups' trail: %v", m)
	}
}

// The trace finds an account's messages and shows one whole; receivers
// are masked unless the caller holds admin.trace.receivers, and a search
// names an account or an id.
func TestTrace(t *testing.T) {
	e := newEnv(t)
	want(t, e.do(t, "POST", "sms-accounts", shopAccount), 201)
	want(t, e.do(t, "POST", "sms-accounts/shop/ledger", `{"kind":"top_up","amount":"10","currency":"EUR"}`), 201)
	gw := sms.NewGateway(e.db.SMS(), sms.GatewayOptions{Clock: e.f.Clock.Now,
		NewID: func() sms.MessageID { return "00000000-0000-4000-8000-000000000001" }})
	acc, err := gw.Submit(t.Context(), sms.Submission{Type: "text", Username: "shop", Password: "s3cret pass", Sender: "Shop",
		Receiver: "38640123456", DCS: "gsm", Text: strings.Repeat("a", 200), ClientIP: netip.MustParseAddr("192.0.2.7")})
	if err != nil {
		t.Fatal(err)
	}
	// A support desk: messages, their receivers masked.
	if _, _, err := e.f.Auth.CreateClient(t.Context(), auth.ClientSpec{ID: "support", Secret: httpapitest.ClientSecret,
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, Privileges: []auth.Privilege{auth.PrivAdminTrace}}); err != nil {
		t.Fatal(err)
	}
	support := e.f.Token(t, "support")
	as := func(tok, target string) *httptest.ResponseRecorder {
		return httpapitest.Serve(e.h, httpapitest.Bearer(httptest.NewRequest("GET", BasePath+target, nil), tok))
	}
	w := as(support, "messages?account=shop")
	m := want(t, w, 200)
	d := m["data"].([]any)
	if len(d) != 1 || d[0].(map[string]any)["receiver"] != "+38640****56" || d[0].(map[string]any)["charged"] != "0.06" {
		t.Errorf("the account's messages, masked: %s", w.Body)
	}
	msgkittest.Golden(t, "testdata/messages_masked.json", httpapitest.Answer(w))
	httpapitest.WantError(t, as(support, "messages?receiver=%2B38640123456"), httpapi.Admin, 400, sms.CodeTraceUnbounded)
	httpapitest.WantError(t, as(support, "messages?account=shop&startswith(receiver)=%2B3864"), httpapi.Admin, 400, sms.CodeTraceReceiverMasked)
	if m := want(t, as(support, "messages?account=shop&receiver=%2B38640123456"), 200); len(m["data"].([]any)) != 1 {
		t.Errorf("a masked search by the whole number: %v", m)
	}
	w = as(support, "messages/"+string(acc.MsgID))
	m = want(t, w, 200)
	if parts := m["parts"].([]any); len(parts) != 2 || m["receiver"] != "+38640****56" || m["partPrice"] != "0.03" {
		t.Errorf("the trace: %s", w.Body)
	}
	httpapitest.WantError(t, as(support, "messages/no-such-message"), httpapi.Admin, 404, sms.CodeMessageNotFound)

	// The operator's client holds admin.trace.receivers: numbers whole,
	// searched any way.
	w = e.do(t, "GET", "messages?account=shop&startswith(receiver)=%2B3864", "")
	if m := want(t, w, 200); m["data"].([]any)[0].(map[string]any)["receiver"] != "+38640123456" {
		t.Errorf("receivers whole: %s", w.Body)
	}
}
