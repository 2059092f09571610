package uiproxyapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): the proxy's
// three operations behind a bearer token, the two mock operations, and
// every error in the UI proxy body {"Code","Message"}. The tests hold the
// answers to its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
