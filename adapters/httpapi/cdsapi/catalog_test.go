package cdsapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

// uuidN is the n-th UUID the test backend makes.
func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// Every catalog resource: create, get, list, update, delete (where it
// has one), each answer held to the document.
func TestCatalogLifecycle(t *testing.T) {
	e := newEnv(t)
	e.seed(t) // list 1, custom field column_1, contact 3
	seg := `{\"segmentation\":[{\"rules\":[{\"field\":\"city\",\"condition\":\"eq\",\"value\":\"Ljubljana\",\"operator\":\"AND\"}]}]}`
	for _, tt := range []struct {
		path, create, update string
		deletable            bool
		check                func(m map[string]any) bool
	}{
		{"/cds/custom_fields", `{"display_name":"Shoe size","field_type":"number","order_num":"3"}`, `{"display_name":"Size","field_type":"number","mandatory":"no"}`, true,
			func(m map[string]any) bool { return m["field_name"] == "column_2" && m["display_name"] == "Size" }},
		{"/cds/segmentation_sets", `{"name":"Locals","data":"` + seg + `"}`, `{"name":"Ljubljana","data":"` + seg + `"}`, true,
			func(m map[string]any) bool { return m["name"] == "Ljubljana" }},
		{"/cds/segmentation_groups", `{"name":"Locals","data":"` + seg + `"}`, `{"name":"L","data":"` + seg + `"}`, true,
			func(m map[string]any) bool { return m["name"] == "L" }},
		{"/cds/subscriptions", `{"name":"News","description":"Weekly"}`, `{"name":"News","status":"inactive"}`, true,
			func(m map[string]any) bool { return m["status"] == "inactive" && m["description"] == "" }},
		{"/cds/groups", `{"name":"VIP"}`, `{"name":"VIP 2"}`, true, func(m map[string]any) bool { return m["name"] == "VIP 2" }},
		{"/cds/touchpoints", `{"name":"Shop"}`, `{"name":"Web shop"}`, true, func(m map[string]any) bool { return m["name"] == "Web shop" }},
		{"/cds/interests", `{"name":"Cycling"}`, `{"name":"Running"}`, true, func(m map[string]any) bool { return m["name"] == "Running" }},
	} {
		t.Run(tt.path, func(t *testing.T) {
			c := want(t, e.do(t, "POST", tt.path, tt.create, false), 201)
			id := c["uuid"].(string)
			want(t, e.do(t, "GET", tt.path+"/"+id, "", false), 200)
			if p := want(t, e.do(t, "GET", tt.path+"?uuid="+id, "", false), 200); p["meta"].(map[string]any)["pagination"].(map[string]any)["total"] != 1.0 {
				t.Errorf("listing: %v", p)
			}
			if u := want(t, e.do(t, "PUT", tt.path+"/"+id, tt.update, false), 200); !tt.check(u) {
				t.Errorf("updated: %v", u)
			}
			// Tenant B can neither change nor delete it.
			wantErr(t, e.do(t, "PUT", tt.path+"/"+id, tt.update, true), 404)
			wantErr(t, e.do(t, "DELETE", tt.path+"/"+id, "", true), 404)
			want(t, e.do(t, "DELETE", tt.path+"/"+id, "", false), 204)
			wantErr(t, e.do(t, "GET", tt.path+"/"+id, "", false), 404)
			if p := want(t, e.do(t, "GET", tt.path+"?fields=show_deleted&uuid="+id, "", false), 200); len(p["data"].([]any)) != 1 {
				t.Errorf("show_deleted: %v", p)
			}
			// Tenant B sees none of it.
			if p := want(t, e.do(t, "GET", tt.path+"?fields=show_deleted", "", true), 200); len(p["data"].([]any)) != 0 {
				t.Errorf("tenant B lists %v", p)
			}
			wantErr(t, e.do(t, "GET", tt.path+"/"+id+"?fields=show_deleted", "", true), 404)
		})
	}
}

