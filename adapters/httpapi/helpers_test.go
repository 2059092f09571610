package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"
)

// newClock is the tests' clock, moved only when told.
func newClock() *msgkittest.Clock {
	return msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

const (
	tenantA = msgkit.ServiceUUID("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a")
	tenantB = msgkit.ServiceUUID("7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e")

	clientID     = "news-client"
	clientSecret = "s3cret+with/odd:chars%"
	newsless     = "newsless-client"
	financeView  = "finance-viewer"
	userName     = "tester"
	userPassword = "correct horse battery staple"
	plainUser    = "no-privilege-user"
	apiKeyValue  = "routing-key-0123456789abcdef"

	clientAddr  = "192.0.2.10:40000" // inside the clients' network
	foreignAddr = "198.51.100.7:40000"
)

// fixture is an auth.Service over memstore with clients, users and an API
// key, and a log buffer.
type fixture struct {
	clock *msgkittest.Clock
	svc   *auth.Service
	logs  *bytes.Buffer
	opts  httpapi.Options
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	clk := newClock()
	svc := auth.New(memstore.New().Auth(), auth.Options{BcryptCost: bcrypt.MinCost, Clock: clk.Now})
	ctx := context.Background()
	nets := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	mustClient := func(id string, services []msgkit.ServiceUUID, privs ...auth.Privilege) {
		t.Helper()
		if _, _, err := svc.CreateClient(ctx, auth.ClientSpec{
			ID: id, Secret: clientSecret, Networks: nets, Services: services, Privileges: privs,
		}); err != nil {
			t.Fatalf("CreateClient %s: %v", id, err)
		}
	}
	mustClient(clientID, []msgkit.ServiceUUID{tenantA}, auth.PrivNews)
	mustClient(newsless, []msgkit.ServiceUUID{tenantA}, auth.PrivFinanceBalanceView)
	mustClient(financeView, nil, auth.PrivFinanceInvoicesView)
	mustUser := func(name string, privs ...auth.Privilege) {
		t.Helper()
		if _, err := svc.CreateUser(ctx, auth.UserSpec{Username: name, Password: userPassword, Privileges: privs}); err != nil {
			t.Fatalf("CreateUser %s: %v", name, err)
		}
	}
	mustUser(userName, auth.PrivTestSystem)
	mustUser(plainUser)
	if _, _, err := svc.CreateAPIKey(ctx, "routing", apiKeyValue); err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	logs := &bytes.Buffer{}
	f := &fixture{clock: clk, svc: svc, logs: logs}
	f.opts = httpapi.Options{
		Auth:           svc,
		Logger:         slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, nil)),
		Clock:          clk.Now,
		TokenRateLimit: httpapi.RateLimit{Rate: rate.Inf},
	}
	return f
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

// token returns a client-credentials token of client id.
func (f *fixture) token(t testing.TB, id string) string {
	t.Helper()
	tok, err := f.svc.ClientCredentials(context.Background(), id, clientSecret, netip.MustParseAddr("192.0.2.10"))
	if err != nil {
		t.Fatalf("ClientCredentials %s: %v", id, err)
	}
	return tok.AccessToken
}

// userToken returns a password-grant token.
func (f *fixture) userToken(t testing.TB, name string) string {
	t.Helper()
	tok, err := f.svc.Password(context.Background(), name, userPassword)
	if err != nil {
		t.Fatalf("Password %s: %v", name, err)
	}
	return tok.AccessToken
}

// form posts a form body to the token endpoint path.
func formRequest(form url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = clientAddr
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// decodeBody decodes a JSON answer into a map, failing on anything else.
func decodeBody(t testing.TB, w *httptest.ResponseRecorder) map[string]any {
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

// wantError checks a status and the family's body shape with its code.
func wantError(t testing.TB, w *httptest.ResponseRecorder, fam httpapi.Family, status int, code string) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
	m := decodeBody(t, w)
	keys := map[httpapi.Family][]string{
		httpapi.CDS:        {"code", "message", "description", "items"},
		httpapi.Finance:    {"Code", "Message"},
		httpapi.Routing:    {"Code", "Message"},
		httpapi.TestSystem: {"code", "message"},
		httpapi.OAuth:      {"error", "error_description"},
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
	case httpapi.CDS, httpapi.TestSystem:
		got = m["code"]
	case httpapi.Routing:
		got = m["Code"]
	case httpapi.OAuth:
		got = m["error"]
	case httpapi.Finance:
		if _, ok := m["Code"].(float64); !ok {
			t.Fatalf("finance Code is not a number: %s", w.Body)
		}
		return m
	}
	if got != code {
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

func bearer(r *http.Request, token string) *http.Request {
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}
