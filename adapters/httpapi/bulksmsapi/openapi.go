package bulksmsapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): POST
// /bulk/sendsms with its 202, its 420 and every code, the body-less 500
// and 503, and the delivery report posted to dlrUrl as the callback
// deliveryReport. Its servers are the default listeners; a platform
// serving it puts its own. The handler tests validate every exchange
// against it.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
