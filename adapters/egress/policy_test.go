package egress_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/egress"
	"pgregory.net/rapid"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

func TestDefaultPolicy(t *testing.T) {
	refused := map[string]string{
		"127.0.0.1":          "loopback",
		"127.255.0.9":        "loopback",
		"::1":                "loopback",
		"::ffff:127.0.0.1":   "loopback",
		"64:ff9b::7f00:1":    "loopback", // NAT64 of 127.0.0.1
		"2002:7f00:1::1":     "loopback", // 6to4 of 127.0.0.1
		"169.254.169.254":    "link-local",
		"fe80::1%eth0":       "link-local",
		"10.1.2.3":           "private",
		"172.31.255.255":     "private",
		"192.168.0.1":        "private",
		"::ffff:192.168.0.1": "private",
		"fd00::1":            "unique local",
		"100.64.0.1":         "CGNAT",
		"0.0.0.0":            "this network",
		"::":                 "unspecified",
		"255.255.255.255":    "broadcast",
		"224.0.0.1":          "multicast",
		"ff02::1":            "multicast",
		"240.0.0.1":          "reserved",
		"192.0.2.10":         "documentation",
		"2001:db8::1":        "documentation",
		"198.18.0.1":         "benchmarking",
		"192.0.0.8":          "IETF protocol assignments",
		"2001::1":            "IETF protocol assignments", // Teredo
		"64:ff9b:1::1":       "translation",
		"100::1":             "discard-only",
		"::7f00:1":           "IPv4-compatible",
		"4000::1":            "outside global unicast",
	}
	for s, reason := range refused {
		err := egress.Policy{}.Check(netip.MustParseAddr(s))
		if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: %v, want a refusal naming %q", s, err, reason)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "::ffff:8.8.8.8", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "192.31.196.1", "100.128.0.1", "172.32.0.1"} {
		if err := (egress.Policy{}).Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if (egress.Policy{}).IsAllowed(netip.Addr{}) {
		t.Error("the zero Addr is allowed")
	}
}

func TestPolicyAllowAndForbid(t *testing.T) {
	dev := egress.Policy{Allow: loopback}
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::"} {
		if !dev.IsAllowed(netip.MustParseAddr(s)) {
			t.Errorf("allowing loopback refuses %s", s)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "2002:a00:1::"} {
		if dev.IsAllowed(netip.MustParseAddr(s)) {
			t.Errorf("allowing loopback allows %s", s)
		}
	}
	mapped := egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("::ffff:127.0.0.0/104")}}
	if !mapped.IsAllowed(netip.MustParseAddr("127.0.0.1")) {
		t.Error("a mapped prefix does not mean its IPv4 range")
	}
	ops := egress.Policy{Allow: loopback, Forbid: []netip.Prefix{netip.MustParsePrefix("8.8.8.0/24"), netip.MustParsePrefix("127.0.0.2/32")}}
	for _, s := range []string{"8.8.8.8", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "127.0.0.2"} {
		err := ops.Check(netip.MustParseAddr(s))
		if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s: %v, want forbidden", s, err)
		}
	}
	nat64 := egress.Policy{Forbid: []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}}
	if nat64.IsAllowed(netip.MustParseAddr("64:ff9b::808:808")) {
		t.Error("forbidding NAT64 does not refuse NAT64 addresses")
	}
}

func TestDefaultRangesAreFresh(t *testing.T) {
	a := egress.DefaultRanges()
	a[0].Prefix = netip.MustParsePrefix("8.8.8.0/24")
	if egress.DefaultRanges()[0].Prefix == a[0].Prefix || !(egress.Policy{}).IsAllowed(netip.MustParseAddr("8.8.8.8")) {
		t.Error("changing the returned slice changes the defaults")
	}
}

// addrGen draws any IPv4 or IPv6 address.
func addrGen() *rapid.Generator[netip.Addr] {
	return rapid.Custom(func(t *rapid.T) netip.Addr {
		if rapid.Bool().Draw(t, "v4") {
			return netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "b4")))
		}
		return netip.AddrFrom16([16]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "b16")))
	})
}

