package routingapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/routing"
)

// A route create with an Idempotency-Key acts once (one id given), and
// its retries get the first answer; the key is the API key's.
func TestIdempotencyKeys(t *testing.T) {
	f := httpapitest.NewFixture(t)
	st := memstore.New().Routing()
	h := httpapitest.NewContract(t, OpenAPI()).Handler(t, Handler(f.Opts, Backend{Routes: routing.New(st)}))
	create := func(body string) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, BasePath+"smsmtin-routes", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("X-API-Key", httpapitest.APIKeyValue)
			return r
		}
	}
	httpapitest.CheckIdempotent(t, f, h, httpapi.Routing, httpapitest.IdempotentCase{
		New:   create(`{"sigtran_connect_id":"1","smpp_connect_id":"2"}`),
		Other: create(`{"sigtran_connect_id":"1","esme_connect_id":"2"}`),
		Count: func(t testing.TB) int {
			rs, err := st.Routes(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return len(rs)
		},
		Golden: "idempotency",
	})
}
