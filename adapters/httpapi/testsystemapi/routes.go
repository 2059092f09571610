package testsystemapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/testsystem"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/gate/testsystem/v1/"

// Handler serves the SMS route test system under /gate/testsystem/v1/
// from b: a bearer token (of the password grant) holding the privilege
// testsystem on every route; errors in the test system body. A Backend
// without its System answers every route 501. It panics when opts.Auth is
// nil.
func Handler(opts httpapi.Options, b Backend) http.Handler {
	return httpapi.FamilyHandler(opts, spec(&api{b: b}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.TestSystem, Auth: httpapi.AuthBearer, Routes: routes(a)}
}

// routes are the operations of the test system interface. Where it shows
// no method or path, the choice is marked "chosen".
func routes(a *api) []httpapi.Route {
	const b = BasePath + "test"
	ts := []auth.Privilege{auth.PrivTestSystem}
	r := func(method, path string, f func(http.ResponseWriter, *http.Request) error) httpapi.Route {
		// Both POSTs create (a test session, a route), so a client may
		// retry them with an Idempotency-Key.
		return httpapi.Route{Method: method, Path: b + path, Privileges: ts, Idempotent: method == http.MethodPost,
			Serve: f, Missing: a.b.System == nil}
	}
	return []httpapi.Route{
		r(http.MethodPost, "/sms", a.sendSMS), // chosen: send test SMS
		r(http.MethodGet, "/sms/language", a.languages),
		r(http.MethodGet, "/sms/{test_session}", a.session),        // chosen: a session
		r(http.MethodGet, "/sms/{test_session}/result", a.results), // chosen: its results
		r(http.MethodGet, "/operator", a.operators),
		r(http.MethodGet, "/operator/country", a.countries),
		r(http.MethodGet, "/route", a.routes),
		r(http.MethodPost, "/route", a.addRoute), // chosen: add route
		r(http.MethodGet, "/route/category", a.named(testsystem.Categories)),
		r(http.MethodDelete, "/route/category/{id}", a.deleteNamed(testsystem.Categories)),
		r(http.MethodGet, "/route/supplier", a.named(testsystem.Suppliers)),
		r(http.MethodDelete, "/route/supplier/{id}", a.deleteNamed(testsystem.Suppliers)),
		r(http.MethodGet, "/route/gate", a.named(testsystem.Gates)),
		r(http.MethodDelete, "/route/gate/{id}", a.deleteNamed(testsystem.Gates)),
	}
}
