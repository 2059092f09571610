package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/adminapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/prometheus/client_golang/prometheus"
)

// operatorToken is a token of an operator's client: every admin
// privilege, no tenant.
func (w *walkWorld) operatorToken() string {
	w.t.Helper()
	if _, ok := w.tokens["walk-operator"]; !ok {
		_, _, err := w.authSvc.CreateClient(context.Background(), auth.ClientSpec{ID: "walk-operator", Secret: walkSecret,
			Networks: mustPrefixes(w.t, "192.0.2.0/24"), Privileges: auth.AdminPrivileges()})
		if err != nil && msgkit.KindOf(err) != msgkit.Conflict {
			w.t.Fatal(err)
		}
	}
	return w.token("walk-operator", false)
}

// A suspended tenant's clients and users are refused on every route of
// every family that authenticates them, in the family's error body, from
// their next request; its records stay, and resuming lets them in to the
// same answers.
func TestSuspendedTenant(t *testing.T) {
	t.Parallel()
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			w := newWalkWorld(t, cfg(t))
			probes := walkProbes(t)
			routes := w.routes()
			before := w.snapshot(routes, probes)
			op := "Authorization: Bearer " + w.operatorToken()
			suspend := func(yes bool) {
				t.Helper()
				body := `{"suspended":false}`
				if yes {
					body = `{"suspended":true}`
				}
				if res := w.do(w.api, "PATCH", "/admin/v1/tenants/"+string(walkTenantA), "application/json", body, op); res.Code != 200 {
					t.Fatalf("suspend %v: %d %s", yes, res.Code, res.Body)
				}
			}
			suspend(true)
			n := 0
			for _, r := range routes {
				p, _ := probeOf(probes, r)
				if r.spec.Auth != httpapi.AuthBearer || r.spec.Family == httpapi.OAuth {
					continue
				}
				_, res := w.callRecorded(r, p, w.a, walkTenantA, w.credentialsOf(r, false))
				if res == nil {
					continue
				}
				n++
				httpapitest.WantError(t, res, r.spec.Family, http.StatusForbidden, auth.CodeTenantSuspended)
			}
			if n < 80 {
				t.Fatalf("%d routes tried: too few to be every family's", n)
			}
			suspend(false)
			w.compare(t, before, w.snapshot(routes, probes), "after the suspension")
		})
	}
}

