package uiproxyapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/uiproxy"
)

// The document documents exactly the route tables.
// loopback lets the tests' customer APIs, on this machine, be called.
var loopback = egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

func TestOpenAPIOperations(t *testing.T) {
	httpapitest.NewContract(t, OpenAPI()).CheckRoutes(t, slices.Concat(routes(&api{}), mockRoutes()))
}

func TestRoutes(t *testing.T) {
	httpapitest.CheckRoutes(t, spec(&api{}), BasePath)
	httpapitest.CheckRoutes(t, mockSpec(), MockBasePath)
}

// recorder is a customer API that records what it was asked and answers
// a grid in camelCase with next/previous links, or a KPI.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r)
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if strings.HasPrefix(r.URL.Path, "/kpi/") {
		w.Write([]byte(`{"title":"Balance","value":"1.00 EUR","footer":"","link":""}`))
		return
	}
	w.Write([]byte(`{"data":[{"name":"Ana","amount":12.5,"due":"2026-03-01","created":"2026-02-01T10:00:00+01:00","paid":false,"secret":"dropped"},{"name":null}],
		"meta":{"pagination":{"total":3,"count":2,"perPage":2,"currentPage":1,"totalPages":2,"links":{"next":"https://customer.example/next?token=s3cret","previous":null}}}}`))
}

func (rec *recorder) last(t *testing.T) *http.Request {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) == 0 {
		t.Fatal("the customer was not called")
	}
	return rec.reqs[len(rec.reqs)-1]
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

type env struct {
	logs    interface{ String() string }
	h, mock http.Handler
	token   string
	rec     *recorder
	proxy   *uiproxy.Proxy
}

