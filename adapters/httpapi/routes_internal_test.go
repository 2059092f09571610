package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

const testTenant = msgkit.ServiceUUID("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a")

// grantAll authenticates everyone with the privileges it is given.
type grantAll struct{ privs []auth.Privilege }

func (g grantAll) Verify(context.Context, string) (auth.Principal, error) {
	return auth.Principal{Kind: auth.SubjectClient, Subject: "t", Services: []msgkit.ServiceUUID{testTenant}, Privileges: g.privs}, nil
}

func (grantAll) VerifyAPIKey(context.Context, string) (auth.APIKey, error) {
	return auth.APIKey{Name: "k"}, nil
}

func (grantAll) ClientCredentials(context.Context, string, string, netip.Addr) (auth.IssuedToken, error) {
	return auth.IssuedToken{}, msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "no")
}

func (grantAll) Password(context.Context, string, string) (auth.IssuedToken, error) {
	return auth.IssuedToken{}, msgkit.New(msgkit.Invalid, auth.CodeInvalidGrant, "no")
}

var placeholder = regexp.MustCompile(`\{[A-Za-z]+\}`)

func concrete(path string) string {
	return placeholder.ReplaceAllStringFunc(path, func(p string) string {
		if p == "{serviceUuid}" {
			return string(testTenant)
		}
		return "12"
	})
}

type familyCase struct {
	fam    Family
	routes []route
	build  func(Options) http.Handler
	tenant bool
}

func families() []familyCase {
	return []familyCase{
		{CDS, cdsRoutes(), CDSHandler, true},
		{Finance, financeRoutes(), FinanceHandler, false},
		{Routing, routingRoutes(), RoutingHandler, false},
		{TestSystem, testSystemRoutes(), TestSystemHandler, false},
	}
}

func request(rt route) *http.Request {
	r := httptest.NewRequest(rt.method, concrete(rt.path), nil)
	r.Header.Set("Authorization", "Bearer t")
	r.Header.Set("X-API-Key", "k")
	return r
}

// Every route of every family answers 501 naming itself to a caller who
// passes its checks.
func TestEveryRouteIsNotImplementedYet(t *testing.T) {
	for _, fc := range families() {
		h := fc.build(Options{Auth: grantAll{privs: auth.Privileges()}})
		for _, rt := range fc.routes {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, request(rt))
			if w.Code != http.StatusNotImplemented {
				t.Errorf("%s %s: status %d, want 501: %s", rt.method, rt.path, w.Code, w.Body)
				continue
			}
			if !strings.Contains(w.Body.String(), rt.method+" "+rt.path+" is not implemented yet") {
				t.Errorf("%s %s: body does not name the operation: %s", rt.method, rt.path, w.Body)
			}
		}
	}
}

// Each route refuses a principal holding every privilege but its own, and
// routes that need no privilege are the API-key family's only.
func TestRoutePrivileges(t *testing.T) {
	for _, fc := range families() {
		for _, rt := range fc.routes {
			if len(rt.privs) == 0 {
				if fc.fam != Routing {
					t.Errorf("%s %s has no privilege", rt.method, rt.path)
				}
				continue
			}
			others := slices.DeleteFunc(auth.Privileges(), func(p auth.Privilege) bool { return slices.Contains(rt.privs, p) })
			h := fc.build(Options{Auth: grantAll{privs: others}})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, request(rt))
			if w.Code != http.StatusForbidden {
				t.Errorf("%s %s without %v: status %d, want 403", rt.method, rt.path, rt.privs, w.Code)
			}
			for _, p := range rt.privs {
				h := fc.build(Options{Auth: grantAll{privs: []auth.Privilege{p}}})
				w := httptest.NewRecorder()
				h.ServeHTTP(w, request(rt))
				if w.Code != http.StatusNotImplemented {
					t.Errorf("%s %s with %s alone: status %d, want 501", rt.method, rt.path, p, w.Code)
				}
			}
		}
	}
}

// The finance privileges of document 2, section 5.
func TestFinancePrivilegeTable(t *testing.T) {
	view := []auth.Privilege{auth.PrivFinanceInvoicesView, auth.PrivFinanceInvoicesOwnView}
	balance := []auth.Privilege{auth.PrivFinanceBalanceView, auth.PrivFinanceBalanceOwnView}
	for _, rt := range financeRoutes() {
		var want []auth.Privilege
		switch {
		case strings.Contains(rt.path, "/balances/"):
			want = balance
		case rt.method == http.MethodGet:
			want = view
		default:
			want = []auth.Privilege{
				auth.PrivFinanceInvoicesManage, auth.PrivFinanceCustInvoicesManage,
				auth.PrivFinanceSupplierInvoicesManage, auth.PrivFinanceNettingInvoicesManage,
			}
		}
		if !slices.Equal(rt.privs, want) {
			t.Errorf("%s %s: privileges %v, want %v", rt.method, rt.path, rt.privs, want)
		}
	}
}

// Every CDS route is under the tenant's path, every route under its family's
// base, and no two routes are the same operation.
func TestRouteTables(t *testing.T) {
	bases := map[Family][]string{
		CDS:        {"/news/v1/services/{serviceUuid}/"},
		Finance:    {"/finance/sit/v1/", "/invoice-docs/v2/"},
		Routing:    {"/smsmtinbound/v1/"},
		TestSystem: {"/gate/testsystem/v1/"},
	}
	seen := map[string]bool{}
	for _, fc := range families() {
		for _, rt := range fc.routes {
			op := rt.method + " " + rt.path
			if seen[op] {
				t.Errorf("%s twice", op)
			}
			seen[op] = true
			if !slices.ContainsFunc(bases[fc.fam], func(b string) bool { return strings.HasPrefix(rt.path, b) }) {
				t.Errorf("%s: %s is outside %v", fc.fam, op, bases[fc.fam])
			}
		}
	}
	// Document 1 section 4: contacts 7, lists 5, fields 6, segmentation 10,
	// subscriptions 12, groups 5, group lists 4, group segmentation 4,
	// touchpoints 7, interests 7, campaigns 6.
	for fam, want := range map[Family]int{CDS: 73, Finance: 16, Routing: 5, TestSystem: 12} {
		for _, fc := range families() {
			if fc.fam == fam && len(fc.routes) != want {
				t.Errorf("%s has %d routes, want %d", fam, len(fc.routes), want)
			}
		}
	}
}

// The 501 body of each family has the family's shape.
func TestNotImplementedBodies(t *testing.T) {
	want := map[Family]string{
		CDS:        `{"code":"not_implemented","message":"GET /x is not implemented yet: the resource arrives in a later release of msgkit","description":"Not Implemented","items":[]}`,
		Finance:    `{"Code":501,"Message":"GET /x is not implemented yet: the resource arrives in a later release of msgkit"}`,
		Routing:    `{"Code":"not_implemented","Message":"GET /x is not implemented yet: the resource arrives in a later release of msgkit"}`,
		TestSystem: `{"code":"not_implemented","message":"GET /x is not implemented yet: the resource arrives in a later release of msgkit"}`,
	}
	for fam, body := range want {
		w := httptest.NewRecorder()
		notImplemented(fam, "GET", "/x").ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
		if w.Code != 501 || strings.TrimSpace(w.Body.String()) != body {
			t.Errorf("%s: %d %s, want 501 %s", fam, w.Code, w.Body, body)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Errorf("%s: invalid JSON", fam)
		}
	}
}
