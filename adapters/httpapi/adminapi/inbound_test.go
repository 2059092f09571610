package adminapi

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
)

// Messages from phones are listed whatever became of them; a filter by
// state finds those no route takes.
func TestInbound(t *testing.T) {
	e := newEnv(t)
	want(t, e.do(t, "POST", "sms-accounts", `{"username":"web","password":"p","currency":"EUR","inboundUrl":"https://web.example/mo"}`), 201)
	if _, err := routing.New(e.db.Routing()).Create(t.Context(), routing.InputOf(routing.Route{ID: 3, Sigtran: "simnet", SMPP: "web", ESME: routing.Unused})); err != nil {
		t.Fatal(err)
	}
	for _, conn := range []string{"simnet", "smsc-b"} {
		if err := e.inbound.HandleInbound(t.Context(), sms.Inbound{Conn: conn, Source: "41790000001", Dest: "4560", Text: "STOP"}); err != nil {
			t.Fatal(err)
		}
	}
	m := want(t, e.do(t, "GET", "inbound", ""), 200)
	if d := m["data"].([]any); len(d) != 2 || d[0].(map[string]any)["state"] != "routed" || d[0].(map[string]any)["url"] != "https://web.example/mo" {
		t.Errorf("listed %v", m)
	}
	w := e.do(t, "GET", "inbound?state=unroutable", "")
	m = want(t, w, 200)
	d := m["data"].([]any)
	if len(d) != 1 || d[0].(map[string]any)["connection"] != "smsc-b" {
		t.Fatalf("unroutable: %v", m)
	}
	msgkittest.Golden(t, "testdata/inbound_unroutable.json", httpapitest.Answer(w))
	httpapitest.WantError(t, e.bad(t, "GET", "inbound?colour=red", ""), httpapi.Admin, 400, "invalid_query")
}

// An account's inbound URL is set, answered and checked.
func TestAccountInboundURL(t *testing.T) {
	e := newEnv(t)
	want(t, e.do(t, "POST", "sms-accounts", shopAccount), 201)
	if m := want(t, e.do(t, "PATCH", "sms-accounts/shop", `{"inboundUrl":"https://shop.example/mo"}`), 200); m["inboundUrl"] != "https://shop.example/mo" {
		t.Errorf("set: %v", m)
	}
	for _, bad := range []string{"ftp://shop.example/", "/relative", "https://"} {
		m := httpapitest.WantError(t, e.do(t, "PATCH", "sms-accounts/shop", `{"inboundUrl":"`+bad+`"}`), httpapi.Admin, 400, sms.CodeAccountInvalid)
		if fs := m["fields"].([]any); fs[0].(map[string]any)["name"] != "inboundUrl" {
			t.Errorf("%s: %v", bad, m)
		}
	}
	if m := want(t, e.do(t, "PATCH", "sms-accounts/shop", `{"inboundUrl":""}`), 200); m["inboundUrl"] != "" {
		t.Errorf("removed: %v", m)
	}
}
