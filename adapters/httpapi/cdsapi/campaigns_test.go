package cdsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
)

// The lists of the campaign tests: two of tenant A, one of tenant B.
const (
	listA1 = "5f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"
	listA2 = "6a1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b91"
	listB  = "7b1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b92"
)

// campaignN is the n-th UUID the campaign service makes.
func campaignN(n int) string { return fmt.Sprintf("c0000000-0000-4000-8000-%012d", n) }

// campaignEnv is env with campaigns: a manual clock (at 2026-03-01 12:00
// UTC), the lists above and the memstore behind it.
type campaignEnv struct {
	*env
	clock *msgkittest.Clock
	db    *memstore.DB
}

func newCampaignEnv(t *testing.T) *campaignEnv {
	t.Helper()
	f := httpapitest.NewFixture(t)
	ctx := context.Background()
	if _, _, err := f.Auth.CreateClient(ctx, auth.ClientSpec{ID: newsB, Secret: httpapitest.ClientSecret,
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, Services: []msgkit.ServiceUUID{httpapitest.TenantB},
		Privileges: []auth.Privilege{auth.PrivNews}}); err != nil {
		t.Fatal(err)
	}
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	// The campaigns' clock of their own: moved days on, the fixture's
	// would expire the tokens.
	clk := httpapitest.NewClock()
	db := memstore.New()
	st := db.Contacts()
	now := clk.Now()
	for _, l := range []struct {
		svc  msgkit.ServiceUUID
		id   string
		name string
	}{{httpapitest.TenantA, listA1, "Newsletter"}, {httpapitest.TenantA, listA2, "VIP"}, {httpapitest.TenantB, listB, "B's list"}} {
		if _, err := st.CreateList(ctx, l.svc, contacts.List{UUID: l.id, Name: l.name, Status: "active", Created: now, Updated: now}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	svc := campaign.NewService(db.Campaigns(), st, clk.Now, func() string {
		n++
		return campaignN(n)
	})
	b := Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: st, Catalog: st}, clk.Now, nil), Campaigns: svc.WithRuns(db.Campaigns())}
	e := &env{h: c.Handler(t, Handler(f.Opts, b)), tokenA: f.Token(t, httpapitest.ClientID), tokenB: f.Token(t, newsB)}
	return &campaignEnv{env: e, clock: clk, db: db}
}

// The bodies of one campaign of each channel.
const (
	// A weekly SMS in Berlin time, in UCS-2 (č) and so 2 parts of 67.
	smsCampaign = `{"name":"Spring sale","status":"active","sending_type":"sms","schedule_type":"scheduled",
		"schedule_rrule":"DTSTART;TZID=Europe/Berlin:20260302T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10",
		"template":"Pozdravljeni {first_name}! Pomladna razprodaja: 20 % popusta na vse kolesarske čelade do nedelje.",
		"sender":"Shop","recipient_lists":"` + listA1 + `, ` + listA2 + `,` + listA1 + `"}`
	// A once e-mail to a segment, with a card.
	emailCampaign = `{"name":"Bikes","status":"active","sending_type":"email","schedule_type":"once","schedule_rrule":"2026-03-05 10:00:00",
		"template":"{\"messages\":[{\"body\":{\"cardMessage\":{\"content\":{\"description\":\"New {product} in store\",\"media\":{\"url\":\"https://example.com/bike.png\"},\"suggestions\":[{\"text\":\"Shop\",\"openUrl\":{\"url\":\"https://example.com/shop\"}}]}}},\"allowedChannels\":[\"email\"]}]}",
		"sender":"news@example.com","recipient_lists":"` + listA1 + `","query_type":"segmentation",
		"query":"{\"segmentation\":[{\"rules\":[{\"field\":\"city\",\"condition\":\"eq\",\"value\":\"Ljubljana\",\"operator\":\"AND\"}]}]}"}`
	// A webpush draft sent now once published.
	webpushCampaign = `{"name":"Flash","status":"draft","sending_type":"webpush","schedule_type":"now","template":"Flash sale",
		"webpush_title":"Flash sale","webpush_body":"Two hours only","webpush_target_url":"https://example.com/flash",
		"webpush_icon":"https://example.com/icon.png","webpush_image":"https://example.com/flash.jpg",
		"sender":"shop.example.com","recipient_lists":"` + listA2 + `"}`
)

