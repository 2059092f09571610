package adminapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/uiproxy"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
)

type env struct {
	f  *httpapitest.Fixture
	h  http.Handler
	op string // the operator's token
	db *memstore.DB
	// inbound takes messages from phones, as a network hands them over.
	inbound *inbound.Router
}

func newEnv(t *testing.T) *env {
	f := httpapitest.NewFixture(t)
	c := httpapitest.NewContract(t, OpenAPI())
	trail := audit.New(memstore.New().Audit(), audit.Options{Clock: f.Clock.Now})
	svc := auth.New(f.Store, auth.Options{BcryptCost: bcrypt.MinCost, Clock: f.Clock.Now, Audit: trail})
	db := memstore.New()
	proxy := uiproxy.NewProxy(db.UIProxy(), nil, uiproxy.Options{Audit: trail})
	tests := testsystem.New(db.TestSystem(), db.TestSystem(), nil, nil, testsystem.Options{Clock: f.Clock.Now, Limits: db.TestSystem(), Audit: trail})
	accounts := sms.NewAccounts(db.SMS(), sms.AccountsOptions{Clock: f.Clock.Now, BcryptCost: bcrypt.MinCost, Audit: trail})
	credit := sms.NewCredit(db.SMS(), sms.CreditOptions{Clock: f.Clock.Now, Audit: trail, ExportPage: 2})
	var ids atomic.Int64
	router := inbound.NewRouter(db.Inbound(), inbound.RouterOptions{Routes: routing.New(db.Routing()), Accounts: accounts, Clock: f.Clock.Now,
		NewID: func(time.Time) sms.MessageID { return sms.MessageID(fmt.Sprintf("mo-%04d", ids.Add(1))) }})
	b := Backend{Auth: svc, Audit: trail, Components: proxy, Tests: tests, Accounts: accounts, Credit: credit,
		Tracer: sms.NewTracer(db.SMS(), sms.TracerOptions{}), Inbound: router}
	return &env{f: f, h: c.Handler(t, Handler(f.Opts, b)), op: f.Token(t, httpapitest.Operator), db: db, inbound: router}
}

func (e *env) do(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, BasePath+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return httpapitest.Serve(e.h, httpapitest.Bearer(r, e.op))
}

// bad is do with a request the document does not allow.
func (e *env) bad(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, BasePath+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return httpapitest.Serve(e.h, httpapitest.SkipRequestCheck(httpapitest.Bearer(r, e.op)))
}

func want(t *testing.T, w *httptest.ResponseRecorder, status int) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("%d %s, want %d", w.Code, w.Body, status)
	}
	var m map[string]any
	if w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

const shop = "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"

