package httpapi

import (
	"bytes"
	_ "embed"
)

var (
	//go:embed oauth.openapi.json
	oauthOpenAPI []byte
	//go:embed health.openapi.json
	healthOpenAPI []byte
)

// OAuthOpenAPI returns the OpenAPI 3.1 document (JSON) of OAuthHandler:
// the token endpoint with both grants, token-info, and every error in the
// RFC 6749 body. Its server is the default REST listener; a platform
// serving it puts its own.
func OAuthOpenAPI() []byte { return bytes.Clone(oauthOpenAPI) }

// HealthOpenAPI returns the OpenAPI 3.1 document (JSON) of HealthHandler:
// GET /healthz and GET /readyz.
func HealthOpenAPI() []byte { return bytes.Clone(healthOpenAPI) }
