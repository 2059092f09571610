package bulksmsapi

import (
	"maps"
	"slices"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// The operations mounted are those the OpenAPI document describes.
func TestRoutesAreDocumented(t *testing.T) {
	mounted := slices.Collect(maps.Keys(routes(nil, Options{})))
	httpapitest.NewContract(t, OpenAPI()).CheckOperations(t, mounted)
}
