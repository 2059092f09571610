package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smpptest"
)

func TestSMPPContract(t *testing.T) {
	smpptest.Run(t, func(t *testing.T) smpp.Store { return memstore.New().SMPP() })
}
