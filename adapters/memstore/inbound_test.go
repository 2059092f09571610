package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/inbound/inboundtest"
)

func TestInboundContract(t *testing.T) {
	inboundtest.Run(t, func(t *testing.T) inboundtest.Fixture {
		db := memstore.New()
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS()}
	})
}

func BenchmarkInboundRouteKeep(b *testing.B) {
	inboundtest.Bench(b, func(b *testing.B) inboundtest.Fixture {
		db := memstore.New()
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS(), Routes: db.Routing()}
	})
}
