// Package httpapitest holds what the tests of the HTTP kit
// (adapters/httpapi) and of the API family packages share: an auth fixture
// over memstore with clients, users and an API key (NewFixture) and a stub
// that lets everyone in (GrantAll); the rules of a family's route table
// (CheckRoutes); requests with the answers they must get (CheckAnswers);
// checks of a family's error body (WantError); the golden form of an
// answer (Answer, ErrorBodies) for msgkittest.Golden; and the family's
// OpenAPI document as a contract that every request and answer of its
// handler tests must keep (NewContract).
//
// # Contracts
//
// Each family keeps an OpenAPI 3.1 document in its package, and its tests
// hold the handler to it in one call:
//
//	c := httpapitest.NewContract(t, cdsapi.OpenAPI()) // lints the document
//	h := c.Handler(t, cdsapi.Handler(opts))            // or c.Transport(t, nil)
//	c.CheckRoutes(t, spec().Routes)                     // mounted = documented
//
// Every exchange through h is validated with kin-openapi's openapi3filter:
// the request's path and query parameters and body, the answer's status
// (one the operation does not document fails), Content-Type, documented
// headers and body, and the absence of a body where the document shows
// none. A test of bad input marks its request with SkipRequestCheck: the
// answer is still checked, against the operation or, for a path or method
// that no operation has, against the document's components/responses
// NotFound or MethodNotAllowed. Requests that msgkit sends (delivery
// reports) are checked with CheckCallback.
//
// The documents are OpenAPI 3.1.0: kin-openapi v0.153 loads and lints 3.1
// and validates its schemas as JSON Schema 2020-12 (type arrays with null,
// const, additionalProperties false, $ref), which the contract's own tests
// prove on a document of their own (testdata/things.openapi.json). What
// openapi3filter does not do, the contract does: it checks no callbacks
// or webhooks (CheckCallback), lets a body through where the document
// shows none, and accepts undocumented statuses unless told
// (IncludeResponseStatus). Requests are routed by path alone, since the
// documents' servers name the platform's listeners, not the test's; HEAD
// answers are not validated (openapi3filter skips them).
package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"
)

// The fixture's tenants, credentials and addresses.
const (
	TenantA = msgkit.ServiceUUID("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a")
	TenantB = msgkit.ServiceUUID("7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e")

	ClientID      = "news-client"            // tenant A, privilege news
	ClientSecret  = "s3cret+with/odd:chars%" // the secret of every client
	Newsless      = "newsless-client"        // tenant A, finance-balance-view only
	UIClient      = "ui-client"              // tenant A, ui-components
	FinanceViewer = "finance-viewer"         // no tenant, finance-invoices.view
	Operator      = "operator"               // no tenant, every admin privilege
	UserName      = "tester"                 // a user with privilege testsystem
	UserPassword  = "correct horse battery staple"
	PlainUser     = "no-privilege-user" // a user without privileges
	APIKeyValue   = "routing-key-0123456789abcdef"

	ClientAddr  = "192.0.2.10:40000" // inside the clients' network
	ForeignAddr = "198.51.100.7:40000"
)

