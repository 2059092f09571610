package cdsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
)

var loadContract = sync.OnceValues(func() (*httpapitest.Contract, error) { return httpapitest.LoadContract(OpenAPI()) })

// The document documents exactly the route table.
func TestOpenAPIOperations(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	c.CheckRoutes(t, routes(&api{}))
}

// newsB is a client of tenant B with the privilege news.
const newsB = "news-client-b"

type env struct {
	h      http.Handler
	f      *httpapitest.Fixture
	tokenA string
	tokenB string
	clock  *msgkittest.Clock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	f := httpapitest.NewFixture(t)
	if _, _, err := f.Auth.CreateClient(context.Background(), auth.ClientSpec{ID: newsB, Secret: httpapitest.ClientSecret,
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, Services: []msgkit.ServiceUUID{httpapitest.TenantB},
		Privileges: []auth.Privilege{auth.PrivNews}}); err != nil {
		t.Fatal(err)
	}
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	st := memstore.New().Contacts()
	b := Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: st, Catalog: st, Imports: st}, f.Clock.Now, func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	})}
	return &env{h: c.Handler(t, Handler(f.Opts, b)), f: f, tokenA: f.Token(t, httpapitest.ClientID), tokenB: f.Token(t, newsB), clock: f.Clock}
}

func tenantPath(svc msgkit.ServiceUUID, rest string) string {
	return BasePath + "services/" + string(svc) + rest
}

// do sends a request of tenant A (or B with asB) and returns the answer.
func (e *env) do(t *testing.T, method, path, body string, asB bool) *httptest.ResponseRecorder {
	t.Helper()
	svc, tok := httpapitest.TenantA, e.tokenA
	if asB {
		svc, tok = httpapitest.TenantB, e.tokenB
	}
	r := httptest.NewRequest(method, tenantPath(svc, path), strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return httpapitest.Serve(e.h, httpapitest.Bearer(r, tok))
}

// bad is do for a request outside the document (a test of bad input): its
// answer is still checked against the document.
func (e *env) bad(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, tenantPath(httpapitest.TenantA, path), strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return httpapitest.Serve(e.h, httpapitest.Bearer(httpapitest.SkipRequestCheck(r), e.tokenA))
}

func want(t *testing.T, w *httptest.ResponseRecorder, status int) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body)
	}
	var m map[string]any
	if status != http.StatusNoContent {
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatalf("body %q: %v", w.Body, err)
		}
	}
	return m
}

const (
	list1    = "00000000-0000-4000-8000-000000000001"
	contact2 = "00000000-0000-4000-8000-000000000003"
)

// One list, a custom field (column_1) and one contact of tenant A, made
// through the API.
func (e *env) seed(t *testing.T) {
	t.Helper()
	w := e.do(t, "POST", "/cds/lists", `{"name":"Newsletter"}`, false)
	want(t, w, 201)
	msgkittest.Golden(t, "testdata/create_list.json", httpapitest.Answer(w))
	w = e.do(t, "POST", "/cds/custom_fields", `{"display_name":"Tier","field_type":"select","config":{"options":["gold","silver"]}}`, false)
	want(t, w, 201)
	msgkittest.Golden(t, "testdata/create_custom_field.json", httpapitest.Answer(w))
	w = e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`","first_name":"Ana","last_name":"Novak","mobile":"+386 40 123 456",
		"email":"ana@example.com","birthday":"1990-05-17","gender":"Female","opt_status":"in","column_1":"gold",
		"channel_telegram_identifier":"@ana","channel_telegram_opt_status":"in","channel_telegram_data":{"chat_id":42}}`, false)
	want(t, w, 201)
	msgkittest.Golden(t, "testdata/create_contact.json", httpapitest.Answer(w))
}

