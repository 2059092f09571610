package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/uiproxyapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/prometheus/client_golang/prometheus"
)

// The platform walk: a server assembled as examples/server assembles it,
// on either store, with two tenants, A holding one of every resource and
// B holding credentials of every kind. Tests walk every route of every
// family's route table (each mounted handler is httpapi.Operations), so a
// route added later is walked too, or the walk fails for want of a probe.

// The tenants of the walk.
const (
	walkTenantA msgkit.ServiceUUID = "0a0a0a0a-1111-4aaa-8aaa-00000000000a"
	walkTenantB msgkit.ServiceUUID = "0b0b0b0b-2222-4bbb-8bbb-00000000000b"
	// walkMarker is in the names of A's records: no answer to B may hold it.
	walkMarker = "Zq7tenantA"
	walkSecret = "walk-secret-0123456789"
	walkAPIKey = "walk-routing-key-0123456789abcdef"
	walkRemote = "192.0.2.10:4321"
)

// ids name records by the path wildcard that takes them: "listId", or
// "gate/{id}" where the wildcard's name alone is ambiguous.
type ids map[string]string

// walkWorld is the platform under walk and what the walk needs of it.
type walkWorld struct {
	t        *testing.T
	st       stores
	plat     platform
	api, sms http.Handler
	authSvc  *auth.Service
	a        ids // A's records
	unknown  ids // ids no record has
	tokens   map[string]string
}

// walkStores are the stores the walks run on.
func walkStores(t *testing.T) map[string]func(t *testing.T) config {
	return map[string]func(t *testing.T) config{
		"memory": func(t *testing.T) config { return parse(t) },
		"postgres": func(t *testing.T) config {
			c := pgConfig(t)
			return c
		},
	}
}

