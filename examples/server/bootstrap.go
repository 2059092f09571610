package main

import (
	"fmt"
	"net/netip"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// prefixes parses addresses ("192.0.2.10") and ranges ("192.0.2.0/24").
func prefixes(in []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(in))
	for _, s := range in {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("network %q is neither an address nor a range", s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func serviceUUIDs(in []string) []msgkit.ServiceUUID {
	out := make([]msgkit.ServiceUUID, len(in))
	for i, s := range in {
		out[i] = msgkit.ServiceUUID(s)
	}
	return out
}

func privileges(in []string) []auth.Privilege {
	out := make([]auth.Privilege, len(in))
	for i, s := range in {
		out[i] = auth.Privilege(s)
	}
	return out
}
