package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/uiproxy"
	"github.com/msgkit/msgkit/uiproxy/uiproxytest"
)

func TestUIProxyContract(t *testing.T) {
	uiproxytest.Run(t, func(t *testing.T) uiproxy.Store { return memstore.New().UIProxy() })
}
