package httpapitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
)

// BodySeeds are bodies every family's body fuzz starts from: the faults
// the HTTP kit's JSON rules are about, and plain objects.
func BodySeeds() [][]byte {
	return [][]byte{
		[]byte(`{}`), []byte(`{"name":"x","items":[{"name":"y"}]}`), []byte(`{"name":"a","NAME":"b"}`), []byte(`{"a":1,"a":2}`),
		[]byte(`{"name":"\u0000"}`), []byte("{\"name\":\"\xff\"}"), []byte(`{"name":"\ud800"}`), []byte(`{"name":"\ud83d\ude00"}`),
		[]byte(`[]`), []byte(`null`), []byte(`{"a":`), []byte(``), []byte(`{"s":1,"ſ":2}`), []byte(`{"n":1e400}`),
		[]byte(`{"status":"approved","comment":"` + string(bytes.Repeat([]byte("x"), 1200)) + `"}`),
	}
}

// CheckBodies serves body to every route of spec that takes a JSON body
// (POST, PUT and PATCH; routes in skip are not JSON), through
// FamilyHandler with a principal of TenantA holding every privilege, and
// holds each answer to the HTTP kit's JSON rules: never a 5xx; a body
// encoding/json cannot read, or one httpapi.CheckJSON refuses (lengths
// aside, which differ by place), is 400 in
// the family's body (code invalid_json), the same refusal on every route (the body is judged
// before any handler reads it); any other refusal is a 4xx in the
// family's body. A family's FuzzBodies runs it with the fuzzer's bodies.
func CheckBodies(t *testing.T, spec httpapi.FamilySpec, body []byte, o BodyOptions) {
	t.Helper()
	h := httpapi.FamilyHandler(httpapi.Options{Auth: GrantAll{Privileges: auth.Privileges()}}, spec)
	refused := !json.Valid(body) || httpapi.CheckJSON(body, 0, nil) != nil
	var first string
	for _, rt := range spec.Routes {
		switch rt.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
		default:
			continue
		}
		if slicesContains(o.Skip, rt.Method+" "+rt.Path) || rt.Missing {
			continue
		}
		path := concrete(rt.Path, TenantA)
		if o.ID != "" {
			path = strings.ReplaceAll(path, "/12", "/"+o.ID)
		}
		r := httptest.NewRequest(rt.Method, path, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer t")
		r.Header.Set("X-API-Key", "k")
		r.Header.Set("Content-Type", "application/json")
		w := Serve(h, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", rt.Method, rt.Path, body, w.Code, w.Body)
		}
		if w.Code >= 300 {
			WantError(t, w, spec.Family, w.Code, AnyCode)
		}
		if !refused {
			continue
		}
		code := httpapi.CodeInvalidJSON
		if spec.Family == httpapi.Finance {
			code = AnyCode // a number
		}
		WantError(t, w, spec.Family, http.StatusBadRequest, code)
		if first == "" {
			first = w.Body.String()
		} else if w.Body.String() != first {
			t.Fatalf("%s %s refuses %q otherwise than the family's other routes:\n\t%s\n\t%s", rt.Method, rt.Path, body, w.Body, first)
		}
	}
}

// BodyOptions tune CheckBodies.
type BodyOptions struct {
	// Skip are the routes ("METHOD /path") whose bodies are not JSON, or
	// are read by rules of their own.
	Skip []string
	// ID fills the paths' wildcards other than {serviceUuid}; "": 12.
	ID string
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
