// Package egress is the one way msgkit connects to addresses that
// customers supply: delivery report URLs, campaign webhooks, test system
// callbacks and the UI proxy's calls to customer APIs. It closes them to
// server-side request forgery by default: a customer's URL must not reach
// the operator's loopback, private networks or the cloud's metadata
// service (169.254.169.254).
//
// A Policy is pure: Check and IsAllowed judge one address. Its zero value
// refuses DefaultRanges — loopback, private (RFC 1918, unique local),
// link-local, CGNAT (100.64.0.0/10), multicast, unspecified, broadcast,
// documentation, benchmarking, the rest of IANA's IPv4 and IPv6
// special-purpose registries that are not globally reachable, and IPv6
// outside global unicast (2000::/3). Allow lets ranges through (the demo
// server and tests allow loopback); Forbid adds ranges (an operator's own
// public networks). Forbid beats Allow beats the defaults. IPv4-mapped and
// NAT64 (64:ff9b::/96) addresses are judged as the IPv4 address they
// carry, and 6to4 (2002::/16) addresses as themselves and as it, so no
// IPv6 spelling of 127.0.0.1 passes where 127.0.0.1 does not.
//
// A Dialer enforces a Policy on the address actually dialled: after DNS,
// in the dialer's Control hook, for every address tried; a name that
// resolves to a refused address, at the first lookup or at a later one
// (DNS rebinding), is refused. Hosts that spell an address are read first
// (ParseHost) as browsers and inet_aton read them — 0x7f.1, 2130706433,
// 017700000001 and 127.1 are 127.0.0.1 — checked, and dialled in their
// normal form, so no resolver sees them; such a spelling that is no valid
// address is refused outright. Only TCP is dialled. NewTransport is the
// *http.Transport over it, without proxy; every hop of a redirect its
// client follows is dialled, and so checked, again.
//
// A refusal is a *RefusedError in the error's chain, which errors.Is
// ErrRefused: trying again cannot change it, so callers treat it as final
// (a delivery report to a refused URL is given up, not retried).
//
// Choices made:
//   - The globally reachable entries of IANA's registries inside special
//     blocks (AS112 192.31.196.0/24 and 192.175.48.0/24, AMT
//     192.52.193.0/24) are allowed, as on the Internet; the anycast and
//     ORCHID entries inside 2001::/23 are refused with the rest of it, as
//     no customer runs a report endpoint there.
//   - 6to4 addresses are not refused as such (2002::/16 is routable), only
//     by the IPv4 address they carry.
//   - A host ending in a number follows the WHATWG URL standard: one
//     trailing dot is allowed, and "example.123" is refused rather than
//     sent to DNS.
package egress
