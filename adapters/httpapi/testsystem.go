package httpapi

import (
	"net/http"

	"github.com/msgkit/msgkit/auth"
)

// TestSystemHandler serves the SMS route test system (document 3, C) under
// /gate/testsystem/v1/: a bearer token (of the password grant) holding the
// privilege testsystem on every route; errors in the test system body. It
// panics when opts.Auth is nil.
func TestSystemHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	o.needAuth("TestSystemHandler")
	m := newFamilyMux(TestSystem)
	m.register(o, false, testSystemRoutes())
	return o.base(TestSystem, Bearer(TestSystem, o.Auth)(m))
}

// testSystemRoutes are the operations of document 3, 4.3. Where the
// document shows no method or path, the choice is marked "chosen".
func testSystemRoutes() []route {
	const b = "/gate/testsystem/v1"
	ts := []auth.Privilege{auth.PrivTestSystem}
	r := func(method, path string) route { return route{method: method, path: b + path, privs: ts} }
	return []route{
		r(http.MethodPost, "/test/sms"), // chosen: send test SMS
		r(http.MethodGet, "/test/sms/language"),
		r(http.MethodGet, "/test/operator"),
		r(http.MethodGet, "/test/operator/country"),
		r(http.MethodGet, "/test/route"),
		r(http.MethodPost, "/test/route"), // chosen: add route
		r(http.MethodGet, "/test/route/category"),
		r(http.MethodDelete, "/test/route/category/{id}"),
		r(http.MethodGet, "/test/route/supplier"),
		r(http.MethodDelete, "/test/route/supplier/{id}"),
		r(http.MethodGet, "/test/route/gate"),
		r(http.MethodDelete, "/test/route/gate/{id}"),
	}
}
