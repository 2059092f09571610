package routingapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/smsmtinbound/v1/"

// Handler serves inbound MT routing provisioning under /smsmtinbound/v1/:
// an X-API-Key on every route; errors in the routing body. It panics when
// opts.Auth is nil.
func Handler(opts httpapi.Options) http.Handler { return httpapi.FamilyHandler(opts, spec()) }

func spec() httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Routes: routes()}
}

// routes are the operations of the routing provisioning interface.
func routes() []httpapi.Route {
	const b = BasePath + "smsmtin-routes"
	return []httpapi.Route{
		{Method: http.MethodPost, Path: b},
		{Method: http.MethodGet, Path: b},
		{Method: http.MethodGet, Path: b + "/{id}"},
		{Method: http.MethodPut, Path: b + "/{id}"},
		{Method: http.MethodDelete, Path: b + "/{id}"},
	}
}
