package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/inbound/inboundtest"
)

func TestInboundContract(t *testing.T) {
	t.Parallel()
	inboundtest.Run(t, func(t *testing.T) inboundtest.Fixture {
		db := newTestDB(t)
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS()}
	})
}

// The listing covers every attribute inbound.ListSpec lets a query filter
// or sort by, with its types.
func TestInboundListSpec(t *testing.T) {
	t.Parallel()
	for attr, typ := range inbound.ListSpec.Filter {
		if a, ok := inboundTable.Attrs[attr]; !ok || a.Type != typ {
			t.Errorf("attribute %s: %+v, want type %v", attr, a, typ)
		}
	}
	for _, attr := range inbound.ListSpec.Sort {
		if _, ok := inboundTable.Attrs[attr]; !ok {
			t.Errorf("sort %s: no column", attr)
		}
	}
}

func BenchmarkInboundRouteKeep(b *testing.B) {
	inboundtest.Bench(b, func(b *testing.B) inboundtest.Fixture {
		db := newTestDB(b)
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS()}
	})
}
