package financeapi

import (
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.Finance))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body.
func TestErrorBodyRules(t *testing.T) {
	t.Run("Code is the numeric code or the status", func(t *testing.T) {
		for _, tt := range []struct {
			err    *msgkit.Error
			status int
			code   float64
		}{
			{msgkit.New(msgkit.Invalid, "1042", "x"), 400, 1042},
			{msgkit.New(msgkit.NotFound, "INVOICE_NOTFOUND", "x"), 404, 404},
			{msgkit.New(msgkit.Invalid, "99999999999", "x"), 400, 400}, // beyond int32
		} {
			m := httpapitest.WantError(t, httpapitest.Render(httpapi.Finance, tt.err), httpapi.Finance, tt.status, "")
			if m["Code"] != tt.code {
				t.Errorf("%s: Code = %v, want %v", tt.err.Code, m["Code"], tt.code)
			}
		}
	})
	t.Run("Message names the fields", func(t *testing.T) {
		err := msgkit.New(msgkit.Invalid, "c", "bad input").WithField("custID", "is required", "")
		m := httpapitest.WantError(t, httpapitest.Render(httpapi.Finance, err), httpapi.Finance, 400, "")
		if m["Message"] != "bad input; custID: is required" {
			t.Errorf("Message = %q", m["Message"])
		}
	})
}
