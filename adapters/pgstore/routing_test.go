package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/routing/routingtest"
)

func TestRoutingContract(t *testing.T) {
	t.Parallel()
	routingtest.Run(t, func(t *testing.T) routing.Store { return newTestDB(t).Routing() })
}
