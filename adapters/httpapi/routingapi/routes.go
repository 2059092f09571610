package routingapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/routing"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/smsmtinbound/v1/"

// Handler serves inbound MT routing provisioning under /smsmtinbound/v1/
// from st: an X-API-Key on every route; errors in the routing body. A nil
// st answers every route 501. It panics when opts.Auth is nil.
func Handler(opts httpapi.Options, st routing.Store) http.Handler {
	return httpapi.FamilyHandler(opts, spec(&api{store: st}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Routes: routes(a)}
}

// routes are the operations of the routing provisioning interface.
func routes(a *api) []httpapi.Route {
	const b = BasePath + "smsmtin-routes"
	missing := a.store == nil
	return []httpapi.Route{
		{Method: http.MethodPost, Path: b, Idempotent: true, Serve: a.create, Missing: missing},
		{Method: http.MethodGet, Path: b, Serve: a.list, Missing: missing},
		{Method: http.MethodGet, Path: b + "/{id}", Serve: a.get, Missing: missing},
		{Method: http.MethodPut, Path: b + "/{id}", Serve: a.update, Missing: missing},
		{Method: http.MethodDelete, Path: b + "/{id}", Serve: a.delete, Missing: missing},
	}
}
