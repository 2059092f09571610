package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/uiproxy"
	"github.com/msgkit/msgkit/uiproxy/uiproxytest"
)

func TestUIProxyStore(t *testing.T) {
	t.Parallel()
	uiproxytest.RunStoreTests(t, func(t *testing.T) uiproxy.Store { return newTestDB(t).UIProxy() })
}