func TestContactsLifecycle(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	c := want(t, e.do(t, "GET", "/cds/contacts/"+contact2+"?fields=lists", "", false), 200)
	if c["mobile"] != "+38640123456" || c["gender"] != "female" || c["column_1"] != "gold" || c["uuid"] != contact2 {
		t.Errorf("get: %v", c)
	}
	if l := c["lists"].([]any)[0].(map[string]any); l["name"] != "Newsletter" {
		t.Errorf("fields=lists: %v", c["lists"])
	}
	if ch := c["channels"].([]any); len(ch) != 1 || ch[0].(map[string]any)["channel_name"] != "telegram" {
		t.Errorf("channels: %v", c["channels"])
	}
	l := want(t, e.do(t, "GET", "/cds/lists/"+list1, "", false), 200)
	if l["contacts_count"] != 1.0 || l["subscribed"] != 1.0 {
		t.Errorf("list counts: %v", l)
	}

	// A second contact, then the listing with a filter, a sort and links.
	want(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`","first_name":"Bojan","mobile":"0038641234567","opt_status":"out"}`, false), 201)
	w := e.do(t, "GET", "/cds/contacts?sort=-first_name&page_size=1&fields=lists", "", false)
	page := want(t, w, 200)
	msgkittest.Golden(t, "testdata/list_contacts.json", httpapitest.Answer(w))
	p := page["meta"].(map[string]any)["pagination"].(map[string]any)
	links := p["links"].(map[string]any)
	if p["total"] != 2.0 || p["totalPages"] != 2.0 || links["prev"] != nil || !strings.Contains(links["next"].(string), "page_number=2") ||
		page["data"].([]any)[0].(map[string]any)["first_name"] != "Bojan" {
		t.Errorf("page: %v", page)
	}
	page = want(t, e.do(t, "GET", "/cds/contacts?opt_status=in&mobile=%2B38640123456", "", false), 200)
	if d := page["data"].([]any); len(d) != 1 || d[0].(map[string]any)["uuid"] != contact2 {
		t.Errorf("filtered: %v", page)
	}
	page = want(t, e.do(t, "GET", "/cds/contacts?fields=count_only", "", false), 200)
	if d := page["data"].([]any); len(d) != 0 || page["meta"].(map[string]any)["pagination"].(map[string]any)["total"] != 2.0 {
		t.Errorf("count_only: %v", page)
	}

	// Replace clears what the body leaves out; PATCH changes statuses only.
	c = want(t, e.do(t, "PUT", "/cds/contacts/"+contact2, `{"first_name":"Ana Marija","mobile":"+38640123456","uuid":"ignored"}`, false), 200)
	if c["first_name"] != "Ana Marija" || c["last_name"] != nil || c["list_uuid"] != list1 || c["uuid"] != contact2 {
		t.Errorf("replaced: %v", c)
	}
	w = e.do(t, "PATCH", "/cds/contacts/"+contact2, `{"opt_status":"out","opt_status_webpush":"in"}`, false)
	c = want(t, w, 200)
	msgkittest.Golden(t, "testdata/patch_contact.json", httpapitest.Answer(w))
	if c["opt_status"] != "out" || c["opt_status_webpush"] != "in" || c["first_name"] != "Ana Marija" {
		t.Errorf("patched: %v", c)
	}

	// The webpush channel: a subscription set by PATCH (a create or
	// replace body's is ignored), listed in channels, found by the
	// webpush_subscription filter.
	const sub = "https://push.example/s/AbC-1"
	w = e.do(t, "PATCH", "/cds/contacts/"+contact2, `{"webpush_subscription":" `+sub+` "}`, false)
	c = want(t, w, 200)
	msgkittest.Golden(t, "testdata/patch_contact_webpush.json", httpapitest.Answer(w))
	if ch := fmt.Sprint(c["channels"]); c["webpush_subscription"] != sub || !strings.Contains(ch, "channel_name:webpush") || !strings.Contains(ch, "identifier:"+sub) {
		t.Errorf("webpush: %v", c)
	}
	c = want(t, e.do(t, "PUT", "/cds/contacts/"+contact2, `{"first_name":"Ana Marija","mobile":"+38640123456","webpush_subscription":"https://other"}`, false), 200)
	if c["webpush_subscription"] != sub {
		t.Errorf("a replace changed the subscription: %v", c["webpush_subscription"])
	}
	for query, n := range map[string]int{"webpush_subscription=" + url.QueryEscape(sub): 1, "webpush_subscription=https://push.example/s/abc-1": 0,
		"channel_name=webpush&channel_opt_status=in": 1, "isnotnull(webpush_subscription)": 1} {
		if d := want(t, e.do(t, "GET", "/cds/contacts?"+query, "", false), 200)["data"].([]any); len(d) != n {
			t.Errorf("%s: %d contacts, want %d", query, len(d), n)
		}
	}
	for _, name := range []string{"facebook", "instagram"} {
		m := httpapitest.WantError(t, e.bad(t, "GET", "/cds/contacts?channel_name="+name, ""), httpapi.CDS, 400, msgkit.CodeInvalidQuery)
		if items := fmt.Sprint(m["items"]); !strings.Contains(items, "name:channel_name") || !strings.Contains(items, name) {
			t.Errorf("channel_name=%s: %v", name, m["items"])
		}
	}
	// NUL is refused by the JSON reader of every family, before the rules.
	httpapitest.WantError(t, e.bad(t, "PATCH", "/cds/contacts/"+contact2, `{"webpush_subscription":"a\u0000b"}`), httpapi.CDS, 400, httpapi.CodeInvalidJSON)
	long := `{"webpush_subscription":"https://push.example/` + strings.Repeat("x", contacts.MaxSubscriptionLen) + `"}`
	httpapitest.WantError(t, e.bad(t, "PATCH", "/cds/contacts/"+contact2, long), httpapi.CDS, 400, httpapi.CodeInvalidJSON)

	// gdpr=no: gone from use, readable with show_deleted; gdpr=yes: gone.
	want(t, e.do(t, "DELETE", "/cds/contacts/"+contact2, "", false), 204)
	httpapitest.WantError(t, e.do(t, "GET", "/cds/contacts/"+contact2, "", false), httpapi.CDS, 404, "contact_not_found")
	if c = want(t, e.do(t, "GET", "/cds/contacts/"+contact2+"?fields=show_deleted", "", false), 200); c["deleted_dt"] == nil {
		t.Errorf("soft deleted: %v", c)
	}
	if l = want(t, e.do(t, "GET", "/cds/lists/"+list1, "", false), 200); l["contacts_count"] != 1.0 {
		t.Errorf("counts after delete: %v", l)
	}
	want(t, e.do(t, "DELETE", "/cds/contacts/"+contact2+"?gdpr=yes", "", false), 204)
	httpapitest.WantError(t, e.do(t, "GET", "/cds/contacts/"+contact2+"?fields=show_deleted", "", false), httpapi.CDS, 404, "contact_not_found")
	page = want(t, e.do(t, "GET", "/cds/contacts?fields=show_deleted", "", false), 200)
	if strings.Contains(fmt.Sprint(page), contact2) || strings.Contains(fmt.Sprint(page), "Ana") {
		t.Errorf("an erased contact is still listed: %v", page)
	}
}

