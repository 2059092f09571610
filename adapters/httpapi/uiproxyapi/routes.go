package uiproxyapi

import (
	"net/http"
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/uiproxy"
)

// The prefixes of the family's paths, where a platform's ServeMux mounts
// Handler (BasePath) and MockHandler (MockBasePath).
const (
	BasePath     = "/ui/v1/"
	MockBasePath = "/ui/v1/mock/"
)

// Backend is what the proxy's operations need.
type Backend struct {
	// Proxy answers the data requests; nil answers every route 501.
	Proxy *uiproxy.Proxy
	// Rate limits each principal's requests; a zero Rate: no limit.
	Rate httpapi.RateLimit
	// Clock is the rate limiter's; nil: the system clock.
	Clock msgkit.Clock
}

// Handler serves the UI proxy's operations under /ui/v1/ (but not
// /ui/v1/mock/) from b: a bearer token holding the privilege
// ui-components and acting for the component's tenant on every route; errors in the UI proxy body. It panics when opts.Auth
// is nil.
func Handler(opts httpapi.Options, b Backend) http.Handler {
	return httpapi.FamilyHandler(opts, spec(&api{b: b}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.UIProxy, Auth: httpapi.AuthBearer, Routes: routes(a), Errors: badGateway}
}

// routes are the proxy's operations; the interface shows none of their
// methods and paths, so all are chosen.
func routes(a *api) []httpapi.Route {
	var limit func(http.Handler) http.Handler
	if a.b.Rate.Rate > 0 {
		l := httpapi.NewLimiter(a.b.Rate, a.b.Clock)
		limit = httpapi.LimitRate(httpapi.UIProxy, l, byPrincipal)
	}
	r := func(path string, f func(http.ResponseWriter, *http.Request) error) httpapi.Route {
		rt := httpapi.Route{Method: http.MethodGet, Path: BasePath + path, Privileges: []auth.Privilege{auth.PrivUIComponents},
			Serve: f, Missing: a.b.Proxy == nil}
		if limit != nil && !rt.Missing {
			rt.Handler, rt.Serve = limit(httpapi.Serve(httpapi.UIProxy, f, badGateway)), nil
		}
		return rt
	}
	return []httpapi.Route{
		r("grid/{gridComponentId}", a.grid),
		r("kpi/{kpiComponentId}", a.kpi),
		r("components/{componentId}", a.component),
	}
}

// byPrincipal keys the rate limit by the authenticated caller.
func byPrincipal(r *http.Request) string {
	p, _ := httpapi.PrincipalFrom(r.Context())
	return strconv.Itoa(int(p.Kind)) + ":" + p.Subject
}

// MockHandler serves the mock operations under /ui/v1/mock/: made-up
// data for anyone; errors in the UI proxy body.
func MockHandler(opts httpapi.Options) http.Handler {
	return httpapi.FamilyHandler(opts, mockSpec())
}

func mockSpec() httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.UIProxy, Auth: httpapi.AuthNone, Routes: mockRoutes(), Errors: badGateway}
}

// mockRoutes are the mock operations of the interface, at chosen paths.
func mockRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Method: http.MethodGet, Path: MockBasePath + "grid/{gridComponentId}", Serve: mockGrid},
		{Method: http.MethodGet, Path: MockBasePath + "kpi/{kpiComponentId}", Serve: mockKPI},
	}
}