func TestTenants(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, "POST", "tenants", `{"id":"6F1C2A4E-0B7D-4C1E-9A53-2D8E4F6A7B90","name":"Shop d.o.o."}`)
	want(t, w, 201)
	msgkittest.Golden(t, "testdata/tenant_create.json", httpapitest.Answer(w))
	httpapitest.WantError(t, e.do(t, "POST", "tenants", `{"id":"`+shop+`","name":"again"}`), httpapi.Admin, 409, "tenant_exists")
	m := httpapitest.WantError(t, e.bad(t, "POST", "tenants", `{"name":""}`), httpapi.Admin, 400, auth.CodeTenantInvalid)
	if fs := m["fields"].([]any); len(fs) != 1 || fs[0].(map[string]any)["name"] != "name" {
		t.Errorf("fields = %v", m["fields"])
	}
	m = httpapitest.WantError(t, e.bad(t, "PATCH", "tenants/"+shop, `{"suspend":true}`), httpapi.Admin, 400, httpapi.CodeInvalidJSON)
	if !strings.Contains(m["message"].(string), "suspend") {
		t.Errorf("an unknown member is not named: %v", m)
	}
	w = e.do(t, "PATCH", "tenants/"+shop, `{"suspended":true}`)
	if m := want(t, w, 200); m["suspended"] != true || m["name"] != "Shop d.o.o." {
		t.Errorf("suspended: %v", m)
	}
	msgkittest.Golden(t, "testdata/tenant_suspend.json", httpapitest.Answer(w))
	httpapitest.WantError(t, e.do(t, "GET", "tenants/not-a-uuid", ""), httpapi.Admin, 404, auth.CodeTenantNotFound)
	httpapitest.WantError(t, e.do(t, "PATCH", "tenants/"+string(httpapitest.TenantB), `{"suspended":false}`), httpapi.Admin, 404, auth.CodeTenantNotFound)

	// The fixture's clients registered tenant A; the listing filters,
	// sorts and pages.
	w = e.do(t, "GET", "tenants?suspended=true", "")
	if m := want(t, w, 200); len(m["data"].([]any)) != 1 {
		t.Errorf("suspended tenants: %v", m)
	}
	msgkittest.Golden(t, "testdata/tenant_list.json", httpapitest.Answer(w))
	m = want(t, e.do(t, "GET", "tenants?sort=name&page_size=1&page_number=2", ""), 200)
	if d := m["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != shop {
		t.Errorf("second by name: %v", m)
	}
	m = httpapitest.WantError(t, e.bad(t, "GET", "tenants?sort=secret", ""), httpapi.Admin, 400, "invalid_query")
	if fs := m["fields"].([]any); len(fs) != 1 || fs[0].(map[string]any)["name"] != "sort" {
		t.Errorf("fields = %v", m["fields"])
	}
	httpapitest.WantError(t, e.bad(t, "GET", "tenants?page_size=101", ""), httpapi.Admin, 400, "invalid_query")
	httpapitest.WantError(t, e.bad(t, "GET", "tenants/"+shop+"?x=1", ""), httpapi.Admin, 400, "invalid_query")
}

// A client's secret is answered once; changes, rotation and revocation
// end its tokens at once.
func TestClients(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	from := netip.MustParseAddr("192.0.2.7")
	w := e.do(t, "POST", "clients", `{"id":"crm","name":"CRM","networks":["192.0.2.7","10.1.2.0/24"],"services":["`+shop+`"],"privileges":["news"]}`)
	m := want(t, w, 201)
	secret, _ := m["secret"].(string)
	if len(secret) < 40 {
		t.Fatalf("no generated secret: %v", m)
	}
	golden := strings.Replace(string(httpapitest.Answer(w)), secret, "<secret>", 1)
	msgkittest.Golden(t, "testdata/client_create.json", []byte(golden))
	if m := want(t, e.do(t, "GET", "clients/crm", ""), 200); m["secret"] != nil {
		t.Errorf("a read shows the secret: %v", m)
	}
	if m := want(t, e.do(t, "GET", "tenants/"+shop, ""), 200); m["name"] != shop {
		t.Errorf("the client's tenant is registered, named by its id: %v", m)
	}
	tok, err := e.f.Auth.ClientCredentials(ctx, "crm", secret, from)
	if err != nil {
		t.Fatal(err)
	}
	w = e.do(t, "PATCH", "clients/crm", `{"privileges":["news","ui-components"],"name":null}`)
	if m := want(t, w, 200); m["name"] != "CRM" || len(m["privileges"].([]any)) != 2 {
		t.Errorf("changed: %v", m)
	}
	if _, err := e.f.Auth.Verify(ctx, tok.AccessToken); err == nil {
		t.Error("a token outlives its client's change")
	}
	httpapitest.WantError(t, e.bad(t, "PATCH", "clients/crm", `{"privileges":["root"]}`), httpapi.Admin, 400, auth.CodeInvalidRequest)
	httpapitest.WantError(t, e.bad(t, "PATCH", "clients/crm", `{"networks":["300.1.2.3"]}`), httpapi.Admin, 400, auth.CodeInvalidRequest)
	httpapitest.WantError(t, e.do(t, "POST", "clients", `{"id":"crm","networks":["192.0.2.7"]}`), httpapi.Admin, 409, "client_exists")
	httpapitest.WantError(t, e.bad(t, "POST", "clients", `{"id":"x","networks":[]}`), httpapi.Admin, 400, auth.CodeInvalidRequest)

	r := httptest.NewRequest("POST", BasePath+"clients/crm/secret", nil)
	r.Header.Set("Idempotency-Key", "rotate-1")
	httpapitest.WantError(t, httpapitest.Serve(e.h, httpapitest.Bearer(r, e.op)), httpapi.Admin, 400, httpapi.CodeIdempotencyKeyRefused)
	m = want(t, e.do(t, "POST", "clients/crm/secret", ""), 200)
	fresh, _ := m["secret"].(string)
	if fresh == "" || fresh == secret {
		t.Fatalf("rotated: %v", m)
	}
	if _, err := e.f.Auth.ClientCredentials(ctx, "crm", secret, from); err == nil {
		t.Error("the old secret still works")
	}
	tok, err = e.f.Auth.ClientCredentials(ctx, "crm", fresh, from)
	if err != nil {
		t.Fatal(err)
	}
	m = want(t, e.do(t, "GET", "clients?q=cr&sort=-createdAt", ""), 200)
	if d := m["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != "crm" {
		t.Errorf("clients like cr: %v", m)
	}
	w = e.do(t, "DELETE", "clients/crm", "")
	want(t, w, 204)
	if _, err := e.f.Auth.Verify(ctx, tok.AccessToken); err == nil {
		t.Error("a revoked client's token works")
	}
	httpapitest.WantError(t, e.do(t, "DELETE", "clients/crm", ""), httpapi.Admin, 404, auth.CodeClientNotFound)
	httpapitest.WantError(t, e.do(t, "POST", "clients/crm/secret", ""), httpapi.Admin, 404, auth.CodeClientNotFound)
}

