package egress

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strings"
)

// ParseHost reads the host of a URL (without port or brackets) as an
// address when it is one, the way browsers (the WHATWG URL standard) and
// the C library's inet_aton read numeric hosts, so that no spelling of an
// address reaches DNS or the system resolver unchecked.
//
// An IP literal ("192.0.2.1", "::ffff:127.0.0.1", "fe80::1%eth0") is that
// address. A host that ends in a number — its last dot-separated label,
// after one trailing dot, is all digits or 0x followed by hexadecimal
// digits — is an IPv4 address of one to four parts, each decimal, octal
// (led by 0) or hexadecimal (led by 0x), the last part filling the bytes
// left: 0x7f.1, 2130706433, 017700000001 and 127.1 are all 127.0.0.1.
// Such a host that is no valid IPv4 address (more than four parts, an
// empty part, a digit its base lacks, a part too large) is an error, as in
// browsers; so are an empty host and a host with a colon that is no IPv6
// literal. Any other host is a name for DNS: ParseHost returns false and
// no error.
func ParseHost(host string) (addr netip.Addr, isAddr bool, err error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true, nil
	}
	switch {
	case host == "":
		return netip.Addr{}, false, errors.New("empty host")
	case strings.ContainsRune(host, ':'):
		return netip.Addr{}, false, fmt.Errorf("host %q is not a valid IPv6 address", host)
	case !endsInNumber(host):
		return netip.Addr{}, false, nil
	}
	a, ok := parseIPv4(host)
	if !ok {
		return netip.Addr{}, false, fmt.Errorf("host %q ends in a number but is not a valid IPv4 address", host)
	}
	return a, true, nil
}

// endsInNumber is the WHATWG URL standard's "ends in a number" test.
func endsInNumber(host string) bool {
	s := strings.TrimSuffix(host, ".")
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4 is the WHATWG URL standard's IPv4 parser.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number reads one part of a numeric host: decimal, octal when
// led by 0, hexadecimal when led by 0x or 0X ("0x" alone is 0). A value
// beyond 32 bits is returned as 1<<32, which every caller refuses.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = min(n*base+d, math.MaxUint32+1) // saturates: never overflows
	}
	return n, true
}