// inPrefix draws an address of p.
func inPrefix(t *rapid.T, p netip.Prefix, label string) netip.Addr {
	b := p.Addr().AsSlice()
	r := rapid.SliceOfN(rapid.Byte(), len(b), len(b)).Draw(t, label)
	for i := range b {
		keep := min(max(p.Bits()-8*i, 0), 8) // bits of byte i fixed by the prefix
		mask := byte(0xff << (8 - keep))
		b[i] = b[i]&mask | r[i]&^mask
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// prefixOf draws a prefix that contains a.
func prefixOf(t *rapid.T, a netip.Addr, label string) netip.Prefix {
	p, _ := a.Prefix(rapid.IntRange(0, a.BitLen()).Draw(t, label))
	return p
}

// carriesIPv4 reports whether a is judged as the IPv4 address it carries.
func carriesIPv4(a netip.Addr) bool {
	return a.Is4In6() || netip.MustParsePrefix("64:ff9b::/96").Contains(a)
}

// Every address of a default range is refused, unless allowed; mapped and
// NAT64 forms are judged as their IPv4 address instead.
func TestPropertyDefaultsRefuseUnlessAllowed(t *testing.T) {
	ranges := egress.DefaultRanges()
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.SampledFrom(ranges).Draw(t, "range")
		a := inPrefix(t, r.Prefix, "addr")
		if carriesIPv4(a) {
			return
		}
		if (egress.Policy{}).IsAllowed(a) {
			t.Fatalf("%s in %s (%s) is allowed by default", a, r.Prefix, r.Name)
		}
		if !(egress.Policy{Allow: []netip.Prefix{prefixOf(t, a, "bits")}}).IsAllowed(a) {
			t.Fatalf("%s is refused though allowed", a)
		}
	})
}

// An IPv4 address is allowed by default exactly when no default range
// holds it: the table is the rule.
func TestPropertyIPv4OutsideDefaultsIsAllowed(t *testing.T) {
	ranges := egress.DefaultRanges()
	rapid.Check(t, func(t *rapid.T) {
		a := netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "b")))
		inDefault := false
		for _, r := range ranges {
			inDefault = inDefault || r.Prefix.Contains(a)
		}
		if got := (egress.Policy{}).IsAllowed(a); got == inDefault {
			t.Fatalf("%s: allowed %v, in a default range %v", a, got, inDefault)
		}
	})
}

// Forbid beats Allow, whatever the address and its form.
func TestPropertyForbidBeatsAllow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := addrGen().Draw(t, "addr")
		p := egress.Policy{Allow: []netip.Prefix{prefixOf(t, a.Unmap(), "allow")}, Forbid: []netip.Prefix{prefixOf(t, a.Unmap(), "forbid")}}
		if p.IsAllowed(a) {
			t.Fatalf("%s allowed under %+v", a, p)
		}
	})
}

// An IPv4 address, its mapped form and its NAT64 form are judged alike
// under any policy, whichever form the policy's prefixes are written in.
func TestPropertyMappedFormsJudgedByIPv4(t *testing.T) {
	prefixes := rapid.Custom(func(t *rapid.T) []netip.Prefix {
		var out []netip.Prefix
		for range rapid.IntRange(0, 3).Draw(t, "n") {
			p := prefixOf(t, netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "b"))), "bits")
			if rapid.Bool().Draw(t, "mapped") {
				p = netip.PrefixFrom(netip.AddrFrom16(p.Addr().As16()), p.Bits()+96)
			}
			out = append(out, p)
		}
		return out
	})
	rapid.Check(t, func(t *rapid.T) {
		p := egress.Policy{Allow: prefixes.Draw(t, "allow"), Forbid: prefixes.Draw(t, "forbid")}
		v4 := netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "v4")))
		b := v4.As4()
		nat64 := netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: b[0], 13: b[1], 14: b[2], 15: b[3]})
		want := p.IsAllowed(v4)
		for _, form := range []netip.Addr{netip.AddrFrom16(v4.As16()), nat64} {
			if got := p.IsAllowed(form); got != want {
				t.Fatalf("%s: allowed %v, but %s: %v under %+v", form, got, v4, want, p)
			}
		}
	})
}
