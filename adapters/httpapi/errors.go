package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// Family is an API family: it decides the shape of error bodies. Middleware
// and handlers take the family of the routes they serve, so that every error
// of a family, from a bad token to a panic, has the family's shape.
type Family uint8

// The API families with their error bodies (see the package documentation).
const (
	familyNone Family = iota // outside every family: health and unknown paths; {"code","message"}
	CDS                      // customer data storage and campaigns: {"code","message","description","items"}
	Finance                  // finance: {"Code": <int>, "Message"}
	Routing                  // inbound MT routing provisioning: {"Code": "<string>", "Message"}
	TestSystem               // SMS route test system: {"code","message"}
	OAuth                    // the token endpoint: RFC 6749 {"error","error_description"}
	UIProxy                  // the UI integration proxy and its mock operations: {"Code": "<string>", "Message"}
	Admin                    // the operator's administration: {"code","message","fields":[{"name","message"}]}
)

var familyNames = [...]string{
	familyNone: "none",
	CDS:        "cds",
	Finance:    "finance",
	Routing:    "routing",
	TestSystem: "testsystem",
	OAuth:      "oauth",
	UIProxy:    "uiproxy",
	Admin:      "admin",
}

// String names the family in lower case.
func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return "family(" + strconv.Itoa(int(f)) + ")"
}

// Error codes that httpapi itself produces.
const (
	CodeInternal              = "internal_error"         // every Internal error, whatever its own code
	CodeNotImplemented        = "not_implemented"        // 501: the server was built without the resource's store
	CodeNotFound              = "not_found"              // 404: no route for the path
	CodeMethodNotAllowed      = "method_not_allowed"     // 405: the path exists with other methods
	CodeRequestTooLarge       = "request_too_large"      // 413: the body exceeds the limit
	CodeInvalidJSON           = "invalid_json"           // a body that does not decode
	CodeMissingCredentials    = "missing_credentials"    // no or a malformed Authorization or X-API-Key header
	CodeForbiddenService      = "forbidden_service"      // the principal does not act for the {serviceUuid}
	CodeInsufficientPrivilege = "insufficient_privilege" // the principal lacks every privilege the route accepts
	CodeRateLimited           = "rate_limited"           // 429 from LimitRate
	// CodeTestSystemRateLimit is the code of every 429 in the test system's
	// body: the test system interface's rate limit code.
	CodeTestSystemRateLimit = "GATE_TEST_SYSTEM:RATE_LIMIT_REACHED"
)

// statusOf is the one table from Kind to HTTP status. A Kind missing here
// (one appended to msgkit later) is answered 500 until it is added.
var statusOf = [...]int{
	msgkit.Internal:        http.StatusInternalServerError,
	msgkit.Invalid:         http.StatusBadRequest,
	msgkit.NotFound:        http.StatusNotFound,
	msgkit.Conflict:        http.StatusConflict,
	msgkit.Unauthorized:    http.StatusUnauthorized,
	msgkit.Forbidden:       http.StatusForbidden,
	msgkit.RateLimited:     http.StatusTooManyRequests,
	msgkit.PaymentRequired: http.StatusPaymentRequired,
	msgkit.Unavailable:     http.StatusServiceUnavailable,
}

// defaultCode is the code rendered for an error that has none.
var defaultCode = [...]string{
	msgkit.Internal:        CodeInternal,
	msgkit.Invalid:         "invalid",
	msgkit.NotFound:        "not_found",
	msgkit.Conflict:        "conflict",
	msgkit.Unauthorized:    "unauthorized",
	msgkit.Forbidden:       "forbidden",
	msgkit.RateLimited:     CodeRateLimited,
	msgkit.PaymentRequired: "payment_required",
	msgkit.Unavailable:     "unavailable",
}

// Status returns the HTTP status of an error kind; unknown kinds are 500.
func Status(k msgkit.Kind) int {
	if int(k) < len(statusOf) {
		return statusOf[k]
	}
	return http.StatusInternalServerError
}

func knownKind(k msgkit.Kind) bool { return int(k) < len(statusOf) }

// StatusError gives an error a status that its kind does not have (405 for
// the CDS validation of PUT and PATCH, 413, 501) and the delay of a
// Retry-After header. The body is still rendered from the *msgkit.Error in
// Err's chain.
type StatusError struct {
	Status     int           // 0: the status of the error's kind
	RetryAfter time.Duration // > 0: sent as Retry-After in whole seconds (at least 1) on 429 and 503
	Err        error
}

func (e *StatusError) Error() string {
	if e.Err == nil {
		return http.StatusText(e.Status)
	}
	return e.Err.Error()
}

