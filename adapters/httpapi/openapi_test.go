package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// The operations OAuthHandler and HealthHandler mount are those their
// documents describe (and the documents pass the loader's validation).
func TestOpenAPIOperations(t *testing.T) {
	oauthContract(t).CheckOperations(t, httpapi.OAuthPatterns())
	healthContract(t).CheckOperations(t, httpapi.HealthPatterns())
}

// The token request's form is validated too: a grant the document does
// not have is refused by the contract before the handler is asked.
func TestOpenAPITokenForm(t *testing.T) {
	c := oauthContract(t)
	r := formRequest(map[string][]string{"grant_type": {"authorization_code"}})
	body := []byte(`{"error":"unsupported_grant_type","error_description":"x"}`)
	h := http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}, "Pragma": {"no-cache"}, "X-Request-Id": {"r"}}
	err := c.Check(r, []byte("grant_type=authorization_code"), 400, h, body)
	if err == nil || !strings.Contains(err.Error(), "grant_type") {
		t.Fatalf("a grant outside the enum passed: %v", err)
	}
	r = httptest.NewRequest(http.MethodPost, httpapi.TokenPath, nil)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := c.Check(r, []byte("grant_type=password&username=u&password=p"), 400, h, body); err != nil {
		t.Fatalf("a good form refused: %v", err)
	}
	h.Del("Cache-Control")
	if err := c.Check(r, []byte("grant_type=password&username=u&password=p"), 400, h, body); err == nil {
		t.Fatal("an answer without Cache-Control passed")
	}
}
