package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

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
