package cdsapi

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

// An import through the API: new, matched, duplicate and invalid items,
// exact counters, memberships, and the invalid items as sent.
func TestImport(t *testing.T) {
	e := newEnv(t)
	e.seed(t) // list 1, custom field column_1, contact 3 (+38640123456, Ana)
	tp := want(t, e.do(t, "POST", "/cds/touchpoints", `{"name":"Shop"}`, false), 201)["uuid"].(string)
	body := `[
		{"first_name":"Ana Marija","mobile":"0038640123456"},
		{"first_name":"Bojan","mobile":"+38641234567","column_1":"silver"},
		{"first_name":"Bojan B","mobile":"+386 41 234 567"},
		{"first_name":"Cene","mobile":"12"},
		{"first_name":"Dana","mobile":"+38631345678","column_9":"x"},
		{"first_name":7}
	]`
	w := e.do(t, "POST", "/cds/imports?list_uuid="+list1+"&touchpoint_uuids="+tp, body, false)
	res := want(t, w, 200)
	msgkittest.Golden(t, "testdata/import.json", httpapitest.Answer(w))
	// Ana matched (updated), Bojan created then matched by the third item
	// (updated), three invalid: a bad number, an undefined column, a wrong
	// type.
	if res["created"] != 1.0 || res["updated"] != 2.0 || res["invalid"] != 3.0 || len(res["errors"].([]any)) != 3 {
		t.Errorf("result: %v", res)
	}
	c := want(t, e.do(t, "GET", "/cds/contacts/"+contact2, "", false), 200)
	if c["first_name"] != "Ana Marija" || c["last_name"] != "Novak" {
		t.Errorf("updated contact: %v", c)
	}
	p := want(t, e.do(t, "GET", "/cds/contacts?mobile=%2B38641234567", "", false), 200)
	if d := p["data"].([]any); len(d) != 1 || d[0].(map[string]any)["first_name"] != "Bojan B" || d[0].(map[string]any)["column_1"] != "silver" {
		t.Errorf("the duplicate: %v", p)
	}
	if p := want(t, e.do(t, "GET", "/cds/touchpoints/members", "", false), 200); len(p["data"].([]any)) != 2 {
		t.Errorf("touchpoint members: %v", p)
	}

	// delete mode; then skip, by email.
	res = want(t, e.do(t, "POST", "/cds/imports?list_uuid="+list1+"&resolve_duplicate=delete", `[{"mobile":"+38641234567"},{"mobile":"+38651000000"}]`, false), 200)
	if res["deleted"] != 1.0 || res["skipped"] != 1.0 {
		t.Errorf("delete: %v", res)
	}
	res = want(t, e.do(t, "POST", "/cds/imports?list_uuid="+list1+"&resolve_duplicate=optout&update_opt_channels=sms,whatsapp", `[{"mobile":"+38640123456"}]`, false), 200)
	if res["optedout"] != 1.0 {
		t.Errorf("optout: %v", res)
	}
	c = want(t, e.do(t, "GET", "/cds/contacts/"+contact2, "", false), 200)
	if c["opt_status"] != "out" || !strings.Contains(fmt.Sprint(c["channels"]), "whatsapp") {
		t.Errorf("opted out: %v", c)
	}
}

func TestImportBadInput(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	opt := uuidN(99)
	for _, tt := range []struct {
		name, query, body string
		status            int
		fields            string
	}{
		{"no list", "", `[]`, 400, "list_uuid"},
		{"bad parameters", "?list_uuid=" + list1 + "&resolve_duplicate=merge&identifier=shoe", `[]`, 400, "identifier,resolve_duplicate"},
		{"unknown option", "?list_uuid=" + list1 + "&option_uuids=" + opt, `[]`, 400, "option_uuids"},
		{"identifier not declared", "?list_uuid=" + list1 + "&identifier=column_1", `[]`, 400, "identifier"},
		{"not an array", "?list_uuid=" + list1, `{"mobile":"+38640123456"}`, 400, "body"},
		{"malformed", "?list_uuid=" + list1, `[{"mobile":`, 400, "body"},
		{"another tenant's list", "?list_uuid=7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e", `[]`, 400, "list_uuid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := wantErr(t, e.bad(t, "POST", "/cds/imports"+tt.query, tt.body), tt.status)
			var names []string
			for _, it := range m["items"].([]any) {
				names = append(names, it.(map[string]any)["name"].(string))
			}
			if strings.Join(names, ",") != tt.fields {
				t.Errorf("items %v, want %s", names, tt.fields)
			}
		})
	}
	// Over 16 MiB: 413.
	big := "[" + strings.Repeat(`{"first_name":"x"},`, importMaxBody/18) + `{}]`
	r := httptest.NewRequest("POST", tenantPath("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a", "/cds/imports?list_uuid="+list1), strings.NewReader(big))
	w := httpapitest.Serve(e.h, httpapitest.Bearer(httpapitest.SkipRequestCheck(r), e.tokenA))
	httpapitest.WantError(t, w, httpapi.CDS, 413, httpapi.CodeRequestTooLarge)
	// Nothing was imported.
	if p := want(t, e.do(t, "GET", "/cds/contacts", "", false), 200); p["meta"].(map[string]any)["pagination"].(map[string]any)["total"] != 1.0 {
		t.Errorf("contacts: %v", p)
	}
}