// newWalkWorld assembles the platform on cfg's store, bootstraps the two
// tenants' credentials and makes A's records through the API.
func newWalkWorld(t *testing.T, cfg config) *walkWorld {
	t.Helper()
	ctx := context.Background()
	customer := httptest.NewServer(uiproxyapi.MockHandler(httpapi.Options{}))
	t.Cleanup(customer.Close)
	cfg.demo, cfg.bcryptCost = false, bcrypt.MinCost
	cfg.getenv = func(string) string { return "" }
	cfg.dlr.Allow = append(cfg.dlr.Allow, mustPrefixes(t, "127.0.0.0/8", "::1/128")...)
	logger := slog.New(slog.DiscardHandler)
	st, err := openStores(ctx, cfg, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.close)
	p := newPlatform(st, cfg, prometheus.NewRegistry(), logger)
	w := &walkWorld{t: t, st: st, plat: p, api: p.apiHandler(), sms: p.smsHandler(),
		authSvc: auth.New(st.auth, auth.Options{BcryptCost: bcrypt.MinCost}), tokens: map[string]string{}}
	path := filepath.Join(t.TempDir(), "bootstrap.json")
	if err := os.WriteFile(path, []byte(walkBootstrap(customer.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := p.bootstrap(ctx, path, cfg.getenv); err != nil {
		t.Fatal(err)
	}
	w.seed(ctx)
	return w
}

func mustPrefixes(t *testing.T, ss ...string) []netip.Prefix {
	t.Helper()
	out := make([]netip.Prefix, 0, len(ss))
	for _, s := range ss {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// walkBootstrap is the bootstrap file of the walk: A's all-privileged
// client, B's clients (the CDS and UI one; finance with its own partners
// only and every manage privilege), a test system user of each, the
// routing key, a bulk SMS account of each, and UI components of each
// over the customer API at customerURL.
func walkBootstrap(customerURL string) string {
	all := make([]string, 0, len(auth.Privileges()))
	for _, p := range auth.Privileges() {
		all = append(all, string(p))
	}
	privs, _ := json.Marshal(all)
	comp := func(id string, svc msgkit.ServiceUUID, typ string) string {
		cols := `,"columns":[{"name":"id","kind":"number"},{"name":"url","kind":"string"},{"name":"invoiceDate","kind":"date"},{"name":"invoiceDateTime","kind":"datetime"}]`
		path := "grid"
		if typ == "KPI" {
			cols, path = "", "kpi"
		}
		return fmt.Sprintf(`{"id":%q,"type":%q,"service":%q,"url":"%s/ui/v1/mock/%s/{componentId}?reference_id={referenceId}","token":"customer-token"%s}`,
			id, typ, svc, customerURL, path, cols)
	}
	return fmt.Sprintf(`{
  "clients": [
    {"id":"walk-a","secret":%[1]q,"networks":["192.0.2.0/24"],"services":[%[2]q],"privileges":%[3]s},
    {"id":"walk-b","secret":%[1]q,"networks":["192.0.2.0/24"],"services":[%[4]q],"privileges":["news","ui-components"]},
    {"id":"walk-b-finance","secret":%[1]q,"networks":["192.0.2.0/24"],"services":[%[4]q],
     "privileges":["finance-invoices-own.view","finance-balance-own-view","finance-invoices.manage","finance-cust-invoices.manage","finance-supplier-invoices.manage","finance-netting-invoices.manage"]}
  ],
  "users": [
    {"username":"walk-ts-a","password":%[1]q,"services":[%[2]q],"privileges":["testsystem"]},
    {"username":"walk-ts-b","password":%[1]q,"services":[%[4]q],"privileges":["testsystem"]}
  ],
  "apiKeys": [{"name":"walk routing","key":%[5]q}],
  "smsAccounts": [
    {"username":"walk-sms-a","password":%[1]q,"networks":["192.0.2.0/24"],"balance":"100","currency":"EUR","prices":{"386":"0.01"}},
    {"username":"walk-sms-b","password":%[1]q,"networks":["192.0.2.0/24"],"balance":"100","currency":"EUR","prices":{"386":"0.01"}}
  ],
  "uiComponents": [%[6]s, %[7]s, %[8]s]
}`, walkSecret, walkTenantA, privs, walkTenantB, walkAPIKey,
		comp("a-grid", walkTenantA, "grid"), comp("a-kpi", walkTenantA, "KPI"), comp("b-grid", walkTenantB, "grid"))
}

// token is a bearer token of client (or, with a password grant, user).
func (w *walkWorld) token(who string, password bool) string {
	w.t.Helper()
	if tok, ok := w.tokens[who]; ok {
		return tok
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {who}, "client_secret": {walkSecret}}
	if password {
		form = url.Values{"grant_type": {"password"}, "username": {who}, "password": {walkSecret}}
	}
	res := w.do(w.api, http.MethodPost, httpapi.TokenPath, "application/x-www-form-urlencoded", form.Encode(), "")
	if res.Code != http.StatusOK {
		w.t.Fatalf("token of %s: %d %s", who, res.Code, res.Body)
	}
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &out); err != nil {
		w.t.Fatal(err)
	}
	w.tokens[who] = out.AccessToken
	return out.AccessToken
}

// tokenWithout is a token of a client of tenant A holding every privilege
// but privs.
func (w *walkWorld) tokenWithout(privs []auth.Privilege) string {
	w.t.Helper()
	others := slices.DeleteFunc(auth.Privileges(), func(p auth.Privilege) bool { return slices.Contains(privs, p) })
	id := "walk-a-without"
	for _, p := range privs {
		id += "-" + strings.NewReplacer(".", "_").Replace(string(p))
	}
	if _, ok := w.tokens[id]; !ok {
		_, _, err := w.authSvc.CreateClient(context.Background(), auth.ClientSpec{ID: id, Secret: walkSecret,
			Networks: mustPrefixes(w.t, "192.0.2.0/24"), Services: []msgkit.ServiceUUID{walkTenantA}, Privileges: others})
		if err != nil && msgkit.KindOf(err) != msgkit.Conflict {
			w.t.Fatal(err)
		}
		// From the service, not the token endpoint: a client for every
		// privilege of every family would outrun the endpoint's rate limit
		// per address.
		tok, err := w.authSvc.ClientCredentials(context.Background(), id, walkSecret, netip.MustParseAddr("192.0.2.10"))
		if err != nil {
			w.t.Fatal(err)
		}
		w.tokens[id] = tok.AccessToken
	}
	return w.tokens[id]
}

// do serves one request; headers are "Name: value" lines.
func (w *walkWorld) do(h http.Handler, method, target, contentType, body, headers string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.RemoteAddr = walkRemote
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for line := range strings.Lines(headers) {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
			r.Header.Set(name, value)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// asA calls the REST API as A's all-privileged client and wants status.
func (w *walkWorld) asA(method, path, body string, status int) map[string]any {
	w.t.Helper()
	res := w.do(w.api, method, path, "application/json", body, "Authorization: Bearer "+w.token("walk-a", false))
	if res.Code != status {
		w.t.Fatalf("%s %s: %d, want %d: %s", method, path, res.Code, status, res.Body)
	}
	var m map[string]any
	if res.Body.Len() > 0 {
		_ = json.Unmarshal(res.Body.Bytes(), &m)
	}
	return m
}

func str(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return v
	case float64:
		return fmt.Sprint(int64(v))
	}
	return ""
}

// seed makes one of every resource of A, through the API where there is
// one, and records their ids; unknown gets an id of each kind that no
// record has.
func (w *walkWorld) seed(ctx context.Context) {
	t := w.t
	cds := "/news/v1/services/" + string(walkTenantA)
	a := ids{}
	a["listId"] = str(w.asA("POST", cds+"/cds/lists", `{"name":"list `+walkMarker+`"}`, 201), "uuid")
	a["customFieldsId"] = str(w.asA("POST", cds+"/cds/custom_fields", `{"display_name":"Tier `+walkMarker+`","field_type":"text"}`, 201), "uuid")
	a["contactId"] = str(w.asA("POST", cds+"/cds/contacts", `{"list_uuid":"`+a["listId"]+`","first_name":"Ana `+walkMarker+`","mobile":"+38640111222","opt_status":"in"}`, 201), "uuid")
	seg := `{\"segmentation\":[{\"rules\":[{\"field\":\"first_name\",\"condition\":\"eq\",\"value\":\"Ana\",\"operator\":\"AND\"}]}]}`
	a["segmentationSetId"] = str(w.asA("POST", cds+"/cds/segmentation_sets", `{"name":"set `+walkMarker+`","data":"`+seg+`"}`, 201), "uuid")
	a["segmentationGroupId"] = str(w.asA("POST", cds+"/cds/segmentation_groups", `{"name":"sgroup `+walkMarker+`","data":"`+seg+`"}`, 201), "uuid")
	a["subscriptionId"] = str(w.asA("POST", cds+"/cds/subscriptions", `{"name":"news `+walkMarker+`"}`, 201), "uuid")
	a["optionId"] = str(w.asA("POST", cds+"/cds/subscriptions/options", `{"name":"weekly `+walkMarker+`","subscription_uuid":"`+a["subscriptionId"]+`"}`, 201), "uuid")
	w.asA("POST", cds+"/cds/subscriptions/members", `{"contact_uuid":"`+a["contactId"]+`","option_uuid":"`+a["optionId"]+`","status":"subscribed"}`, 200)
	a["groupId"] = str(w.asA("POST", cds+"/cds/groups", `{"name":"group `+walkMarker+`"}`, 201), "uuid")
	a["groupListId"] = str(w.asA("POST", cds+"/cds/group_lists", `{"group_uuid":"`+a["groupId"]+`","list_uuid":"`+a["listId"]+`"}`, 201), "uuid")
	a["groupSegmentationId"] = str(w.asA("POST", cds+"/cds/group_segmentation", `{"group_uuid":"`+a["groupId"]+`","data":"`+seg+`"}`, 201), "uuid")
	a["touchpointId"] = str(w.asA("POST", cds+"/cds/touchpoints", `{"name":"shop `+walkMarker+`"}`, 201), "uuid")
	w.asA("POST", cds+"/cds/touchpoints/members", `{"contact_uuid":"`+a["contactId"]+`","touchpoint_uuid":"`+a["touchpointId"]+`","status":"subscribed"}`, 200)
	a["interestId"] = str(w.asA("POST", cds+"/cds/interests", `{"name":"bikes `+walkMarker+`"}`, 201), "uuid")
	w.asA("POST", cds+"/cds/interests/members", `{"contact_uuid":"`+a["contactId"]+`","interest_uuid":"`+a["interestId"]+`","status":"subscribed"}`, 200)
	a["campaignUuid"] = str(w.asA("POST", cds+"/campaigns", `{"name":"campaign `+walkMarker+`","status":"draft","sending_type":"sms","schedule_type":"now",
		"template":"Hello","sender":"Shop","recipient_lists":"`+a["listId"]+`"}`, 201), "uuid")

	// Finance: a partner of each tenant, put through the reference API as
	// an operator does, A's billing account, source record, document type
	// and configuration, and an invoice of A's partner with a file.
	fin := "/finance/sit/v1/"
	for _, p := range []struct {
		id  int64
		svc msgkit.ServiceUUID
	}{{7001, walkTenantA}, {7002, walkTenantB}} {
		w.asA("PUT", fmt.Sprintf("%sbiz-partners/%d", fin, p.id),
			fmt.Sprintf(`{"name":"Partner %s%d","briefName":"P","country":705,"partnerType":"customer","serviceUuid":%q}`, walkMarker, p.id, p.svc), 200)
	}
	a["bizPartnerId"] = "7001"
	a["billingAccountId"], a["kind"], a["recordId"], a["typeId"], a["templateLang"] = "7101", "billing", "7301", "7201", "en"
	w.asA("PUT", fin+"billing-accounts/7101", `{"bizPartnerId":7001,"currency":978,"name":"account `+walkMarker+`"}`, 200)
	w.asA("PUT", fin+"source-records/billing/7301", `{"billingAccountId":7101}`, 200)
	w.asA("PUT", fin+"document-types/7201", `{"name":"type `+walkMarker+`"}`, 200)
	w.asA("PUT", fin+"invoice-configs/7201/templates/en", `{"name":"type `+walkMarker+`","domainCodeName":"BULK","dataSourceCodeName":"POSTPAID",
		"docClassCodeName":"CUSTOMER_INVOICE","collectionCode":"reminder"}`, 200)
	inv := w.asA("POST", "/finance/sit/v1/invoices?classCodeName=CUSTOMER_INVOICE", walkInvoice(7001), 200)
	a["invoiceid"], a["invoiceId"], a["invoicesList"] = str(inv, "id"), str(inv, "id"), str(inv, "id")
	// A netting statement of A's partner, which A's invoice may join.
	a["nettingInvoiceId"] = str(w.asA("POST", "/finance/sit/v1/invoices?classCodeName=NETTING_INVOICE",
		`{"custID": 7001, "currency": 978, "invNumberFix": "WN-1", "invDueDateDays": 30}`, 200), "id")
	ct, body := walkUpload(t)
	if res := w.do(w.api, "POST", "/invoice-docs/v2/invoices/"+a["invoiceId"]+"/files", ct, body, "Authorization: Bearer "+w.token("walk-a", false)); res.Code != 201 {
		t.Fatalf("upload: %d %s", res.Code, res.Body)
	}

	// Test system: A's own gate (a route of A's), and a session.
	tsA := "Authorization: Bearer " + w.token("walk-ts-a", true)
	if res := w.do(w.api, "POST", "/gate/testsystem/v1/test/route", "application/json",
		`{"category":"cat `+walkMarker+`","supplier":"sup `+walkMarker+`","gate":"gate `+walkMarker+`","prefix":"386"}`, tsA); res.Code != 201 {
		t.Fatalf("A's route: %d %s", res.Code, res.Body)
	}
	for k, name := range map[string]string{"gate": "gate", "category": "cat", "supplier": "sup"} {
		res := w.do(w.api, "GET", "/gate/testsystem/v1/test/route/"+k+"?name="+url.QueryEscape(name+" "+walkMarker), "", "", tsA)
		var page struct {
			Data []struct{ ID string } `json:"data"`
		}
		if err := json.Unmarshal(res.Body.Bytes(), &page); err != nil || len(page.Data) != 1 {
			t.Fatalf("A's %s: %s", k, res.Body)
		}
		a[k+"/{id}"] = page.Data[0].ID
	}
	res := w.do(w.api, "POST", "/gate/testsystem/v1/test/sms", "application/json",
		`{"username":"walk-ts-a","test":"t `+walkMarker+`","gate_id":[`+a["gate/{id}"]+`],"mcc_mnc":[23410],"text_lang":"en","text_type":"gsm","callback_api":"https://example.com/cb"}`, tsA)
	if res.Code != 201 {
		t.Fatalf("A's test session: %d %s", res.Code, res.Body)
	}
	var sess struct {
		TestSession int64 `json:"test_session"`
	}
	_ = json.Unmarshal(res.Body.Bytes(), &sess)
	a["test_session"] = fmt.Sprint(sess.TestSession)

	// Routing: the operator's records (the family has no tenants).
	res = w.do(w.api, "POST", "/smsmtinbound/v1/smsmtin-routes", "application/json", `{"sigtran_connect_id":"71","smpp_connect_id":"72"}`, "X-API-Key: "+walkAPIKey)
	if res.Code != 200 {
		t.Fatalf("routing record: %d %s", res.Code, res.Body)
	}
	var rec struct{ ID int64 }
	_ = json.Unmarshal(res.Body.Bytes(), &rec)
	a["smsmtin-routes/{id}"] = fmt.Sprint(rec.ID)

	// Administration: a tenant, a client, a user and an API key of the
	// operator's (A's client holds the admin privileges; B's do not).
	adm := "/admin/v1/"
	a["tenantId"] = str(w.asA("POST", adm+"tenants", `{"name":"tenant `+walkMarker+`"}`, 201), "id")
	a["clientId"] = str(w.asA("POST", adm+"clients", `{"id":"walk-admin-c","name":"client `+walkMarker+`","networks":["192.0.2.0/24"],"services":["`+a["tenantId"]+`"]}`, 201), "id")
	a["username"] = str(w.asA("POST", adm+"users", `{"username":"walk-admin-u","password":"pw `+walkMarker+`","services":["`+a["tenantId"]+`"]}`, 201), "username")
	a["keyId"] = str(w.asA("POST", adm+"api-keys", `{"name":"key `+walkMarker+`"}`, 201), "id")
	a["sms-accounts/{username}"] = "walk-sms-a" // bootstrapped
	// A message of A's account, for the trace.
	res = w.do(w.sms, "POST", "/bulk/sendsms", "application/json",
		`{"type":"text","auth":{"username":"walk-sms-a","password":"`+walkSecret+`"},"sender":"A","receiver":"38640123456","text":"trace me"}`, "")
	var sent struct {
		MsgID string `json:"msgId"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &sent); err != nil || sent.MsgID == "" {
		t.Fatalf("A's message: %d %s", res.Code, res.Body)
	}
	a["messageId"] = sent.MsgID

	// UI components (bootstrapped).
	a["gridComponentId"], a["kpiComponentId"], a["componentId"] = "a-grid", "a-kpi", "a-grid"
	w.a = a

	w.unknown = ids{}
	for k, v := range a {
		switch {
		case uuid.Validate(v) == nil:
			w.unknown[k] = uuid.NewString()
		case strings.HasSuffix(k, "ComponentId"):
			w.unknown[k] = "no-such-component"
		default:
			w.unknown[k] = "987654321"
		}
	}
}

// walkInvoice is a draft customer invoice of partner.
func walkInvoice(partner int64) string {
	return fmt.Sprintf(`{"custID": %d, "currency": 978, "invType": 1, "templateID": 3, "invNumberFix": "W-1", "invDate": "2025-01-31", "deliveryDate": "2025-01-31",
		"invDueDateDays": 30, "vatInPrice": 1, "vatPercent": 20, "dataSourceCodeName": "POSTPAID", "domainCodeName": "BULK", "comment": "%s",
		"items": [{"name": "SMS", "quantity": 1, "price": 24.99}]}`, partner, walkMarker)
}

// walkUpload is a multipart body with a small PDF in the finance upload's
// field.
func walkUpload(t *testing.T) (contentType, body string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("supplierInvoice", "walk.pdf")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"))
	mw.Close()
	return mw.FormDataContentType(), b.String()
}

// walkRoute is one operation of a mounted family.
type walkRoute struct {
	family string // the platform family that mounts it
	spec   httpapi.FamilySpec
	route  httpapi.Route
	sms    bool // on the bulk SMS listeners
}

func (r walkRoute) op() string { return r.route.Method + " " + r.route.Path }

// routes is every operation of every family the platform mounts, each
// once, in a stable order. A mounted handler that does not tell its
// routes fails the test: nothing mounted escapes the walk.
func (w *walkWorld) routes() []walkRoute {
	w.t.Helper()
	seen := map[string]bool{}
	var out []walkRoute
	for _, f := range w.plat.families {
		for _, m := range []struct {
			handlers map[string]http.Handler
			sms      bool
		}{{f.api, false}, {f.sms, true}} {
			for pattern, h := range m.handlers {
				ops, ok := h.(httpapi.Operations)
				if !ok {
					w.t.Errorf("family %s mounts %s with a handler that does not tell its routes (httpapi.Operations)", f.name, pattern)
					continue
				}
				spec := ops.Spec()
				for _, rt := range spec.Routes {
					r := walkRoute{family: f.name, spec: spec, route: rt, sms: m.sms}
					if !seen[r.op()] {
						seen[r.op()] = true
						out = append(out, r)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].op() < out[j].op() })
	return out
}

// fill replaces each {name} of a path by v's id for it ("gate/{id}" when
// the segment before says which, else "name"); ok is false when v has
// none.
func fill(path string, v ids, tenant msgkit.ServiceUUID) (string, string, bool) {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
			continue
		}
		name := strings.Trim(s, "{}")
		if name == "serviceUuid" {
			segs[i] = string(tenant)
			continue
		}
		id, ok := v[segs[max(i-1, 0)]+"/"+s]
		if !ok {
			id, ok = v[name]
		}
		if !ok {
			return "", name, false
		}
		segs[i] = id
	}
	return strings.Join(segs, "/"), "", true
}

// fillText replaces each {name} of a body or query template by v's id.
func fillText(tmpl string, v ids) string {
	for k, id := range v {
		tmpl = strings.ReplaceAll(tmpl, "{"+k+"}", id)
	}
	return tmpl
}

// normalize is an answer with the ids of v that request holds written as
// {id}, each as a whole word, so that the answers about two ids compare.
func normalize(body string, v ids, request string) string {
	// Longest first: a UUID goes whole before a short id ("7201") could
	// match one of its groups, which map order left to chance.
	all := slices.SortedFunc(maps.Values(v), func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for _, id := range all {
		if strings.Contains(request, id) {
			body = regexp.MustCompile(`\b`+regexp.QuoteMeta(id)+`\b`).ReplaceAllString(body, "{id}")
		}
	}
	return body
}
