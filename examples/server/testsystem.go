package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/testsystemapi"
)

// testSystemFamily is the SMS route test system under /gate/testsystem/v1/.
func testSystemFamily(opts httpapi.Options) family {
	return family{name: "test system", api: map[string]http.Handler{testsystemapi.BasePath: testsystemapi.Handler(opts)}}
}