// kinds is a grid with a column of every kind, at the recorder.
func kinds(base string) uiproxy.Component {
	return uiproxy.Component{
		ID: "all-kinds", Type: uiproxy.Grid, Service: httpapitest.TenantA, Token: "s3cret", TokenHeader: "X-Customer-Token",
		URL:   base + "/grid/{componentType}/{componentId}/{referenceId}?lang={language}&loc={locale}&p={pageNumber}&n={pageSize}&s={sort}&tenant={tenant}",
		Fixed: map[string]string{"tenant": "acme & co"},
		Columns: []uiproxy.Column{
			{Name: "name", Kind: uiproxy.String, Filterable: true, Sortable: true},
			{Name: "amount", Kind: uiproxy.Number, Filterable: true, Sortable: true},
			{Name: "due", Kind: uiproxy.Date, Filterable: true, Sortable: true},
			{Name: "created", Kind: uiproxy.DateTime, Filterable: true},
			{Name: "paid", Kind: uiproxy.Boolean, Filterable: true},
		},
	}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	f := httpapitest.NewFixture(t)
	c := httpapitest.NewContract(t, OpenAPI())
	mock := c.Handler(t, MockHandler(f.Opts))
	customer := httptest.NewServer(MockHandler(f.Opts))
	t.Cleanup(customer.Close)
	rec := &recorder{}
	recSrv := httptest.NewServer(rec)
	t.Cleanup(recSrv.Close)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(slow.Close)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/malformed":
			w.Write([]byte(`{"data":[{"id":1},`))
		case "/badrow":
			w.Write([]byte(`{"data":[{"id":1,"invoiceDate":"01.03.2026"}]}`))
		case "/badkpi":
			w.Write([]byte(`{"title":"t"}`))
		case "/big":
			w.Write([]byte(`{"data":[` + strings.Repeat(`{"id":1},`, 300_000) + `{"id":1}]}`))
		case "/away":
			http.Redirect(w, r, "https://elsewhere.example/grid", http.StatusFound)
		case "/404":
			http.NotFound(w, r)
		default:
			http.Error(w, "down", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(bad.Close)

	proxy := uiproxy.NewProxy(memstore.New().UIProxy(), egress.NewFetcher(egress.FetcherOptions{Policy: loopback}), uiproxy.Options{})
	mockGrid := customer.URL + "/ui/v1/mock/grid/{componentId}?reference_id={referenceId}&language={language}&locale={locale}&page_number={pageNumber}&page_size={pageSize}&sort={sort}"
	grid := func(id, url string) uiproxy.Component {
		return uiproxy.Component{ID: id, Type: uiproxy.Grid, Service: httpapitest.TenantA, URL: url, Token: "s3cret", Columns: uiproxy.MockColumns()}
	}
	slowGrid := grid("slow", slow.URL+"/grid")
	slowGrid.Timeout = 100 * time.Millisecond
	other := grid("other-tenant", mockGrid)
	other.Service = httpapitest.TenantB
	for _, comp := range []uiproxy.Component{
		grid("invoices", mockGrid),
		{ID: "balance", Type: uiproxy.KPI, Service: httpapitest.TenantA, Token: "s3cret", URL: customer.URL + "/ui/v1/mock/kpi/{componentId}?reference_id={referenceId}"},
		{ID: "recorded-kpi", Type: uiproxy.KPI, Service: httpapitest.TenantA, Token: "s3cret", URL: recSrv.URL + "/kpi/{componentId}?r={referenceId}&l={language}&c={locale}&t={componentType}&x={tenant}", Fixed: map[string]string{"tenant": "7"}},
		kinds(recSrv.URL), other, slowGrid,
		grid("private", "http://10.20.30.40/grid"),
		grid("malformed", bad.URL+"/malformed"), grid("badrow", bad.URL+"/badrow"), grid("big", bad.URL+"/big"),
		grid("away", bad.URL+"/away"), grid("status404", bad.URL+"/404"), grid("status500", bad.URL+"/500"),
		{ID: "badkpi", Type: uiproxy.KPI, Service: httpapitest.TenantA, URL: bad.URL + "/badkpi"},
	} {
		if err := proxy.Put(t.Context(), comp); err != nil {
			t.Fatalf("%s: %v", comp.ID, err)
		}
	}
	return &env{
		logs:  f.Logs,
		h:     c.Handler(t, Handler(f.Opts, Backend{Proxy: proxy})),
		mock:  mock,
		token: f.Token(t, httpapitest.UIClient),
		rec:   rec,
		proxy: proxy,
	}
}

func (e *env) get(t *testing.T, path string, skipCheck bool) *httptest.ResponseRecorder {
	t.Helper()
	r := httpapitest.Bearer(httptest.NewRequest("GET", path, nil), e.token)
	if skipCheck {
		r = httpapitest.SkipRequestCheck(r)
	}
	if strings.HasPrefix(path, MockBasePath) {
		return httpapitest.Serve(e.mock, r)
	}
	return httpapitest.Serve(e.h, r)
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	return v
}

// gridJSON is a grid answer as a UI reads it.
type gridJSON struct {
	Data []map[string]any `json:"data"`
	Meta struct {
		Pagination uiproxy.Pagination `json:"pagination"`
	} `json:"meta"`
}

func ids(page gridJSON) []float64 {
	var out []float64
	for _, r := range page.Data {
		out = append(out, r["id"].(float64))
	}
	return out
}

// TestGridThroughMock: the proxy in front of the mock operations, served
// by a local customer API, pages, sorts and filters end to end.
func TestGridThroughMock(t *testing.T) {
	e := newEnv(t)
	w := e.get(t, BasePath+"grid/invoices?reference_id=ACME-1&page_size=3", false)
	msgkittest.Golden(t, "testdata/grid.json", httpapitest.Answer(w))
	page := decode[gridJSON](t, w)
	p := page.Meta.Pagination
	if !slices.Equal(ids(page), []float64{1, 2, 3}) || p.Total != 42 || p.TotalPages != 14 || p.CurrentPage != 1 || p.PerPage != 3 {
		t.Fatalf("first page %v %+v", ids(page), p)
	}
	if *p.Links.Next != "/ui/v1/grid/invoices?page_number=2&page_size=3&reference_id=ACME-1" || p.Links.Prev != nil {
		t.Errorf("links %+v", p.Links)
	}
	// Following next gives page 2.
	page = decode[gridJSON](t, e.get(t, *p.Links.Next, false))
	if !slices.Equal(ids(page), []float64{4, 5, 6}) || !strings.Contains(page.Data[0]["url"].(string), "/invoices/ACME-1/4") {
		t.Errorf("page 2: %v", page.Data)
	}
	for query, want := range map[string][]float64{
		"sort=-id&page_size=2":        {42, 41},
		"gt(id)=40&sort=-invoiceDate": {42, 41},
		"between(id)=5,7":             {5, 6, 7},
		"id=9":                        {9},
		"contains(url)=acme-1/13":     {13},
		"gte(invoiceDateTime)=2026-02-10T09:30:00Z&page_size=2": {41, 42},
		"in(invoiceDate)=2026-01-02,2026-01-04":                 {2, 4},
	} {
		page := decode[gridJSON](t, e.get(t, BasePath+"grid/invoices?reference_id=ACME-1&"+query, false))
		if !slices.Equal(ids(page), want) {
			t.Errorf("%s: %v, want %v", query, ids(page), want)
		}
	}
	kpi := decode[uiproxy.KPIValue](t, e.get(t, BasePath+"kpi/balance?reference_id=ACME-1", false))
	if kpi != uiproxy.MockKPI("balance", "ACME-1") {
		t.Errorf("kpi %+v", kpi)
	}
	msgkittest.Golden(t, "testdata/kpi.json", httpapitest.Answer(e.get(t, BasePath+"kpi/balance?reference_id=ACME-1&language=sl", false)))
	w = e.get(t, BasePath+"components/invoices", false)
	msgkittest.Golden(t, "testdata/component.json", httpapitest.Answer(w))
	comp := decode[componentJSON](t, w)
	if len(comp.Columns) != 4 || !slices.Contains(comp.Columns[1].Operators, msgkit.OpContains) || slices.Contains(comp.Columns[0].Operators, msgkit.OpContains) {
		t.Errorf("component %+v", comp)
	}
	if comp := decode[componentJSON](t, e.get(t, BasePath+"components/balance", false)); comp.Type != uiproxy.KPI || comp.Columns == nil || len(comp.Columns) != 0 {
		t.Errorf("KPI component %+v", comp)
	}
}

// TestCustomerCall: every variable of the address template, both token
// placements, the fixed pairs, the sort and every filter operator of
// every kind reach the customer as the interface says; the customer's
// camelCase pagination and next/previous links are answered in the one
// shape with the proxy's links, and the customer's address never shows.
func TestCustomerCall(t *testing.T) {
	e := newEnv(t)
	w := e.get(t, BasePath+"grid/all-kinds?reference_id=ACME/1&language=sl&locale=sl-SI&page_number=1&page_size=2&sort=-due,name&startswith(name)=A%26B", false)
	msgkittest.Golden(t, "testdata/grid_camel.json", httpapitest.Answer(w))
	page := decode[gridJSON](t, w)
	r := e.rec.last(t)
	if r.URL.EscapedPath() != "/grid/grid/all-kinds/ACME%2F1" {
		t.Errorf("path %s", r.URL.EscapedPath())
	}
	q := r.URL.Query()
	for k, want := range map[string]string{"lang": "sl", "loc": "sl-SI", "p": "1", "n": "2", "s": "-due,name", "tenant": "acme & co", "startswith(name)": "A&B", "token": ""} {
		if q.Get(k) != want {
			t.Errorf("%s = %q, want %q (%s)", k, q.Get(k), want, r.URL.RawQuery)
		}
	}
	if r.Header.Get("X-Customer-Token") != "s3cret" {
		t.Errorf("the header token: %q", r.Header.Get("X-Customer-Token"))
	}
	p := page.Meta.Pagination
	if p.PerPage != 2 || p.TotalPages != 2 || p.Total != 3 || len(page.Data) != 2 || page.Data[0]["secret"] != nil || page.Data[1]["name"] != nil {
		t.Errorf("the page %+v", page)
	}
	if strings.Contains(w.Body.String(), "customer.example") || strings.Contains(w.Body.String(), "s3cret") {
		t.Errorf("the customer's address or token reached the UI: %s", w.Body)
	}

	kpi := decode[uiproxy.KPIValue](t, e.get(t, BasePath+"kpi/recorded-kpi?resource_id=R%201&language=de&locale=de-AT", false))
	r = e.rec.last(t)
	if kpi.Title != "Balance" || r.URL.Path != "/kpi/recorded-kpi" || r.URL.RawQuery != "r=R+1&l=de&c=de-AT&t=KPI&x=7&token=s3cret" || r.Header.Get("X-Customer-Token") != "" {
		t.Errorf("the KPI call %s %s %+v", r.URL.Path, r.URL.RawQuery, kpi)
	}

	// Every operator on every kind: forwarded as sent where it fits,
	// refused before any call where it does not.
	values := map[uiproxy.ColumnKind][2]string{
		uiproxy.String: {"Ana", "Ana,Bo"}, uiproxy.Number: {"12.5", "1,20"}, uiproxy.Date: {"2026-03-01", "2026-01-01,2026-12-31"},
		uiproxy.DateTime: {"2026-02-01T10:00:00Z", "2026-01-01T00:00:00Z,2026-12-31T00:00:00Z"}, uiproxy.Boolean: {"true", "true,false"},
	}
	for _, col := range kinds("").Columns {
		fits := uiproxy.Operators(col.Kind)
		for _, op := range msgkit.Ops() {
			value := values[col.Kind][0]
			switch op {
			case msgkit.OpIn, msgkit.OpNotIn, msgkit.OpBetween, msgkit.OpNotBetween:
				value = values[col.Kind][1]
			case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
				value = ""
			}
			param := string(op) + "(" + col.Name + ")"
			before := e.rec.count()
			w := e.get(t, BasePath+"grid/all-kinds?"+url.Values{param: {value}}.Encode(), true)
			if !slices.Contains(fits, op) {
				m := httpapitest.WantError(t, w, httpapi.UIProxy, 400, msgkit.CodeInvalidQuery)
				if !strings.Contains(m["Message"].(string), col.Name) || e.rec.count() != before {
					t.Errorf("%s: %v, %d calls", param, m, e.rec.count()-before)
				}
				continue
			}
			if w.Code != 200 {
				t.Errorf("%s=%s: %d %s", param, value, w.Code, w.Body)
				continue
			}
			if got := e.rec.last(t).URL.Query()[param]; !slices.Equal(got, []string{value}) {
				t.Errorf("%s forwarded as %q", param, got)
			}
		}
	}
	// Equality as column=value.
	e.get(t, BasePath+"grid/all-kinds?paid=true", false)
	if got := e.rec.last(t).URL.Query().Get("paid"); got != "true" {
		t.Errorf("paid=%q", got)
	}
}

// TestCustomerFailures: every way a customer call fails is a 502 naming
// the failure, never the customer's address or token, and never a crash.
func TestCustomerFailures(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ id, code, golden string }{
		{"private", egress.CodeAddressRefused, "502_address_refused"},
		{"slow", egress.CodeUnreachable, "502_timeout"},
		{"malformed", uiproxy.CodeBadAnswer, "502_malformed"},
		{"badrow", uiproxy.CodeBadAnswer, "502_bad_row"},
		{"big", egress.CodeTooLarge, ""},
		{"away", egress.CodeRedirect, ""},
		{"status404", egress.CodeStatus, "502_status"},
		{"status500", egress.CodeStatus, ""},
	} {
		w := e.get(t, BasePath+"grid/"+c.id, false)
		m := httpapitest.WantError(t, w, httpapi.UIProxy, 502, c.code)
		if msg := m["Message"].(string); strings.Contains(msg, "s3cret") || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "10.20.30.40") {
			t.Errorf("%s: the message names the token or the address: %s", c.id, msg)
		}
		if c.golden != "" {
			msgkittest.Golden(t, "testdata/"+c.golden+".json", httpapitest.Answer(w))
		}
	}
	httpapitest.WantError(t, e.get(t, BasePath+"kpi/badkpi", false), httpapi.UIProxy, 502, uiproxy.CodeBadAnswer)
	if logs := e.logs.String(); !strings.Contains(logs, "/ui/v1/grid/private") || strings.Contains(logs, "s3cret") {
		t.Errorf("the access log lacks the requests or names the customer's token:\n%s", logs)
	}
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		name, path string
		status     int
		code, says string
		golden     string
	}{
		{"operator that does not fit", "grid/invoices?lt(url)=x", 400, msgkit.CodeInvalidQuery, "lt(url)", "400_operator"},
		{"unknown column", "grid/invoices?eq(amount)=1", 400, msgkit.CodeInvalidQuery, "amount", ""},
		{"value of the wrong kind", "grid/invoices?gt(id)=ten", 400, msgkit.CodeInvalidQuery, "id", ""},
		{"page too large", "grid/invoices?page_size=101", 400, msgkit.CodeInvalidQuery, "page_size", ""},
		{"malformed query", "grid/invoices?a=%zz", 400, msgkit.CodeInvalidQuery, "query", ""},
		{"KPI with paging", "kpi/balance?page_number=2", 400, msgkit.CodeInvalidQuery, "page_number", ""},
		{"describe with a query", "components/invoices?x=1", 400, msgkit.CodeInvalidQuery, "query", ""},
		{"another tenant's grid", "grid/other-tenant", 404, "component_not_found", "other-tenant", "404_component"},
		{"a KPI as a grid", "grid/balance", 404, "component_not_found", "balance", ""},
		{"no such component", "kpi/none", 404, "component_not_found", "none", ""},
		{"another tenant's description", "components/other-tenant", 404, "component_not_found", "other-tenant", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := e.get(t, BasePath+c.path, true)
			m := httpapitest.WantError(t, w, httpapi.UIProxy, c.status, c.code)
			if !strings.Contains(m["Message"].(string), c.says) {
				t.Errorf("Message %q does not name %s", m["Message"], c.says)
			}
			if c.golden != "" {
				msgkittest.Golden(t, "testdata/"+c.golden+".json", httpapitest.Answer(w))
			}
		})
	}
}

