package routing

import (
	"strconv"

	"github.com/msgkit/msgkit"
)

// The codes of the errors of this package; both stores answer them
// through the constructors below.
const (
	// CodeInvalidRoute: a route body breaks a rule (Invalid).
	CodeInvalidRoute = "invalid_route"
	// CodeRouteNotFound: no route has the id (NotFound).
	CodeRouteNotFound = "route_not_found"
	// CodeRouteExists: a create names an id taken (Conflict).
	CodeRouteExists = "route_exists"
	// CodeRouteIDsExhausted: a create without an id finds no id above the
	// largest stored one (Conflict).
	CodeRouteIDsExhausted = "route_ids_exhausted"
)

// NotFound is the error of a route that is not stored.
func NotFound(id int64) error {
	return msgkit.Errorf(msgkit.NotFound, CodeRouteNotFound, "route %d not found", id)
}

// Exists is the error of a create whose id is taken.
func Exists(id int64) error {
	return msgkit.Errorf(msgkit.Conflict, CodeRouteExists, "route %d exists", id).WithField("id", "route "+strconv.FormatInt(id, 10)+" exists", "")
}

// IDsExhausted is the error of a create without an id when the largest
// stored id is the largest there is.
func IDsExhausted(top int64) error {
	return msgkit.Errorf(msgkit.Conflict, CodeRouteIDsExhausted, "no route id is left above %d", top)
}
