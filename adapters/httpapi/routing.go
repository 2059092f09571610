package httpapi

import "net/http"

// RoutingHandler serves inbound MT routing provisioning (document 3, B)
// under /smsmtinbound/v1/: an X-API-Key on every route; errors in the
// routing body. It panics when opts.Auth is nil.
func RoutingHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	o.needAuth("RoutingHandler")
	m := newFamilyMux(Routing)
	m.register(o, false, routingRoutes())
	return o.base(Routing, APIKey(Routing, o.Auth)(m))
}

// routingRoutes are the operations of document 3, 4.2.
func routingRoutes() []route {
	const b = "/smsmtinbound/v1"
	return []route{
		{method: http.MethodPost, path: b + "/smsmtin-routes"},
		{method: http.MethodGet, path: b + "/smsmtin-routes"},
		{method: http.MethodGet, path: b + "/smsmtin-routes/{id}"},
		{method: http.MethodPut, path: b + "/smsmtin-routes/{id}"},
		{method: http.MethodDelete, path: b + "/smsmtin-routes/{id}"},
	}
}
