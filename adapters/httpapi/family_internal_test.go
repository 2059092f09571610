package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// The 501 body of each family has the family's shape.
func TestNotImplementedBodies(t *testing.T) {
	want := map[Family]string{
		CDS:        `{"code":"not_implemented","message":"GET /x is not served by this server: it was built without the store this resource needs","description":"Not Implemented","items":[]}`,
		Finance:    `{"Code":501,"Message":"GET /x is not served by this server: it was built without the store this resource needs"}`,
		Routing:    `{"Code":"not_implemented","Message":"GET /x is not served by this server: it was built without the store this resource needs"}`,
		TestSystem: `{"code":"not_implemented","message":"GET /x is not served by this server: it was built without the store this resource needs"}`,
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