// A contact's times filter as they are shown, in whole seconds: the
// updated_dt a client read back is no time after itself.
func TestContactsTimesAsShown(t *testing.T) {
	e := newEnv(t)
	list := want(t, e.do(t, "POST", "/cds/lists", `{"name":"L"}`, false), 201)["uuid"].(string)
	e.clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 250_000_000, time.UTC))
	a := want(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list+`","first_name":"Ana"}`, false), 201)
	e.clock.Advance(time.Second + time.Second/2) // 12:00:01.75
	b := want(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list+`","first_name":"Bojan"}`, false), 201)
	if a["updated_dt"] != "2026-03-01T12:00:00Z" {
		t.Fatalf("updated_dt shown as %v", a["updated_dt"])
	}
	for _, tt := range []struct {
		query string
		want  []any
	}{
		{"gt(updated_dt)=" + a["updated_dt"].(string), []any{b["uuid"]}},
		{"gte(updated_dt)=" + a["updated_dt"].(string), []any{a["uuid"], b["uuid"]}},
		{"updated_dt=" + b["updated_dt"].(string), []any{b["uuid"]}},
		{"lte(created_dt)=2026-03-01T12:00:00.5Z", []any{a["uuid"]}},
	} {
		page := want(t, e.do(t, "GET", "/cds/contacts?"+tt.query, "", false), 200)
		var got []any
		for _, c := range page["data"].([]any) {
			got = append(got, c.(map[string]any)["uuid"])
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestListsLifecycle(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	want(t, e.do(t, "POST", "/cds/lists", `{"name":"VIP","list_status":"inactive"}`, false), 201)
	w := e.do(t, "GET", "/cds/lists?sort=name&fields=totals,contacts_count", "", false)
	page := want(t, w, 200)
	msgkittest.Golden(t, "testdata/list_lists.json", httpapitest.Answer(w))
	if d := page["data"].([]any); len(d) != 2 || d[0].(map[string]any)["name"] != "Newsletter" {
		t.Errorf("lists: %v", page)
	}
	l := want(t, e.do(t, "PUT", "/cds/lists/"+list1, `{"name":"News"}`, false), 200)
	if l["name"] != "News" || l["list_status"] != "active" || l["contacts_count"] != 1.0 {
		t.Errorf("updated: %v", l)
	}
	want(t, e.do(t, "DELETE", "/cds/lists/"+list1, "", false), 204)
	httpapitest.WantError(t, e.do(t, "GET", "/cds/lists/"+list1, "", false), httpapi.CDS, 404, "list_not_found")
	if page = want(t, e.do(t, "GET", "/cds/lists?fields=show_deleted", "", false), 200); len(page["data"].([]any)) != 2 {
		t.Errorf("show_deleted: %v", page)
	}
}

// Bad input answers 400 (malformed, wrong type, a rule on create), 405 (a
// rule on PUT or PATCH) or 404, naming the field; nothing is stored.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	for _, tt := range []struct {
		name, method, path, body string
		status                   int
		code                     string
		fields                   []string
		golden                   string
	}{
		{"malformed JSON", "POST", "/cds/contacts", `{"first_name":`, 400, httpapi.CodeInvalidJSON, []string{"body"}, ""},
		{"not an object", "POST", "/cds/contacts", `["a"]`, 400, httpapi.CodeInvalidJSON, nil, ""},
		{"null body", "POST", "/cds/contacts", `null`, 400, httpapi.CodeInvalidJSON, []string{"body"}, ""},
		{"wrong types", "POST", "/cds/contacts", `{"list_uuid":"` + list1 + `","first_name":7,"opt_status":true}`, 400, httpapi.CodeInvalidJSON, []string{"first_name", "opt_status"}, "400_wrong_types"},
		{"rules on create", "POST", "/cds/contacts", `{"mobile":"040 123 456","email":"x","gender":"other","shoe_size":"42"}`, 400, "invalid_contact",
			[]string{"list_uuid", "email", "gender", "mobile", "shoe_size"}, "400_invalid_contact"},
		{"another tenant's list", "POST", "/cds/contacts", `{"list_uuid":"7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e"}`, 400, "invalid_contact", []string{"list_uuid"}, ""},
		{"rules on replace", "PUT", "/cds/contacts/" + contact2, `{"birthday":"1990-02-30"}`, 405, "invalid_contact", []string{"birthday"}, "405_validation"},
		{"wrong type on replace", "PUT", "/cds/contacts/" + contact2, `{"birthday":19900230}`, 400, httpapi.CodeInvalidJSON, []string{"birthday"}, ""},
		{"patch of another field", "PATCH", "/cds/contacts/" + contact2, `{"first_name":"X"}`, 400, httpapi.CodeInvalidJSON, []string{"first_name"}, ""},
		{"empty patch", "PATCH", "/cds/contacts/" + contact2, `{}`, 400, "invalid_contact", []string{"body"}, ""},
		{"bad patch value", "PATCH", "/cds/contacts/" + contact2, `{"opt_status":"maybe"}`, 405, "invalid_contact", []string{"opt_status"}, ""},
		{"bad gdpr", "DELETE", "/cds/contacts/" + contact2 + "?gdpr=maybe", "", 400, msgkit.CodeInvalidQuery, []string{"gdpr"}, ""},
		{"unknown parameter", "GET", "/cds/contacts/" + contact2 + "?color=red", "", 400, msgkit.CodeInvalidQuery, []string{"color"}, ""},
		{"bad fields", "GET", "/cds/lists?fields=everything", "", 400, msgkit.CodeInvalidQuery, []string{"fields"}, ""},
		{"bad listing", "GET", "/cds/contacts?gender=x&page_size=1000&color=red", "", 400, msgkit.CodeInvalidQuery,
			[]string{"gender", "color", "page_size"}, "400_invalid_query"},
		{"malformed id", "GET", "/cds/contacts/42", "", 404, "contact_not_found", nil, ""},
		{"unknown contact", "PATCH", "/cds/contacts/" + list1, `{"opt_status":"in"}`, 404, "contact_not_found", nil, ""},
		{"list without name", "POST", "/cds/lists", `{"list_status":"closed"}`, 400, "invalid_list", []string{"name", "list_status"}, ""},
		{"list rule on update", "PUT", "/cds/lists/" + list1, `{"name":""}`, 405, "invalid_list", []string{"name"}, ""},
		{"list wrong type", "PUT", "/cds/lists/" + list1, `{"name":5}`, 400, httpapi.CodeInvalidJSON, []string{"name"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := e.bad(t, tt.method, tt.path, tt.body)
			m := httpapitest.WantError(t, w, httpapi.CDS, tt.status, tt.code)
			if tt.fields != nil {
				var names []string
				for _, it := range m["items"].([]any) {
					names = append(names, it.(map[string]any)["name"].(string))
				}
				if strings.Join(names, ",") != strings.Join(tt.fields, ",") {
					t.Errorf("items name %v, want %v", names, tt.fields)
				}
			}
			if tt.golden != "" {
				msgkittest.Golden(t, "testdata/"+tt.golden+".json", httpapitest.Answer(w))
			}
		})
	}
	// Nothing of it was stored.
	c := want(t, e.do(t, "GET", "/cds/contacts/"+contact2, "", false), 200)
	if c["birthday"] != "1990-05-17" || c["opt_status"] != "in" || c["first_name"] != "Ana" {
		t.Errorf("a refused change was stored: %v", c)
	}
	if p := want(t, e.do(t, "GET", "/cds/lists", "", false), 200); len(p["data"].([]any)) != 1 {
		t.Errorf("a refused list was stored: %v", p)
	}
}