// Unwrap returns the error.
func (e *StatusError) Unwrap() error { return e.Err }

// WriteError answers err in the body of family fam.
//
// The status comes from a *StatusError in err's chain, else from the Kind of
// the first *msgkit.Error (OAuth: from the RFC 6749 error code, see the
// package documentation). An error that is not a *msgkit.Error, or whose Kind
// is Internal or unknown, is answered 500 with a generic message and logged,
// with its cause and the request id, through the logger that AccessLog put
// in the context; nothing of it reaches the body. A 429 or 503 always
// carries Retry-After: the value already set on w, else the StatusError's
// delay, else 1 second.
func WriteError(w http.ResponseWriter, r *http.Request, fam Family, err error) {
	writeError(w, r, fam, err)
}

func writeError(w http.ResponseWriter, r *http.Request, fam Family, err error, logAttrs ...any) {
	var status int
	var retry time.Duration
	if se, ok := errors.AsType[*StatusError](err); ok {
		status, retry = se.Status, se.RetryAfter
	}
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e == nil || e.Kind == msgkit.Internal || !knownKind(e.Kind) {
		attrs := append([]any{
			"err", err, "request_id", RequestIDFrom(r.Context()),
			"method", r.Method, "path", r.URL.Path, "family", fam.String(),
		}, logAttrs...)
		e = &msgkit.Error{Kind: msgkit.Internal, Code: CodeInternal, Message: "internal error"}
		if Ended(r) {
			LoggerFrom(r.Context()).InfoContext(r.Context(), "request ended before its answer", attrs...)
			status = http.StatusServiceUnavailable
		} else {
			LoggerFrom(r.Context()).ErrorContext(r.Context(), "internal error", attrs...)
		}
		if status < 500 {
			status = http.StatusInternalServerError
		}
	}
	if status == 0 {
		status = Status(e.Kind)
	}
	if fam == OAuth {
		status = oauthStatus(e, status, err)
	}

	h := w.Header()
	switch {
	case status == http.StatusTooManyRequests && h.Get("Retry-After") == "":
		h.Set("Retry-After", retryAfterSeconds(retry))
	case status == http.StatusServiceUnavailable && h.Get("Retry-After") == "":
		h.Set("Retry-After", retryAfterSeconds(retry))
	case status == http.StatusUnauthorized && fam == OAuth && h.Get("WWW-Authenticate") == "":
		// The token endpoint's client authentication; token-info, a
		// bearer resource, has set its Bearer challenge already.
		h.Set("WWW-Authenticate", `Basic realm="msgkit"`)
	}
	_ = WriteJSON(w, status, errorBody(fam, status, e))
}

// Ended reports whether r's context has ended: the client went away (or
// a deadline set for the request passed). A failure then is most likely
// that end reaching a dependency (a cancelled query, a request taken back
// from a queue), not a fault of the server, so it is logged at INFO and
// answered 503 (to nobody, usually) instead of ERROR and 500.
func Ended(r *http.Request) bool { return r.Context().Err() != nil }

func retryAfterSeconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}

// codeOf is e's code, or the kind's default. (writeError has replaced
// Internal errors by one with CodeInternal already.)
func codeOf(e *msgkit.Error) string {
	if e.Code != "" {
		return e.Code
	}
	return defaultCode[e.Kind]
}

type cdsItem struct {
	Name        string `json:"name"`
	Message     string `json:"message"`
	Description string `json:"description"`
}

type cdsBody struct {
	Code        string    `json:"code"`
	Message     string    `json:"message"`
	Description string    `json:"description"`
	Items       []cdsItem `json:"items"`
}

type financeBody struct {
	Code    int32  `json:"Code"`
	Message string `json:"Message"`
}

type routingBody struct {
	Code    string `json:"Code"`
	Message string `json:"Message"`
}

type codeMessageBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// adminBody is the administration's error: the code, the message, and
// each field's problem apart (fields is [] without).
type adminBody struct {
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []adminField `json:"fields"`
}

type adminField struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

type oauthBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func errorBody(fam Family, status int, e *msgkit.Error) any {
	switch fam {
	case CDS:
		items := make([]cdsItem, len(e.Fields))
		for i, f := range e.Fields {
			items[i] = cdsItem{Name: f.Name, Message: f.Message, Description: f.Description}
		}
		return cdsBody{Code: codeOf(e), Message: e.Message, Description: http.StatusText(status), Items: items}
	case Finance:
		code := int32(status)
		if n, err := strconv.ParseInt(e.Code, 10, 32); err == nil {
			code = int32(n)
		}
		return financeBody{Code: code, Message: flatMessage(e)}
	case Routing, UIProxy:
		return routingBody{Code: codeOf(e), Message: flatMessage(e)}
	case TestSystem:
		b := codeMessageBody{Code: codeOf(e), Message: flatMessage(e)}
		if status == http.StatusTooManyRequests {
			b.Code = CodeTestSystemRateLimit
			if b.Message == "" {
				b.Message = "the rate limit was reached"
			}
		}
		return b
	case OAuth:
		return oauthBody{Error: oauthCode(e), Description: flatMessage(e)}
	case Admin:
		fields := make([]adminField, len(e.Fields))
		for i, f := range e.Fields {
			fields[i] = adminField{Name: f.Name, Message: f.Message}
		}
		return adminBody{Code: codeOf(e), Message: e.Message, Fields: fields}
	}
	return codeMessageBody{Code: codeOf(e), Message: flatMessage(e)}
}

// flatMessage folds field problems into one message for the families whose
// body has no items: "msg; name: problem; ...". A field's name is not
// repeated when its message already contains it, and the error's message is
// left out when it is one of the fields' messages.
func flatMessage(e *msgkit.Error) string {
	if len(e.Fields) == 0 || saysAll(e) {
		return e.Message
	}
	parts := make([]string, 0, len(e.Fields)+1)
	repeated := false
	for _, f := range e.Fields {
		if f.Message == e.Message {
			repeated = true
		}
	}
	if !repeated && e.Message != "" {
		parts = append(parts, e.Message)
	}
	for _, f := range e.Fields {
		if strings.Contains(f.Message, f.Name) {
			parts = append(parts, f.Message)
		} else {
			parts = append(parts, f.Name+": "+f.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// saysAll reports whether e's message already names each field with its
// problem ("invalid list query: fields: cannot filter by ..."), so that
// folding the fields in would say everything twice.
func saysAll(e *msgkit.Error) bool {
	for _, f := range e.Fields {
		if !strings.Contains(e.Message, f.Name) || !strings.Contains(e.Message, f.Message) {
			return false
		}
	}
	return true
}

// RFC 6749 section 5.2 codes, and two of section 4.1.2.1 used for
// failures of the server.
const (
	oauthServerError            = "server_error"
	oauthTemporarilyUnavailable = "temporarily_unavailable"
	oauthInvalidScope           = "invalid_scope"
)

func oauthCode(e *msgkit.Error) string {
	switch e.Code {
	case auth.CodeInvalidRequest, auth.CodeInvalidClient, auth.CodeInvalidGrant,
		auth.CodeUnauthorizedClient, auth.CodeUnsupportedGrantType, oauthInvalidScope,
		auth.CodeInvalidToken:
		return e.Code
	case CodeMissingCredentials:
		// A bearer-protected endpoint of the family (token-info): RFC 6750
		// 3.1 names invalid_token for a request without a usable token.
		return auth.CodeInvalidToken
	}
	switch e.Kind {
	case msgkit.Unauthorized:
		return auth.CodeInvalidClient
	case msgkit.Forbidden:
		return auth.CodeUnauthorizedClient
	case msgkit.RateLimited, msgkit.Unavailable:
		return oauthTemporarilyUnavailable
	case msgkit.Internal:
		return oauthServerError
	}
	return auth.CodeInvalidRequest
}

// oauthStatus follows RFC 6749 5.2 for the code rendered: invalid_client is
// 401, the other codes of the section 400. An explicit StatusError status
// (405, 413) and NotFound (a path without endpoint, 404) keep theirs, and
// so do the codes of server failures (429, 500, 503).
func oauthStatus(e *msgkit.Error, status int, err error) int {
	if se, ok := errors.AsType[*StatusError](err); ok && se.Status != 0 {
		return status
	}
	if e.Kind == msgkit.NotFound {
		return status
	}
	switch oauthCode(e) {
	case auth.CodeInvalidClient, auth.CodeInvalidToken:
		return http.StatusUnauthorized
	case auth.CodeInvalidRequest, auth.CodeInvalidGrant, auth.CodeUnauthorizedClient,
		auth.CodeUnsupportedGrantType, oauthInvalidScope:
		return http.StatusBadRequest
	}
	return status
}

// WriteJSON answers v as JSON with the status and Content-Type
// application/json. v is encoded before anything is written, so an encoding
// failure is returned (an Internal error) with nothing sent, and the caller
// can still answer with WriteError.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return msgkit.Wrap(err, msgkit.Internal, "encode", "encoding the response failed")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

type loggerKey struct{}

func withLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger AccessLog put in ctx, or one that discards.
// Handlers log through it, with RequestIDFrom, the failures they do not
// show the caller.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.DiscardHandler)
}
