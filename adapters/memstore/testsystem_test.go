package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/testsystem/testsystemtest"
)

func TestTestSystemContract(t *testing.T) {
	testsystemtest.Run(t, func(t *testing.T) testsystemtest.Fixture {
		db := memstore.New()
		return testsystemtest.Fixture{Store: db.TestSystem(), Outbox: db.SMS()}
	})
}
