// Package bulksmsapi serves the bulk SMS interface over HTTP(S): POST
// /bulk/sendsms, the submission of one message to the sms Gateway
// (Submitter). Its listeners (12020 for HTTP, 12021 for HTTPS) are the
// platform's to open; Handler is what they serve.
//
// The family does not use the kit's error bodies or authentication: the
// credentials travel in the body and the Gateway checks them, and the
// answers are the interface's own:
//
//   - 202 {"msgId","numParts"} when the message is accepted.
//   - 420 {"error":{"code":"1xx","message"}} for every rejection, with the
//     code of sms.Code as a JSON string, as the client libraries customers
//     already use read it as one.
//   - 500 for internal failures (code 101 among them) and panics, and 503
//     when the gateway is unavailable, both without a body: the
//     interface's 5xx carry no JSON. The failure is logged with the request
//     id, never shown: at Error, or at Info (and answered 503) when the
//     client went away first (httpapi.Ended).
//
// Decoding is lenient, as the clients in the field are: unknown fields are
// ignored, since client libraries send extra ones; keys match fields
// case-insensitively, as encoding/json matches them ("TEXT" is text); sender
// and receiver may come as JSON numbers (whole, non-negative) and dlrMask
// as a numeric string; null is no value, and custom null no custom value.
// Choices where the interface is silent: an empty body is 110 (a common
// client resends after 105 without one), malformed JSON or more than one
// JSON value 109, a field of the wrong type 112 naming it (the first
// refused sender, receiver or dlrMask, else the first such field), a body
// over 256 KiB (Options.MaxBodyBytes) 109.
//
// Lenient is not lossy: what encoding/json would silently change or merge
// is refused with 109 naming the field (auth.username, custom.items[0]),
// before the Gateway sees anything. That is a body that is not one JSON
// object (null, an array, a string or a number: one code for all), a
// string with invalid UTF-8 or a lone UTF-16 surrogate escape such as
// \ud800 (json would replace either with U+FFFD, which the customer never
// sent and would pay for), and a key given twice in one object (json
// keeps the last: a second auth would merge into the first). Keys are
// compared as json reads them and without regard to case, as they match
// fields and as every family of the HTTP kit compares them
// (httpapi.CheckJSON), so "\u0061", "a" and "A" are the same key: text
// and TEXT in one body are one field given twice, 109.
//
// The body is read in one pass that holds it to the JSON grammar (RFC
// 8259, nesting at most 10000 deep) and reports the first fault in the
// text. So a body malformed before a string with bad bytes or a key given
// twice is 109 naming no field, and anything but whitespace after the
// object is 109 whatever the object holds (encoding/json let a closing
// bracket through, and judged the fields' types before what follows).
//
// # Idempotency-Key
//
// A submission may carry an Idempotency-Key header
// (draft-ietf-httpapi-idempotency-key-header; the key an sf-string or
// bare, see idempotency.ParseKey), which the Gateway keeps per account
// (see package sms): a retry of an accepted submission with the key
// answers the first 202, the same msgId and numParts, with
// Idempotent-Replayed: true, and is neither sent nor charged again, also
// when the first answer was lost because the server stopped after
// accepting. The key's refusals use the family's body with codes that
// are words, beside the table's numbers, and the statuses of the draft
// rather than 420, which the interface keeps for the submission's own
// rejections:
//
//   - 400 invalid_idempotency_key: the header is no key, or is sent
//     twice; checked before the body is read.
//   - 422 idempotency_key_reused: the key came with another submission
//     (compared after decoding, password aside, so a client that encodes
//     its retry otherwise is not refused).
//   - 409 idempotency_key_in_progress, with Retry-After: the key's first
//     submission is being processed, or its process stopped before the
//     message was stored; after Retry-After the retry is accepted.
//
// A 420 is not kept, so a key refused for credit (113) or throttling
// (105) goes through when sent again. A submission without the header is
// served as before, byte for byte: the header costs it one map look-up.
//
// # API document
//
// OpenAPI returns the family's OpenAPI 3.1 document (openapi.json,
// embedded): the operation with every answer above, each 420 code with an
// example, and the delivery report that msgkit posts to dlrUrl, as the
// callback deliveryReport of the operation (the report is caused by a
// submission and goes to the URL it names, which a callback says and a
// top-level webhook would not). The request schema is as lenient as the
// decoder where JSON Schema can say it (unknown members allowed, sender,
// receiver and dlrMask of either type, custom null); that keys match
// case-insensitively it can only say in words. The handler tests send
// every request through httpapitest.Contract, which fails them when a
// request or answer leaves the document, and the enumerations of codes and
// events are held to sms.Codes and sms.Events.
//
// The client address given to the Gateway is RemoteAddr, or the
// X-Forwarded-For hop before Options.TrustedProxies (httpapi.ClientIP).
package bulksmsapi
