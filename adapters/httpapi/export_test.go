package httpapi

import (
	"maps"
	"slices"
)

// OAuthPatterns and HealthPatterns are the ServeMux patterns that
// OAuthHandler and HealthHandler mount, for the tests that hold them to
// their documents.
func OAuthPatterns() []string { return slices.Collect(maps.Keys(oauthRoutes(Options{}))) }

func HealthPatterns() []string { return slices.Collect(maps.Keys(healthRoutes(Options{}))) }
