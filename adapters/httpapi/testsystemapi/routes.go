package testsystemapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/gate/testsystem/v1/"

// Handler serves the SMS route test system under /gate/testsystem/v1/: a
// bearer token (of the password grant) holding the privilege testsystem on
// every route; errors in the test system body. It panics when opts.Auth is
// nil.
func Handler(opts httpapi.Options) http.Handler { return httpapi.FamilyHandler(opts, spec()) }

func spec() httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.TestSystem, Auth: httpapi.AuthBearer, Routes: routes()}
}

// routes are the operations of the test system interface. Where it shows
// no method or path, the choice is marked "chosen".
func routes() []httpapi.Route {
	const b = BasePath + "test"
	ts := []auth.Privilege{auth.PrivTestSystem}
	r := func(method, path string) httpapi.Route {
		return httpapi.Route{Method: method, Path: b + path, Privileges: ts}
	}
	return []httpapi.Route{
		r(http.MethodPost, "/sms"), // chosen: send test SMS
		r(http.MethodGet, "/sms/language"),
		r(http.MethodGet, "/operator"),
		r(http.MethodGet, "/operator/country"),
		r(http.MethodGet, "/route"),
		r(http.MethodPost, "/route"), // chosen: add route
		r(http.MethodGet, "/route/category"),
		r(http.MethodDelete, "/route/category/{id}"),
		r(http.MethodGet, "/route/supplier"),
		r(http.MethodDelete, "/route/supplier/{id}"),
		r(http.MethodGet, "/route/gate"),
		r(http.MethodDelete, "/route/gate/{id}"),
	}
}