// items are the names of an error answer's items.
func items(m map[string]any) string {
	var names []string
	for _, it := range m["items"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

// create makes the three campaigns, a minute apart: 1 sms, 2 email, 3
// webpush.
func (e *campaignEnv) create(t *testing.T, golden bool) {
	t.Helper()
	for i, body := range []string{smsCampaign, emailCampaign, webpushCampaign} {
		w := e.do(t, "POST", "/campaigns", body, false)
		c := want(t, w, 201)
		if c["uuid"] != campaignN(i+1) {
			t.Fatalf("campaign %d: uuid %v", i+1, c["uuid"])
		}
		if golden {
			msgkittest.Golden(t, "testdata/campaign_create_"+c["sending_type"].(string)+".json", httpapitest.Answer(w))
		}
		e.clock.Advance(time.Minute)
	}
}

func TestCampaignCreate(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, true)
	for _, tt := range []struct {
		id   string
		want map[string]any
	}{
		{campaignN(1), map[string]any{"status": "active", "template_parts": 2.0, "recipient_lists": listA1 + "," + listA2,
			"schedule_rrule": "DTSTART;TZID=Europe/Berlin:20260302T090000\nRRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE",
			"next_dt":        "2026-03-02T08:00:00Z", "last_dt": nil, "query_type": "all", "query": "", "webpush_title": "", "created_dt": "2026-03-01T12:00:00Z"}},
		{campaignN(2), map[string]any{"template_parts": 0.0, "schedule_rrule": "2026-03-05 10:00:00", "next_dt": "2026-03-05T10:00:00Z",
			"query_type": "segmentation", "created_dt": "2026-03-01T12:01:00Z"}},
		{campaignN(3), map[string]any{"status": "draft", "schedule_rrule": "", "next_dt": nil, "webpush_icon": "https://example.com/icon.png"}},
	} {
		c := want(t, e.do(t, "GET", "/campaigns/"+tt.id, "", false), 200)
		for k, v := range tt.want {
			if c[k] != v {
				t.Errorf("%s: %s = %#v, want %#v", tt.id, k, c[k], v)
			}
		}
		if _, ok := c["tasks"]; ok {
			t.Errorf("%s: tasks without fields=tasks", tt.id)
		}
	}
}

// The member table of campaign bodies is campaign.Input's json tags.
func TestCampaignMembers(t *testing.T) {
	var tags []string
	typ := reflect.TypeFor[campaign.Input]()
	for i := range typ.NumField() {
		tags = append(tags, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	var got []string
	for name := range campaignMembers {
		got = append(got, name)
	}
	got = append(got, "template_vars")
	slices.Sort(got)
	slices.Sort(tags)
	if !slices.Equal(got, tags) {
		t.Errorf("members %v, want campaign.Input's %v", got, tags)
	}
}

// body is a campaign body with members replaced (or, given nil, left out).
func body(t *testing.T, base string, set map[string]any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every refusal of a create is 400 naming its fields; nothing is stored.
func TestCampaignRefusals(t *testing.T) {
	e := newCampaignEnv(t)
	seg := func(q string) map[string]any { return map[string]any{"query_type": "segmentation", "query": q} }
	for _, tt := range []struct {
		name    string
		body    string
		outside bool // the request is outside the document
		code    string
		fields  string
		golden  string
	}{
		{"missing required", `{}`, false, "invalid_campaign", "name,status,sending_type,schedule_type,template,sender,recipient_lists", "campaign_400_required"},
		{"bad enums", body(t, smsCampaign, map[string]any{"status": "paused", "sending_type": "fax", "schedule_type": "weekly", "query_type": "some"}), true,
			"invalid_campaign", "status,sending_type,schedule_type,query_type", ""},
		{"created stopped", body(t, smsCampaign, map[string]any{"status": "stopped"}), false, "invalid_campaign", "status", ""},
		{"once in the past", body(t, emailCampaign, map[string]any{"schedule_rrule": "2026-03-01 12:00:00"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"once malformed", body(t, emailCampaign, map[string]any{"schedule_rrule": "tomorrow"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"bad RRULE", body(t, smsCampaign, map[string]any{"schedule_rrule": "FREQ=FORTNIGHTLY"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"FREQ=SECONDLY", body(t, smsCampaign, map[string]any{"schedule_rrule": "FREQ=SECONDLY;COUNT=5"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"a rule that never matches", body(t, smsCampaign, map[string]any{"schedule_rrule": "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"a rule for now", body(t, webpushCampaign, map[string]any{"schedule_rrule": "FREQ=DAILY"}), false, "invalid_campaign", "schedule_rrule", ""},
		{"a template document", body(t, emailCampaign, map[string]any{"template": `{"messages":[{"body":{"textMessage":{"content":" "}},"colour":1},{"body":{}}]}`}), false,
			"invalid_campaign", "template.messages[0].colour,template.messages[0].body.textMessage.content,template.messages[1].body", "campaign_400"},
		{"a template that is no document", body(t, emailCampaign, map[string]any{"template": "Hello"}), false, "invalid_campaign", "template", ""},
		{"webpush without content", body(t, webpushCampaign, map[string]any{"webpush_title": nil, "webpush_body": "", "webpush_icon": "ftp://example.com/i.png"}), false,
			"invalid_campaign", "webpush_title,webpush_body,webpush_icon", ""},
		{"webpush members of an sms", body(t, smsCampaign, map[string]any{"webpush_title": "Hi"}), false, "invalid_campaign", "webpush_title", ""},
		{"senders", body(t, smsCampaign, map[string]any{"sender": "A sender far too long"}), false, "invalid_campaign", "sender", ""},
		{"an e-mail sender", body(t, emailCampaign, map[string]any{"sender": "News <news@example.com>"}), false, "invalid_campaign", "sender", ""},
		{"an unknown list", body(t, smsCampaign, map[string]any{"recipient_lists": listA1 + "," + uuidN(99)}), false, "invalid_campaign", "recipient_lists", ""},
		{"another tenant's list", body(t, smsCampaign, map[string]any{"recipient_lists": listB}), false, "invalid_campaign", "recipient_lists", ""},
		{"a malformed list", body(t, smsCampaign, map[string]any{"recipient_lists": listA1 + ",list-2"}), false, "invalid_campaign", "recipient_lists", ""},
		{"no lists", body(t, smsCampaign, map[string]any{"recipient_lists": " , "}), false, "invalid_campaign", "recipient_lists", ""},
		{"a malformed segmentation query", body(t, emailCampaign, seg(`{"segmentation":`)), false, "invalid_campaign", "query", ""},
		{"a segmentation query's rule", body(t, emailCampaign, seg(`{"segmentation":[{"rules":[{"field":"shoe_size","condition":"eq","value":"42","operator":"AND"}]}]}`)), false,
			"invalid_campaign", "query", ""},
		{"segmentation without a query", body(t, emailCampaign, seg("")), false, "invalid_campaign", "query", ""},
		{"a query for all", body(t, emailCampaign, map[string]any{"query_type": "all"}), false, "invalid_campaign", "query", ""},
		{"template_vars without clone_uuid", body(t, smsCampaign, map[string]any{"template_vars": map[string]string{"first_name": "Ana"}}), false,
			"invalid_campaign", "template_vars", ""},
		{"an unknown clone", `{"clone_uuid":"` + campaignN(9) + `"}`, false, "invalid_campaign", "clone_uuid", ""},
		{"wrong types", body(t, smsCampaign, map[string]any{"name": 7, "status": true, "template_vars": map[string]any{"first_name": 1}}), true,
			httpapi.CodeInvalidJSON, "name,status,template_vars", "campaign_400_wrong_types"},
		{"a template variable of null", `{"clone_uuid":"` + campaignN(9) + `","template_vars":{"first_name":null}}`, true, httpapi.CodeInvalidJSON, "template_vars", ""},
		{"template_vars not an object", `{"template_vars":["a"]}`, true, httpapi.CodeInvalidJSON, "template_vars", ""},
		{"unknown members", body(t, smsCampaign, map[string]any{"colour": "red", "Named": "x"}), true, httpapi.CodeInvalidJSON, "Named,colour", ""},
		{"malformed JSON", `{"name":`, true, httpapi.CodeInvalidJSON, "body", ""},
		{"not an object", `[]`, true, httpapi.CodeInvalidJSON, "body", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w *httptest.ResponseRecorder
			if tt.outside {
				w = e.bad(t, "POST", "/campaigns", tt.body)
			} else {
				w = e.do(t, "POST", "/campaigns", tt.body, false)
			}
			m := httpapitest.WantError(t, w, httpapi.CDS, 400, tt.code)
			if got := items(m); got != tt.fields {
				t.Errorf("items %s, want %s\n%s", got, tt.fields, w.Body)
			}
			if tt.golden != "" {
				msgkittest.Golden(t, "testdata/"+tt.golden+".json", httpapitest.Answer(w))
			}
		})
	}
	m := httpapitest.WantError(t, e.do(t, "POST", "/campaigns?dry_run=1", smsCampaign, false), httpapi.CDS, 400, msgkit.CodeInvalidQuery)
	if items(m) != "dry_run" {
		t.Errorf("a query parameter: %v", m)
	}
	if p := want(t, e.do(t, "GET", "/campaigns", "", false), 200); len(p["data"].([]any)) != 0 {
		t.Errorf("a refused campaign was stored: %v", p)
	}
}

func TestCampaignClone(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false) // 1 sms, 2 email, 3 webpush draft; the clock at 12:03
	w := e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","name":"Spring sale for Ana","template_vars":{"first_name":"Ana"}}`, false)
	c := want(t, w, 201)
	msgkittest.Golden(t, "testdata/campaign_clone.json", httpapitest.Answer(w))
	if c["uuid"] != campaignN(4) || c["status"] != "active" || c["created_dt"] != "2026-03-01T12:03:00Z" || c["next_dt"] != "2026-03-02T08:00:00Z" ||
		!strings.HasPrefix(c["template"].(string), "Pozdravljeni Ana! ") || c["recipient_lists"] != listA1+","+listA2 || c["template_parts"] != 2.0 {
		t.Errorf("clone: %v", c)
	}
	// The source is as it was.
	if src := want(t, e.do(t, "GET", "/campaigns/"+campaignN(1), "", false), 200); !strings.Contains(src["template"].(string), "{first_name}") {
		t.Errorf("source: %v", src)
	}

	// In a JSON template the value is JSON string content.
	c = want(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(2)+`","template_vars":{"product":"\"Bike\" 2026"}}`, false), 201)
	var doc struct {
		Messages []struct {
			Body struct {
				CardMessage struct {
					Content struct{ Description string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(c["template"].(string)), &doc); err != nil || doc.Messages[0].Body.CardMessage.Content.Description != `New "Bike" 2026 in store` {
		t.Errorf("email clone: %v %v", c["template"], err)
	}
	if c["name"] != "Bikes" || c["query"] == "" || c["next_dt"] != "2026-03-05T10:00:00Z" {
		t.Errorf("email clone: %v", c)
	}

	// A variable without a placeholder is refused, with a template sent
	// over the copy's; a placeholder without a value stays as written.
	m := httpapitest.WantError(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","template":"Hi {first_name} from {city}",
		"template_vars":{"first_name":"Ana","colour":"red"}}`, false), httpapi.CDS, 400, "invalid_campaign")
	if items(m) != "template_vars" || !strings.Contains(fmt.Sprint(m["items"]), "template_vars.colour") {
		t.Errorf("variable errors: %v", m["items"])
	}
	c = want(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","template":"Hi {first_name} from {city}",
		"template_vars":{"first_name":"Ana"}}`, false), 201)
	if c["template"] != "Hi Ana from {city}" {
		t.Errorf("a placeholder left: %v", c["template"])
	}
	// A copy is checked as a create: a stopped status, a once time past.
	m = httpapitest.WantError(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","status":"stopped"}`, false), httpapi.CDS, 400, "invalid_campaign")
	if items(m) != "status" {
		t.Errorf("stopped clone: %v", m)
	}
	e.clock.Set(time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC))
	m = httpapitest.WantError(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(2)+`"}`, false), httpapi.CDS, 400, "invalid_campaign")
	if items(m) != "schedule_rrule" {
		t.Errorf("once clone: %v", m)
	}
	c = want(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(2)+`","schedule_rrule":"2026-03-07 08:00:00"}`, false), 201)
	if c["next_dt"] != "2026-03-07T08:00:00Z" {
		t.Errorf("once clone with a new time: %v", c)
	}

	// A stopped source is copied as a draft, unless a status is sent.
	want(t, e.do(t, "PATCH", "/campaigns/"+campaignN(1), `{"status":"stopped"}`, false), 200)
	c = want(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","template_vars":{"first_name":"Bojan"}}`, false), 201)
	if c["status"] != "draft" || c["next_dt"] != nil || c["name"] != "Spring sale" {
		t.Errorf("clone of a stopped campaign: %v", c)
	}
	c = want(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`","status":"active","template_vars":{"first_name":"Bojan"}}`, false), 201)
	if c["status"] != "active" || c["next_dt"] != "2026-03-09T08:00:00Z" {
		t.Errorf("active clone of a stopped campaign: %v", c)
	}
}

// ids are the uuids of a page's campaigns.
func ids(p map[string]any) string {
	var out []string
	for _, c := range p["data"].([]any) {
		id := c.(map[string]any)["uuid"].(string)
		out = append(out, id[len(id)-1:])
	}
	return strings.Join(out, ",")
}

func TestCampaignList(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false) // 1 sms, 2 email, 3 webpush draft
	w := e.do(t, "GET", "/campaigns?sort=-created_dt&page_size=2&fields=tasks,messages", "", false)
	p := want(t, w, 200)
	msgkittest.Golden(t, "testdata/campaign_list.json", httpapitest.Answer(w))
	pg := p["meta"].(map[string]any)["pagination"].(map[string]any)
	if ids(p) != "3,2" || pg["total"] != 3.0 || pg["totalPages"] != 2.0 || !strings.Contains(fmt.Sprint(pg["links"]), "page_number=2") {
		t.Errorf("page: %v", p)
	}
	for _, c := range p["data"].([]any) {
		if c := c.(map[string]any); fmt.Sprint(c["tasks"], c["messages"]) != "[] []" {
			t.Errorf("runs: %v %v", c["tasks"], c["messages"])
		}
	}
	for _, tt := range []struct{ query, want string }{
		{"", "1,2,3"},
		{"sending_type=sms", "1"},
		{"status=active", "1,2"},
		{"status=active&sort=-created_dt", "2,1"},
		{"schedule_type=once", "2"},
		{"sort=name", "2,3,1"},
		{"sort=next_dt", "1,2,3"}, // null last
		{"gt(next_dt)=2026-03-03T00:00:00Z", "2"},
		{"q=SPRING", "1"},
		{"name=Flash", "3"},
		{"page_number=2&page_size=2", "3"},
		{"paging=2,2", "3"},
		{"paging=3,1&fields=tasks", "3"},
		{"fields=messages&fields=tasks&sending_type=webpush", "3"},
	} {
		p := want(t, e.do(t, "GET", "/campaigns?"+tt.query, "", false), 200)
		if got := ids(p); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.query, got, tt.want)
		}
	}
	if c := want(t, e.do(t, "GET", "/campaigns?fields=tasks", "", false), 200)["data"].([]any)[0].(map[string]any); c["tasks"] == nil || c["messages"] != nil {
		t.Errorf("fields=tasks: %v", c)
	}
	for _, tt := range []struct {
		query, fields string
		outside       bool // the request is outside the document
	}{
		{"fields=tasks,lists", "fields", false},
		{"sort=colour&status=active", "sort", false},
		{"colour=red", "colour", false},
		{"page_size=1000", "page_size", true},
		{"paging=1,2&page_size=3", "paging", false},
	} {
		var w *httptest.ResponseRecorder
		if tt.outside {
			w = e.bad(t, "GET", "/campaigns?"+tt.query, "")
		} else {
			w = e.do(t, "GET", "/campaigns?"+tt.query, "", false)
		}
		m := httpapitest.WantError(t, w, httpapi.CDS, 400, msgkit.CodeInvalidQuery)
		if items(m) != tt.fields {
			t.Errorf("%s: items %s, want %s", tt.query, items(m), tt.fields)
		}
	}
}

func TestCampaignGet(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false)
	w := e.do(t, "GET", "/campaigns/"+campaignN(1)+"?fields=tasks,messages", "", false)
	c := want(t, w, 200)
	msgkittest.Golden(t, "testdata/campaign_get.json", httpapitest.Answer(w))
	if fmt.Sprint(c["tasks"], c["messages"]) != "[] []" {
		t.Errorf("runs: %v %v", c["tasks"], c["messages"])
	}
	c = want(t, e.do(t, "GET", "/campaigns/"+strings.ToUpper(campaignN(2))+"?fields=messages", "", false), 200)
	if c["uuid"] != campaignN(2) || c["messages"] == nil || c["tasks"] != nil {
		t.Errorf("get: %v", c)
	}
	for _, path := range []string{"/campaigns/" + campaignN(9), "/campaigns/42"} {
		httpapitest.WantError(t, e.do(t, "GET", path, "", false), httpapi.CDS, 404, campaign.CodeNotFound)
	}
	for _, tt := range []struct{ query, fields string }{{"fields=lists", "fields"}, {"colour=red", "colour"}} {
		m := httpapitest.WantError(t, e.do(t, "GET", "/campaigns/"+campaignN(1)+"?"+tt.query, "", false), httpapi.CDS, 400, msgkit.CodeInvalidQuery)
		if items(m) != tt.fields {
			t.Errorf("%s: %v", tt.query, m)
		}
	}
}

// finish marks a campaign finished, as the runner does.
func (e *campaignEnv) finish(t *testing.T, id string) {
	t.Helper()
	if _, err := e.db.Campaigns().Update(context.Background(), httpapitest.TenantA, id, func(c *campaign.Campaign) error {
		c.Status, c.Next, c.Last = campaign.Finished, time.Time{}, c.Next
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestCampaignReplace(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false) // 1 sms, 2 email, 3 webpush draft; the clock at 12:03
	e.clock.Advance(time.Hour)

	// A fetched campaign sent back is taken as it is.
	fetched := e.do(t, "GET", "/campaigns/"+campaignN(1), "", false).Body.String()
	c := want(t, e.do(t, "PUT", "/campaigns/"+campaignN(1), fetched, false), 200)
	var before map[string]any
	if err := json.Unmarshal([]byte(fetched), &before); err != nil {
		t.Fatal(err)
	}
	before["updated_dt"] = "2026-03-01T13:03:00Z"
	if fmt.Sprint(c) != fmt.Sprint(before) {
		t.Errorf("sent back:\n%v\nwant\n%v", c, before)
	}

	// A new rule, from the request's time on; what is left out is cleared.
	c = want(t, e.do(t, "PUT", "/campaigns/"+campaignN(1), body(t, smsCampaign, map[string]any{
		"name": "Daily", "schedule_rrule": "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0", "template": "Hello", "recipient_lists": listA2}), false), 200)
	if c["name"] != "Daily" || c["schedule_rrule"] != "DTSTART:20260301T130300Z\nRRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0" ||
		c["next_dt"] != "2026-03-02T09:00:00Z" || c["created_dt"] != "2026-03-01T12:00:00Z" || c["updated_dt"] != "2026-03-01T13:03:00Z" ||
		c["template_parts"] != 1.0 || c["recipient_lists"] != listA2 {
		t.Errorf("replaced: %v", c)
	}

	// Status moves: active and stopped both ways; draft only from draft.
	c = want(t, e.do(t, "PUT", "/campaigns/"+campaignN(1), body(t, smsCampaign, map[string]any{"status": "stopped"}), false), 200)
	if c["status"] != "stopped" || c["next_dt"] != nil {
		t.Errorf("stopped by PUT: %v", c)
	}
	c = want(t, e.do(t, "PUT", "/campaigns/"+campaignN(1), smsCampaign, false), 200)
	if c["status"] != "active" || c["next_dt"] != "2026-03-02T08:00:00Z" {
		t.Errorf("resumed by PUT: %v", c)
	}
	c = want(t, e.do(t, "PUT", "/campaigns/"+campaignN(3), body(t, webpushCampaign, map[string]any{"name": "Flash 2"}), false), 200)
	if c["status"] != "draft" || c["name"] != "Flash 2" || c["next_dt"] != nil {
		t.Errorf("draft replaced: %v", c)
	}
	e.finish(t, campaignN(2))
	for _, tt := range []struct {
		name, id, body string
		code, fields   string
	}{
		{"active to draft", campaignN(1), body(t, smsCampaign, map[string]any{"status": "draft"}), campaign.CodeInvalidStatus, "status"},
		{"draft to stopped", campaignN(3), body(t, webpushCampaign, map[string]any{"status": "stopped"}), campaign.CodeInvalidStatus, "status"},
		{"a finished campaign", campaignN(2), body(t, emailCampaign, map[string]any{"schedule_rrule": "2026-04-01 10:00:00"}), campaign.CodeInvalidStatus, "status"},
		{"to finished", campaignN(1), body(t, smsCampaign, map[string]any{"status": "finished"}), campaign.CodeInvalidStatus, "status"},
		{"clone_uuid", campaignN(1), body(t, smsCampaign, map[string]any{"clone_uuid": campaignN(2)}), "invalid_campaign", "clone_uuid"},
	} {
		m := httpapitest.WantError(t, e.do(t, "PUT", "/campaigns/"+tt.id, tt.body, false), httpapi.CDS, 405, tt.code)
		if items(m) != tt.fields {
			t.Errorf("%s: %v", tt.name, m)
		}
	}
	// Broken rules are 405, naming every field; wrong types 400.
	w := e.do(t, "PUT", "/campaigns/"+campaignN(1), body(t, smsCampaign, map[string]any{"name": "", "schedule_rrule": "FREQ=SECONDLY", "recipient_lists": nil}), false)
	m := httpapitest.WantError(t, w, httpapi.CDS, 405, "invalid_campaign")
	msgkittest.Golden(t, "testdata/campaign_405.json", httpapitest.Answer(w))
	if items(m) != "name,schedule_rrule,recipient_lists" {
		t.Errorf("rules: %v", m)
	}
	m = httpapitest.WantError(t, e.do(t, "PUT", "/campaigns/"+campaignN(1), body(t, smsCampaign, map[string]any{"recipient_lists": listB}), false), httpapi.CDS, 405, "invalid_campaign")
	if items(m) != "recipient_lists" {
		t.Errorf("lists: %v", m)
	}
	m = httpapitest.WantError(t, e.bad(t, "PUT", "/campaigns/"+campaignN(1), body(t, smsCampaign, map[string]any{"template": 5})), httpapi.CDS, 400, httpapi.CodeInvalidJSON)
	if items(m) != "template" {
		t.Errorf("types: %v", m)
	}
	httpapitest.WantError(t, e.do(t, "PUT", "/campaigns/"+campaignN(9), smsCampaign, false), httpapi.CDS, 404, campaign.CodeNotFound)
	// Nothing refused was stored.
	if c = want(t, e.do(t, "GET", "/campaigns/"+campaignN(1), "", false), 200); c["name"] != "Spring sale" || c["status"] != "active" {
		t.Errorf("a refused replace was stored: %v", c)
	}
}

func TestCampaignStatus(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false) // 1 sms, 2 email, 3 webpush draft; the clock at 12:03
	e.clock.Advance(time.Minute)
	w := e.do(t, "PATCH", "/campaigns/"+campaignN(1), `{"status":"stopped"}`, false)
	c := want(t, w, 200)
	msgkittest.Golden(t, "testdata/campaign_patch.json", httpapitest.Answer(w))
	if c["status"] != "stopped" || c["next_dt"] != nil || c["updated_dt"] != "2026-03-01T12:04:00Z" {
		t.Errorf("stopped: %v", c)
	}
	// Resumed two days on, Monday's occurrence is skipped.
	e.clock.Set(time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC))
	c = want(t, e.do(t, "PATCH", "/campaigns/"+campaignN(1), `{"status":"active"}`, false), 200)
	if c["status"] != "active" || c["next_dt"] != "2026-03-04T08:00:00Z" || c["updated_dt"] != "2026-03-03T12:00:00Z" {
		t.Errorf("resumed: %v", c)
	}
	// The status it has changes nothing.
	e.clock.Advance(time.Minute)
	if c = want(t, e.do(t, "PATCH", "/campaigns/"+campaignN(1), `{"status":"active"}`, false), 200); c["updated_dt"] != "2026-03-03T12:00:00Z" {
		t.Errorf("unchanged: %v", c)
	}
	// A draft is published, not stopped.
	httpapitest.WantError(t, e.do(t, "PATCH", "/campaigns/"+campaignN(3), `{"status":"stopped"}`, false), httpapi.CDS, 405, campaign.CodeInvalidStatus)
	if c = want(t, e.do(t, "PATCH", "/campaigns/"+campaignN(3), `{"status":"active"}`, false), 200); c["next_dt"] != "2026-03-03T12:01:00Z" {
		t.Errorf("published: %v", c)
	}
	// A once campaign whose time passed while stopped is not resumed.
	want(t, e.do(t, "PATCH", "/campaigns/"+campaignN(2), `{"status":"stopped"}`, false), 200)
	e.clock.Set(time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC))
	m := httpapitest.WantError(t, e.do(t, "PATCH", "/campaigns/"+campaignN(2), `{"status":"active"}`, false), httpapi.CDS, 405, campaign.CodeInvalidStatus)
	if items(m) != "schedule_rrule" {
		t.Errorf("once resumed late: %v", m)
	}
	// A finished campaign does not change.
	e.finish(t, campaignN(1))
	httpapitest.WantError(t, e.do(t, "PATCH", "/campaigns/"+campaignN(1), `{"status":"active"}`, false), httpapi.CDS, 405, campaign.CodeInvalidStatus)

	for _, tt := range []struct {
		body   string
		status int
		code   string
		fields string
	}{
		{`{"status":"finished"}`, 405, campaign.CodeInvalidStatus, "status"},
		{`{"status":"draft"}`, 405, campaign.CodeInvalidStatus, "status"},
		{`{"status":"stopped","name":"x","uuid":"y"}`, 400, httpapi.CodeInvalidJSON, "name,uuid"},
		{`{"status":1}`, 400, httpapi.CodeInvalidJSON, "status"},
		{`{}`, 400, "invalid_campaign", "status"},
		{`{"status":null}`, 400, "invalid_campaign", "status"},
	} {
		m := httpapitest.WantError(t, e.bad(t, "PATCH", "/campaigns/"+campaignN(3), tt.body), httpapi.CDS, tt.status, tt.code)
		if items(m) != tt.fields {
			t.Errorf("%s: %v", tt.body, m)
		}
	}
	httpapitest.WantError(t, e.do(t, "PATCH", "/campaigns/"+campaignN(9), `{"status":"stopped"}`, false), httpapi.CDS, 404, campaign.CodeNotFound)
}

func TestCampaignDelete(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false)
	w := e.do(t, "DELETE", "/campaigns/"+campaignN(1), "", false)
	want(t, w, 204)
	if w.Body.Len() != 0 {
		t.Errorf("body: %q", w.Body)
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/campaigns/" + campaignN(1)},
		{"DELETE", "/campaigns/" + campaignN(1)},
		{"DELETE", "/campaigns/not-a-uuid"},
	} {
		httpapitest.WantError(t, e.do(t, tt.method, tt.path, "", false), httpapi.CDS, 404, campaign.CodeNotFound)
	}
	if p := want(t, e.do(t, "GET", "/campaigns", "", false), 200); ids(p) != "2,3" {
		t.Errorf("after delete: %v", ids(p))
	}
	// A deleted campaign cannot be cloned.
	m := httpapitest.WantError(t, e.do(t, "POST", "/campaigns", `{"clone_uuid":"`+campaignN(1)+`"}`, false), httpapi.CDS, 400, "invalid_campaign")
	if items(m) != "clone_uuid" {
		t.Errorf("clone of a deleted campaign: %v", m)
	}
}

// Tenant B sees, changes, clones and deletes nothing of tenant A's, and
// cannot send to A's lists.
func TestCampaignTenantIsolation(t *testing.T) {
	e := newCampaignEnv(t)
	e.create(t, false)
	mine := body(t, smsCampaign, map[string]any{"recipient_lists": listB})
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/campaigns/" + campaignN(1) + "?fields=tasks,messages", ""},
		{"PUT", "/campaigns/" + campaignN(1), mine},
		{"PATCH", "/campaigns/" + campaignN(1), `{"status":"stopped"}`},
		{"DELETE", "/campaigns/" + campaignN(1), ""},
	} {
		httpapitest.WantError(t, e.do(t, tt.method, tt.path, tt.body, true), httpapi.CDS, 404, campaign.CodeNotFound)
	}
	if p := want(t, e.do(t, "GET", "/campaigns?fields=tasks", "", true), 200); len(p["data"].([]any)) != 0 {
		t.Errorf("B lists %v", p)
	}
	for _, tt := range []struct{ body, fields string }{
		{`{"clone_uuid":"` + campaignN(1) + `"}`, "clone_uuid"},
		{smsCampaign, "recipient_lists"},
	} {
		m := httpapitest.WantError(t, e.do(t, "POST", "/campaigns", tt.body, true), httpapi.CDS, 400, "invalid_campaign")
		if items(m) != tt.fields {
			t.Errorf("B: %v", m)
		}
	}
	if c := want(t, e.do(t, "POST", "/campaigns", mine, true), 201); c["recipient_lists"] != listB {
		t.Errorf("B's own: %v", c)
	}
	if p := want(t, e.do(t, "GET", "/campaigns", "", false), 200); ids(p) != "1,2,3" || p["data"].([]any)[0].(map[string]any)["status"] != "active" {
		t.Errorf("A's campaigns changed: %v", p)
	}
}

// Without a campaign service the routes answer 501; without runs, fields
// tasks and messages are refused.
func TestCampaignsNotServed(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	db := memstore.New()
	tok := f.Token(t, httpapitest.ClientID)
	serve := func(b Backend, method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, tenantPath(httpapitest.TenantA, path), strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return httpapitest.Serve(c.Handler(t, Handler(f.Opts, b)), httpapitest.Bearer(r, tok))
	}
	none := Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: db.Contacts()}, f.Clock.Now, nil)}
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/campaigns", ""}, {"POST", "/campaigns", smsCampaign}, {"GET", "/campaigns/" + campaignN(1), ""},
		{"PUT", "/campaigns/" + campaignN(1), smsCampaign}, {"PATCH", "/campaigns/" + campaignN(1), `{"status":"active"}`},
		{"DELETE", "/campaigns/" + campaignN(1), ""},
	} {
		httpapitest.WantError(t, serve(none, tt.method, tt.path, tt.body), httpapi.CDS, 501, httpapi.CodeNotImplemented)
	}
	noRuns := Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: db.Contacts()}, f.Clock.Now, nil), Campaigns: campaign.NewService(db.Campaigns(), db.Contacts(), f.Clock.Now, nil)}
	want(t, serve(noRuns, "GET", "/campaigns", ""), 200)
	for _, path := range []string{"/campaigns?fields=tasks", "/campaigns/" + campaignN(1) + "?fields=messages"} {
		m := httpapitest.WantError(t, serve(noRuns, "GET", path, ""), httpapi.CDS, 400, msgkit.CodeInvalidQuery)
		if items(m) != "fields" {
			t.Errorf("%s: %v", path, m)
		}
	}
}
