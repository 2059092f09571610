package httpapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// TokenVerifier checks a bearer token; *auth.Service satisfies it.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (auth.Principal, error)
}

// APIKeyVerifier checks an X-API-Key key; *auth.Service satisfies it.
type APIKeyVerifier interface {
	VerifyAPIKey(ctx context.Context, key string) (auth.APIKey, error)
}

// chain wraps h in mws, the first being the outermost.
func chain(h http.Handler, mws ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

type requestIDKey struct{}

// RequestIDFrom returns the request id RequestID put in ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// maxRequestIDLen bounds an accepted X-Request-Id.
const maxRequestIDLen = 64

// validRequestID accepts 1 to 64 characters of [A-Za-z0-9-_.], so an id can
// be logged and echoed without escaping.
func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// RequestID gives every request an id: the incoming X-Request-Id when it is
// 1 to 64 characters of [A-Za-z0-9-_.], else a new one from newID (nil: 26
// random base32 characters). The id is put in the context and echoed in the
// X-Request-Id response header. A request that has an id already keeps it,
// so the middleware may be applied twice.
func RequestID(newID func() string) func(http.Handler) http.Handler {
	if newID == nil {
		newID = rand.Text
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if id := RequestIDFrom(r.Context()); id != "" {
				next.ServeHTTP(w, r)
				return
			}
			id := r.Header.Get("X-Request-Id")
			if !validRequestID(id) {
				id = newID()
			}
			w.Header().Set("X-Request-Id", id)
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
		})
	}
}

// statusWriter records the status and the size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	route  *routeMetrics // the route that served the request, named by FamilyMetrics.Route
	start  time.Time     // when AccessLog took the request, which Measure reads rather than the clock again
}

func asStatusWriter(w http.ResponseWriter) *statusWriter {
	if sw, ok := w.(*statusWriter); ok {
		return sw
	}
	return &statusWriter{ResponseWriter: w}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps streaming responses streaming.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack is passed through for protocol upgrades.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// AccessLog logs one line per request at Info: method, path, status,
// bytes, duration, request_id and remote (the peer address). It also puts
// logger in the context, where WriteError and Recover find it. A nil logger
// discards.
func AccessLog(logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := asStatusWriter(w)
			sw.start = start
			r = r.WithContext(withLogger(r.Context(), logger))
			completed := false
			defer func() {
				status := sw.status
				if status == 0 && completed {
					status = http.StatusOK
				}
				logger.LogAttrs(r.Context(), slog.LevelInfo, "http request",
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", status),
					slog.Int64("bytes", sw.bytes),
					slog.Duration("duration", time.Since(start)),
					slog.String("request_id", RequestIDFrom(r.Context())),
					slog.String("remote", r.RemoteAddr),
					slog.Bool("aborted", !completed),
				)
			}()
			next.ServeHTTP(sw, r)
			completed = true
		})
	}
}

// Recover answers a panic with 500 in the family's body, with a generic
// message, and logs the panic value and stack with the request id. When the
// response has already begun it can only abort it. http.ErrAbortHandler
// passes through.
func Recover(fam Family) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := asStatusWriter(w)
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				cause := fmt.Errorf("panic: %v", v)
				if sw.status != 0 {
					LoggerFrom(r.Context()).ErrorContext(r.Context(), "panic after the response began",
						"err", cause, "request_id", RequestIDFrom(r.Context()), "stack", string(debug.Stack()))
					panic(http.ErrAbortHandler)
				}
				writeError(sw, r, fam, cause, "stack", string(debug.Stack()))
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

type bodyLimitKey struct{}

// LimitBody limits the request body to n bytes (n <= 0: DefaultMaxBodyBytes).
// A declared Content-Length over n is answered 413 at once in the family's
// body; a longer body fails when it is read, and DecodeJSON turns that into
// the same 413.
func LimitBody(fam Family, n int64) func(http.Handler) http.Handler {
	if n <= 0 {
		n = DefaultMaxBodyBytes
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				w.Header().Set("Connection", "close")
				WriteError(w, r, fam, tooLarge(n))
				return
			}
			if r.Body != nil && r.Body != http.NoBody {
				r2 := r.WithContext(context.WithValue(r.Context(), bodyLimitKey{}, n))
				r2.Body = http.MaxBytesReader(w, r.Body, n)
				r = r2
			}
			next.ServeHTTP(w, r)
		})
	}
}

// authInfo is what Bearer and Tenant learn about a request. Bearer puts one
// in the context and Tenant fills in the service, so that the tenant check
// does not copy the request again.
type authInfo struct {
	principal auth.Principal
	service   msgkit.ServiceUUID // set by Tenant
}

type authInfoKey struct{}

func authInfoFrom(ctx context.Context) *authInfo {
	a, _ := ctx.Value(authInfoKey{}).(*authInfo)
	return a
}

// PrincipalFrom returns the principal Bearer put in ctx.
func PrincipalFrom(ctx context.Context) (auth.Principal, bool) {
	if a := authInfoFrom(ctx); a != nil {
		return a.principal, true
	}
	return auth.Principal{}, false
}

