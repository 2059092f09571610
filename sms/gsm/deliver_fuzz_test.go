package gsm

import (
	"bytes"
	"testing"
)

// FuzzDecodeDeliver feeds DecodeDeliver any octets. It must never panic;
// what it refuses is an invalid_pdu error, and what it accepts encodes, and
// decodes again to the same Deliver (the encoding being a fixed point).
func FuzzDecodeDeliver(f *testing.F) {
	for _, tc := range deliverVectors {
		f.Add(deliverHex(f, tc.pdu))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, pdu []byte) {
		d, err := DecodeDeliver(pdu)
		if err != nil {
			if !isInvalidPDU(err) {
				t.Fatalf("DecodeDeliver(%X): %v is not an invalid_pdu error", pdu, err)
			}
			return
		}
		enc, err := EncodeDeliver(d)
		if err != nil {
			t.Fatalf("DecodeDeliver(%X) = %+v, which does not encode: %v", pdu, d, err)
		}
		again, err := DecodeDeliver(enc)
		if err != nil {
			t.Fatalf("DecodeDeliver(%X) (re-encoded from %X): %v", enc, pdu, err)
		}
		if diff := diffDeliver(d, again); diff != "" {
			t.Fatalf("%X re-encoded as %X (-first +second):\n%s", pdu, enc, diff)
		}
		if enc2, err := EncodeDeliver(again); err != nil || !bytes.Equal(enc2, enc) {
			t.Fatalf("%X re-encodes as %X, then as %X (%v)", pdu, enc, enc2, err)
		}
	})
}
