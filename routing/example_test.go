package routing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/routing"
)

// An inbound route hands the messages of a SIGTRAN connection to exactly
// one SMPP connection or ESME: Fill reads a body (connection ids as JSON
// strings or numbers), the store gives the next free id, and a body
// naming both targets is refused, naming both fields.
func ExampleFill() {
	ctx := context.Background()
	store := memstore.New().Routing()
	for _, body := range []string{
		`{"sigtran_connect_id":"stp-1","smpp_connect_id":17}`,
		`{"sigtran_connect_id":"stp-1","esme_connect_id":"esme-shop"}`,
		`{"sigtran_connect_id":"stp-2","smpp_connect_id":"18","esme_connect_id":"esme-shop"}`,
	} {
		var in routing.Input
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			fmt.Println(err)
			return
		}
		r, _, err := routing.Fill(in)
		var e *msgkit.Error
		if errors.As(err, &e) {
			fmt.Println(e.Code, e.Fields[0].Name, e.Fields[1].Name)
			continue
		}
		if r, err = store.Create(ctx, r); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("route %d: sigtran %s, smpp %s, esme %s\n", r.ID, r.Sigtran, r.SMPP, r.ESME)
	}
	// Output:
	// route 1: sigtran stp-1, smpp 17, esme 0
	// route 2: sigtran stp-1, smpp 0, esme esme-shop
	// invalid_route smpp_connect_id esme_connect_id
}
