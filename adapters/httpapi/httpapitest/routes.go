package httpapitest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
)

// GrantAll is an httpapi.Authenticator that accepts every bearer token and
// every API key: a token stands for a client acting for TenantA and
// holding Privileges. It issues no tokens.
type GrantAll struct{ Privileges []auth.Privilege }

var _ httpapi.Authenticator = GrantAll{}

// Verify accepts any token.
func (g GrantAll) Verify(context.Context, string) (auth.Principal, error) {
	return auth.Principal{Kind: auth.SubjectClient, Subject: "t", Services: []msgkit.ServiceUUID{TenantA}, Privileges: g.Privileges}, nil
}

// VerifyAPIKey accepts any key.
func (GrantAll) VerifyAPIKey(context.Context, string) (auth.APIKey, error) {
	return auth.APIKey{Name: "k"}, nil
}

// ClientCredentials refuses every client.
func (GrantAll) ClientCredentials(context.Context, string, string, netip.Addr) (auth.IssuedToken, error) {
	return auth.IssuedToken{}, msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "no")
}

// AuthenticateClient refuses every client.
func (GrantAll) AuthenticateClient(context.Context, string, string, netip.Addr) (auth.Client, error) {
	return auth.Client{}, msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "no")
}

// Password refuses every user.
func (GrantAll) Password(context.Context, string, string) (auth.IssuedToken, error) {
	return auth.IssuedToken{}, msgkit.New(msgkit.Invalid, auth.CodeInvalidGrant, "no")
}

// concrete fills a route's path: {serviceUuid} with svc, other wildcards
// with 12.
func concrete(path string, svc msgkit.ServiceUUID) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case s == "{serviceUuid}":
			segs[i] = string(svc)
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			segs[i] = "12"
		}
	}
	return strings.Join(segs, "/")
}

// routeRequest is a request for rt with a bearer token and an API key, so
// that it passes either scheme with GrantAll.
func routeRequest(rt httpapi.Route, svc msgkit.ServiceUUID) *http.Request {
	r := httptest.NewRequest(rt.Method, concrete(rt.Path, svc), nil)
	r.Header.Set("Authorization", "Bearer t")
	r.Header.Set("X-API-Key", "k")
	return r
}

