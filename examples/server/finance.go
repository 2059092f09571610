package main

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/financeapi"
)

// financeFamily is finance under /finance/sit/v1/ and its file upload
// under /invoice-docs/v2/.
func financeFamily(opts httpapi.Options) family {
	h := financeapi.Handler(opts)
	return family{name: "finance", api: map[string]http.Handler{financeapi.BasePath: h, financeapi.UploadBasePath: h}}
}
