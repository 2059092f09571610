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
	AuthenticateClient(ctx context.Context, clientID, secret string, from netip.Addr) (auth.Client, error)
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
	// Metrics measure the requests of every family (NewMetrics); nil:
	// none.
	Metrics *Metrics
	// Idempotency keeps the Idempotency-Key of the routes marked
	// Idempotent; nil: a request with the header is answered 501, one
	// without it is served as always.
	Idempotency IdempotencyKeeper
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
func (o Options) base(m *familyMux, h http.Handler) http.Handler {
	measure := func(next http.Handler) http.Handler { return m.metrics.Measure(next, m.pattern) }
	return chain(h, RequestID(o.NewRequestID), AccessLog(o.Logger), measure, Recover(m.fam))
}