func TestUsersAndKeys(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, "POST", "users", `{"username":"route-tester","password":"first pass","services":["`+shop+`"],"privileges":["testsystem"]}`)
	if m := want(t, w, 201); m["password"] != nil || m["username"] != "route-tester" {
		t.Errorf("created: %v", m)
	}
	msgkittest.Golden(t, "testdata/user_create.json", httpapitest.Answer(w))
	httpapitest.WantError(t, e.do(t, "POST", "users", `{"username":"route-tester","password":"x"}`), httpapi.Admin, 409, "user_exists")
	httpapitest.WantError(t, e.bad(t, "POST", "users", `{"username":"","password":"x"}`), httpapi.Admin, 400, auth.CodeInvalidRequest)
	tok, err := e.f.Auth.Password(t.Context(), "route-tester", "first pass")
	if err != nil {
		t.Fatal(err)
	}
	want(t, e.do(t, "PATCH", "users/route-tester", `{"password":"second pass"}`), 200)
	if _, err := e.f.Auth.Verify(t.Context(), tok.AccessToken); err == nil {
		t.Error("a token outlives the password's change")
	}
	m := want(t, e.do(t, "GET", "users?username=route-tester", ""), 200)
	if d := m["data"].([]any); len(d) != 1 {
		t.Errorf("users: %v", m)
	}
	want(t, e.do(t, "DELETE", "users/route-tester", ""), 204)
	httpapitest.WantError(t, e.do(t, "GET", "users/route-tester", ""), httpapi.Admin, 404, auth.CodeUserNotFound)

	m = want(t, e.do(t, "POST", "api-keys", `{"name":"provisioning"}`), 201)
	key, _ := m["key"].(string)
	id, _ := m["id"].(string)
	if len(key) < 40 || id == "" {
		t.Fatalf("created key: %v", m)
	}
	if _, err := e.f.Auth.VerifyAPIKey(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	m = want(t, e.do(t, "POST", "api-keys", `{"name":"given","key":"a-key-the-operator-chose"}`), 201)
	if m["key"] != nil {
		t.Errorf("a given key is answered: %v", m)
	}
	httpapitest.WantError(t, e.bad(t, "POST", "api-keys", `{"name":"short","key":"short"}`), httpapi.Admin, 400, auth.CodeInvalidRequest)
	w = e.do(t, "GET", "api-keys?sort=name", "")
	if m := want(t, w, 200); len(m["data"].([]any)) != 3 || strings.Contains(w.Body.String(), key) {
		t.Errorf("keys: %s", w.Body)
	}
	want(t, e.do(t, "DELETE", "api-keys/"+id, ""), 204)
	if _, err := e.f.Auth.VerifyAPIKey(t.Context(), key); err == nil {
		t.Error("a revoked key works")
	}
	httpapitest.WantError(t, e.do(t, "DELETE", "api-keys/"+id, ""), httpapi.Admin, 404, auth.CodeAPIKeyNotFound)
}

