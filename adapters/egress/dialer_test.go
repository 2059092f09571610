package egress_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/msgkit/msgkit/adapters/egress"
)

// listener counts the connections made to a loopback port.
func listener(t *testing.T) (port string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, accepted
}

// The spellings of loopback a customer may write, names included.
var loopbackHosts = []string{"127.0.0.1", "0x7f.1", "2130706433", "017700000001", "127.1", "[::ffff:127.0.0.1]", "localhost"}

func TestDialerRefusesByDefault(t *testing.T) {
	port, accepted := listener(t)
	d := egress.NewDialer(egress.Policy{})
	for _, host := range append(loopbackHosts, "169.254.169.254", "[::1]", "1.2.3.4.5", "example.123") {
		conn, err := d.DialContext(t.Context(), "tcp", host+":"+port)
		if err == nil {
			conn.Close()
		}
		if !errors.Is(err, egress.ErrRefused) {
			t.Errorf("%s: %v, want a refusal", host, err)
		}
	}
	if _, err := d.DialContext(t.Context(), "udp", "8.8.8.8:53"); !errors.Is(err, egress.ErrRefused) {
		t.Errorf("udp: %v", err)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections reached the listener", n)
	}
}

func TestDialerAllows(t *testing.T) {
	port, _ := listener(t)
	d := egress.NewDialer(egress.Policy{Allow: loopback})
	for _, host := range loopbackHosts {
		conn, err := d.DialContext(t.Context(), "tcp", host+":"+port)
		if err != nil {
			t.Errorf("%s: %v", host, err)
			continue
		}
		conn.Close()
	}
	// Forbid beats Allow at dial time too.
	strict := egress.NewDialer(egress.Policy{Allow: loopback, Forbid: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if _, err := strict.DialContext(t.Context(), "tcp", "localhost:"+port); !errors.Is(err, egress.ErrRefused) {
		t.Errorf("forbidden after resolution: %v", err)
	}
}

func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	for policy, wantErr := range map[*egress.Policy]bool{{}: true, {Allow: loopback}: false} {
		client := &http.Client{Transport: egress.NewTransport(*policy)}
		resp, err := client.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		if gotErr := errors.Is(err, egress.ErrRefused); gotErr != wantErr || (err != nil) != wantErr {
			t.Errorf("%+v: %v", policy, err)
		}
	}
	// A proxy would be the address checked, not the customer's.
	if egress.NewTransport(egress.Policy{}).Proxy != nil {
		t.Error("the transport uses a proxy")
	}
}
