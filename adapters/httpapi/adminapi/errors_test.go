package adminapi

import (
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.Admin))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body: code is the error's code, or the
// kind's; each field is an item of fields, and fields is [] without.
func TestErrorBodyRules(t *testing.T) {
	m := httpapitest.WantError(t, httpapitest.Render(httpapi.Admin, msgkit.New(msgkit.Conflict, "", "x")), httpapi.Admin, 409, "conflict")
	if fs, ok := m["fields"].([]any); !ok || len(fs) != 0 {
		t.Errorf("fields without problems = %v, want []", m["fields"])
	}
	err := msgkit.New(msgkit.Invalid, "c", "bad input").WithField("name", "is required", "").WithField("networks", "is empty", "")
	m = httpapitest.WantError(t, httpapitest.Render(httpapi.Admin, err), httpapi.Admin, 400, "c")
	fs, _ := m["fields"].([]any)
	if m["message"] != "bad input" || len(fs) != 2 {
		t.Fatalf("body = %v", m)
	}
	if f, _ := fs[1].(map[string]any); f["name"] != "networks" || f["message"] != "is empty" || len(f) != 2 {
		t.Errorf("second field = %v", fs[1])
	}
}
