package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// FuzzTokenEndpoint feeds arbitrary bodies, content types and Authorization
// headers to the token endpoint: it never answers 500, and always answers a
// JSON token or an RFC 6749 error.
func FuzzTokenEndpoint(f *testing.F) {
	fx := httpapitest.NewFixture(f)
	h := httpapi.OAuthHandler(fx.Opts)
	form := "application/x-www-form-urlencoded"
	f.Add(url.Values{"grant_type": {"client_credentials"}, "client_id": {httpapitest.ClientID}, "client_secret": {httpapitest.ClientSecret}}.Encode(), form, "")
	f.Add(url.Values{"grant_type": {"password"}, "username": {httpapitest.UserName}, "password": {httpapitest.UserPassword}}.Encode(), form, "")
	f.Add("grant_type=client_credentials", form+"; charset=utf-8", basic(httpapitest.ClientID, httpapitest.ClientSecret))
	f.Add("grant_type=client_credentials&client_secret=x", form, "Basic !!!")
	f.Add("grant_type=%zz&a=1;b=2", form, "")
	f.Add(`{"grant_type":"password"}`, "application/json", "")
	f.Add("grant_type=password&grant_type=password", "multipart/form-data; boundary=x", "Bearer x")
	f.Add("", "", "")
	f.Add(strings.Repeat("a=b&", 3000), form, "")
	f.Fuzz(func(t *testing.T, body, contentType, authorization string) {
		r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath, strings.NewReader(body))
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		r.RemoteAddr = httpapitest.ClientAddr
		w := httpapitest.Serve(h, r)
		if w.Code >= 500 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var m map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON object: %v: %q", err, w.Body)
		}
		if w.Code == http.StatusOK {
			if tok, _ := m["access_token"].(string); tok == "" || m["token_type"] != "Bearer" {
				t.Fatalf("200 without a token: %s", w.Body)
			}
			return
		}
		codes := []string{"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "temporarily_unavailable"}
		if e, _ := m["error"].(string); !slices.Contains(codes, e) {
			t.Fatalf("status %d with error %q: %s", w.Code, e, w.Body)
		}
	})
}

// FuzzDecodeJSON: whatever the body, DecodeJSON succeeds or answers a
// client error (400 or 413), never an internal one.
func FuzzDecodeJSON(f *testing.F) {
	type item struct {
		Price float64 `json:"price"`
		N     uint8   `json:"n"`
	}
	type body struct {
		Name  string          `json:"name"`
		Items []item          `json:"items"`
		Meta  map[string]bool `json:"meta"`
		Ptr   *int64          `json:"ptr"`
	}
	for _, s := range []string{`{"name":"x","items":[{"price":1,"n":2}]}`, `{"items":[{"n":300}]}`, `[]`, `{`, ``, `{} {}`, `{"ptr":"1"}`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, strict bool) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(in))
		var b body
		err := httpapi.DecodeJSON(httptest.NewRecorder(), r, &b, httpapi.DecodeOptions{MaxBytes: 1 << 12, DisallowUnknownFields: strict})
		if err == nil {
			return
		}
		if k := msgkit.KindOf(err); k != msgkit.Invalid {
			t.Fatalf("kind %v for %q: %v", k, in, err)
		}
		w := httptest.NewRecorder()
		httpapi.WriteError(w, r, httpapi.CDS, err)
		if w.Code != 400 && w.Code != 413 {
			t.Fatalf("status %d for %q", w.Code, in)
		}
		var m map[string]any
		if json.Unmarshal(w.Body.Bytes(), &m) != nil {
			t.Fatalf("invalid JSON error body: %s", w.Body)
		}
		if items, _ := m["items"].([]any); w.Code == 400 && len(items) == 0 {
			t.Fatalf("400 naming no field for %q: %s", in, w.Body)
		}
	})
}

// FuzzBearerHeader: any Authorization header is 401 or lets the request
// through, never a 500; the next handler runs only with a principal.
func FuzzBearerHeader(f *testing.F) {
	fx := httpapitest.NewFixture(f)
	good := fx.Token(f, httpapitest.ClientID)
	for _, s := range []string{"Bearer " + good, "bearer  " + good, "Bearer", "Basic x", "Bearer a b", "Bearer ====", "Bearer a=b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, authz string) {
		next := &sentinel{}
		h := tenantStack(fx, next)
		r := httptest.NewRequest(http.MethodGet, listsPath(httpapitest.TenantA), nil)
		r.Header["Authorization"] = []string{authz}
		w := httpapitest.Serve(h, r)
		switch w.Code {
		case http.StatusNoContent:
			if !next.called || next.principal.Subject != httpapitest.ClientID {
				t.Fatalf("204 without the principal for %q", authz)
			}
		case http.StatusUnauthorized:
			if next.called || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 for %q: called %v, WWW-Authenticate %q", authz, next.called, w.Header().Get("WWW-Authenticate"))
			}
		default:
			t.Fatalf("status %d for %q: %s", w.Code, authz, w.Body)
		}
	})
}
