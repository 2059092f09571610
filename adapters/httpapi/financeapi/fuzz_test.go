package financeapi

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
)

// FuzzBodies holds every JSON body the family reads to the HTTP kit's
// JSON rules (httpapitest.CheckBodies): never a 5xx, and what
// encoding/json would change or merge refused with 400.
func FuzzBodies(f *testing.F) {
	for _, s := range append(httpapitest.BodySeeds(), []byte(customerBody(1001)), []byte(supplierBody),
		[]byte(`{"status":"done","documentSync":{"ref":"x","REF":"y"}}`), []byte(`{"invNumberFix":"C\u0000"}`)) {
		f.Add(s)
	}
	fx := httpapitest.NewFixture(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		httpapitest.CheckBodies(t, spec(&api{b: newBackend(t, fx, memstore.New().Finance())}), body, httpapitest.BodyOptions{Skip: []string{"POST " + UploadBasePath + "invoices/{invoiceId}/files"}})
	})
}
