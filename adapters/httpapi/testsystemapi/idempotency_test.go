package testsystemapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// A test SMS request and an added route with an Idempotency-Key act
// once, and their retries get the first answer (the quota headers
// included); the document shows it all.
func TestIdempotencyKeys(t *testing.T) {
	e := newEnv(t, 100)
	const one = `{"username":"tester","test":"route check","gate_id":[1],"mcc_mnc":[23410],"text_lang":"en","text_type":"ucs","callback_api":"https://customer.example/cb"}`
	send := func(body string) func() *http.Request {
		return func() *http.Request { return e.request(e.tester, "POST", "/sms", body) }
	}
	httpapitest.CheckIdempotent(t, e.fixture, e.h, httpapi.TestSystem, httpapitest.IdempotentCase{
		New:   send(one),
		Other: send(strings.Replace(one, "route check", "another check", 1)),
		Count: func(t testing.TB) int {
			q, err := e.sys.Quota(t.Context(), httpapitest.UserName)
			if err != nil {
				t.Fatal(err)
			}
			return q.Limit - q.Remaining
		},
		Golden: "idempotency",
	})
	// Adding a route the system has answers 200 exists; a retry with the
	// key gets the first answer, 201 created, again.
	add := func(prefix, key string) *http.Request {
		r := e.request(e.tester, "POST", "/route", `{"category":"Direct","supplier":"Delta","gate":"delta-1","prefix":"`+prefix+`"}`)
		r.Header.Set("Idempotency-Key", key)
		return r
	}
	first := httpapitest.Serve(e.h, add("390", "route-1"))
	wantStatus(t, first, 201, "")
	again := httpapitest.Serve(e.h, add("390", "route-1"))
	if again.Code != 201 || again.Body.String() != first.Body.String() || again.Header().Get(httpapi.ReplayedHeader) != "true" {
		t.Errorf("retry: %d %v %s; want %d %s, replayed", again.Code, again.Header(), again.Body, first.Code, first.Body)
	}
	wantStatus(t, httpapitest.Serve(e.h, add("390", "route-2")), 200, `{"status":"exists"}`)
	httpapitest.WantError(t, httpapitest.Serve(e.h, add("391", "route-1")), httpapi.TestSystem, 422, "idempotency_key_reused")
}
