// Package httpapi is msgkit's HTTP kit: what every API family package
// (adapters/httpapi/bulksmsapi, cdsapi, financeapi, routingapi,
// testsystemapi, uiproxyapi) builds its handler from, and the endpoints that belong to
// no family: the OAuth 2.0 token endpoint with token-info, and health. It
// renders the error body of every family, authenticates callers and checks
// their tenants and privileges, limits bodies and request rates, decodes
// and encodes JSON, logs, and posts delivery reports. It imports no family
// package, and no business rule lives here.
//
// # Families
//
// A family package lists all its operations in one table of Route values
// (its routes.go) and builds its handler with FamilyHandler:
//
//	func Handler(opts httpapi.Options) http.Handler {
//		return httpapi.FamilyHandler(opts, httpapi.FamilySpec{
//			Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: routes(),
//		})
//	}
//
// Every request passes through RequestID, AccessLog and Recover, then the
// family's authentication (Bearer, APIKey, or none for a family that
// serves no tenant's data), then the route's body limit
// (LimitBody), tenant check (Tenant) and privilege check (RequireAny), in
// that order. A route's Serve is a handler that returns its failure, and
// the kit answers it in the family's body (after FamilySpec.Errors, the
// family's own mapping, when it has one), so no family writes that
// wrapper again. A route marked Missing, because the server was built
// without the store the resource needs (a family's Backend leaves it
// out), answers 501 in the family's body with code "not_implemented" and
// a message naming the operation and saying so. It does so only after the
// checks: a caller without a token gets 401, a caller for another tenant
// 403, and only an entitled caller learns that the operation is not
// served.
// Unknown paths of a family answer 404 and known paths with another method
// 405 (with Allow), in the family's body, after authentication. Mistakes
// of wiring (no Options.Auth, no AuthScheme, tenancy or privileges in an
// API-key family, a pattern twice, a route with no handler that is not
// marked Missing) panic when the handler is built.
//
// A family's handler can be mounted alone. A platform mounts each family at
// its base paths on one ServeMux, with OAuthHandler at /oauth2/,
// HealthHandler at /healthz and /readyz, and NotFoundHandler at "/", which
// answers any other path 404 {"code":"not_found","message":...};
// examples/server does so. HealthHandler answers GET /healthz 200
// {"status":"ok"} while the process serves, and GET /readyz 200 or 503
// {"status":"unavailable"} as Options.Pinger answers.
//
// A family package tests itself with package httpapitest: CheckRoutes
// holds its table to the rules above, CheckAnswers and golden files under
// its testdata/ (msgkittest.Golden, rewritten with go test -update) show
// every answer it gives, and ErrorBodies renders its error body for a
// golden file of every kind of error.
//
// # API documents
//
// Every family keeps an OpenAPI 3.1 document of what it serves in its own
// package, embedded in the binary: bulksmsapi.OpenAPI, and here
// OAuthOpenAPI (oauth.openapi.json) and HealthOpenAPI
// (health.openapi.json). They are written by hand, in JSON, and cannot
// drift from the code: every handler test validates each request and
// answer against its family's document (httpapitest.NewContract, with
// kin-openapi), each family's test holds the operations it mounts to the
// document's, and the documents pass the loader's validation, examples
// included. A document's servers are the default listeners; a platform
// serving it puts its own (examples/server does, at GET /openapi/).
// Answers to paths and methods no operation has are the document's
// components/responses NotFound and MethodNotAllowed.
//
// # Statuses
//
// One table (Status) maps msgkit.Kind to the HTTP status: Invalid 400,
// Unauthorized 401, PaymentRequired 402, Forbidden 403, NotFound 404,
// Conflict 409, RateLimited 429 (always with Retry-After), Internal 500,
// Unavailable 503; a Kind missing from the table is 500. A *StatusError in
// the error's chain gives statuses that are not a kind's: 405, 413 (body too
// large, code "request_too_large"), 501 ("not_implemented"). An error that is
// not a *msgkit.Error, or is Internal, is answered 500 with the message
// "internal error" and code "internal_error", never its own code, message or
// cause; it is logged at Error with its cause and the request id through the
// logger that AccessLog put in the request context. When the request's
// context has ended (the client went away; see Ended), such a failure is
// that end reaching a dependency, a query cancelled with the request, not
// a fault: it is answered 503 and logged at Info.
//
// # Error bodies
//
// WriteError renders an error in the body of a Family:
//
//	CDS         {"code","message","description","items":[{"name","message","description"}]}
//	Finance     {"Code": <int32>, "Message"}
//	Routing     {"Code": "<string>", "Message"}
//	TestSystem  {"code","message"}
//	OAuth       {"error","error_description"} (RFC 6749 5.2)
//	UIProxy     {"Code": "<string>", "Message"}
//	Admin       {"code","message","fields":[{"name","message"}]}
//
// The code is the *msgkit.Error's Code, or when it has none the kind's:
// invalid, not_found, conflict, unauthorized, forbidden, rate_limited,
// payment_required, unavailable. The kit renders every family's body, so a
// family package only names its Family; the choices each body makes where
// its interface is silent (the CDS description and items, the finance Code
// as an integer, the test system's code of a 429) are recorded in the
// family package's documentation. Other choices:
//
//   - Finance, routing, test system, UI proxy and OAuth have no items: field problems
//     are folded into the message as "message; name: problem; ...", without
//     repeating a name the problem already contains.
//   - OAuth: an error carrying an RFC 6749 code keeps it; other errors get
//     one from their kind: Invalid, NotFound, Conflict and PaymentRequired
//     invalid_request, Unauthorized invalid_client, Forbidden
//     unauthorized_client, RateLimited and Unavailable
//     temporarily_unavailable, Internal server_error (the last two are the
//     RFC's codes for the authorization endpoint, used because section 5.2
//     has none for failures of the server). The status then follows the
//     code as section 5.2 says: invalid_client 401 with WWW-Authenticate:
//     Basic realm="msgkit" (the token endpoint's client authentication;
//     token-info, a bearer resource, keeps its Bearer challenge), the
//     other codes 400 (so auth's
//     unauthorized_client, a right secret from a foreign address, which is
//     Forbidden, is 400). NotFound (a path without endpoint, 404), explicit
//     statuses (405, 413) and failures of the server (429, 500, 503) keep
//     their status.
//   - Bulk SMS has its own answers, without the kit's bodies: see package
//     bulksmsapi.
//
// # Authentication
//
// Bearer reads "Authorization: Bearer <token>" (scheme in any case, token of
// RFC 6750's b64token syntax, one header only) and asks a TokenVerifier; a
// missing header (none, another scheme, several) is 401 with
// WWW-Authenticate: Bearer and code missing_credentials, a Bearer header
// whose token is empty or outside the syntax 401 invalid_token "the bearer
// access token is malformed", and a refused token 401 invalid_token, both
// with WWW-Authenticate: Bearer error="invalid_token" (RFC 6750 3.1 counts
// a malformed token as an invalid one). Tenant
// parses the path value {serviceUuid} (malformed: 400 naming serviceUuid)
// and answers 403 code forbidden_service when the principal does not act for
// it; RequireAny answers 403 code insufficient_privilege with
// WWW-Authenticate: Bearer error="insufficient_scope". Neither calls the
// next handler when it refuses. APIKey reads X-API-Key (exactly one,
// non-empty) and asks an APIKeyVerifier; failures are 401 without
// WWW-Authenticate, as no scheme exists for the header. The principal, the
// tenant and the API key record are in the context (PrincipalFrom,
// ServiceFrom, APIKeyFrom).
//
// # Token endpoint
//
// POST /oauth2/access-token takes an application/x-www-form-urlencoded body
// (any other Content-Type is invalid_request) of at most 8 KiB (more: 413
// invalid_request); parameters of the query string are ignored and a
// parameter sent twice is invalid_request (RFC 6749 3.2). grant_type
// client_credentials authenticates the client with client_id and
// client_secret in the body or with HTTP Basic (RFC 6749 2.3.1: the two
// form-encoded before base64), not both, and passes the client IP to auth;
// grant_type password takes username and password, and when the client
// sends credentials too (either way) they must be right (RFC 6749 4.3.2:
// invalid_client otherwise). A missing grant_type is
// invalid_request, another value unsupported_grant_type; scope is ignored,
// as the interfaces define none. Success is 200
// {"access_token","token_type":"Bearer","expires_in"}. Every answer,
// errors included, has Cache-Control: no-store and Pragma: no-cache. Against
// brute force, requests are limited per client IP before they are read: 10
// a second with a burst of 20 unless Options.TokenRateLimit says otherwise;
// over it, 429 temporarily_unavailable with Retry-After.
//
// # Client IP
//
// ClientIP is the peer address of r.RemoteAddr. Only when that peer is in
// Options.TrustedProxies is X-Forwarded-For believed: read from the right,
// the first address that is not a trusted proxy is the client. An
// unparsable hop ends the walk at the last trusted hop.
//
// # Idempotency keys
//
// A route marked Idempotent in its family's table (Route.Idempotent:
// every POST, each of which creates something) takes an optional
// Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header; the
// key an sf-string or bare, see idempotency.ParseKey), kept by
// Options.Idempotency (an *idempotency.Service). One middleware,
// Idempotent, does it for every family, after authentication, tenancy and
// privileges, so that a refused caller learns nothing of keys:
//   - No header: the request is served as always; nothing is read ahead
//     or kept.
//   - The scope of a key is its sender: the bearer's client or user with
//     the tenant of the path ("client:ID service:UUID"), or the API key's
//     id. The fingerprint is the SHA-256 of the method, the escaped path,
//     the raw query, the Content-Type and the body, which is read ahead
//     within the route's limit (over it: 413, nothing kept): a client
//     retries by sending the same bytes.
//   - The first request acts; its answer, when its status is below 400,
//     is kept for 24 hours with the headers the handler set (the request
//     id and the headers net/http writes excepted) and a body of at most
//     1 MiB. A retry gets that status, those headers and that body, with
//     Idempotent-Replayed: true and a request id of its own, and acts on
//     nothing.
//   - The key with another request (fingerprint) is 422 code
//     idempotency_key_reused; while the first request runs, 409
//     idempotency_key_in_progress with Retry-After (the rest of its lease,
//     2 minutes from its start); a header that is no key, or more than
//     one, 400 invalid_idempotency_key naming Idempotency-Key. All in the
//     family's error body.
//   - Choice: an error answer (4xx, 5xx), a panic, an answer over 1 MiB or
//     one that could not be kept forgets the key, so that the same or a
//     corrected request runs again at once: the creates here change
//     nothing when they refuse, and a failure is taken as not done. A
//     process that dies after acting and before keeping its answer leaves
//     the key pending; a retry after the lease acts again (see package
//     idempotency for what is exact across a crash: bulk SMS).
//   - Without Options.Idempotency a request with the header is answered
//     501 not_implemented, rather than served without the promise.
//
// Every family's OpenAPI document has the header (components/parameters
// Idempotency-Key) and the 409 and 422 answers on each operation so
// marked, and its tests send keyed creates through the contract
// (httpapitest.CheckIdempotent).
//
// # Rate limits
//
// A Limiter keeps a token bucket (golang.org/x/time/rate) per key, keyed by
// a function of the request (ByClientIP, BySubject), at most MaxKeys of them
// (default 10000) in least-recently-used order, so memory stays bounded; a
// key evicted and seen again starts full. Time comes from an injected
// msgkit.Clock. LimitRate answers 429 with Retry-After (seconds until a
// token is back, at least 1) and, when RateLimit.Headers is set,
// X-Ratelimit-Limit (the burst), X-Ratelimit-Remaining (whole tokens left)
// and X-Ratelimit-Reset (seconds until the bucket is full).
//
// # JSON
//
// DecodeJSON reads exactly one JSON value within the body limit: too large
// is 413, a wrong type Invalid naming the field by its JSON path
// (json.UnmarshalTypeError.Field; "body" for the top level), malformed JSON,
// an empty body or trailing data Invalid naming "body". Unknown members are
// ignored unless DecodeOptions.DisallowUnknownFields, so read-only fields a
// client sends back are not an error; each family decides. The Content-Type
// of JSON requests is not checked. WriteJSON encodes before writing and sets
// Content-Type: application/json.
//
// Before decoding, every body passes CheckJSON, one reader's rules for
// every family, where encoding/json would silently change or merge what
// the client sent: a string with invalid UTF-8, a lone surrogate escape
// (\ud800) or the NUL character, an object giving a key twice or two keys
// that differ only in case (json would keep the last), and a string longer
// than DefaultMaxString (1,000) characters, or than the route allows its
// place (DecodeOptions.LongStrings), are Invalid (invalid_json) naming the
// member as items[0].name. No refusal quotes the value: messages format
// a caller's values with msgkit.Sprintf, which quotes at most
// msgkit.MaxQuoted characters of each. The bulk SMS family reads its body
// in one pass of its own, with the same rules (see bulksmsapi).
//
// # Requests, logs, panics
//
// RequestID keeps an incoming X-Request-Id of 1 to 64 characters of
// [A-Za-z0-9-_.], else makes one, and echoes it. AccessLog logs method,
// path, status, bytes, duration, request_id and remote at Info. Recover
// answers a panic 500 in the family's body with the generic message and
// logs the panic value and stack; if the answer had begun, it aborts the
// connection. Handlers log what they do not show through LoggerFrom, which
// returns the logger AccessLog put in the request context. LogHandler
// wraps a server's slog handler so that every line logged with a
// request's context, by the services as by the handlers, names its
// request_id. GET /readyz pings Options.Pinger within 2 seconds; GET
// /version answers the program's build information (ReadVersion).
//
// # Metrics
//
// Options.Metrics (NewMetrics, one per Prometheus registry, shared by
// every family of a server) counts requests by family, route and status,
// times them by family and route and gauges those in flight by family.
// The route label is the route's ServeMux pattern, set when the route is
// mounted, so the labels are bounded by the route tables whatever callers
// send; a request refused before its route (authentication) counts under
// the route it was for, and one for no route under RouteUnmatched. A
// request costs two atomic adds, a histogram observation and no lookup of
// labels.
//
// The kit holds no outbound client: the delivery report poster and the
// UI proxy's fetcher live with the guarded dialer in adapters/egress.
package httpapi
