package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// TokenIssuer runs the OAuth 2.0 grants; *auth.Service satisfies it.
type TokenIssuer interface {
	ClientCredentials(ctx context.Context, clientID, secret string, from netip.Addr) (auth.IssuedToken, error)
	Password(ctx context.Context, username, password string) (auth.IssuedToken, error)
}

// Authenticator is everything the API families need of auth;
// *auth.Service satisfies it.
type Authenticator interface {
	TokenIssuer
	TokenVerifier
	APIKeyVerifier
}

var _ Authenticator = (*auth.Service)(nil)

// Pinger tells whether a dependency (the database) answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Options configure the handlers. Zero values choose the defaults.
type Options struct {
	// Auth issues and verifies credentials. Every family handler needs it
	// and panics when it is nil; HealthHandler does not.
	Auth Authenticator
	// Pinger is asked by GET /readyz; nil: always ready.
	Pinger Pinger
	// Logger receives access logs and internal errors; nil discards.
	Logger *slog.Logger
	// Clock is read by the rate limiters; nil: the system clock.
	Clock msgkit.Clock
	// NewRequestID makes request ids; nil: 26 random base32 characters.
	NewRequestID func() string
	// TrustedProxies are the peers whose X-Forwarded-For is believed when
	// telling the client IP (ClientIP). Empty: RemoteAddr only.
	TrustedProxies []netip.Prefix
	// MaxBodyBytes limits request bodies of routes that set no limit of
	// their own; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// TokenRateLimit limits token requests per client IP against brute
	// force; a zero Rate means 10 a second with a burst of 20.
	TokenRateLimit RateLimit
	// TokenMaxBodyBytes limits token request bodies; default 8 KiB.
	TokenMaxBodyBytes int64
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if !(o.TokenRateLimit.Rate > 0) {
		o.TokenRateLimit.Rate = 10
		if o.TokenRateLimit.Burst <= 0 {
			o.TokenRateLimit.Burst = 20
		}
	}
	if o.TokenMaxBodyBytes <= 0 {
		o.TokenMaxBodyBytes = 8 << 10
	}
	return o
}

func (o Options) needAuth(who string) {
	if o.Auth == nil {
		panic("httpapi: " + who + " needs Options.Auth")
	}
}

// base is the outer stack of every handler: request id, access log, panic
// recovery in the family's body.
func (o Options) base(fam Family, h http.Handler) http.Handler {
	return chain(h, RequestID(o.NewRequestID), AccessLog(o.Logger), Recover(fam))
}

// New returns the whole platform's API: every family mounted at its base
// paths, the token endpoint, /healthz and /readyz. Any other path is 404 in
// the body {"code","message"}.
func New(opts Options) http.Handler {
	opts = opts.withDefaults()
	opts.needAuth("New")
	mux := http.NewServeMux()
	mux.Handle("/news/v1/", CDSHandler(opts))
	finance := FinanceHandler(opts)
	mux.Handle("/finance/sit/v1/", finance)
	mux.Handle("/invoice-docs/v2/", finance)
	mux.Handle("/smsmtinbound/v1/", RoutingHandler(opts))
	mux.Handle("/gate/testsystem/v1/", TestSystemHandler(opts))
	mux.Handle("/oauth2/", OAuthHandler(opts))
	health := HealthHandler(opts)
	mux.Handle("/healthz", health)
	mux.Handle("/readyz", health)
	mux.Handle("/", opts.base(familyNone, newFamilyMux(familyNone)))
	return mux
}

// route is one operation of a family: its method and ServeMux path, the
// privileges of which the principal needs one (none for API-key families),
// its body limit, and its handler (nil until the family's release: then it
// answers 501).
type route struct {
	method, path string
	privs        []auth.Privilege
	maxBody      int64
	h            http.Handler
}

// familyMux is a ServeMux whose 404 and 405 answers have the family's body.
type familyMux struct {
	fam Family
	mux *http.ServeMux
}

func newFamilyMux(fam Family) *familyMux { return &familyMux{fam: fam, mux: http.NewServeMux()} }

// register mounts routes, each behind its body limit, the tenant check when
// tenant is set, and its privilege check when it has privileges.
func (m *familyMux) register(o Options, tenant bool, routes []route) {
	for _, rt := range routes {
		h := rt.h
		if h == nil {
			h = notImplemented(m.fam, rt.method, rt.path)
		}
		mws := []func(http.Handler) http.Handler{LimitBody(m.fam, cmpOr(rt.maxBody, o.MaxBodyBytes))}
		if tenant {
			mws = append(mws, Tenant(m.fam))
		}
		if len(rt.privs) > 0 {
			mws = append(mws, RequireAny(m.fam, rt.privs...))
		}
		m.mux.Handle(rt.method+" "+rt.path, chain(h, mws...))
	}
}

func cmpOr(a, b int64) int64 {
	if a > 0 {
		return a
	}
	return b
}

func (m *familyMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, pattern := m.mux.Handler(r); pattern == "" {
		// The mux would answer 404 or 405 in text/plain, or redirect to a
		// clean path; find out which without sending anything.
		p := &probeWriter{header: http.Header{}}
		h.ServeHTTP(p, r)
		switch p.status {
		case http.StatusNotFound:
			WriteError(w, r, m.fam, msgkit.New(msgkit.NotFound, CodeNotFound, "there is no resource at this path"))
			return
		case http.StatusMethodNotAllowed:
			w.Header().Set("Allow", p.header.Get("Allow"))
			WriteError(w, r, m.fam, &StatusError{
				Status: http.StatusMethodNotAllowed,
				Err: msgkit.New(msgkit.Invalid, CodeMethodNotAllowed,
					"the resource does not allow this method; see the Allow header"),
			})
			return
		}
	}
	m.mux.ServeHTTP(w, r)
}

// probeWriter records a status and discards the rest.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }
func (p *probeWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

func (p *probeWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}

// notImplemented answers an operation whose family has not been released:
// 501 in the family's body, code CodeNotImplemented. It runs after
// authentication, tenancy and privileges, so those are enforced already.
func notImplemented(fam Family, method, path string) http.Handler {
	err := &StatusError{
		Status: http.StatusNotImplemented,
		Err: msgkit.Errorf(msgkit.Unavailable, CodeNotImplemented,
			"%s %s is not implemented yet: the resource arrives in a later release of msgkit", method, path),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, fam, err) })
}
