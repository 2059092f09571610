package testsystemapi

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
)

// The document documents exactly the route table.
func TestOpenAPIOperations(t *testing.T) {
	httpapitest.NewContract(t, OpenAPI()).CheckRoutes(t, routes(&api{}))
}

// env is the family over memstore and simnet: the fixture's reference
// data, handsets on the British networks, the fixture's gates as routes
// that deliver, fake reports, replace senders, transcode, and deliver
// through a foreign SMSC.
type env struct {
	h        http.Handler
	contract *httpapitest.Contract
	clock    *msgkittest.Clock
	db       *memstore.DB
	sys      *testsystem.System
	nets     []*simnet.Network
	tester   string
	other    string
	operator string // holds testsystem.manage
	fixture  *httpapitest.Fixture
}

// login takes new tokens: a token lives an hour of the clock.
func (e *env) login(t *testing.T) {
	e.tester, e.other = e.fixture.UserToken(t, httpapitest.UserName), e.fixture.UserToken(t, "other-tester")
	e.operator = e.fixture.UserToken(t, "ts-operator")
}

func newEnv(t *testing.T, limit int) *env {
	f := httpapitest.NewFixture(t)
	if _, err := f.Auth.CreateUser(t.Context(), authUser("other-tester")); err != nil {
		t.Fatal(err)
	}
	op := authUser("ts-operator")
	op.Privileges = append(op.Privileges, auth.PrivTestSystemManage)
	if _, err := f.Auth.CreateUser(t.Context(), op); err != nil {
		t.Fatal(err)
	}
	db := memstore.New()
	if err := db.TestSystem().Load(t.Context(), testsystem.Fixture()); err != nil {
		t.Fatal(err)
	}
	own := testsystem.Dataset{Operators: []testsystem.Operator{{ID: 900, Owner: httpapitest.UserName, Name: "Lab Network", Country: "Slovenia", MCC: "293", MNC: "040"}}}
	if err := db.TestSystem().Load(t.Context(), own); err != nil {
		t.Fatal(err)
	}
	hs := simnet.NewHandsets(f.Clock.Now)
	for _, h := range [][3]string{{"+447700900010", "23410", "+447802000332"}, {"+447700900015", "23415", "+447785016005"}, {"+38640000001", "293040", "+38641000000"}} {
		if err := hs.Add(sms.MSISDN(h[0]), h[1], h[2]); err != nil {
			t.Fatal(err)
		}
	}
	routes := []simnet.Route{{}, {FakeDLR: true}, {Sender: "4915550000"}, {Transcode: true}, {SMSC: "+3706980001"}}
	var nets []*simnet.Network
	for i, rt := range routes {
		nets = append(nets, simnet.New(simnet.Options{Clock: f.Clock.Now, Handsets: hs, Route: rt, Seed: uint64(i),
			Default: simnet.Outcome{AcceptDelay: time.Second, Delay: time.Second}}))
	}
	rnd := rand.New(rand.NewPCG(7, 7))
	sys := testsystem.New(db.TestSystem(), db.TestSystem(), hs, func(id int64) (sms.Upstream, bool) {
		if id < 1 || id > int64(len(nets)) {
			return nil, false
		}
		return nets[id-1], true
	}, testsystem.Options{Clock: f.Clock.Now, DailyLimit: limit, TimeLimit: 30 * time.Second, Rand: rnd.Uint64, Node: "node-1"})
	c := httpapitest.NewContract(t, OpenAPI())
	e := &env{
		h: c.Handler(t, Handler(f.Opts, Backend{System: sys})), contract: c,
		clock: f.Clock, db: db, sys: sys, nets: nets,
		fixture: f,
	}
	e.login(t)
	return e
}

func (e *env) do(t *testing.T, token, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return httpapitest.Serve(e.h, e.request(token, method, path, body))
}

// bad sends a request the document refuses, to see the handler refuse it
// too.
func (e *env) bad(t *testing.T, token, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return httpapitest.Serve(e.h, httpapitest.SkipRequestCheck(e.request(token, method, path, body)))
}