// Options, members, groups with their lists and segmentation, custom
// columns on contacts, and the fields listing.
func TestCatalogRelations(t *testing.T) {
	e := newEnv(t)
	e.seed(t) // list 1, custom field column_1, contact 3
	sub := want(t, e.do(t, "POST", "/cds/subscriptions", `{"name":"News"}`, false), 201)["uuid"].(string)
	w := e.do(t, "POST", "/cds/subscriptions/options", `{"name":"Weekly","subscription_uuid":"`+sub+`","order_num":1}`, false)
	opt := want(t, w, 201)
	msgkittest.Golden(t, "testdata/create_option.json", httpapitest.Answer(w))
	if opt["order_num"] != "1" || opt["subscription_uuid"] != sub {
		t.Errorf("option: %v", opt)
	}
	optID := opt["uuid"].(string)
	// An option of another tenant's, or no, subscription.
	wantErr(t, e.do(t, "POST", "/cds/subscriptions/options", `{"name":"X","subscription_uuid":"`+sub+`"}`, true), 400)
	// A subscription with an option in use cannot go.
	wantErr(t, e.do(t, "DELETE", "/cds/subscriptions/"+sub, "", false), 409)

	// Members: set, list, and visible in the contact listing's filters.
	w = e.do(t, "POST", "/cds/subscriptions/members", `{"contact_uuid":"`+contact2+`","option_uuid":"`+optID+`","status":"subscribed"}`, false)
	want(t, w, 200)
	msgkittest.Golden(t, "testdata/set_member.json", httpapitest.Answer(w))
	p := want(t, e.do(t, "GET", "/cds/subscriptions/members", "", false), 200)
	if d := p["data"].([]any); len(d) != 1 || d[0].(map[string]any)["option_uuid"] != optID {
		t.Errorf("members: %v", p)
	}
	wantErr(t, e.do(t, "POST", "/cds/subscriptions/members", `{"contact_uuid":"`+contact2+`","option_uuid":"`+optID+`","status":"subscribed"}`, true), 400)
	if p := want(t, e.do(t, "GET", "/cds/subscriptions/members", "", true), 200); len(p["data"].([]any)) != 0 {
		t.Errorf("B's members: %v", p)
	}
	tp := want(t, e.do(t, "POST", "/cds/touchpoints", `{"name":"Shop"}`, false), 201)["uuid"].(string)
	want(t, e.do(t, "POST", "/cds/touchpoints/members", `{"contact_uuid":"`+contact2+`","touchpoint_uuid":"`+tp+`","status":"unsubscribed"}`, false), 200)
	in := want(t, e.do(t, "POST", "/cds/interests", `{"name":"Bikes"}`, false), 201)["uuid"].(string)
	want(t, e.do(t, "POST", "/cds/interests/members", `{"contact_uuid":"`+contact2+`","interest_uuid":"`+in+`","status":"subscribed"}`, false), 200)
	if p := want(t, e.do(t, "GET", "/cds/interests/members?status=subscribed", "", false), 200); len(p["data"].([]any)) != 1 {
		t.Errorf("interest members: %v", p)
	}

	// Groups: lists and segmentation.
	g := want(t, e.do(t, "POST", "/cds/groups", `{"name":"Locals"}`, false), 201)["uuid"].(string)
	gl := want(t, e.do(t, "POST", "/cds/group_lists", `{"group_uuid":"`+g+`","list_uuid":"`+list1+`"}`, false), 201)
	wantErr(t, e.do(t, "POST", "/cds/group_lists", `{"group_uuid":"`+g+`","list_uuid":"`+list1+`"}`, false), 409)
	want(t, e.do(t, "GET", "/cds/group_lists/"+gl["uuid"].(string), "", false), 200)
	gs := want(t, e.do(t, "POST", "/cds/group_segmentation", `{"group_uuid":"`+g+`","data":"{\"segmentation\":[{\"rules\":[{\"field\":\"first_name\",\"condition\":\"eq\",\"value\":\"Ana\",\"operator\":\"AND\"}]}]}"}`, false), 201)
	want(t, e.do(t, "GET", "/cds/group_segmentation/"+gs["uuid"].(string), "", false), 200)
	for _, path := range []string{"/cds/group_lists/" + gl["uuid"].(string), "/cds/group_segmentation/" + gs["uuid"].(string)} {
		wantErr(t, e.do(t, "GET", path, "", true), 404)
		wantErr(t, e.do(t, "PUT", path, `{"group_uuid":"`+g+`","list_uuid":"`+list1+`"}`, true), 404)
	}
	for _, path := range []string{"/cds/group_lists", "/cds/group_segmentation"} {
		if p := want(t, e.do(t, "GET", path, "", true), 200); len(p["data"].([]any)) != 0 {
			t.Errorf("B lists %s: %v", path, p)
		}
	}
	// A bad segmentation query is named.
	m := httpapitest.WantError(t, e.do(t, "POST", "/cds/segmentation_sets", `{"name":"x","data":"{\"segmentation\":[]}"}`, false), httpapi.CDS, 400, "invalid_segmentation_set")
	if !strings.Contains(fmt.Sprint(m["items"]), "data") {
		t.Errorf("items: %v", m["items"])
	}

	// Custom fields: a contact may hold only defined columns; a mandatory
	// one must have a value.
	cf := want(t, e.do(t, "POST", "/cds/custom_fields", `{"display_name":"Tier","field_type":"text","mandatory":"yes"}`, false), 201)
	if cf["field_name"] != "column_2" {
		t.Fatalf("custom field: %v", cf)
	}
	m = httpapitest.WantError(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`","column_3":"x"}`, false), httpapi.CDS, 400, "invalid_contact")
	if fmt.Sprint(m["items"]) != fmt.Sprint([]any{
		map[string]any{"name": "column_2", "message": "column_2 (Tier) is mandatory", "description": ""},
		map[string]any{"name": "column_3", "message": "column_3 is not a custom field of this service", "description": ""}}) {
		t.Errorf("items: %v", m["items"])
	}
	c := want(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`","column_2":"gold"}`, false), 201)
	if c["column_2"] != "gold" {
		t.Errorf("contact: %v", c)
	}
	httpapitest.WantError(t, e.do(t, "PUT", "/cds/contacts/"+c["uuid"].(string), `{"first_name":"X"}`, false), httpapi.CDS, 405, "invalid_contact")

	// GET /cds/fields: definitions with the custom field, or names.
	w = e.do(t, "GET", "/cds/fields", "", false)
	var defs []map[string]any
	if err := jsonUnmarshal(w.Body.Bytes(), &defs); err != nil || len(defs) != 32 || defs[31]["field_name"] != "column_2" || defs[31]["mandatory"] != "yes" {
		t.Errorf("fields: %d %v", len(defs), err)
	}
	w = e.do(t, "GET", "/cds/fields?include_all=0", "", false)
	var names []string
	if err := jsonUnmarshal(w.Body.Bytes(), &names); err != nil || len(names) != 30 || names[0] != "salutation" {
		t.Errorf("names: %v %v", names, err)
	}
	httpapitest.WantError(t, e.bad(t, "GET", "/cds/fields?include_all=2", ""), httpapi.CDS, 400, "invalid_query")
}

