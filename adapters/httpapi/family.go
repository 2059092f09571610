package httpapi

import (
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// Route is one operation of an API family.
type Route struct {
	// Method and Path make the ServeMux pattern "METHOD /path/{name}".
	Method, Path string
	// Privileges are the privileges of which the principal needs one; none:
	// every authenticated caller (the API-key family has no privileges).
	Privileges []auth.Privilege
	// MaxBody limits the request body; 0: Options.MaxBodyBytes.
	MaxBody int64
	// Idempotent: the operation creates something, and a client may send
	// an Idempotency-Key so that its retries act once (see Idempotent,
	// with Options.Idempotency). Every POST of the families is one.
	Idempotent bool
	// AnswersSecret: the answer holds a secret shown once (a new client's
	// or API key's, a rotated one), which nothing may keep, and a kept
	// idempotent answer would. Such a route is not Idempotent, and a
	// request with an Idempotency-Key is refused 400
	// (CodeIdempotencyKeyRefused); a retry acts again (a second rotation,
	// or a create that conflicts with the first).
	AnswersSecret bool
	// Serve serves the operation and returns its failure, which
	// FamilyHandler answers in the family's error body (through
	// FamilySpec.Errors when the family maps its errors). A route has
	// Serve or Handler, not both.
	Serve func(http.ResponseWriter, *http.Request) error
	// Handler serves the operation by its own means, answering its own
	// failures (a page, a proxy).
	Handler http.Handler
	// Missing: the server was built without what the operation needs (its
	// family's Backend lacks the store or service), so the route answers
	// 501 (code CodeNotImplemented) once the caller has passed
	// authentication, tenancy and privileges. A route with neither Serve
	// nor Handler that is not Missing is a mistake of wiring, and
	// FamilyHandler panics naming it: a forgotten handler fails the
	// family's route test instead of answering 501 quietly.
	Missing bool
}

// AuthScheme is how the callers of a family authenticate.
type AuthScheme uint8

// The authentication schemes of the families. The zero AuthScheme is none
// of them, so a FamilySpec that forgets to choose is refused.
const (
	AuthBearer AuthScheme = iota + 1 // Authorization: Bearer <token>, see Bearer
	AuthAPIKey                       // X-API-Key, see APIKey
	// AuthNone lets every caller in: only for routes that serve no
	// tenant's data (the UI proxy's mock operations, made-up data).
	AuthNone
	// AuthBody: the credentials are in the request body and the route's
	// handler checks them (bulk SMS). FamilyHandler serves no such family;
	// a handler of its own describes itself with WithSpec.
	AuthBody
)

// Operations is a handler together with the table of what it serves.
// FamilyHandler's and OAuthHandler's handlers are, and a handler that
// serves its routes by its own means says so with WithSpec, so that a
// platform can walk every operation it mounts: its tests hold every route
// to tenancy, outage and input rules, and a route added later cannot
// escape them.
type Operations interface {
	http.Handler
	// Spec is the family and every route the handler serves.
	Spec() FamilySpec
}

// WithSpec describes h, which serves spec's routes, as Operations.
func WithSpec(h http.Handler, spec FamilySpec) Operations { return described{h, spec} }

type described struct {
	http.Handler
	spec FamilySpec
}

func (d described) Spec() FamilySpec { return d.spec }

// FamilySpec describes an API family for FamilyHandler.
type FamilySpec struct {
	Family Family     // the body of every error the family answers
	Auth   AuthScheme // how its callers authenticate
	// Tenant: every path has a {serviceUuid} segment, and the principal
	// must act for that tenant (see Tenant). Needs AuthBearer.
	Tenant bool
	// Routes are every operation of the family, in one table. Routes with
	// privileges need AuthBearer.
	Routes []Route
	// Errors, when set, maps the failure a route's Serve returns before it
	// is answered (a family's named codes, a proxy's 502s).
	Errors func(error) error
}

// FamilyHandler serves a family's routes; a family package's constructor
// is FamilyHandler with its table. Every request passes through RequestID,
// AccessLog and Recover, then the family's authentication (spec.Auth), then
// the route's body limit, the tenant check when spec.Tenant is set, the
// route's privilege check and, on a route marked Idempotent, the
// Idempotency-Key (Idempotent), in that order; every refusal has the
// family's body. Unknown paths answer 404 (code CodeNotFound) and known paths with
// another method 405 (code CodeMethodNotAllowed, with Allow), after
// authentication. The handler can be mounted alone or under the prefixes
// of the family's paths on a platform's ServeMux.
//
// The handler is Operations: its Spec is spec.
//
// It panics when opts.Auth is nil (unless spec.Auth is AuthNone), when
// spec.Auth is not a scheme FamilyHandler serves, when
// tenancy or privileges are asked of an API-key family, when a route of a
// family without authentication is Idempotent, and when a route's
// pattern is invalid or repeated (ServeMux's panic): mistakes of wiring.
func FamilyHandler(opts Options, spec FamilySpec) Operations {
	o := opts.withDefaults()
	if spec.Auth != AuthNone {
		o.needAuth("the " + spec.Family.String() + " family")
	}
	var authenticate func(http.Handler) http.Handler
	switch spec.Auth {
	case AuthNone:
		authenticate = func(h http.Handler) http.Handler { return h }
	case AuthBearer:
		authenticate = Bearer(spec.Family, o.Auth)
	case AuthAPIKey:
		authenticate = APIKey(spec.Family, o.Auth)
	default:
		panic("httpapi: the " + spec.Family.String() + " family has no AuthScheme")
	}
	m := newFamilyMux(spec.Family, o.Metrics)
	m.register(o, spec)
	return WithSpec(o.base(m, authenticate(m)), spec)
}

// NotFoundHandler answers every request 404 {"code":"not_found","message"},
// with a request id and an access log line. Mounted at "/" of a platform's
// ServeMux it answers the paths outside every family.
func NotFoundHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	m := newFamilyMux(familyNone, o.Metrics)
	return o.base(m, m)
}

