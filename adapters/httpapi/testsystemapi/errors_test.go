package testsystemapi

import (
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.TestSystem))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body.
func TestErrorBodyRules(t *testing.T) {
	t.Run("every 429 has the rate limit code", func(t *testing.T) {
		w := httpapitest.Render(httpapi.TestSystem, msgkit.New(msgkit.RateLimited, "whatever", "the limit was reached"))
		httpapitest.WantError(t, w, httpapi.TestSystem, 429, httpapi.CodeTestSystemRateLimit)
		if w.Header().Get("Retry-After") != "1" {
			t.Fatalf("Retry-After = %q, want 1", w.Header().Get("Retry-After"))
		}
	})
	t.Run("message names the fields", func(t *testing.T) {
		err := msgkit.New(msgkit.Invalid, "c", "bad input").WithField("custID", "is required", "")
		m := httpapitest.WantError(t, httpapitest.Render(httpapi.TestSystem, err), httpapi.TestSystem, 400, "c")
		if m["message"] != "bad input; custID: is required" {
			t.Errorf("message = %q", m["message"])
		}
	})
}
