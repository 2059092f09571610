package routingapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): the five
// operations of the route table, the X-API-Key they need, and every error
// in the routing body {"Code","Message"}. The tests hold the answers to
// its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
