package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestStatus(t *testing.T) {
	want := map[msgkit.Kind]int{
		msgkit.Internal:        500,
		msgkit.Invalid:         400,
		msgkit.NotFound:        404,
		msgkit.Conflict:        409,
		msgkit.Unauthorized:    401,
		msgkit.Forbidden:       403,
		msgkit.RateLimited:     429,
		msgkit.PaymentRequired: 402,
		msgkit.Unavailable:     503,
		msgkit.Kind(200):       500,
	}
	for k, s := range want {
		if got := httpapi.Status(k); got != s {
			t.Errorf("Status(%v) = %d, want %d", k, got, s)
		}
	}
}

// The other families' error bodies are in the golden files of their
// packages.
func TestOAuthErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, filepath.Join("testdata", "errors_oauth.json"), httpapitest.ErrorBodies(t, httpapi.OAuth))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body. The rules of one family's body are
// checked in the family's package, next to its golden files.
func TestErrorBodyRules(t *testing.T) {
	render := httpapitest.Render
	t.Run("Retry-After already set is kept", func(t *testing.T) {
		w := httptest.NewRecorder()
		w.Header().Set("Retry-After", "3600")
		httpapi.WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), httpapi.CDS, msgkit.New(msgkit.RateLimited, "", "x"))
		if w.Header().Get("Retry-After") != "3600" {
			t.Fatalf("Retry-After = %q, want 3600", w.Header().Get("Retry-After"))
		}
	})
	t.Run("503 always says when to retry", func(t *testing.T) {
		for _, fam := range []httpapi.Family{httpapi.CDS, httpapi.Finance, httpapi.Routing, httpapi.TestSystem, httpapi.OAuth, httpapi.UIProxy, httpapi.Admin} {
			w := render(fam, msgkit.Wrap(errors.New("dial tcp: connection refused"), msgkit.Unavailable, msgkit.CodeUnavailable, "the database is unavailable"))
			if w.Code != 503 || w.Header().Get("Retry-After") != "1" {
				t.Errorf("%s: %d, Retry-After %q; want 503 with 1", fam, w.Code, w.Header().Get("Retry-After"))
			}
			if strings.Contains(w.Body.String(), "refused") {
				t.Errorf("%s: the cause reaches the body: %s", fam, w.Body)
			}
		}
	})
	t.Run("OAuth statuses follow RFC 6749", func(t *testing.T) {
		for _, tt := range []struct {
			err    error
			status int
			code   string
		}{
			{msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "x"), 401, "invalid_client"},
			{msgkit.New(msgkit.Invalid, auth.CodeInvalidClient, "x"), 401, "invalid_client"},
			{msgkit.New(msgkit.Forbidden, auth.CodeUnauthorizedClient, "x"), 400, "unauthorized_client"},
			{msgkit.New(msgkit.Invalid, auth.CodeInvalidGrant, "x"), 400, "invalid_grant"},
			{msgkit.New(msgkit.Invalid, auth.CodeUnsupportedGrantType, "x"), 400, "unsupported_grant_type"},
			{msgkit.New(msgkit.Invalid, "", "x"), 400, "invalid_request"},
			{msgkit.New(msgkit.Unauthorized, "", "x"), 401, "invalid_client"},
			{msgkit.New(msgkit.RateLimited, "", "x"), 429, "temporarily_unavailable"},
			{msgkit.New(msgkit.Unavailable, "", "x"), 503, "temporarily_unavailable"},
			{msgkit.New(msgkit.Internal, auth.CodeInvalidGrant, "x"), 500, "server_error"},
			{errors.New("x"), 500, "server_error"},
		} {
			w := render(httpapi.OAuth, tt.err)
			httpapitest.WantError(t, w, httpapi.OAuth, tt.status, tt.code)
			if tt.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%v: 401 without WWW-Authenticate", tt.err)
			}
		}
	})
	t.Run("internal errors are logged with the request id", func(t *testing.T) {
		var logs bytes.Buffer
		h := httpapi.RequestID(func() string { return "rid-7" })(httpapi.AccessLog(slog.New(slog.NewJSONHandler(&logs, nil)))(
			http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				httpapi.WriteError(w, r, httpapi.CDS, errors.New("disk full on /var/db"))
			})))
		w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/", nil))
		httpapitest.WantError(t, w, httpapi.CDS, 500, httpapi.CodeInternal)
		if strings.Contains(w.Body.String(), "disk") {
			t.Fatalf("cause in the body: %s", w.Body)
		}
		var rec map[string]any
		line, _, _ := strings.Cut(logs.String(), "\n")
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] != "internal error" || rec["level"] != "ERROR" || rec["request_id"] != "rid-7" || rec["err"] != "disk full on /var/db" {
			t.Fatalf("log = %v", rec)
		}
	})
	t.Run("a failure after the client went away is not logged as an error", func(t *testing.T) {
		var logs bytes.Buffer
		h := httpapi.AccessLog(slog.New(slog.NewJSONHandler(&logs, nil)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // a query cancelled with the request
			httpapi.WriteError(w, r, httpapi.CDS, msgkit.Wrap(r.Context().Err(), msgkit.Internal, "storage_error", "storage error"))
		}))
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // the client disconnected
		w := httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
		httpapitest.WantError(t, w, httpapi.CDS, 503, httpapi.CodeInternal)
		if strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), "request ended before its answer") {
			t.Fatalf("logs: %s", logs.String())
		}
	})
	t.Run("client errors are not logged as errors", func(t *testing.T) {
		var logs bytes.Buffer
		h := httpapi.AccessLog(slog.New(slog.NewJSONHandler(&logs, nil)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpapi.WriteError(w, r, httpapi.CDS, msgkit.New(msgkit.Invalid, "", "bad"))
		}))
		httpapitest.Serve(h, httptest.NewRequest(http.MethodGet, "/", nil))
		if strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Fatalf("a 400 was logged as an error: %s", logs.String())
		}
	})
}

// The flat bodies (finance, routing, test system, OAuth) fold field
// problems into the message, once: a message that already names every
// field with its problem, as a listing's does, is kept as it is.
func TestFlatMessageSaysFieldsOnce(t *testing.T) {
	_, err := msgkit.ParseListQuery(url.Values{"fields": {"x"}}, msgkit.ListSpec{Filter: map[string]msgkit.AttrType{"a": msgkit.AttrString}})
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || len(e.Fields) != 1 {
		t.Fatalf("ParseListQuery: %v", err)
	}
	m := httpapitest.WantError(t, httpapitest.Render(httpapi.Finance, e), httpapi.Finance, 400, "")
	if got := m["Message"].(string); got != e.Message || strings.Count(got, e.Fields[0].Message) != 1 {
		t.Errorf("Message = %q", got)
	}
	folded := msgkit.New(msgkit.Invalid, "c", "bad input").WithField("custID", "is required", "")
	m = httpapitest.WantError(t, httpapitest.Render(httpapi.Routing, folded), httpapi.Routing, 400, "c")
	if got := m["Message"].(string); got != "bad input; custID: is required" {
		t.Errorf("Message = %q", got)
	}
}
