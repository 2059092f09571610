package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// Range is an address range the default policy refuses, with the name of
// its purpose (IANA's special-purpose registries).
type Range struct {
	Prefix netip.Prefix
	Name   string
}

// defaultRanges is the table behind DefaultRanges, in the order a refusal
// names them (the first match). It is never written.
var defaultRanges = [...]Range{
	// IPv4 (IANA IPv4 Special-Purpose Address Registry, and multicast).
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "limited broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	// IPv6 (IANA IPv6 Special-Purpose Address Registry, and what lies
	// outside global unicast).
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing (SRv6) SIDs"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("::/3"), "reserved (outside global unicast)"},
	{netip.MustParsePrefix("4000::/2"), "reserved (outside global unicast)"},
	{netip.MustParsePrefix("8000::/1"), "reserved (outside global unicast)"},
}

// The IPv6 forms that carry an IPv4 address (IPv4-mapped addresses are
// unmapped with netip.Addr.Unmap).
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052 well-known prefix: IPv4 in the last 32 bits
	sixToFour   = netip.MustParsePrefix("2002::/16")    // RFC 3056: IPv4 in bits 16 to 47
)

// DefaultRanges returns the ranges a Policy refuses unless it allows them:
// loopback, private, link-local, CGNAT, multicast, unspecified, broadcast,
// documentation, benchmarking and the other special-purpose and reserved
// ranges of IPv4 and IPv6. The slice is the caller's.
func DefaultRanges() []Range { return slices.Clone(defaultRanges[:]) }

// Policy decides which addresses outbound calls may reach. Its zero value
// refuses the DefaultRanges and allows the rest of the Internet.
//
// Precedence: Forbid beats Allow, which beats the default ranges. An
// address that carries an IPv4 address is judged by it: an IPv4-mapped
// address (::ffff:a.b.c.d) and a NAT64 address (64:ff9b::/96) are judged
// as their IPv4 address only, so allowing 127.0.0.0/8 allows
// ::ffff:127.0.0.1 and refusing it refuses 64:ff9b::7f00:1; a 6to4
// address (2002::/16) must pass both as itself and as its IPv4 address.
// Forbid also matches the address as it was dialled, so forbidding
// 64:ff9b::/96 refuses all of NAT64. Prefixes written in the mapped form
// (::ffff:10.0.0.0/104) mean their IPv4 range. Zones are ignored.
//
// A Policy is read, never changed, by the dialers built on it; build a new
// one to change it.
type Policy struct {
	// Allow lets ranges of the defaults through, for development or an
	// operator's own receivers (e.g. 127.0.0.0/8 and ::1/128).
	Allow []netip.Prefix
	// Forbid refuses ranges the defaults let through (an operator's own
	// public networks); it wins over Allow.
	Forbid []netip.Prefix
}

// ErrRefused is in the chain of every refusal of a Policy or a Dialer:
// errors.Is(err, ErrRefused) tells a refusal, which trying again cannot
// change, from a network failure.
var ErrRefused = errors.New("egress: destination refused")

// RefusedError says which destination was refused and why.
type RefusedError struct {
	Host   string     // the host as given, when the refusal is about its spelling
	Addr   netip.Addr // the address refused, when there is one
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Addr.IsValid() {
		return fmt.Sprintf("egress: %s refused: %s", e.Addr, e.Reason)
	}
	return fmt.Sprintf("egress: host %q refused: %s", e.Host, e.Reason)
}

// Unwrap makes every RefusedError an ErrRefused.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// IsAllowed reports whether a may be reached under p.
func (p Policy) IsAllowed(a netip.Addr) bool { return p.Check(a) == nil }

// Check returns nil when a may be reached under p, and a *RefusedError
// naming the range that refuses it otherwise.
func (p Policy) Check(a netip.Addr) error {
	if !a.IsValid() {
		return &RefusedError{Reason: "not an IP address"}
	}
	a = a.WithZone("").Unmap()
	// forms[0] is the address as dialled; judged are the forms Allow and
	// the defaults judge.
	forms := [3]netip.Addr{a, a}
	judged := forms[1:2]
	if v4, ok := embeddedIPv4(a); ok {
		if nat64Prefix.Contains(a) {
			forms[1] = v4 // judged as its IPv4 address only
		} else {
			forms[2], judged = v4, forms[1:3] // 6to4: as itself and as its IPv4 address
		}
	}
	for _, f := range forms {
		if pre, ok := match(p.Forbid, f); ok {
			return &RefusedError{Addr: a, Reason: "forbidden (" + pre.String() + ")"}
		}
	}
	for _, f := range judged {
		if _, ok := match(p.Allow, f); ok {
			continue
		}
		for _, r := range defaultRanges {
			if r.Prefix.Contains(f) {
				return &RefusedError{Addr: a, Reason: r.Name + " (" + r.Prefix.String() + ")"}
			}
		}
	}
	return nil
}

// match returns the first prefix of prefixes that contains a, reading
// IPv4-mapped prefixes as their IPv4 range.
func match(prefixes []netip.Prefix, a netip.Addr) (netip.Prefix, bool) {
	for _, p := range prefixes {
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.Contains(a) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// embeddedIPv4 returns the IPv4 address a NAT64 (well-known prefix) or
// 6to4 address carries.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64Prefix.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}
