package cdsapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): every
// operation of the route table with the privilege it needs and every
// error in the CDS body; the contacts and lists operations with their
// bodies, parameters and answers, the others as answering 501 until this
// platform serves them. The tests hold the answers to its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
