package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/uiproxy"
	"github.com/msgkit/msgkit/uiproxy/uiproxytest"
)

func TestUIProxyContract(t *testing.T) {
	t.Parallel()
	uiproxytest.Run(t, func(t *testing.T) uiproxy.Store { return newTestDB(t).UIProxy() })
}
