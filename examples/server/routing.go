package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/routingapi"
	"github.com/msgkit/msgkit/routing"
)

// routingFamily is inbound MT routing provisioning under /smsmtinbound/v1/.
func routingFamily(opts httpapi.Options, st routing.Store) family {
	b := routingapi.Backend{}
	if st != nil {
		b.Routes = routing.New(st)
	}
	return family{name: "routing", api: map[string]http.Handler{routingapi.BasePath: routingapi.Handler(opts, b)},
		docs: []apiDoc{{"routing", routingapi.OpenAPI(), restServers}}}
}
