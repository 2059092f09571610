package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/adminapi"
	"github.com/msgkit/msgkit/auth"
)

// adminFamily is the operator's administration under /admin/v1/.
func adminFamily(svc *auth.Service, opts httpapi.Options) family {
	return family{name: "admin", api: map[string]http.Handler{adminapi.BasePath: adminapi.Handler(opts, adminapi.Backend{Auth: svc})},
		docs: []apiDoc{{"admin", adminapi.OpenAPI(), restServers}}}
}
