package adminapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): every
// operation of the route table, the privileges each needs, and every
// error in the administration's body {"code","message","fields"}. The
// tests hold the answers to its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
