package routingapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/routing"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/smsmtinbound/v1/"

// Backend is what the family serves: the routes' service, which holds
// every rule of a route.
type Backend struct {
	// Routes keeps the routing records; nil answers every route 501.
	Routes *routing.Service
}

// Handler serves inbound MT routing provisioning under /smsmtinbound/v1/
// from b: an X-API-Key on every route; errors in the routing body. A
// Backend without its service answers every route 501. It panics when
// opts.Auth is nil.
func Handler(opts httpapi.Options, b Backend) http.Handler {
	return httpapi.FamilyHandler(opts, spec(&api{b: b}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Routes: routes(a)}
}

// routes are the operations of the routing provisioning interface.
func routes(a *api) []httpapi.Route {
	const b = BasePath + "smsmtin-routes"
	missing := a.b.Routes == nil
	return []httpapi.Route{
		{Method: http.MethodPost, Path: b, Idempotent: true, Serve: a.create, Missing: missing},
		{Method: http.MethodGet, Path: b, Serve: a.list, Missing: missing},
		{Method: http.MethodGet, Path: b + "/{id}", Serve: a.get, Missing: missing},
		{Method: http.MethodPut, Path: b + "/{id}", Serve: a.update, Missing: missing},
		{Method: http.MethodDelete, Path: b + "/{id}", Serve: a.delete, Missing: missing},
	}
}
