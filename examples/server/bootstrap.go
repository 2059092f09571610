package main

import (
	"net/netip"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// prefixes parses addresses ("192.0.2.10") and ranges ("192.0.2.0/24").
func prefixes(in []string) ([]netip.Prefix, error) { return auth.ParseNetworks("networks", in) }

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
