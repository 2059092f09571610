package routing_test

import (
	"context"
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/routing"
)

// A Go program provisions routes through the Service, with the rules and
// answers of the HTTP family.
func ExampleService() {
	ctx := context.Background()
	svc := routing.New(memstore.New().Routing())

	r, err := svc.Create(ctx, routing.InputOf(routing.Route{Sigtran: "12", ESME: "44"}))
	fmt.Println(r.ID, r.Sigtran, r.SMPP, r.ESME, err)

	// Both connections set: refused, naming both fields.
	_, err = svc.Create(ctx, routing.InputOf(routing.Route{Sigtran: "12", SMPP: "3", ESME: "44"}))
	fmt.Println(msgkit.CodeOf(err))

	r, err = svc.Update(ctx, r.ID, routing.InputOf(routing.Route{Sigtran: "12", SMPP: "smpp-2"}))
	fmt.Println(r.ID, r.SMPP, r.ESME, err)

	_, err = svc.Route(ctx, 7)
	fmt.Println(msgkit.KindOf(err), msgkit.CodeOf(err))
	// Output:
	// 1 12 0 44 <nil>
	// invalid_route
	// 1 smpp-2 0 <nil>
	// not found route_not_found
}