// familyMux is a ServeMux whose 404 and 405 answers have the family's body
// and whose routes are measured (nil metrics: not).
type familyMux struct {
	fam     Family
	mux     *http.ServeMux
	metrics *FamilyMetrics
}

func newFamilyMux(fam Family, metrics *Metrics) *familyMux {
	return &familyMux{fam: fam, mux: http.NewServeMux(), metrics: metrics.Family(fam.String())}
}

// handle mounts h at pattern, measured as the route pattern.
func (m *familyMux) handle(pattern string, h http.Handler) {
	m.mux.Handle(pattern, m.metrics.Route(pattern, h))
}

// pattern is the pattern of the route r is for, or "".
func (m *familyMux) pattern(r *http.Request) string {
	_, p := m.mux.Handler(r)
	return p
}

// register mounts the routes of spec, each behind its body limit, the
// tenant check when spec.Tenant is set, its privilege check when it has
// privileges, and Idempotent when it is marked so.
func (m *familyMux) register(o Options, spec FamilySpec) {
	if spec.Tenant && spec.Auth != AuthBearer {
		panic("httpapi: the " + m.fam.String() + " family checks tenants, which needs AuthBearer")
	}
	for _, rt := range spec.Routes {
		if len(rt.Privileges) > 0 && spec.Auth != AuthBearer {
			panic("httpapi: " + rt.Method + " " + rt.Path + " has privileges, which need AuthBearer")
		}
		h := m.handler(rt, spec.Errors)
		mws := []func(http.Handler) http.Handler{LimitBody(m.fam, cmpOr(rt.MaxBody, o.MaxBodyBytes))}
		if spec.Tenant {
			mws = append(mws, Tenant(m.fam))
		}
		if len(rt.Privileges) > 0 {
			mws = append(mws, RequireAny(m.fam, rt.Privileges...))
		}
		if rt.AnswersSecret {
			if rt.Idempotent {
				panic("httpapi: " + rt.Method + " " + rt.Path + " answers a secret, which an idempotent answer would keep")
			}
			mws = append(mws, refuseKey(m.fam))
		}
		if rt.Idempotent {
			if spec.Auth == AuthNone {
				panic("httpapi: " + rt.Method + " " + rt.Path + " is idempotent, which needs callers who authenticate: keys are theirs")
			}
			if !rt.Missing {
				mws = append(mws, Idempotent(m.fam, o.Idempotency))
			}
		}
		m.handle(rt.Method+" "+rt.Path, chain(h, mws...))
	}
}

// handler is what serves rt: its Serve answering failures in the
// family's body, its Handler, or 501 when it is Missing. It panics when rt
// has both or neither (and is not Missing).
func (m *familyMux) handler(rt Route, mapErr func(error) error) http.Handler {
	op := rt.Method + " " + rt.Path
	switch {
	case rt.Serve != nil && rt.Handler != nil:
		panic("httpapi: " + op + " has both Serve and Handler")
	case rt.Missing:
		return notImplemented(m.fam, rt.Method, rt.Path)
	case rt.Handler != nil:
		return rt.Handler
	case rt.Serve != nil:
		return Serve(m.fam, rt.Serve, mapErr)
	}
	panic("httpapi: " + op + " has no handler and is not marked Missing")
}

// Serve adapts h, a handler that returns its failure, to an http.Handler
// that answers the failure in fam's error body, mapped by mapErr first when
// it is not nil. FamilyHandler serves a Route's Serve with it; a family's
// handler outside a route table uses it directly.
func Serve(fam Family, h func(http.ResponseWriter, *http.Request) error, mapErr func(error) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		if mapErr != nil {
			err = mapErr(err)
		}
		WriteError(w, r, fam, err)
	})
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

// notImplemented answers an operation the server was built without (its
// family's Backend lacks the store it needs):
// 501 in the family's body, code CodeNotImplemented. It runs after
// authentication, tenancy and privileges, so those are enforced already.
func notImplemented(fam Family, method, path string) http.Handler {
	err := &StatusError{
		Status: http.StatusNotImplemented,
		Err: msgkit.Errorf(msgkit.Unavailable, CodeNotImplemented,
			"%s %s is not served by this server: it was built without the store this resource needs", method, path),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, fam, err) })
}

// CodeIdempotencyKeyRefused is the code of an Idempotency-Key sent to an
// operation that answers a secret (Route.AnswersSecret).
const CodeIdempotencyKeyRefused = "idempotency_key_refused"

// refuseKey refuses requests that carry an Idempotency-Key.
func refuseKey(fam Family) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := r.Header[idempotencyHeader]; ok {
				WriteError(w, r, fam, msgkit.Invalidf(CodeIdempotencyKeyRefused, idempotencyHeader,
					"this operation answers a secret, which is never kept, so it takes no Idempotency-Key"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
