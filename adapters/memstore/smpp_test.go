package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smpptest"
)

func TestSMPPStore(t *testing.T) {
	smpptest.RunStoreTests(t, func(t *testing.T) smpp.Store { return memstore.New().SMPP() })
}
