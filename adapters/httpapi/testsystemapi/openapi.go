package testsystemapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): the fourteen
// operations of the route table, the bearer token and privilege they need,
// every error in the test system body {"code","message"}, and the
// testResults callback posted to a completed session's callback_api. The
// tests hold the answers, requests and callback bodies to its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
