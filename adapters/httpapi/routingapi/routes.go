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
	h := func(f func(http.ResponseWriter, *http.Request) error) http.Handler {
		if a.store == nil {
			return nil
		}
		return serve(f)
	}
	return []httpapi.Route{
		{Method: http.MethodPost, Path: b, Idempotent: true, Handler: h(a.create)},
		{Method: http.MethodGet, Path: b, Handler: h(a.list)},
		{Method: http.MethodGet, Path: b + "/{id}", Handler: h(a.get)},
		{Method: http.MethodPut, Path: b + "/{id}", Handler: h(a.update)},
		{Method: http.MethodDelete, Path: b + "/{id}", Handler: h(a.delete)},
	}
}
