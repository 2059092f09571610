package adminapi

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"golang.org/x/crypto/bcrypt"
)

// FuzzBodies holds every body the family reads to the HTTP kit's JSON
// rules (httpapitest.CheckBodies): never a 5xx, and what encoding/json
// would change or merge refused with 400.
func FuzzBodies(f *testing.F) {
	for _, s := range append(httpapitest.BodySeeds(),
		[]byte(`{"name":"Shop","NAME":"x"}`), []byte(`{"suspended":true}`), []byte(`{"networks":["192.0.2.0/24"],"privileges":["news"]}`),
		[]byte(`{"username":"u","password":"p","services":["not-a-uuid"]}`), []byte(`{"networks":["300.1.1.1"]}`)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		svc := auth.New(memstore.New().Auth(), auth.Options{BcryptCost: bcrypt.MinCost})
		// The rotation takes no body.
		httpapitest.CheckBodies(t, spec(&api{b: Backend{Auth: svc}}), body, httpapitest.BodyOptions{Skip: []string{"POST " + BasePath + "clients/{clientId}/secret"}})
	})
}
