package routingapi

import (
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.Routing))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body: Code is the error's code, or the
// kind's, as a string; Message names the fields.
func TestErrorBodyRules(t *testing.T) {
	httpapitest.WantError(t, httpapitest.Render(httpapi.Routing, msgkit.New(msgkit.Conflict, "", "x")), httpapi.Routing, 409, "conflict")
	err := msgkit.New(msgkit.Invalid, "c", "bad input").WithField("custID", "is required", "")
	m := httpapitest.WantError(t, httpapitest.Render(httpapi.Routing, err), httpapi.Routing, 400, "c")
	if m["Message"] != "bad input; custID: is required" {
		t.Errorf("Message = %q", m["Message"])
	}
}