func (e *env) request(token, method, path, body string) *http.Request {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, BasePath+"test"+path, nil)
	} else {
		r = httptest.NewRequest(method, BasePath+"test"+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	return httpapitest.Bearer(r, token)
}

// run hands the networks' reports to the system and judges, a second at
// a time, for d.
func (e *env) run(t *testing.T, d time.Duration) {
	t.Helper()
	for end := e.clock.Now().Add(d); !e.clock.Now().After(end); e.clock.Advance(time.Second) {
		for _, n := range e.nets {
			if _, err := n.RunDue(t.Context(), e.sys, e.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.sys.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if w.Code != status || body != "" && strings.TrimSpace(w.Body.String()) != body {
		t.Fatalf("%d %s, want %d %s", w.Code, w.Body, status, body)
	}
}

func wantFields(t *testing.T, w *httptest.ResponseRecorder, status int, code string, fields ...string) {
	t.Helper()
	m := httpapitest.WantError(t, w, httpapi.TestSystem, status, code)
	msg, _ := m["message"].(string)
	for _, f := range fields {
		if !strings.Contains(msg, f) {
			t.Errorf("message %q does not name %s", msg, f)
		}
	}
}

func TestReferenceLists(t *testing.T) {
	e := newEnv(t, 5)
	w := e.do(t, e.tester, "GET", "/sms/language?page_size=3&sort=-name", "")
	wantStatus(t, w, 200, "")
	msgkittest.Golden(t, "testdata/languages.json", httpapitest.Answer(w))
	w = e.do(t, e.tester, "GET", "/sms/language?code=de", "")
	wantStatus(t, w, 200, `{"data":[{"name":"German","code":"de"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)

	w = e.do(t, e.tester, "GET", "/operator?owner=platform&mcc=234,262&sort=-name&page_size=4", "")
	wantStatus(t, w, 200, "")
	msgkittest.Golden(t, "testdata/operators.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "GET", "/operator?owner=platform&mcc_mnc=310260", ""), 200,
		`{"data":[{"id":11,"name":"T-Mobile US","mcc_mnc":310260,"country":"United States","mcc":310}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
	wantStatus(t, e.do(t, e.tester, "GET", "/operator?owner=platform&q=KINGDOM&paging=2,2", ""), 200,
		`{"data":[{"id":6,"name":"EE","mcc_mnc":23430,"country":"United Kingdom","mcc":234}],"meta":{"pagination":{"count":1,"current_page":2,"per_page":2,"total":3,"total_pages":2}}}`)
	// owner me: the caller's own; MNC 040 is not 40.
	wantStatus(t, e.do(t, e.tester, "GET", "/operator?owner=me", ""), 200,
		`{"data":[{"id":900,"name":"Lab Network","mcc_mnc":293040,"country":"Slovenia","mcc":293}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
	wantStatus(t, e.do(t, e.other, "GET", "/operator?owner=me", ""), 200,
		`{"data":[],"meta":{"pagination":{"count":0,"current_page":1,"per_page":10,"total":0,"total_pages":0}}}`)
	wantStatus(t, e.do(t, e.tester, "GET", "/operator?owner=platform&mcc_mnc=29340", ""), 200,
		`{"data":[],"meta":{"pagination":{"count":0,"current_page":1,"per_page":10,"total":0,"total_pages":0}}}`)
	wantFields(t, e.bad(t, e.tester, "GET", "/operator", ""), 400, "invalid_query", "owner")
	wantFields(t, e.bad(t, e.tester, "GET", "/operator?owner=them", ""), 400, "invalid_query", "owner")
	wantFields(t, e.bad(t, e.tester, "GET", "/operator?owner=platform&mcc=23", ""), 400, "invalid_query", "mcc")
	wantFields(t, e.bad(t, e.tester, "GET", "/operator?owner=platform&mcc_mnc=abc", ""), 400, "invalid_query", "mcc_mnc")
	wantFields(t, e.bad(t, e.tester, "GET", "/operator?owner=platform&sort=price&colour=red", ""), 400, "invalid_query", "sort", "colour")

	w = e.do(t, e.tester, "GET", "/operator/country?owner=platform", "")
	wantStatus(t, w, 200, "")
	msgkittest.Golden(t, "testdata/countries.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "GET", "/operator/country?owner=platform&mcc=262&name=Germany", ""), 200,
		`{"data":[{"name":"Germany","mcc":"262"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
	wantFields(t, e.bad(t, e.tester, "GET", "/operator/country?owner=platform&mcc=262,234", ""), 400, "invalid_query", "mcc")

	w = e.do(t, e.tester, "GET", "/route?page_size=3", "")
	wantStatus(t, w, 200, "")
	msgkittest.Golden(t, "testdata/routes.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "GET", "/route?supplier_name=Gamma%20SMS&q=offshore", ""), 200,
		`{"data":[{"gate_id":5,"category_id":3,"supplier_id":3,"param_id":6,"gate_name":"gamma-offshore","category_name":"Grey","supplier_name":"Gamma SMS","param_name":"tlv","param_value":"0x1401=offshore"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)

	w = e.do(t, e.tester, "GET", "/route/gate?sort=name&page_size=2", "")
	wantStatus(t, w, 200, `{"data":[{"id":"1","name":"alpha-direct"},{"id":"4","name":"beta-latin"}],"meta":{"pagination":{"count":2,"current_page":1,"per_page":2,"total":5,"total_pages":3}}}`)
	msgkittest.Golden(t, "testdata/gates.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "GET", "/route/category?name=Grey", ""), 200,
		`{"data":[{"id":"3","name":"Grey"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
	wantStatus(t, e.do(t, e.tester, "GET", "/route/supplier?q=beta", ""), 200,
		`{"data":[{"id":"2","name":"Beta Routes"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
}

func TestAddAndDeleteRoutes(t *testing.T) {
	e := newEnv(t, 5)
	w := e.do(t, e.tester, "POST", "/route", `{"category":"Direct","supplier":"Delta","gate":"delta-1","tlv_tag":"0x1400","tlv_value":"d","prefix":"386"}`)
	wantStatus(t, w, 201, `{"status":"created"}`)
	msgkittest.Golden(t, "testdata/add_route.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "POST", "/route", `{"category":"Direct","supplier":"Delta","gate":"delta-1","prefix":"386"}`), 200, `{"status":"exists"}`)
	wantStatus(t, e.do(t, e.tester, "GET", "/route?gate_name=delta-1&sort=param_name", ""), 200,
		`{"data":[{"gate_id":6,"category_id":1,"supplier_id":4,"param_id":8,"gate_name":"delta-1","category_name":"Direct","supplier_name":"Delta","param_name":"prefix","param_value":"386"},`+
			`{"gate_id":6,"category_id":1,"supplier_id":4,"param_id":7,"gate_name":"delta-1","category_name":"Direct","supplier_name":"Delta","param_name":"tlv","param_value":"0x1400=d"}],`+
			`"meta":{"pagination":{"count":2,"current_page":1,"per_page":10,"total":2,"total_pages":1}}}`)
	w = e.do(t, e.tester, "POST", "/route", `{"category":"c","supplier":"s","gate":"g","tlv_tag":"0x1400"}`)
	wantFields(t, w, 400, testsystem.CodeInvalidRoute, "tlv_value")
	msgkittest.Golden(t, "testdata/add_route_invalid.json", httpapitest.Answer(w))
	wantFields(t, e.bad(t, e.tester, "POST", "/route", `{"category":"c","supplier":"s","gate":"g"}`), 400, testsystem.CodeInvalidRoute, "tlv_tag", "service_type", "prefix")
	wantFields(t, e.bad(t, e.tester, "POST", "/route", `{"gate":7}`), 400, "invalid_json")
	httpapitest.WantError(t, e.do(t, e.operator, "POST", "/route", `{"category":"c","supplier":"s","gate":"alpha-direct","gate_id":2,"prefix":"1"}`), httpapi.TestSystem, 409, "gate_id_conflict")

	w = e.do(t, e.tester, "DELETE", "/route/gate/6", "")
	wantStatus(t, w, 200, `{"id":"6","name":"delta-1"}`)
	msgkittest.Golden(t, "testdata/delete_gate.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, e.tester, "GET", "/route?gate_name=delta-1", ""), 200,
		`{"data":[],"meta":{"pagination":{"count":0,"current_page":1,"per_page":10,"total":0,"total_pages":0}}}`)
	httpapitest.WantError(t, e.do(t, e.tester, "DELETE", "/route/gate/6", ""), httpapi.TestSystem, 404, "gate_not_found")
	httpapitest.WantError(t, e.do(t, e.tester, "DELETE", "/route/gate/abc", ""), httpapi.TestSystem, 404, "gate_not_found")
	wantStatus(t, e.do(t, e.tester, "DELETE", "/route/supplier/4", ""), 200, `{"id":"4","name":"Delta"}`)
	wantStatus(t, e.do(t, e.operator, "DELETE", "/route/category/3", ""), 200, `{"id":"3","name":"Grey"}`)
	httpapitest.WantError(t, e.do(t, e.operator, "DELETE", "/route/category/3", ""), httpapi.TestSystem, 404, "category_not_found")
}

// One user's reference records are its own: another user neither sees nor
// changes nor uses them (another's record answers as an unknown one), and
// the platform's records change only with testsystem.manage.
func TestReferenceListsPerUser(t *testing.T) {
	e := newEnv(t, 5)
	wantStatus(t, e.do(t, e.tester, "POST", "/route", `{"category":"Lab","supplier":"Lab Supply","gate":"lab-gate","prefix":"386"}`), 201, `{"status":"created"}`)
	const mine, unknown = "6", "999"
	names := func(token, list string) string {
		t.Helper()
		w := e.do(t, token, "GET", "/route/"+list+"?page_size=100", "")
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", list, w.Code, w.Body)
		}
		return w.Body.String()
	}
	for _, list := range []string{"gate", "category", "supplier"} {
		if b := names(e.tester, list); !strings.Contains(b, `"Lab`) && !strings.Contains(b, `"lab-gate"`) {
			t.Errorf("the tester does not see its own %s: %s", list, b)
		}
		if b := names(e.other, list); strings.Contains(b, "Lab") || strings.Contains(b, "lab-gate") {
			t.Errorf("another user sees the tester's %s: %s", list, b)
		}
	}
	if b := names(e.other, "gate"); strings.Contains(b, "lab") {
		t.Errorf("another user's routes hold the tester's: %s", b)
	}
	w := e.do(t, e.other, "GET", "/route?gate_name=lab-gate", "")
	wantStatus(t, w, 200, `{"data":[],"meta":{"pagination":{"count":0,"current_page":1,"per_page":10,"total":0,"total_pages":0}}}`)
	// Another's gate answers exactly as an unknown one, and stays.
	answer := func(w *httptest.ResponseRecorder, id string) string {
		return strconv.Itoa(w.Code) + " " + strings.ReplaceAll(w.Body.String(), id, "{id}")
	}
	for _, list := range []string{"gate", "category", "supplier"} {
		theirs := e.do(t, e.other, "DELETE", "/route/"+list+"/"+mine, "")
		if list == "category" {
			theirs = e.do(t, e.other, "DELETE", "/route/category/4", "") // the tester's Lab
			if a, b := answer(theirs, "4"), answer(e.do(t, e.other, "DELETE", "/route/category/"+unknown, ""), unknown); a != b {
				t.Errorf("category: another's answers %s, an unknown one %s", a, b)
			}
			continue
		}
		if a, b := answer(theirs, mine), answer(e.do(t, e.other, "DELETE", "/route/"+list+"/"+unknown, ""), unknown); a != b || theirs.Code != 404 {
			t.Errorf("%s: another's answers %s, an unknown one %s", list, a, b)
		}
	}
	if b := names(e.tester, "gate"); !strings.Contains(b, "lab-gate") {
		t.Errorf("the tester's gate is gone after another user's delete: %s", b)
	}
	// Another user's test cannot use the tester's gate: as an unknown one.
	send := func(gate string) string {
		body := `{"username":"other-tester","test":"t","gate_id":[` + gate + `],"mcc_mnc":[23410],"text_lang":"en","text_type":"gsm","callback_api":"https://example.com/cb"}`
		return answer(e.do(t, e.other, "POST", "/sms", body), gate)
	}
	if a, b := send(mine), send(unknown); a != b || !strings.HasPrefix(a, "400 ") {
		t.Errorf("a test through another's gate answers %s, through an unknown one %s", a, b)
	}
	// The platform's records: 403 without testsystem.manage, and they stay.
	httpapitest.WantError(t, e.do(t, e.other, "DELETE", "/route/gate/5", ""), httpapi.TestSystem, 403, testsystem.CodePlatformRecord)
	httpapitest.WantError(t, e.do(t, e.other, "POST", "/route", `{"category":"x","supplier":"y","gate":"alpha-direct","prefix":"1"}`), httpapi.TestSystem, 403, testsystem.CodePlatformRecord)
	if b := names(e.tester, "gate"); !strings.Contains(b, `"id":"5"`) {
		t.Errorf("gate 5 is gone for the tester after another user's delete: %s", b)
	}
	wantStatus(t, e.do(t, e.tester, "GET", "/route?gate_name=alpha-direct", ""), 200,
		`{"data":[{"gate_id":1,"category_id":1,"supplier_id":1,"param_id":1,"gate_name":"alpha-direct","category_name":"Direct","supplier_name":"Alpha Telecom","param_name":"service_type","param_value":"DIR"}],"meta":{"pagination":{"count":1,"current_page":1,"per_page":10,"total":1,"total_pages":1}}}`)
	w = e.do(t, e.operator, "DELETE", "/route/gate/5", "")
	if w.Code != 200 {
		t.Fatalf("the operator's delete of gate 5: %d %s", w.Code, w.Body)
	}
	if b := names(e.tester, "gate"); strings.Contains(b, `"id":"5"`) {
		t.Errorf("gate 5 stays after the operator's delete: %s", b)
	}
}

func quotaHeaders(t *testing.T, w *httptest.ResponseRecorder, limit, remaining, reset int) {
	t.Helper()
	for h, want := range map[string]int{"X-Ratelimit-Limit": limit, "X-Ratelimit-Remaining": remaining, "X-Ratelimit-Reset": reset} {
		if got := w.Header().Get(h); got != strconv.Itoa(want) {
			t.Errorf("%s = %q, want %d", h, got, want)
		}
	}
}

const sendBody = `{"username":"tester","test":"route check","gate_id":[1,2,3,4,5],"mcc_mnc":[23410],"text_lang":"en","text_type":"ucs","callback_api":"https://customer.example/cb"}`

func TestSessionThroughHTTP(t *testing.T) {
	e := newEnv(t, 2)
	// The fixture's clock is 2026-03-01 12:00 UTC: 12 hours to midnight.
	const reset = 12 * 3600
	w := e.do(t, e.tester, "POST", "/sms", sendBody)
	wantStatus(t, w, 201, `{"test_session":1}`)
	quotaHeaders(t, w, 2, 1, reset)
	msgkittest.Golden(t, "testdata/send.json", httpapitest.Answer(w))

	w = e.do(t, e.tester, "GET", "/sms/1", "")
	wantStatus(t, w, 200, `{"test_session":1,"test":"route check","username":"tester","status":"running","messages":5,"callback_api":"https://customer.example/cb","created_date":"2026-03-01T12:00:00Z","completed_date":null}`)
	e.run(t, 40*time.Second)
	w = e.do(t, e.tester, "GET", "/sms/1", "")
	wantStatus(t, w, 200, "")
	if m := httpapitest.DecodeBody(t, w); m["status"] != "complete" || m["completed_date"] == nil {
		t.Errorf("session after the time limit: %v", m)
	}
	w = e.do(t, e.tester, "GET", "/sms/1/result?page_size=5", "")
	wantStatus(t, w, 200, "")
	msgkittest.Golden(t, "testdata/results.json", httpapitest.Answer(w))
	var page struct {
		Data []testsystem.Record `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || len(page.Data) != 5 {
		t.Fatalf("results: %v %s", err, w.Body)
	}
	byGate := map[string]testsystem.Record{}
	for _, r := range page.Data {
		byGate[r.Gate] = r
	}
	for gate, want := range map[string]string{
		"alpha-direct":   "delivered fake=false sender=true text=true enc=true direct=true national=true",
		"beta-wholesale": "not_received fake=true sender=unknown text=unknown enc=unknown direct=unknown national=unknown",
		"gamma-grey":     "delivered fake=false sender=false text=true enc=true direct=true national=true",
		"beta-latin":     "delivered fake=false sender=true text=false enc=false direct=true national=true",
		"gamma-offshore": "delivered fake=false sender=true text=true enc=true direct=false national=false",
	} {
		r := byGate[gate]
		got := r.Status + " fake=" + r.FakeDLR + " sender=" + r.SenderMatch + " text=" + r.TextMatch + " enc=" + r.EncodingMatch +
			" direct=" + r.DirectRoute + " national=" + r.NationalSMSC
		if got != want {
			t.Errorf("%s: %s, want %s", gate, got, want)
		}
	}
	claimed, err := e.db.SMS().ClaimReports(t.Context(), e.clock.Now(), time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("callbacks: %v %v", claimed, err)
	}
	e.contract.CheckCallback(t, "testResults", "POST", claimed[0].Body)

	// Another user sees none of it.
	httpapitest.WantError(t, e.do(t, e.other, "GET", "/sms/1", ""), httpapi.TestSystem, 404, "session_not_found")
	httpapitest.WantError(t, e.do(t, e.other, "GET", "/sms/1/result", ""), httpapi.TestSystem, 404, "session_not_found")
	httpapitest.WantError(t, e.do(t, e.tester, "GET", "/sms/x1", ""), httpapi.TestSystem, 404, "session_not_found")
}

func TestSendRules(t *testing.T) {
	e := newEnv(t, 2)
	const reset = 12 * 3600
	w := e.bad(t, e.tester, "POST", "/sms", `{"username":"tester","test":"t","gate_id":[1],"text_lang":"en","text_type":"gsm7","callback_api":"https://customer.example/cb"}`)
	wantFields(t, w, 400, testsystem.CodeInvalidRequest, "mcc", "mcc_mnc", "text_type")
	quotaHeaders(t, w, 2, 2, reset)
	msgkittest.Golden(t, "testdata/send_invalid.json", httpapitest.Answer(w))
	wantFields(t, e.bad(t, e.tester, "POST", "/sms", strings.Replace(sendBody, `[1,2,3,4,5]`, `[1,99]`, 1)), 400, testsystem.CodeInvalidRequest, "gate_id")
	wantFields(t, e.bad(t, e.tester, "POST", "/sms", strings.Replace(strings.Replace(sendBody, `"en"`, `"ru"`, 1), `"ucs"`, `"gsm"`, 1)), 400, "text_type_unavailable", "text_type")
	wantFields(t, e.bad(t, e.tester, "POST", "/sms", strings.Replace(sendBody, `"en"`, `"xx"`, 1)), 400, "unknown_language", "text_lang")
	wantFields(t, e.bad(t, e.tester, "POST", "/sms", `{"username":`), 400, "invalid_json")
	// gate_id and mcc_mnc are arrays, a bare number is no array.
	w = e.bad(t, e.tester, "POST", "/sms", strings.Replace(strings.Replace(sendBody, `[1,2,3,4,5]`, `1`, 1), `[23410]`, `23410`, 1))
	wantFields(t, w, 400, testsystem.CodeInvalidRequest, "gate_id", "mcc_mnc")
	msgkittest.Golden(t, "testdata/send_bare_numbers.json", httpapitest.Answer(w))
	w = e.do(t, e.tester, "POST", "/sms", strings.Replace(sendBody, `"tester"`, `"someone"`, 1))
	httpapitest.WantError(t, w, httpapi.TestSystem, 403, "username_mismatch")
	quotaHeaders(t, w, 2, 2, reset)
	// mcc is ignored with mcc_mnc; owner me reaches the caller's own network.
	wantStatus(t, e.do(t, e.tester, "POST", "/sms", strings.Replace(sendBody, `"mcc_mnc":[23410]`, `"mcc":[999],"mcc_mnc":[293040],"operator_owner":"me","sender_same":"short"`, 1)), 201, `{"test_session":1}`)
	page, err := e.db.TestSystem().Results(t.Context(), httpapitest.UserName, 1, msgkitQuery())
	if err != nil || page.Total != 5 || page.Items[0].Receiver != "+38640000001" || page.Items[0].Sender != page.Items[4].Sender {
		t.Errorf("own network's session: %+v %v", page, err)
	}

	e.clock.Set(time.Date(2026, 3, 1, 23, 59, 59, 0, time.UTC))
	e.login(t)
	w = e.do(t, e.tester, "POST", "/sms", sendBody)
	wantStatus(t, w, 201, `{"test_session":2}`)
	quotaHeaders(t, w, 2, 0, 1)
	w = e.do(t, e.tester, "POST", "/sms", sendBody)
	httpapitest.WantError(t, w, httpapi.TestSystem, 429, testsystem.CodeRateLimit)
	quotaHeaders(t, w, 2, 0, 1)
	msgkittest.Golden(t, "testdata/send_limited.json", httpapitest.Answer(w))
	w = e.do(t, e.other, "POST", "/sms", strings.Replace(sendBody, `"tester"`, `"other-tester"`, 1))
	wantStatus(t, w, 201, `{"test_session":3}`)
	quotaHeaders(t, w, 2, 1, 1)
	e.clock.Set(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	e.login(t)
	w = e.do(t, e.tester, "POST", "/sms", sendBody)
	wantStatus(t, w, 201, `{"test_session":4}`)
	quotaHeaders(t, w, 2, 1, 86400)
}

func authUser(name string) auth.UserSpec {
	return auth.UserSpec{Username: name, Password: httpapitest.UserPassword, Privileges: []auth.Privilege{auth.PrivTestSystem}}
}

func msgkitQuery() msgkit.ListQuery { return msgkit.ListQuery{} }
