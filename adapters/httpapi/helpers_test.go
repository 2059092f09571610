package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// formRequest posts a form body to the token endpoint path.
func formRequest(form url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, httpapi.TokenPath, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = httpapitest.ClientAddr
	return r
}

// oauthContract and healthContract are the documents of OAuthHandler and
// HealthHandler, which every exchange of their tests is held to.
func oauthContract(t testing.TB) *httpapitest.Contract {
	return httpapitest.NewContract(t, httpapi.OAuthOpenAPI())
}

func healthContract(t testing.TB) *httpapitest.Contract {
	return httpapitest.NewContract(t, httpapi.HealthOpenAPI())
}
