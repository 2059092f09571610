// Package egress is the one way msgkit connects to addresses that
// customers supply (delivery report URLs, campaign webhooks, test system
// callbacks, the UI proxy's calls to customer APIs), and holds the clients
// that go out through it: ReportPoster (delivery reports, campaign
// webhooks, test system callbacks) and Fetcher (the UI proxy's calls to
// customer APIs). It closes them to
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
//
// # Delivery reports
//
// ReportPoster posts delivery reports for the sms Dispatcher (and
// campaign webhooks, campaign.WebhookSender): 2xx is
// delivered; 408, 429, 5xx, timeouts and connection errors are retried;
// other answers are refused for good. Redirects 301, 302, 307 and 308 are
// followed, at most 3 of them, each with the same POST, headers and body
// (http.Client would turn a 301 or 302 into a GET without body, so the
// poster follows them itself); a fourth redirect, one without a usable
// http or https Location, and the other 3xx answers (300, 303, 304, ...)
// are refused for good. The per-attempt timeout covers all the hops.
//
// Every hop is dialled through this package's Dialer with
// ReportPosterOptions.Policy, checked on the address actually dialled,
// after DNS: by default loopback, private, link-local, CGNAT, multicast and
// the other special-purpose ranges are refused, in any spelling of the
// URL's host (0x7f.1, 2130706433, [::ffff:127.0.0.1]), so a customer's
// dlrUrl, or a redirect it answers, cannot reach the operator's own
// networks or the cloud's metadata service, whatever DNS says. A refused
// address is refused for good (code dlr_forbidden), not retried. Policy
// Allow opens ranges (development: loopback); Forbid adds ranges and wins.
//
// # UI proxy calls
//
// Fetcher calls a customer API for the UI proxy (uiproxy.Fetcher) through
// a Dialer with FetcherOptions.Policy: every address dialled, redirects
// included, is checked. Redirects are followed to the same scheme and
// host only (a token sent in a header must not travel elsewhere), at most
// three. The dial, the TLS handshake, the answer's headers and the whole
// call (the component's timeout) are bounded, and so is the answer's
// size. Its failures carry the codes the uiproxy family answers 502 with
// (CodeUnreachable, CodeAddressRefused, CodeStatus, CodeTooLarge,
// CodeRedirect).
package egress
