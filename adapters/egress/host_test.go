package egress_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/egress"
)

func TestParseHost(t *testing.T) {
	addrs := map[string]string{
		"127.0.0.1":        "127.0.0.1",
		"0x7f.1":           "127.0.0.1",
		"0X7F.0.0.1":       "127.0.0.1",
		"2130706433":       "127.0.0.1",
		"017700000001":     "127.0.0.1",
		"0x7f000001":       "127.0.0.1",
		"127.1":            "127.0.0.1",
		"127.0.1":          "127.0.0.1",
		"127.1.":           "127.0.0.1",
		"0177.0.0.01":      "127.0.0.1",
		"0":                "0.0.0.0",
		"0x":               "0.0.0.0",
		"169.254.43518":    "169.254.169.254",
		"0xa9fea9fe":       "169.254.169.254",
		"4294967295":       "255.255.255.255",
		"1.0x10.0300.4":    "1.16.192.4",
		"::1":              "::1",
		"::ffff:127.0.0.1": "::ffff:127.0.0.1",
		"fe80::1%eth0":     "fe80::1%eth0",
	}
	for host, want := range addrs {
		a, isAddr, err := egress.ParseHost(host)
		if err != nil || !isAddr || a != netip.MustParseAddr(want) {
			t.Errorf("ParseHost(%q) = %v, %v, %v; want %s", host, a, isAddr, err, want)
		}
	}
	for _, host := range []string{"example.com", "localhost", "dlr.example.com.", "1x.example", "a.0x7g", "1.2.3.4.."} {
		if a, isAddr, err := egress.ParseHost(host); err != nil || isAddr {
			t.Errorf("ParseHost(%q) = %v, %v, %v; want a name", host, a, isAddr, err)
		}
	}
	for _, host := range []string{
		"", "4294967296", "1.2.3.4.5", "256.1", "1.256.1.1", "1.2.65536", "1.16777216", "08", "0x7f.09", "1..2", ".1",
		"0x1g.1", "example.123", "example.0x10", "::ffff:127.1", "1:2", "99999999999999999999999",
	} {
		if a, isAddr, err := egress.ParseHost(host); err == nil {
			t.Errorf("ParseHost(%q) = %v, %v; want an error", host, a, isAddr)
		}
	}
}

// FuzzParseHost: any host is an address, a name or an error, never a
// panic; an address read from a spelling is IPv4, keeps its reading with
// one trailing dot, and a dotted quad netip reads is read alike.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "0x7f.1", "2130706433", "017700000001", "127.1", "::ffff:127.0.0.1", "example.com", "1.2.3.4.5", "0x", "09", "[::1]", "fe80::1%25eth0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, isAddr, err := egress.ParseHost(host)
		if err != nil && isAddr {
			t.Fatalf("%q: an address and an error", host)
		}
		if want, perr := netip.ParseAddr(host); perr == nil && (a != want || !isAddr) {
			t.Fatalf("%q: %v, netip reads %v", host, a, want)
		}
		if !isAddr || strings.Contains(host, ":") {
			return
		}
		if !a.Is4() {
			t.Fatalf("%q: %v is not IPv4", host, a)
		}
		if !strings.HasSuffix(host, ".") {
			if again, ok, _ := egress.ParseHost(host + "."); !ok || again != a {
				t.Fatalf("%q. reads %v, %q reads %v", host, again, host, a)
			}
		}
	})
}

// FuzzNumericSpelling spells an IPv4 address in one to four parts, each
// part in decimal, octal or hexadecimal, and reads it back.
func FuzzNumericSpelling(f *testing.F) {
	f.Add(uint32(0x7f000001), uint8(1), uint8(0b10))
	f.Add(uint32(0xa9fea9fe), uint8(3), uint8(0b1001))
	f.Add(uint32(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, v uint32, parts, bases uint8) {
		n := int(parts%4) + 1
		values := make([]uint32, n)
		for i := range n - 1 {
			values[i] = v >> (8 * (3 - i)) & 0xff
		}
		values[n-1] = v & (1<<(8*(5-n)) - 1) // what the last part fills
		if n == 1 {
			values[0] = v
		}
		spelled := make([]string, n)
		for i, x := range values {
			switch (bases >> (2 * i)) & 3 {
			case 1:
				spelled[i] = fmt.Sprintf("0%o", x)
			case 2:
				spelled[i] = fmt.Sprintf("0x%x", x)
			case 3:
				spelled[i] = fmt.Sprintf("0X%X", x)
			default:
				spelled[i] = fmt.Sprint(x)
			}
		}
		host := strings.Join(spelled, ".")
		a, isAddr, err := egress.ParseHost(host)
		want := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		if err != nil || !isAddr || a != want {
			t.Fatalf("ParseHost(%q) = %v, %v, %v; want %v", host, a, isAddr, err, want)
		}
	})
}
