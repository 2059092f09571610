package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/cdsapi"
)

// cdsFamily is customer data storage and campaigns under /news/v1/.
func cdsFamily(opts httpapi.Options) family {
	return family{name: "cds", api: map[string]http.Handler{cdsapi.BasePath: cdsapi.Handler(opts)}}
}
