package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Dialer opens TCP connections to the addresses its Policy allows, and to
// no other: it checks the address actually dialled, after DNS, for every
// address a name resolves to, so a name that resolves to a refused address
// (DNS rebinding included) is refused too.
type Dialer struct {
	policy Policy
	dialer net.Dialer
}

// NewDialer returns a dialer enforcing p, with a 5 s connect timeout (the
// caller's context may end it sooner) and TCP keep-alives.
func NewDialer(p Policy) *Dialer {
	d := &Dialer{policy: p}
	d.dialer = net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: d.control}
	return d
}

// DialContext connects to address ("host:port") on network "tcp", "tcp4"
// or "tcp6". A host that is an address in any spelling ParseHost reads is
// checked, and dialled in its normal form, before any socket exists; a
// name is resolved and each address tried is checked just before it is
// connected to. A refusal is a *RefusedError (errors.Is ErrRefused), maybe
// wrapped in a *net.OpError.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, &RefusedError{Host: address, Reason: "network " + network + " is not TCP"}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addr, isAddr, err := ParseHost(host)
	if err != nil {
		return nil, &RefusedError{Host: host, Reason: err.Error()}
	}
	if isAddr {
		if err := d.policy.Check(addr); err != nil {
			return nil, err
		}
		address = net.JoinHostPort(addr.String(), port)
	}
	return d.dialer.DialContext(ctx, network, address)
}

// control checks every address the dialer is about to connect to.
func (d *Dialer) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Host: address, Reason: "not an IP address and port"}
	}
	return d.policy.Check(ap.Addr())
}

// NewTransport returns an HTTP transport for outbound calls to addresses
// that customers supply, dialling through NewDialer(p). It uses no proxy
// (a proxy from the environment would be the address checked, not the
// customer's), and bounds the TLS handshake to 5 s and idle connections
// to 90 s; callers tune its pool (MaxIdleConnsPerHost and the like).
func NewTransport(p Policy) *http.Transport {
	return &http.Transport{
		DialContext:         NewDialer(p).DialContext,
		Proxy:               nil,
		TLSHandshakeTimeout: 5 * time.Second,
		IdleConnTimeout:     90 * time.Second,
	}
}