// Bad catalog bodies: wrong types and unknown members are 400; broken
// rules are 400 on create and 405 on update.
func TestCatalogBadInput(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	id := want(t, e.do(t, "POST", "/cds/interests", `{"name":"Bikes"}`, false), 201)["uuid"].(string)
	for _, tt := range []struct {
		method, path, body string
		status             int
		fields             string
	}{
		{"POST", "/cds/interests", `{"name":5}`, 400, "name"},
		{"POST", "/cds/interests", `{"name":"x","colour":"red"}`, 400, "colour"},
		{"POST", "/cds/interests", `{"status":"sometimes"}`, 400, "name,status"},
		{"POST", "/cds/custom_fields", `{"display_name":"x","field_type":"blob","order_num":"-1","field_name":"column_101"}`, 400, "field_type,field_name,order_num"},
		{"PUT", "/cds/interests/" + id, `{"name":""}`, 405, "name"},
		{"PUT", "/cds/interests/" + id, `{"name":[]}`, 400, "name"},
		{"POST", "/cds/interests/members", `{"contact_uuid":"x","interest_uuid":"` + id + `","status":"in"}`, 400, "contact_uuid,status"},
	} {
		m := wantErr(t, e.bad(t, tt.method, tt.path, tt.body), tt.status)
		var names []string
		for _, it := range m["items"].([]any) {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		if strings.Join(names, ",") != tt.fields {
			t.Errorf("%s %s %s: items %v, want %s", tt.method, tt.path, tt.body, names, tt.fields)
		}
	}
}

// A segmentation query with two problems, wherever the family takes one
// (a contact listing's query, a segmentation set's data): each problem is
// one item, said once in the body.
func TestSegmentationProblemsOnce(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	query := `{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x","operator":"AND"},{"field":"city","condition":"bogus","value":"x","operator":"AND"}]}]}`
	quoted, _ := json.Marshal(query)
	problems := []string{`segmentation[0].rules[0].field: unknown field \"nope\"`, `segmentation[0].rules[1].condition: unknown condition \"bogus\"`}
	for _, tc := range []struct {
		method, path, body, item string
	}{
		{"GET", "/cds/contacts?query=" + url.QueryEscape(query), "", "query"},
		{"POST", "/cds/segmentation_sets", `{"name":"x","data":` + string(quoted) + `}`, "data"},
	} {
		w := e.do(t, tc.method, tc.path, tc.body, false)
		m := wantErr(t, w, 400)
		for _, p := range problems {
			if n := strings.Count(w.Body.String(), p); n != 1 {
				t.Errorf("%s %s says %s %d times, want once: %s", tc.method, tc.path, p, n, w.Body)
			}
		}
		named := 0
		for _, it := range m["items"].([]any) {
			if it.(map[string]any)["name"] == tc.item {
				named++
			}
		}
		if named != len(problems) {
			t.Errorf("%s %s: %d items name %s, want %d: %s", tc.method, tc.path, named, tc.item, len(problems), w.Body)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// wantErr checks an error answer of the status, whatever its code.
func wantErr(t *testing.T, w *httptest.ResponseRecorder, status int) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	return httpapitest.WantError(t, w, httpapi.CDS, status, fmt.Sprint(m["code"]))
}

// The listing's subscription_uuids and group_uuid go through the catalog.
func TestContactFiltersByCatalog(t *testing.T) {
	e := newEnv(t)
	e.seed(t)                                                                                               // list 1, custom field column_1, contact 3 (Ana)
	want(t, e.do(t, "POST", "/cds/contacts", `{"list_uuid":"`+list1+`","first_name":"Bojan"}`, false), 201) // 4
	sub := want(t, e.do(t, "POST", "/cds/subscriptions", `{"name":"News"}`, false), 201)["uuid"].(string)
	opt := want(t, e.do(t, "POST", "/cds/subscriptions/options", `{"name":"Weekly","subscription_uuid":"`+sub+`"}`, false), 201)["uuid"].(string)
	want(t, e.do(t, "POST", "/cds/subscriptions/members", `{"contact_uuid":"`+contact2+`","option_uuid":"`+opt+`","status":"subscribed"}`, false), 200)
	count := func(query string) any {
		p := want(t, e.do(t, "GET", "/cds/contacts?"+query, "", false), 200)
		return p["meta"].(map[string]any)["pagination"].(map[string]any)["total"]
	}
	if n := count("subscription_uuids=" + sub); n != 1.0 {
		t.Errorf("subscription_uuids: %v", n)
	}
	if n := count("subscription_uuids=" + sub + "&subscription_status=unsubscribed"); n != 0.0 {
		t.Errorf("subscription_status: %v", n)
	}
	if n := count("subscription_uuids=" + uuidN(77)); n != 0.0 {
		t.Errorf("unknown subscription: %v", n)
	}
	g := want(t, e.do(t, "POST", "/cds/groups", `{"name":"Locals"}`, false), 201)["uuid"].(string)
	if n := count("group_uuid=" + g); n != 0.0 {
		t.Errorf("a group without lists: %v", n)
	}
	want(t, e.do(t, "POST", "/cds/group_lists", `{"group_uuid":"`+g+`","list_uuid":"`+list1+`"}`, false), 201)
	if n := count("group_uuid=" + g); n != 2.0 {
		t.Errorf("a group's list: %v", n)
	}
	want(t, e.do(t, "POST", "/cds/group_segmentation", `{"group_uuid":"`+g+`","data":"{\"segmentation\":[{\"rules\":[{\"field\":\"first_name\",\"condition\":\"startswith\",\"value\":\"b\",\"operator\":\"AND\"}]}]}"}`, false), 201)
	if n := count("group_uuid=" + g); n != 1.0 {
		t.Errorf("a group's segmentation: %v", n)
	}
	m := wantErr(t, e.do(t, "GET", "/cds/contacts?group_uuid="+uuidN(78), "", false), 400)
	if !strings.Contains(fmt.Sprint(m["items"]), "group_uuid") {
		t.Errorf("unknown group: %v", m)
	}
	// Tenant B cannot use A's group or subscription.
	wantErr(t, e.do(t, "GET", "/cds/contacts?group_uuid="+g, "", true), 400)
	if p := want(t, e.do(t, "GET", "/cds/contacts?subscription_uuids="+sub, "", true), 200); len(p["data"].([]any)) != 0 {
		t.Errorf("B: %v", p)
	}
}
