package cdsapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// A create with an Idempotency-Key acts once, its retries get its answer,
// and the family's body carries the refusals; the document shows them.
func TestIdempotencyKeys(t *testing.T) {
	e := newEnv(t)
	request := func(path, body string) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, tenantPath(httpapitest.TenantA, path), strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			return httpapitest.Bearer(r, e.tokenA)
		}
	}
	total := func(path string) func(t testing.TB) int {
		return func(t testing.TB) int {
			page := want(t.(*testing.T), e.do(t.(*testing.T), "GET", path, "", false), 200)
			return int(page["meta"].(map[string]any)["pagination"].(map[string]any)["total"].(float64))
		}
	}
	httpapitest.CheckIdempotent(t, e.f, e.h, httpapi.CDS, httpapitest.IdempotentCase{
		New:    request("/cds/lists", `{"name":"Newsletter"}`),
		Other:  request("/cds/lists", `{"name":"Offers"}`),
		Count:  total("/cds/lists"),
		Golden: "idempotency",
	})
	list := want(t, e.do(t, "POST", "/cds/lists", `{"name":"Contacts"}`, false), 201)["uuid"].(string)
	httpapitest.CheckIdempotent(t, e.f, e.h, httpapi.CDS, httpapitest.IdempotentCase{
		New:   request("/cds/contacts", `{"list_uuid":"`+list+`","first_name":"Ana","mobile":"+38640123456"}`),
		Other: request("/cds/contacts", `{"list_uuid":"`+list+`","first_name":"Eva","mobile":"+38640123456"}`),
		Count: total("/cds/contacts"),
	})
}
