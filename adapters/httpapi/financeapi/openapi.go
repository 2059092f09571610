package financeapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the family's OpenAPI 3.1 document (JSON): the 29
// operations of the route table (invoices and their default
// configuration, the file upload under /invoice-docs/v2, balances and
// sheets, the finance documents export, the status changes, the files
// listing, joining and leaving netting statements and collections, and
// the operator's reference data), each with the privileges it needs, its
// listing's filters in prose, and every error in the finance body {"Code",
// "Message"}. Its server is the default REST listener; a platform
// serving it puts its own. The tests hold the wire types to its schemas.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
