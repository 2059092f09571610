package uiproxy

import (
	"context"

	"github.com/msgkit/msgkit"
)

// Store keeps the operator's component configurations, by id. Every
// method is one atomic operation. A component's Token is kept as given:
// the proxy sends it to the customer, so it cannot be kept as a hash;
// stores keep it out of listings' logs like any record.
type Store interface {
	// Put stores c, replacing a component of the same id; c is checked
	// (Check) by the caller.
	Put(ctx context.Context, c Component) error
	// Component returns a component; NotFound (ComponentNotFound)
	// without one.
	Component(ctx context.Context, id string) (Component, error)
	// List lists the components by q (ComponentListSpec), by id unless q
	// sorts them.
	List(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Component], error)
	// Delete removes a component; NotFound without one.
	Delete(ctx context.Context, id string) error
}

// ComponentNotFound is the error of a component that is not stored.
func ComponentNotFound(id string) error {
	return msgkit.Errorf(msgkit.NotFound, "component_not_found", "component %q not found", id)
}

// ComponentListSpec is the listing of components: by id, type and tenant.
var ComponentListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{"id": msgkit.AttrString, "type": msgkit.AttrString, "service": msgkit.AttrString},
	Sort:   []string{"id", "type", "service"},
	Search: []string{"id"},
}

// ComponentAttr is attribute attr of c as ComponentListSpec names it, for
// msgkit.Apply.
func ComponentAttr(c Component, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(c.ID), true
	case "type":
		return msgkit.StringValue(string(c.Type)), true
	case "service":
		return msgkit.StringValue(string(c.Service)), true
	}
	return msgkit.Value{}, false
}