// CheckRoutes checks a family's route table, as httpapi.FamilyHandler
// serves it, against the rules every family follows: no operation twice;
// every path under one of bases; a bearer family has a privilege on every
// route, and a caller holding every privilege but the route's gets 403
// while each of the route's privileges alone lets the caller through; a
// tenant family has {serviceUuid} in every path and refuses another tenant
// 403; every POST, which creates, is Idempotent and refuses a malformed
// Idempotency-Key 400 in the family's body, unless it answers a secret
// and refuses every key; and a route without a handler
// answers 501 in the family's body, naming its operation.
func CheckRoutes(t *testing.T, spec httpapi.FamilySpec, bases ...string) {
	t.Helper()
	serve := func(privs []auth.Privilege, r *http.Request) *httptest.ResponseRecorder {
		return Serve(httpapi.FamilyHandler(httpapi.Options{Auth: GrantAll{Privileges: privs}}, spec), r)
	}
	seen := map[string]bool{}
	for _, rt := range spec.Routes {
		op := rt.Method + " " + rt.Path
		if seen[op] {
			t.Errorf("%s twice", op)
		}
		seen[op] = true
		if !slices.ContainsFunc(bases, func(b string) bool { return strings.HasPrefix(rt.Path, b) }) {
			t.Errorf("%s is outside %v", op, bases)
		}
		if spec.Tenant {
			if !strings.Contains(rt.Path, "/{serviceUuid}/") {
				t.Errorf("%s has no {serviceUuid}", op)
			}
			w := serve(auth.Privileges(), routeRequest(rt, TenantB))
			WantError(t, w, spec.Family, http.StatusForbidden, httpapi.CodeForbiddenService)
		}
		if spec.Auth == httpapi.AuthBearer {
			if len(rt.Privileges) == 0 {
				t.Errorf("%s has no privilege", op)
			}
			others := slices.DeleteFunc(auth.Privileges(), func(p auth.Privilege) bool { return slices.Contains(rt.Privileges, p) })
			if w := serve(others, routeRequest(rt, TenantA)); w.Code != http.StatusForbidden {
				t.Errorf("%s without %v: status %d, want 403", op, rt.Privileges, w.Code)
			}
		}
		if rt.Method == http.MethodPost && !rt.Idempotent && !rt.AnswersSecret {
			t.Errorf("%s creates, so it takes an Idempotency-Key: mark it Idempotent", op)
		}
		if rt.AnswersSecret {
			r := routeRequest(rt, TenantA)
			r.Header.Set("Idempotency-Key", "k-1")
			WantError(t, serve(auth.Privileges(), r), spec.Family, http.StatusBadRequest, httpapi.CodeIdempotencyKeyRefused)
		}
		if rt.Idempotent && !rt.Missing {
			r := routeRequest(rt, TenantA)
			r.Header.Set("Idempotency-Key", `"unterminated`)
			WantError(t, serve(auth.Privileges(), r), spec.Family, http.StatusBadRequest, idempotency.CodeInvalidKey)
		}
		for _, p := range rt.Privileges {
			w := serve([]auth.Privilege{p}, routeRequest(rt, TenantA))
			if w.Code == http.StatusForbidden || rt.Missing && w.Code != http.StatusNotImplemented {
				t.Errorf("%s with %s alone: status %d", op, p, w.Code)
			}
		}
		if !rt.Missing {
			continue
		}
		w := serve(auth.Privileges(), routeRequest(rt, TenantA))
		if w.Code != http.StatusNotImplemented {
			t.Errorf("%s: status %d, want 501: %s", op, w.Code, w.Body)
			continue
		}
		WantError(t, w, spec.Family, http.StatusNotImplemented, httpapi.CodeNotImplemented)
		if !strings.Contains(w.Body.String(), op+" is not served by this server") {
			t.Errorf("%s: body does not name the operation: %s", op, w.Body)
		}
	}
}

// AnswerCase is a request to a family's handler and the answer it must
// get.
type AnswerCase struct {
	Name         string
	Method, Path string
	Token        string // a bearer token; "": no Authorization header
	APIKey       string // "": no X-API-Key header
	Body         string
	Status       int
	Code         string // the error's code; for finance, whose Code is a number, the status is checked instead
	Allow        string // the Allow header a 405 must have
	// Golden names the file under testdata holding the answer's golden
	// form (Answer), without ".json"; "": none.
	Golden string
}

// CheckAnswers serves every case with h and checks that the answer is an
// error of fam with the case's status and code, has a request id, names
// the operation and the release when it is 501, and matches its golden
// file.
func CheckAnswers(t *testing.T, h http.Handler, fam httpapi.Family, cases []AnswerCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := httptest.NewRequest(c.Method, c.Path, strings.NewReader(c.Body))
			if c.Token != "" {
				Bearer(r, c.Token)
			}
			if c.APIKey != "" {
				r.Header.Set("X-API-Key", c.APIKey)
			}
			w := Serve(h, r)
			m := WantError(t, w, fam, c.Status, c.Code)
			if fam == httpapi.Finance && m["Code"] != float64(c.Status) {
				t.Fatalf("finance Code = %v, want %d", m["Code"], c.Status)
			}
			if c.Status == http.StatusNotImplemented {
				msg, _ := m["message"].(string)
				if msg == "" {
					msg, _ = m["Message"].(string)
				}
				if !strings.Contains(msg, "not served by this server") || !strings.Contains(msg, c.Method+" /") {
					t.Fatalf("501 message %q does not name the operation and say it is not served", msg)
				}
			}
			if c.Allow != "" && w.Header().Get("Allow") != c.Allow {
				t.Fatalf("Allow = %q, want %q", w.Header().Get("Allow"), c.Allow)
			}
			if w.Header().Get("X-Request-Id") == "" {
				t.Fatal("no X-Request-Id")
			}
			if c.Golden != "" {
				msgkittest.Golden(t, filepath.Join("testdata", c.Golden+".json"), Answer(w))
			}
		})
	}
}