// Every operation of the administration on both stores, each request and
// answer held to the family's OpenAPI document: an operator's first day
// (a tenant, a client whose token works at once, a user, an API key) and
// the changes that end credentials.
func TestAdministration(t *testing.T) {
	t.Parallel()
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			w := newWalkWorld(t, cfg(t))
			h := httpapitest.NewContract(t, adminapi.OpenAPI()).Handler(t, w.api)
			op := "Authorization: Bearer " + w.operatorToken()
			call := func(method, path, body string, status int) map[string]any {
				t.Helper()
				res := w.do(h, method, "/admin/v1/"+path, "application/json", body, op)
				if res.Code != status {
					t.Fatalf("%s %s: %d %s, want %d", method, path, res.Code, res.Body, status)
				}
				var m map[string]any
				_ = json.Unmarshal(res.Body.Bytes(), &m)
				return m
			}
			tenant := str(call("POST", "tenants", `{"name":"Bakery"}`, 201), "id")
			if m := call("GET", "tenants?q=bak", "", 200); len(m["data"].([]any)) != 1 {
				t.Errorf("tenants like bak: %v", m)
			}
			c := call("POST", "clients", `{"id":"bakery-crm","name":"Bakery CRM","networks":["192.0.2.0/24"],"services":["`+tenant+`"],"privileges":["news"]}`, 201)
			secret := str(c, "secret")
			token := func(secret string) (int, string) {
				form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"bakery-crm"}, "client_secret": {secret}}
				res := w.do(w.api, "POST", httpapi.TokenPath, "application/x-www-form-urlencoded", form.Encode(), "")
				var out struct {
					AccessToken string `json:"access_token"`
				}
				_ = json.Unmarshal(res.Body.Bytes(), &out)
				return res.Code, out.AccessToken
			}
			lists := func(tok string) int {
				return w.do(w.api, "GET", "/news/v1/services/"+tenant+"/cds/lists", "", "", "Authorization: Bearer "+tok).Code
			}
			code, tok := token(secret)
			if code != 200 || lists(tok) != 200 {
				t.Fatalf("the new client's token: %d, lists %d", code, lists(tok))
			}
			call("GET", "clients/bakery-crm", "", 200)
			call("GET", "clients?sort=-createdAt&page_size=2", "", 200)
			call("PATCH", "clients/bakery-crm", `{"privileges":["ui-components"]}`, 200)
			if got := lists(tok); got != http.StatusUnauthorized {
				t.Errorf("a changed client's old token: %d, want 401", got)
			}
			_, tok = token(secret)
			if got := lists(tok); got != http.StatusForbidden {
				t.Errorf("a client without news: %d, want 403", got)
			}
			call("PATCH", "clients/bakery-crm", `{"privileges":["news"]}`, 200)
			fresh := str(call("POST", "clients/bakery-crm/secret", "", 200), "secret")
			if code, _ := token(secret); code != http.StatusUnauthorized {
				t.Errorf("the rotated-out secret: %d, want 401", code)
			}
			code, tok = token(fresh)
			if code != 200 || lists(tok) != 200 {
				t.Fatalf("the rotated secret: %d", code)
			}
			call("PATCH", "tenants/"+tenant, `{"suspended":true}`, 200)
			if got := lists(tok); got != http.StatusForbidden {
				t.Errorf("a suspended tenant's client: %d, want 403", got)
			}
			call("PATCH", "tenants/"+tenant, `{"suspended":false,"name":"Bakery d.o.o."}`, 200)
			call("GET", "tenants/"+tenant, "", 200)
			call("DELETE", "clients/bakery-crm", "", 204)
			if got := lists(tok); got != http.StatusUnauthorized {
				t.Errorf("a revoked client's token: %d, want 401", got)
			}

			call("POST", "users", `{"username":"bakery-tester","password":"first pass","services":["`+tenant+`"],"privileges":["testsystem"]}`, 201)
			call("GET", "users/bakery-tester", "", 200)
			call("GET", "users?username=bakery-tester", "", 200)
			call("PATCH", "users/bakery-tester", `{"password":"second pass"}`, 200)
			form := url.Values{"grant_type": {"password"}, "username": {"bakery-tester"}, "password": {"second pass"}}
			if res := w.do(w.api, "POST", httpapi.TokenPath, "application/x-www-form-urlencoded", form.Encode(), ""); res.Code != 200 {
				t.Errorf("the changed password: %d %s", res.Code, res.Body)
			}
			call("DELETE", "users/bakery-tester", "", 204)

			k := call("POST", "api-keys", `{"name":"bakery routing"}`, 201)
			routingList := func() int {
				return w.do(w.api, "GET", "/smsmtinbound/v1/smsmtin-routes", "", "", "X-API-Key: "+str(k, "key")).Code
			}
			if got := routingList(); got != 200 {
				t.Errorf("the new API key: %d", got)
			}
			if m := call("GET", "api-keys?name=bakery+routing", "", 200); len(m["data"].([]any)) != 1 || strings.Contains(str(m, "data"), str(k, "key")) {
				t.Errorf("keys: %v", m)
			}
			call("DELETE", "api-keys/"+str(k, "id"), "", 204)
			if got := routingList(); got != http.StatusUnauthorized {
				t.Errorf("a revoked API key: %d, want 401", got)
			}

			// The trail of the client's life, on this store.
			m := call("GET", "audit?resource=client&resourceId=bakery-crm", "", 200)
			var got []string
			for _, e := range m["data"].([]any) {
				e := e.(map[string]any)
				got = append(got, str(e, "action"))
				if str(e, "actor") != "walk-operator" || str(e, "from") != "192.0.2.10" || str(e, "actorKind") != "client" {
					t.Errorf("who: %v", e)
				}
			}
			if want := "create update update rotate_secret delete"; strings.Join(got, " ") != want {
				t.Errorf("the client's trail: %v, want %s", got, want)
			}
		})
	}
}

