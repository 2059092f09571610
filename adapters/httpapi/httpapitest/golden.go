package httpapitest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
)

// answer is the golden form of an HTTP answer.
type answer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

// Answer returns the golden form of an answer, for msgkittest.Golden: a
// JSON object with the status, the headers a client acts on (Allow,
// Cache-Control, Connection, Idempotent-Replayed, Retry-After,
// WWW-Authenticate) when they are set, and the body, left out when empty and kept as a JSON string when it
// is not JSON. The request id and Content-Type are not recorded: WantError
// checks the latter.
func Answer(w *httptest.ResponseRecorder) []byte {
	a := answer{Status: w.Code}
	for _, h := range []string{"Allow", "Cache-Control", "Connection", httpapi.ReplayedHeader, "Retry-After", "WWW-Authenticate"} {
		if v := w.Header().Get(h); v != "" {
			if a.Headers == nil {
				a.Headers = map[string]string{}
			}
			a.Headers[h] = v
		}
	}
	switch body := strings.TrimSpace(w.Body.String()); {
	case body == "":
	case json.Valid([]byte(body)):
		a.Body = json.RawMessage(body)
	default:
		a.Body, _ = json.Marshal(body)
	}
	out, err := json.Marshal(a)
	if err != nil {
		panic(err) // the body is valid JSON, and the rest cannot fail
	}
	return out
}

// ErrorCase is an error WriteError is asked to render.
type ErrorCase struct {
	Name string
	Err  error
}

// ErrorCases are the errors whose bodies every family's golden file shows:
// every kind, fields, codes that are numbers or absent, statuses of a
// StatusError, and internal errors whose details (marked SECRET, or the
// address 10.0.0.5) must not reach the body.
func ErrorCases() []ErrorCase {
	return []ErrorCase{
		{"invalid_with_fields", msgkit.New(msgkit.Invalid, "invalid_contact", "the contact is invalid").
			WithField("mobile", "must be E.164 with a leading +", "for example +4917612345678").
			WithField("opt_status", "must be in or out", "")},
		{"invalid_one_field", msgkit.Invalidf("invalid_date", "invDueDate", "invDueDate must be after the delivery date")},
		{"invalid_field_without_its_name", msgkit.Invalidf("", "custID", "is required")},
		{"invalid_numeric_code", msgkit.New(msgkit.Invalid, "1042", "the due date is missing")},
		{"not_found", msgkit.New(msgkit.NotFound, "INVOICE_NOTFOUND", "invoice 7 not found")},
		{"conflict_without_code", msgkit.New(msgkit.Conflict, "", "the list exists")},
		{"unauthorized", msgkit.New(msgkit.Unauthorized, auth.CodeInvalidToken, "invalid access token")},
		{"forbidden", msgkit.New(msgkit.Forbidden, httpapi.CodeForbiddenService, "the access token does not act for this service")},
		{"rate_limited", &httpapi.StatusError{RetryAfter: 2500 * time.Millisecond,
			Err: msgkit.New(msgkit.RateLimited, "daily_limit", "the daily limit of test SMS is reached")}},
		{"payment_required", msgkit.New(msgkit.PaymentRequired, "113", "the balance has no credit")},
		{"unavailable", &httpapi.StatusError{RetryAfter: 30 * time.Second, Err: msgkit.New(msgkit.Unavailable, "", "the database is down")}},
		{"internal_with_cause", msgkit.Wrap(errors.New("pq: password authentication failed for 10.0.0.5"), msgkit.Internal, "db", "SECRET detail")},
		{"plain_error", fmt.Errorf("wrapped: %w", errors.New("SECRET plain failure"))},
		{"wrapped_msgkit_error", fmt.Errorf("loading: %w", msgkit.New(msgkit.NotFound, "", "no such campaign"))},
		{"unknown_kind", msgkit.New(msgkit.Kind(99), "future", "SECRET future kind")},
		{"not_implemented", &httpapi.StatusError{Status: 501,
			Err: msgkit.New(msgkit.Unavailable, httpapi.CodeNotImplemented, "GET /x is not served by this server")}},
		{"too_large", &httpapi.StatusError{Status: 413, Err: msgkit.New(msgkit.Invalid, httpapi.CodeRequestTooLarge, "the request body exceeds 1048576 bytes")}},
		{"oauth_invalid_client", msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "client authentication failed")},
		{"oauth_unauthorized_client", msgkit.New(msgkit.Forbidden, auth.CodeUnauthorizedClient, "the client may not authorise from this address")},
	}
}

// ErrorBodies renders every one of ErrorCases in fam's body with WriteError
// and returns the golden form of the answers: a JSON object from case name
// to Answer. It fails the test when an answer is not JSON or shows a detail
// of an internal error.
func ErrorBodies(t testing.TB, fam httpapi.Family) []byte {
	t.Helper()
	got := map[string]json.RawMessage{}
	for _, c := range ErrorCases() {
		w := Render(fam, c.Err)
		if strings.Contains(w.Body.String(), "SECRET") || strings.Contains(w.Body.String(), "10.0.0.5") {
			t.Errorf("%s: internal detail in the body: %s", c.Name, w.Body)
		}
		if w.Header().Get("Content-Type") != "application/json" || !json.Valid(w.Body.Bytes()) {
			t.Errorf("%s: not a JSON answer: %q %s", c.Name, w.Header().Get("Content-Type"), w.Body)
		}
		got[c.Name] = Answer(w)
	}
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Render answers err in fam's body with WriteError, as to a GET /.
func Render(fam httpapi.Family, err error) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	httpapi.WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), fam, err)
	return w
}