// NewClock returns the fixture's clock, at 2026-03-01 12:00 UTC and moved
// only when told.
func NewClock() *msgkittest.Clock {
	return msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

// Fixture is an auth.Service over memstore holding the clients, users and
// API key above, and handler options that log into a buffer.
type Fixture struct {
	Clock *msgkittest.Clock
	Auth  *auth.Service
	// Store is Auth's store, for a service of another's options over the
	// same records.
	Store *memstore.AuthStore
	Logs  *bytes.Buffer // the JSON logs of Opts.Logger
	// Keys holds the idempotency keys of Keeper, which is
	// Opts.Idempotency.
	Keys   *memstore.IdempotencyStore
	Keeper *Keeper
	// Opts has Auth, Logger, Clock and Idempotency (Keeper, on Clock) set,
	// and no limit on token requests.
	Opts httpapi.Options
}

// NewFixture returns a fixture of its own for a test.
func NewFixture(t testing.TB) *Fixture {
	t.Helper()
	clk := NewClock()
	store := memstore.New().Auth()
	svc := auth.New(store, auth.Options{BcryptCost: bcrypt.MinCost, Clock: clk.Now})
	ctx := context.Background()
	nets := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	mustClient := func(id string, services []msgkit.ServiceUUID, privs ...auth.Privilege) {
		t.Helper()
		if _, _, err := svc.CreateClient(ctx, auth.ClientSpec{
			ID: id, Secret: ClientSecret, Networks: nets, Services: services, Privileges: privs,
		}); err != nil {
			t.Fatalf("CreateClient %s: %v", id, err)
		}
	}
	mustClient(ClientID, []msgkit.ServiceUUID{TenantA}, auth.PrivNews)
	mustClient(Newsless, []msgkit.ServiceUUID{TenantA}, auth.PrivFinanceBalanceView)
	mustClient(UIClient, []msgkit.ServiceUUID{TenantA}, auth.PrivUIComponents)
	mustClient(FinanceViewer, nil, auth.PrivFinanceInvoicesView)
	mustClient(Operator, nil, auth.AdminPrivileges()...)
	mustUser := func(name string, privs ...auth.Privilege) {
		t.Helper()
		if _, err := svc.CreateUser(ctx, auth.UserSpec{Username: name, Password: UserPassword, Privileges: privs}); err != nil {
			t.Fatalf("CreateUser %s: %v", name, err)
		}
	}
	mustUser(UserName, auth.PrivTestSystem)
	mustUser(PlainUser)
	if _, _, err := svc.CreateAPIKey(ctx, "routing", APIKeyValue); err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	logs := &bytes.Buffer{}
	keys := memstore.New().Idempotency()
	keeper := &Keeper{Service: idempotency.NewService(keys, idempotency.Options{Clock: clk.Now})}
	return &Fixture{
		Clock: clk, Auth: svc, Store: store, Logs: logs, Keys: keys, Keeper: keeper,
		Opts: httpapi.Options{
			Auth:           svc,
			Logger:         slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, nil)),
			Clock:          clk.Now,
			TokenRateLimit: httpapi.RateLimit{Rate: rate.Inf},
			Idempotency:    keeper,
		},
	}
}

// lockedWriter serialises writes of concurrent requests into one buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Token returns a client-credentials token of client id.
func (f *Fixture) Token(t testing.TB, id string) string {
	t.Helper()
	tok, err := f.Auth.ClientCredentials(context.Background(), id, ClientSecret, netip.MustParseAddr("192.0.2.10"))
	if err != nil {
		t.Fatalf("ClientCredentials %s: %v", id, err)
	}
	return tok.AccessToken
}

// UserToken returns a password-grant token of user name.
func (f *Fixture) UserToken(t testing.TB, name string) string {
	t.Helper()
	tok, err := f.Auth.Password(context.Background(), name, UserPassword)
	if err != nil {
		t.Fatalf("Password %s: %v", name, err)
	}
	return tok.AccessToken
}

// Serve runs r through h and returns the answer.
func Serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Bearer sets r's Authorization header to the bearer token.
func Bearer(r *http.Request, token string) *http.Request {
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// DecodeBody decodes a JSON answer into a map, failing on anything else.
func DecodeBody(t testing.TB, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, w.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, w.Body)
	}
	return m
}

// AnyCode is the code of WantError's call that checks the body's shape
// and takes any code.
const AnyCode = "*"

// WantError checks an answer's status and that its body has exactly the
// members of fam's error body, with the code given (the OAuth error; for
// finance, whose Code is a number, only that it is one; any with
// AnyCode). It returns the body. A body outside every family, {"code","message"}, is checked as the
// test system's.
func WantError(t testing.TB, w *httptest.ResponseRecorder, fam httpapi.Family, status int, code string) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
	m := DecodeBody(t, w)
	keys := map[httpapi.Family][]string{
		httpapi.CDS:        {"code", "message", "description", "items"},
		httpapi.Finance:    {"Code", "Message"},
		httpapi.Routing:    {"Code", "Message"},
		httpapi.UIProxy:    {"Code", "Message"},
		httpapi.TestSystem: {"code", "message"},
		httpapi.OAuth:      {"error", "error_description"},
		httpapi.Admin:      {"code", "message", "fields"},
	}[fam]
	if len(m) != len(keys) {
		t.Fatalf("%s body has keys %v, want %v: %s", fam, mapKeys(m), keys, w.Body)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("%s body lacks %q: %s", fam, k, w.Body)
		}
	}
	var got any
	switch fam {
	case httpapi.CDS, httpapi.TestSystem, httpapi.Admin:
		got = m["code"]
	case httpapi.Routing, httpapi.UIProxy:
		got = m["Code"]
	case httpapi.OAuth:
		got = m["error"]
	case httpapi.Finance:
		if _, ok := m["Code"].(float64); !ok {
			t.Fatalf("finance Code is not a number: %s", w.Body)
		}
		return m
	}
	if code != AnyCode && got != code {
		t.Fatalf("code = %v, want %q; body %s", got, code, w.Body)
	}
	return m
}

func mapKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