// Tenant B sees, changes and deletes nothing of tenant A's, through every
// contacts and lists operation.
func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	for _, tt := range []struct{ method, path, body, code string }{
		{"GET", "/cds/contacts/" + contact2, "", "contact_not_found"},
		{"PUT", "/cds/contacts/" + contact2, `{"first_name":"Eve"}`, "contact_not_found"},
		{"PATCH", "/cds/contacts/" + contact2, `{"opt_status":"out"}`, "contact_not_found"},
		{"DELETE", "/cds/contacts/" + contact2 + "?gdpr=yes", "", "contact_not_found"},
		{"GET", "/cds/lists/" + list1, "", "list_not_found"},
		{"PUT", "/cds/lists/" + list1, `{"name":"Mine"}`, "list_not_found"},
		{"DELETE", "/cds/lists/" + list1, "", "list_not_found"},
	} {
		httpapitest.WantError(t, e.do(t, tt.method, tt.path, tt.body, true), httpapi.CDS, 404, tt.code)
	}
	for _, path := range []string{"/cds/contacts?fields=show_deleted", "/cds/lists?fields=show_deleted"} {
		if p := want(t, e.do(t, "GET", path, "", true), 200); len(p["data"].([]any)) != 0 {
			t.Errorf("B lists %s: %v", path, p)
		}
	}
	// B cannot put a contact into A's list.
	m := httpapitest.WantError(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`"}`, true), httpapi.CDS, 400, "invalid_contact")
	if !strings.Contains(fmt.Sprint(m["items"]), "list_uuid") {
		t.Errorf("items: %v", m["items"])
	}
	// A's records are as they were.
	c := want(t, e.do(t, "GET", "/cds/contacts/"+contact2, "", false), 200)
	if c["first_name"] != "Ana" || c["opt_status"] != "in" {
		t.Errorf("A's contact changed: %v", c)
	}
}
