package idempotency

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/msgkit/msgkit"
)

// Header is the request header that carries a key
// (draft-ietf-httpapi-idempotency-key-header); errors about a key name it
// as their field.
const Header = "Idempotency-Key"

// MaxKeyLen is the longest key taken, in bytes.
const MaxKeyLen = 255

// Codes of the errors of this package.
const (
	CodeInvalidKey = "invalid_idempotency_key"     // the header is not a key
	CodeKeyReused  = "idempotency_key_reused"      // the key came with another request (422)
	CodeInProgress = "idempotency_key_in_progress" // the key's first request is still running (409)
	CodeClaimLost  = "idempotency_claim_lost"      // Finish of a claim another request took over
	CodeInvalid    = "idempotency_record_invalid"  // a record no store keeps
)

// Key is an idempotency key: 1 to MaxKeyLen printable ASCII characters.
// The zero Key is no key.
type Key string

// ParseKey reads the value of one Idempotency-Key header. The draft makes
// it a Structured Field sf-string (RFC 8941 3.3.3), "\"8e03978e-...\"":
// its content, escapes undone, is the key, spaces included. Many clients
// send the key bare, as Stripe's API taught them (8e03978e-...): a value
// that does not start with a quote is taken as the key itself when it is
// visible ASCII without '"', '\' or ',' (a comma would be ambiguous where
// proxies join repeated headers), so "abc" and abc are the same key.
// Whitespace around the value is dropped. Anything else, parameters after
// an sf-string included, and a key empty or over MaxKeyLen, is Invalid
// (invalid_idempotency_key) naming the header.
func ParseKey(value string) (Key, error) {
	v := trimOWS(value)
	if v == "" {
		return "", invalidKey("the Idempotency-Key header is empty")
	}
	var key string
	if v[0] == '"' {
		k, ok := sfString(v)
		if !ok {
			return "", invalidKey("the Idempotency-Key header is not a valid sf-string: printable ASCII in double quotes, with \\\" and \\\\ as the only escapes, and nothing after it")
		}
		key = k
	} else {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == ',' {
				return "", invalidKey("the Idempotency-Key header holds a character a bare key cannot have: quote the key as an sf-string, or use visible ASCII without '\"', '\\' and ','")
			}
		}
		key = v
	}
	if key == "" || len(key) > MaxKeyLen {
		return "", invalidKey("an idempotency key has 1 to 255 characters")
	}
	return Key(key), nil
}

func invalidKey(msg string) error { return msgkit.Invalidf(CodeInvalidKey, Header, "%s", msg) }

// trimOWS drops the spaces and tabs HTTP allows around a field value.
func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// sfString reads s as exactly one sf-string (RFC 8941 4.2.5) and returns
// its content.
func sfString(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", false
	}
	out := make([]byte, 0, len(s)-2)
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
			if i == len(s) || (s[i] != '"' && s[i] != '\\') {
				return "", false
			}
			out = append(out, s[i])
		case c == '"':
			return string(out), i == len(s)-1
		case c < 0x20 || c > 0x7e:
			return "", false
		default:
			out = append(out, c)
		}
	}
	return "", false // no closing quote
}

// validKey reports whether k is a key ParseKey can give.
func validKey(k Key) bool {
	if len(k) == 0 || len(k) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Fingerprint identifies a request's content, so that a key sent again
// with other content is told apart from a retry: the SHA-256 of what
// makes the request (FingerprintOf).
type Fingerprint [32]byte

// FingerprintOf is the SHA-256 of parts, each led by its length, so that
// moving bytes from one part to the next changes it.
func FingerprintOf(parts ...[]byte) Fingerprint {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var f Fingerprint
	h.Sum(f[:0])
	return f
}
