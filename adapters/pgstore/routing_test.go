package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/routing/routingtest"
)

func TestRoutingStore(t *testing.T) {
	t.Parallel()
	routingtest.RunStoreTests(t, func(t *testing.T) routing.Store { return newTestDB(t).Routing() })
}
