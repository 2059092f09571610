package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/adminapi"
)

// adminFamily is the operator's administration under /admin/v1/.
func adminFamily(b adminapi.Backend, opts httpapi.Options) family {
	return family{name: "admin", api: map[string]http.Handler{adminapi.BasePath: adminapi.Handler(opts, b)},
		docs: []apiDoc{{"admin", adminapi.OpenAPI(), restServers}}}
}
