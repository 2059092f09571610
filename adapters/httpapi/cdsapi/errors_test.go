package cdsapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestErrorBodiesGolden(t *testing.T) {
	msgkittest.Golden(t, "testdata/errors.json", httpapitest.ErrorBodies(t, httpapi.CDS))
}

// The rules the golden files show, checked directly so that a wrong
// -update cannot bless a broken body.
func TestErrorBodyRules(t *testing.T) {
	t.Run("items are the fields, [] when none", func(t *testing.T) {
		w := httpapitest.Render(httpapi.CDS, msgkit.New(msgkit.Conflict, "", "exists"))
		m := httpapitest.WantError(t, w, httpapi.CDS, 409, "conflict")
		if items, ok := m["items"].([]any); !ok || len(items) != 0 {
			t.Fatalf("items = %v, want []", m["items"])
		}
		w = httpapitest.Render(httpapi.CDS, msgkit.New(msgkit.Invalid, "c", "bad").WithField("a", "m", "d"))
		m = httpapitest.WantError(t, w, httpapi.CDS, 400, "c")
		want := []any{map[string]any{"name": "a", "message": "m", "description": "d"}}
		if diff := cmp.Diff(want, m["items"]); diff != "" {
			t.Fatalf("items (-want +got):\n%s", diff)
		}
	})
	t.Run("description is the status text", func(t *testing.T) {
		m := httpapitest.WantError(t, httpapitest.Render(httpapi.CDS, msgkit.New(msgkit.NotFound, "", "x")), httpapi.CDS, 404, "not_found")
		if m["description"] != "Not Found" {
			t.Fatalf("description = %q, want Not Found", m["description"])
		}
	})
}
