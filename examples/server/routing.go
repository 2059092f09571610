package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/routingapi"
)

// routingFamily is inbound MT routing provisioning under /smsmtinbound/v1/.
func routingFamily(opts httpapi.Options) family {
	return family{name: "routing", api: map[string]http.Handler{routingapi.BasePath: routingapi.Handler(opts)}}
}