// bearerToken returns the token of the one Authorization header when it is
// "Bearer <token>" (scheme in any case) and the token has RFC 6750's
// b64token syntax. bearer tells that the header is of the Bearer scheme,
// so a token that fails the syntax is malformed, not missing.
func bearerToken(h http.Header) (token string, bearer, ok bool) {
	vals := h.Values("Authorization")
	if len(vals) != 1 {
		return "", false, false
	}
	scheme, token, found := strings.Cut(vals[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false, false
	}
	if !found {
		return "", true, false
	}
	token = strings.TrimLeft(token, " ")
	return token, true, isB64Token(token)
}

// isB64Token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// Bearer authenticates "Authorization: Bearer <token>" with v and puts the
// principal in the context. A missing header (none, another scheme,
// several Authorization headers) is 401 with "WWW-Authenticate: Bearer"; a
// Bearer header whose token is malformed (empty, or outside RFC 6750's
// b64token syntax) and a token v refuses are 401 with
// `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 3.1: the
// token is "expired, revoked, malformed, or invalid"); all in the
// family's body. Other failures of v (a store that is down) keep their
// kind.
func Bearer(fam Family, v TokenVerifier) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, bearer, ok := bearerToken(r.Header)
			switch {
			case !bearer:
				w.Header().Set("WWW-Authenticate", "Bearer")
				WriteError(w, r, fam, msgkit.New(msgkit.Unauthorized, CodeMissingCredentials,
					"an Authorization header with a bearer access token is required"))
				return
			case !ok:
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				WriteError(w, r, fam, msgkit.New(msgkit.Unauthorized, auth.CodeInvalidToken,
					"the bearer access token is malformed"))
				return
			}
			p, err := v.Verify(r.Context(), token)
			if err != nil {
				if msgkit.KindOf(err) == msgkit.Unauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				}
				WriteError(w, r, fam, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authInfoKey{}, &authInfo{principal: p})))
		})
	}
}

// ServiceFrom returns the tenant Tenant checked.
func ServiceFrom(ctx context.Context) (msgkit.ServiceUUID, bool) {
	if a := authInfoFrom(ctx); a != nil && a.service != "" {
		return a.service, true
	}
	return "", false
}

// errNoPrincipal is the answer of a tenant or privilege check mounted without
// Bearer before it: a wiring mistake, so Internal, and the request is refused.
func errNoPrincipal(check string) error {
	return msgkit.Wrap(errors.New(check+" needs Bearer before it"), msgkit.Internal, "wiring", "")
}

// Tenant checks that the principal acts for the path's {serviceUuid}: a
// malformed value is 400 naming serviceUuid, a tenant the principal does not
// act for is 403, both in the family's body and without calling next; so
// is a tenant of the principal's that is suspended (tenant_suspended).
// On success the canonical ServiceUUID is available from ServiceFrom.
func Tenant(fam Family) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a := authInfoFrom(r.Context())
			if a == nil {
				WriteError(w, r, fam, errNoPrincipal("Tenant"))
				return
			}
			svc, err := msgkit.ParseServiceUUID(r.PathValue("serviceUuid"))
			if err != nil {
				WriteError(w, r, fam, err)
				return
			}
			if slices.Contains(a.principal.Suspended, svc) {
				WriteError(w, r, fam, msgkit.New(msgkit.Forbidden, auth.CodeTenantSuspended, "the tenant is suspended"))
				return
			}
			if !a.principal.ActsFor(svc) {
				WriteError(w, r, fam, msgkit.New(msgkit.Forbidden, CodeForbiddenService,
					"the access token does not act for this service"))
				return
			}
			a.service = svc
			next.ServeHTTP(w, r)
		})
	}
}

// RequireAny lets through principals holding at least one of privs and
// answers the others 403 in the family's body, with
// `WWW-Authenticate: Bearer error="insufficient_scope"` (RFC 6750 3.1).
// It panics without privileges, which would refuse everyone.
func RequireAny(fam Family, privs ...auth.Privilege) func(http.Handler) http.Handler {
	if len(privs) == 0 {
		panic("httpapi: RequireAny without privileges")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := PrincipalFrom(r.Context())
			if !ok {
				WriteError(w, r, fam, errNoPrincipal("RequireAny"))
				return
			}
			if !p.HasAny(privs...) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
				WriteError(w, r, fam, msgkit.New(msgkit.Forbidden, CodeInsufficientPrivilege,
					"the access token lacks the privilege for this operation"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

type apiKeyKey struct{}

// APIKeyFrom returns the key APIKey put in ctx.
func APIKeyFrom(ctx context.Context) (auth.APIKey, bool) {
	k, ok := ctx.Value(apiKeyKey{}).(auth.APIKey)
	return k, ok
}

// APIKey authenticates the X-API-Key header with v and puts the key's record
// in the context. A missing, empty or repeated header is 401, and so is a
// key v refuses, in the family's body.
func APIKey(fam Family, v APIKeyVerifier) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			vals := r.Header.Values("X-API-Key")
			if len(vals) != 1 || vals[0] == "" {
				WriteError(w, r, fam, msgkit.New(msgkit.Unauthorized, CodeMissingCredentials,
					"an X-API-Key header is required"))
				return
			}
			k, err := v.VerifyAPIKey(r.Context(), vals[0])
			if err != nil {
				WriteError(w, r, fam, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), apiKeyKey{}, k)))
		})
	}
}