// The bootstrap file goes through the same services as the API, and
// applying it again creates nothing and changes no credential: the audit
// trail, which records every change of those, has no entry more.
func TestBootstrapTwice(t *testing.T) {
	t.Parallel()
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			c := cfg(t)
			c.demo = false
			env := map[string]string{"CRM_CLIENT_SECRET": "crm-secret", "ROUTING_API_KEY": "routing-key-0001", "SHOP_SMS_PASSWORD": "shop-pw",
				"FINANCE_CLIENT_SECRET": "finance-secret", "OPS_CLIENT_SECRET": "ops-secret"}
			ctx := t.Context()
			st, err := openStores(ctx, c, nil, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.close)
			p := newPlatform(st, c, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
			first, err := p.bootstrap(ctx, "bootstrap.example.json", func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			trail, err := st.audit.Entries(ctx, msgkit.ListQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if trail.Total < 5 {
				t.Fatalf("the first application left %d entries in the trail, want the tenant, clients, user and key", trail.Total)
			}
			if _, err := p.bootstrap(ctx, "bootstrap.example.json", func(k string) string { return env[k] }); err != nil {
				t.Fatal(err)
			}
			again, err := st.audit.Entries(ctx, msgkit.ListQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if again.Total != trail.Total || first == 0 {
				t.Errorf("a second application: %d entries in the trail after %d (first created %d)", again.Total, trail.Total, first)
			}
		})
	}
}

// The rest of the administration on both stores, each request and answer
// held to the family's document: accounts, their credit (a top-up, the
// ledger, its export, the reconciliation), the message trace, UI
// components, test system users' limits, the trail.
func TestAdministrationAccounts(t *testing.T) {
	t.Parallel()
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			w := newWalkWorld(t, cfg(t))
			h := httpapitest.NewContract(t, adminapi.OpenAPI()).Handler(t, w.api)
			op := "Authorization: Bearer " + w.operatorToken()
			call := func(method, path, body string, status int) string {
				t.Helper()
				res := w.do(h, method, "/admin/v1/"+path, "application/json", body, op)
				if res.Code != status {
					t.Fatalf("%s %s: %d %s, want %d", method, path, res.Code, res.Body, status)
				}
				return res.Body.String()
			}
			call("POST", "sms-accounts", `{"username":"bakery","password":"bakery-pw","tenant":"`+string(walkTenantA)+`","networks":["192.0.2.0/24"],
				"currency":"EUR","creditLimit":"5","prices":[{"prefix":"386","price":"0.05","validTo":"2099-12-31"}]}`, 201)
			call("GET", "sms-accounts?tenant="+string(walkTenantA)+"&sort=-createdAt", "", 200)
			call("PATCH", "sms-accounts/bakery", `{"throughput":5,"maxParts":3,"validity":"2h","blacklistedSenderWords":{"SI":["bank"]}}`, 200)
			call("POST", "sms-accounts/bakery/ledger", `{"kind":"top_up","amount":"10","currency":"EUR","note":"first"}`, 201)
			res := w.do(w.sms, "POST", "/bulk/sendsms", "application/json",
				`{"type":"text","auth":{"username":"bakery","password":"bakery-pw"},"sender":"Bakery","receiver":"38640123456","text":"Fresh bread"}`, "")
			if res.Code != http.StatusAccepted {
				t.Fatalf("the account's submission: %d %s", res.Code, res.Body)
			}
			var sent struct {
				MsgID string `json:"msgId"`
			}
			if err := json.Unmarshal(res.Body.Bytes(), &sent); err != nil {
				t.Fatal(err)
			}
			if got := call("GET", "messages?account=bakery&gte(submittedAt)=2000-01-01T00:00:00Z", "", 200); !strings.Contains(got, sent.MsgID) {
				t.Errorf("the account's messages: %s", got)
			}
			if got := call("GET", "messages/"+sent.MsgID, "", 200); !strings.Contains(got, `"partPrice":"0.05"`) {
				t.Errorf("the message's trace: %s", got)
			}
			call("GET", "messages/no-such-message", "", 404)
			call("POST", "sms-accounts/bakery/ledger", `{"kind":"adjustment","amount":"-14.95","currency":"EUR","note":"down to the floor"}`, 201)
			if got := call("GET", "sms-accounts/bakery", "", 200); !strings.Contains(got, `"balance":"-5"`) {
				t.Errorf("the balance at the floor: %s", got)
			}
			call("POST", "sms-accounts/bakery/ledger", `{"kind":"adjustment","amount":"-0.01","currency":"EUR"}`, 409)
			if got := call("GET", "sms-accounts/bakery/ledger?sort=at", "", 200); !strings.Contains(got, `"kind":"charge","amount":"-0.05"`) {
				t.Errorf("the ledger lacks the charge: %s", got)
			}
			if res := w.do(w.api, "GET", "/admin/v1/sms-accounts/bakery/ledger/export", "", "", op); res.Code != 200 || strings.Count(res.Body.String(), "\n") != 4 {
				t.Errorf("the export: %d %q", res.Code, res.Body)
			}
			if got := call("GET", "reconciliation", "", 200); got != "{\"data\":[]}\n" {
				t.Errorf("the reconciliation: %q", got)
			}
			call("PATCH", "sms-accounts/bakery", `{"enabled":false}`, 200)
			call("PUT", "ui-components/bakery-kpi", `{"type":"KPI","service":"`+string(walkTenantA)+`","url":"https://customer.example/kpi/{referenceId}","token":"t"}`, 200)
			call("GET", "ui-components/bakery-kpi", "", 200)
			call("GET", "ui-components?type=KPI", "", 200)
			call("DELETE", "ui-components/bakery-kpi", "", 204)
			call("PUT", "daily-limits/walk-ts-a", `{"dailyLimit":3}`, 200)
			call("GET", "daily-limits", "", 200)
			call("DELETE", "daily-limits/walk-ts-a", "", 204)
			trail := call("GET", "audit?actor=walk-operator&sort=id", "", 200)
			for _, want := range []string{`"action":"create","resource":"sms_account"`, `"action":"top_up"`, `"action":"adjustment"`, `"action":"suspend","resource":"sms_account"`,
				`"resource":"ui_component"`, `"resource":"daily_limit"`} {
				if !strings.Contains(trail, want) {
					t.Errorf("the trail lacks %s: %s", want, trail)
				}
			}
		})
	}
}
