package routingapi

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/routing"
)

// FuzzBodies holds every body the family reads to the HTTP kit's JSON
// rules (httpapitest.CheckBodies): never a 5xx, and what encoding/json
// would change or merge refused with 400.
func FuzzBodies(f *testing.F) {
	for _, s := range append(httpapitest.BodySeeds(), []byte(`{"sigtran_connect_id":"1","SIGTRAN_CONNECT_ID":"2","smpp_connect_id":3}`),
		[]byte(`{"id":1,"sigtran_connect_id":12,"esme_connect_id":"e"}`)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		httpapitest.CheckBodies(t, spec(&api{b: Backend{Routes: routing.New(memstore.New().Routing())}}), body, httpapitest.BodyOptions{})
	})
}
