package testsystemapi

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// FuzzBodies holds every body the family reads to the HTTP kit's JSON
// rules (httpapitest.CheckBodies): never a 5xx, and what encoding/json
// would change or merge refused with 400.
func FuzzBodies(f *testing.F) {
	for _, s := range append(httpapitest.BodySeeds(),
		[]byte(`{"username":"tester","test":"t","gate_id":[1],"mcc_mnc":[23410],"text_lang":"en","text_type":"gsm","callback_api":"https://example.com/cb"}`),
		[]byte(`{"category":"c","supplier":"s","gate":"g","prefix":"1","PREFIX":"2"}`)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := newEnv(t, 5)
		httpapitest.CheckBodies(t, spec(&api{b: Backend{System: e.sys}}), body, httpapitest.BodyOptions{})
	})
}