func TestMockOperations(t *testing.T) {
	e := newEnv(t)
	// No credentials needed; a token is ignored.
	r := httptest.NewRequest("GET", MockBasePath+"grid/invoices?resource_id=7&page_number=5&token=t", nil)
	w := httpapitest.Serve(e.mock, r)
	msgkittest.Golden(t, "testdata/mock_grid.json", httpapitest.Answer(w))
	var page struct {
		Data []map[string]any `json:"data"`
		Meta struct {
			Pagination map[string]any `json:"pagination"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || len(page.Data) != 2 || page.Meta.Pagination["current_page"] != 5.0 || page.Meta.Pagination["links"].(map[string]any)["next"] != nil {
		t.Errorf("the last mock page: %v %s", err, w.Body)
	}
	w = httpapitest.Serve(e.mock, httptest.NewRequest("GET", MockBasePath+"kpi/k1?reference_id=7&locale=sl-SI", nil))
	msgkittest.Golden(t, "testdata/mock_kpi.json", httpapitest.Answer(w))
	for _, bad := range []string{"grid/x?gt(url)=a", "grid/x?sort=colour", "kpi/x?page_size=2", "grid/x?%zz"} {
		w := httpapitest.Serve(e.mock, httpapitest.SkipRequestCheck(httptest.NewRequest("GET", MockBasePath+bad, nil)))
		httpapitest.WantError(t, w, httpapi.UIProxy, 400, msgkit.CodeInvalidQuery)
	}
}

func TestAnswers(t *testing.T) {
	f := httpapitest.NewFixture(t)
	ui := f.Token(t, httpapitest.UIClient)
	news := f.Token(t, httpapitest.ClientID)
	httpapitest.CheckAnswers(t, Handler(f.Opts, Backend{}), httpapi.UIProxy, []httpapitest.AnswerCase{
		{Name: "without the proxy", Method: "GET", Path: BasePath + "grid/invoices", Token: ui,
			Status: 501, Code: httpapi.CodeNotImplemented, Golden: "501_not_implemented"},
		{Name: "without a token", Method: "GET", Path: BasePath + "grid/invoices",
			Status: 401, Code: httpapi.CodeMissingCredentials, Golden: "401_missing_credentials"},
		{Name: "without the privilege", Method: "GET", Path: BasePath + "kpi/balance", Token: news,
			Status: 403, Code: httpapi.CodeInsufficientPrivilege, Golden: "403_insufficient_privilege"},
		{Name: "unknown path", Method: "GET", Path: BasePath + "table/x", Token: ui,
			Status: 404, Code: httpapi.CodeNotFound, Golden: "404_not_found"},
		{Name: "method not allowed", Method: "POST", Path: BasePath + "grid/x", Token: ui,
			Status: 405, Code: httpapi.CodeMethodNotAllowed, Allow: "GET, HEAD", Golden: "405_method_not_allowed"},
	})
}

// TestRateLimit: a Backend's Rate limits each principal.
func TestRateLimit(t *testing.T) {
	f := httpapitest.NewFixture(t)
	proxy := uiproxy.NewProxy(memstore.New().UIProxy(), egress.NewFetcher(egress.FetcherOptions{}), uiproxy.Options{})
	h := Handler(f.Opts, Backend{Proxy: proxy, Rate: httpapi.RateLimit{Rate: 1, Burst: 2}, Clock: f.Clock.Now})
	ui := f.Token(t, httpapitest.UIClient)
	for i, want := range []int{404, 404, 429} {
		w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest("GET", BasePath+"kpi/none", nil), ui))
		if w.Code != want {
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
	}
	f.Clock.Advance(time.Second)
	if w := httpapitest.Serve(h, httpapitest.Bearer(httptest.NewRequest("GET", BasePath+"kpi/none", nil), ui)); w.Code != 404 {
		t.Errorf("after a second: %d", w.Code)
	}
}

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.UIProxy))
}
