package routingapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/routing"
)

// The document documents exactly the route table.
func TestOpenAPIOperations(t *testing.T) {
	httpapitest.NewContract(t, OpenAPI()).CheckRoutes(t, routes(&api{}))
}

type env struct{ h http.Handler }

func newEnv(t *testing.T) *env {
	f := httpapitest.NewFixture(t)
	c := httpapitest.NewContract(t, OpenAPI())
	return &env{h: c.Handler(t, Handler(f.Opts, Backend{Routes: routing.New(memstore.New().Routing())}))}
}

func (e *env) do(t *testing.T, method, path, body string, skipCheck bool) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, BasePath+"smsmtin-routes"+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-API-Key", httpapitest.APIKeyValue)
	if skipCheck {
		r = httpapitest.SkipRequestCheck(r)
	}
	return httpapitest.Serve(e.h, r)
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if w.Code != status || body != "" && strings.TrimSpace(w.Body.String()) != body {
		t.Fatalf("%d %s, want %d %s", w.Code, w.Body, status, body)
	}
}

func TestLifecycle(t *testing.T) {
	e := newEnv(t)
	// Numbers as the sample calls send them; answered as strings.
	w := e.do(t, "POST", "", `{"id":7,"sigtran_connect_id":12,"smpp_connect_id":3,"esme_connect_id":0}`, false)
	wantStatus(t, w, 200, `{"id":7,"sigtran_connect_id":"12","smpp_connect_id":"3","esme_connect_id":"0"}`)
	msgkittest.Golden(t, "testdata/create.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, "POST", "", `{"sigtran_connect_id":"sg-1","esme_connect_id":"e.9"}`, false), 200,
		`{"id":8,"sigtran_connect_id":"sg-1","smpp_connect_id":"0","esme_connect_id":"e.9"}`)
	w = e.do(t, "GET", "", "", false)
	wantStatus(t, w, 200, `[{"id":7,"sigtran_connect_id":"12","smpp_connect_id":"3","esme_connect_id":"0"},{"id":8,"sigtran_connect_id":"sg-1","smpp_connect_id":"0","esme_connect_id":"e.9"}]`)
	msgkittest.Golden(t, "testdata/list.json", httpapitest.Answer(w))
	wantStatus(t, e.do(t, "PUT", "/7", `{"sigtran_connect_id":"12","esme_connect_id":"5"}`, false), 200, "")
	wantStatus(t, e.do(t, "GET", "/7", "", false), 200, `{"id":7,"sigtran_connect_id":"12","smpp_connect_id":"0","esme_connect_id":"5"}`)
	wantStatus(t, e.do(t, "DELETE", "/7", "", false), 200, "")
	httpapitest.WantError(t, e.do(t, "GET", "/7", "", false), httpapi.Routing, 404, "route_not_found")
	httpapitest.WantError(t, e.do(t, "DELETE", "/7", "", false), httpapi.Routing, 404, "route_not_found")
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	wantStatus(t, e.do(t, "POST", "", `{"id":7,"sigtran_connect_id":"1","smpp_connect_id":"2"}`, false), 200, "")
	for _, tt := range []struct {
		name, method, path, body string
		status                   int
		code, says               string
		golden                   string
	}{
		{"both", "POST", "", `{"sigtran_connect_id":"1","smpp_connect_id":"2","esme_connect_id":"3"}`, 400, "invalid_route", "esme_connect_id", "400_both"},
		{"neither", "POST", "", `{"sigtran_connect_id":"1"}`, 400, "invalid_route", "smpp_connect_id", ""},
		{"taken id", "POST", "", `{"id":7,"sigtran_connect_id":"1","smpp_connect_id":"2"}`, 409, "route_exists", "7", "409_exists"},
		{"malformed", "POST", "", `{"sigtran_connect_id":`, 400, httpapi.CodeInvalidJSON, "", ""},
		{"wrong type", "POST", "", `{"sigtran_connect_id":true,"smpp_connect_id":"2"}`, 400, "invalid_route", "sigtran_connect_id", ""},
		{"update rule", "PUT", "/7", `{"sigtran_connect_id":"1"}`, 400, "invalid_route", "smpp_connect_id", ""},
		{"update other id", "PUT", "/7", `{"id":8,"sigtran_connect_id":"1","smpp_connect_id":"2"}`, 400, "invalid_route", "id", ""},
		{"update unknown", "PUT", "/9", `{"sigtran_connect_id":"1","smpp_connect_id":"2"}`, 404, "route_not_found", "", ""},
		{"malformed id", "GET", "/x7", "", 404, "route_not_found", "", ""},
		{"query parameter", "GET", "?page=2", "", 400, "invalid_query", "page", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := e.do(t, tt.method, tt.path, tt.body, true)
			m := httpapitest.WantError(t, w, httpapi.Routing, tt.status, tt.code)
			if !strings.Contains(m["Message"].(string), tt.says) {
				t.Errorf("Message %q does not name %s", m["Message"], tt.says)
			}
			if tt.golden != "" {
				msgkittest.Golden(t, "testdata/"+tt.golden+".json", httpapitest.Answer(w))
			}
		})
	}
	wantStatus(t, e.do(t, "GET", "/7", "", false), 200, `{"id":7,"sigtran_connect_id":"1","smpp_connect_id":"2","esme_connect_id":"0"}`)
}