// Every change is in the trail with who made it and from where, and no
// secret or hash of one is.
func TestAuditTrail(t *testing.T) {
	e := newEnv(t)
	secret := want(t, e.do(t, "POST", "clients", `{"id":"crm","networks":["192.0.2.7"],"services":["`+shop+`"],"privileges":["news"]}`), 201)["secret"].(string)
	fresh := want(t, e.do(t, "POST", "clients/crm/secret", ""), 200)["secret"].(string)
	want(t, e.do(t, "PATCH", "tenants/"+shop, `{"suspended":true}`), 200)
	want(t, e.do(t, "POST", "users", `{"username":"u","password":"a password"}`), 201)
	want(t, e.do(t, "PATCH", "users/u", `{"password":"another"}`), 200)
	key := want(t, e.do(t, "POST", "api-keys", `{"name":"k"}`), 201)["key"].(string)
	want(t, e.do(t, "DELETE", "clients/crm", ""), 204)

	w := e.do(t, "GET", "audit", "")
	body := w.Body.String()
	for _, s := range []string{secret, fresh, key, "a password", "another", "$2a$"} {
		if strings.Contains(body, s) {
			t.Errorf("the trail holds a secret or its hash (%.8s…): %s", s, body)
		}
	}
	var page struct {
		Data []struct {
			ActorKind, Actor, From, Action, Resource, ResourceID string
			Before, After                                        json.RawMessage
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Data {
		got = append(got, e.Action+" "+e.Resource+" "+e.ResourceID)
		if e.ActorKind != "client" || e.Actor != httpapitest.Operator || e.From != "192.0.2.1" {
			t.Errorf("who: %s %s from %s", e.ActorKind, e.Actor, e.From)
		}
	}
	wantActions := []string{"create client crm", "rotate_secret client crm", "suspend tenant " + shop, "create user u", "update user u", "create api_key " + page.Data[5].ResourceID, "delete client crm"}
	if strings.Join(got, "\n") != strings.Join(wantActions, "\n") {
		t.Errorf("trail:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantActions, "\n"))
	}
	if !strings.Contains(string(page.Data[2].Before), `"suspended":false`) || !strings.Contains(string(page.Data[2].After), `"suspended":true`) {
		t.Errorf("the suspension's before and after: %s %s", page.Data[2].Before, page.Data[2].After)
	}
	if string(page.Data[6].After) != "null" || !strings.Contains(string(page.Data[6].Before), `"privileges":["news"]`) {
		t.Errorf("the revocation's before and after: %s %s", page.Data[6].Before, page.Data[6].After)
	}
	m := want(t, e.do(t, "GET", "audit?resource=user&sort=-id", ""), 200)
	if d := m["data"].([]any); len(d) != 2 || d[0].(map[string]any)["action"] != "update" {
		t.Errorf("the user's trail, newest first: %v", m)
	}
	msgkittest.Golden(t, "testdata/audit_user.json", httpapitest.Answer(e.do(t, "GET", "audit?resource=user", "")))
}

// A component's address, token and fixed values are written, never read
// back, nor put in the trail.
func TestComponents(t *testing.T) {
	e := newEnv(t)
	const grid = `{"type":"grid","service":"` + shop + `","url":"https://api.customer.example/{referenceId}/invoices?t={tenant}",
		"fixed":{"tenant":"acme-secret-tenant"},"tokenHeader":"X-Token","token":"customer-secret-token","timeout":"3s","cacheTTL":"30s",
		"columns":[{"name":"id","kind":"number","filterable":true,"sortable":true},{"name":"total","kind":"number"}]}`
	w := e.do(t, "PUT", "ui-components/invoices", grid)
	want(t, w, 200)
	msgkittest.Golden(t, "testdata/component_put.json", httpapitest.Answer(w))
	want(t, e.do(t, "PUT", "ui-components/balance", `{"type":"KPI","service":"`+shop+`","url":"https://api.customer.example/kpi/{referenceId}","token":"t2"}`), 200)
	for _, path := range []string{"ui-components/invoices", "ui-components", "ui-components?service=" + shop, "audit"} {
		body := e.do(t, "GET", path, "").Body.String()
		for _, secret := range []string{"api.customer.example", "customer-secret-token", "acme-secret-tenant"} {
			if strings.Contains(body, secret) {
				t.Errorf("GET %s reads back %s: %s", path, secret, body)
			}
		}
	}
	m := want(t, e.do(t, "GET", "ui-components?type=KPI", ""), 200)
	if d := m["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != "balance" {
		t.Errorf("KPIs: %v", m)
	}
	m = httpapitest.WantError(t, e.bad(t, "PUT", "ui-components/x", `{"type":"grid","url":"https://a.example/","timeout":"soon","columns":[{"name":"id","kind":"number"}]}`), httpapi.Admin, 400, uiproxy.CodeInvalidComponent)
	if fs := m["fields"].([]any); len(fs) != 1 || fs[0].(map[string]any)["name"] != "timeout" {
		t.Errorf("a bad timeout: %v", m)
	}
	httpapitest.WantError(t, e.bad(t, "PUT", "ui-components/x", `{"type":"grid","url":"ftp://a.example/"}`), httpapi.Admin, 400, uiproxy.CodeInvalidComponent)
	httpapitest.WantError(t, e.bad(t, "PUT", "ui-components/x", `{"type":"grid","url":"https://a.example/","colour":"red"}`), httpapi.Admin, 400, httpapi.CodeInvalidJSON)
	want(t, e.do(t, "DELETE", "ui-components/balance", ""), 204)
	httpapitest.WantError(t, e.do(t, "GET", "ui-components/balance", ""), httpapi.Admin, 404, "component_not_found")
	httpapitest.WantError(t, e.do(t, "DELETE", "ui-components/balance", ""), httpapi.Admin, 404, "component_not_found")
	m = want(t, e.do(t, "GET", "audit?resource=ui_component", ""), 200)
	if d := m["data"].([]any); len(d) != 3 {
		t.Errorf("the components' trail: %v", m)
	}
}

func TestDailyLimits(t *testing.T) {
	e := newEnv(t)
	w := e.do(t, "PUT", "daily-limits/route-tester", `{"dailyLimit":500}`)
	want(t, w, 200)
	msgkittest.Golden(t, "testdata/daily_limit_put.json", httpapitest.Answer(w))
	want(t, e.do(t, "PUT", "daily-limits/night-shift", `{"dailyLimit":0}`), 200)
	want(t, e.do(t, "PUT", "daily-limits/route-tester", `{"dailyLimit":400}`), 200)
	m := want(t, e.do(t, "GET", "daily-limits?gte(dailyLimit)=1", ""), 200)
	if d := m["data"].([]any); len(d) != 1 || d[0].(map[string]any)["dailyLimit"] != float64(400) {
		t.Errorf("limits of at least 1: %v", m)
	}
	httpapitest.WantError(t, e.bad(t, "PUT", "daily-limits/x", `{"dailyLimit":-1}`), httpapi.Admin, 400, testsystem.CodeInvalidLimit)
	httpapitest.WantError(t, e.bad(t, "PUT", "daily-limits/x", `{}`), httpapi.Admin, 400, testsystem.CodeInvalidLimit)
	httpapitest.WantError(t, e.bad(t, "PUT", "daily-limits/x", `{"dailyLimit":"many"}`), httpapi.Admin, 400, httpapi.CodeInvalidJSON)
	want(t, e.do(t, "DELETE", "daily-limits/route-tester", ""), 204)
	httpapitest.WantError(t, e.do(t, "DELETE", "daily-limits/route-tester", ""), httpapi.Admin, 404, "daily_limit_not_found")
	m = want(t, e.do(t, "GET", "audit?resource=daily_limit", ""), 200)
	var got []string
	for _, x := range m["data"].([]any) {
		got = append(got, x.(map[string]any)["action"].(string))
	}
	if strings.Join(got, " ") != "create create update delete" {
		t.Errorf("the limits' trail: %v", got)
	}
}
