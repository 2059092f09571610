package gsm

import (
	"fmt"

	"github.com/msgkit/msgkit"
)

// The GSM 03.38 default alphabet and its extension table (3GPP TS 23.038
// section 6.2.1). Tables are immutable package values.

// escSeptet is the escape to the extension table: an extended character is
// sent as escSeptet followed by its code and so costs two septets.
const escSeptet = 0x1B

// asciiCost and asciiCode map an ASCII byte to its septet cost (0: not in the alphabet,
// 1: default table, 2: extension table) and code.
var asciiCost, asciiCode = func() (cost, code [128]uint8) {
	for c := 0; c < 128; c++ {
		if r, ok := gsmFromRune(rune(c)); ok {
			cost[c], code[c] = r.cost, r.code
		}
	}
	return cost, code
}()

type septet struct {
	code uint8 // code in the default table, or in the extension table when cost is 2
	cost uint8 // septets on the air: 1, or 2 for escape + code
}

// asciiClass is asciiCost for branch-free counting: the cost in the low
// bits, with classBad set (and cost 1 kept) for bytes outside the alphabet.
var asciiClass = func() (t [128]uint8) {
	for c := range 128 {
		t[c] = asciiCost[c]
		if t[c] == 0 {
			t[c] = classBad | 1
		}
	}
	return t
}()

const classBad = 0x80

// latinGreekCost holds the septet cost of the characters below U+0400
// (Latin-1 and Greek), so the hot path needs no switch.
var latinGreekCost = func() (t [0x400]uint8) {
	for r := range rune(0x400) {
		s, _ := gsmFromRune(r)
		t[r] = s.cost
	}
	return t
}()

// nonASCIICost is the septet cost of a non-ASCII rune, 0 when it is not in
// the alphabet.
func nonASCIICost(r rune) uint8 {
	switch {
	case r < 0x400:
		return latinGreekCost[r]
	case r == '€':
		return 2
	}
	return 0
}

// gsmFromRune looks a character up in both tables. 'ç' is not in the
// alphabet here: whether it may travel as 'Ç' is the caller's choice.
func gsmFromRune(r rune) (septet, bool) {
	switch {
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		return septet{uint8(r), 1}, true
	case r >= ' ' && r <= '?' && r != '$':
		// 0x20..0x3F are identical to ASCII except 0x24, which is '¤'.
		return septet{uint8(r), 1}, true
	}
	switch r {
	case '@':
		return septet{0x00, 1}, true
	case '£':
		return septet{0x01, 1}, true
	case '$':
		return septet{0x02, 1}, true
	case '¥':
		return septet{0x03, 1}, true
	case 'è':
		return septet{0x04, 1}, true
	case 'é':
		return septet{0x05, 1}, true
	case 'ù':
		return septet{0x06, 1}, true
	case 'ì':
		return septet{0x07, 1}, true
	case 'ò':
		return septet{0x08, 1}, true
	case 'Ç':
		return septet{0x09, 1}, true
	case '\n':
		return septet{0x0A, 1}, true
	case 'Ø':
		return septet{0x0B, 1}, true
	case 'ø':
		return septet{0x0C, 1}, true
	case '\r':
		return septet{0x0D, 1}, true
	case 'Å':
		return septet{0x0E, 1}, true
	case 'å':
		return septet{0x0F, 1}, true
	case 'Δ':
		return septet{0x10, 1}, true
	case '_':
		return septet{0x11, 1}, true
	case 'Φ':
		return septet{0x12, 1}, true
	case 'Γ':
		return septet{0x13, 1}, true
	case 'Λ':
		return septet{0x14, 1}, true
	case 'Ω':
		return septet{0x15, 1}, true
	case 'Π':
		return septet{0x16, 1}, true
	case 'Ψ':
		return septet{0x17, 1}, true
	case 'Σ':
		return septet{0x18, 1}, true
	case 'Θ':
		return septet{0x19, 1}, true
	case 'Ξ':
		return septet{0x1A, 1}, true
	case 'Æ':
		return septet{0x1C, 1}, true
	case 'æ':
		return septet{0x1D, 1}, true
	case 'ß':
		return septet{0x1E, 1}, true
	case 'É':
		return septet{0x1F, 1}, true
	case '¤':
		return septet{0x24, 1}, true
	case '¡':
		return septet{0x40, 1}, true
	case 'Ä':
		return septet{0x5B, 1}, true
	case 'Ö':
		return septet{0x5C, 1}, true
	case 'Ñ':
		return septet{0x5D, 1}, true
	case 'Ü':
		return septet{0x5E, 1}, true
	case '§':
		return septet{0x5F, 1}, true
	case '¿':
		return septet{0x60, 1}, true
	case 'ä':
		return septet{0x7B, 1}, true
	case 'ö':
		return septet{0x7C, 1}, true
	case 'ñ':
		return septet{0x7D, 1}, true
	case 'ü':
		return septet{0x7E, 1}, true
	case 'à':
		return septet{0x7F, 1}, true

	// Extension table: escape + code, two septets each.
	case '\f':
		return septet{0x0A, 2}, true
	case '^':
		return septet{0x14, 2}, true
	case '{':
		return septet{0x28, 2}, true
	case '}':
		return septet{0x29, 2}, true
	case '\\':
		return septet{0x2F, 2}, true
	case '[':
		return septet{0x3C, 2}, true
	case '~':
		return septet{0x3D, 2}, true
	case ']':
		return septet{0x3E, 2}, true
	case '|':
		return septet{0x40, 2}, true
	case '€':
		return septet{0x65, 2}, true
	case '\x1b':
		// The bulk SMS interface: the escape character itself is sent as an
		// escape prefix plus a code (0x1B 0x1B) and counts as two.
		return septet{escSeptet, 2}, true
	}
	return septet{}, false
}

// InAlphabet reports whether r belongs to the GSM 03.38 default alphabet or its
// extension table, exactly ('ç' does not).
func InAlphabet(r rune) bool {
	_, ok := gsmFromRune(r)
	return ok
}

// Septets returns how many septets r costs (1 or 2), or 0 when r is not in
// the alphabet.
func Septets(r rune) int {
	s, _ := gsmFromRune(r)
	return int(s.cost)
}

// AppendCodes appends the GSM 7-bit default alphabet codes of text to dst,
// one septet per octet, an extension table character as the escape and
// its code (3GPP TS 23.038 6.2.1); a character outside the alphabet is an
// error naming it. Transports that carry septets unpacked (SMPP
// data_coding 0) send these octets as they are.
func AppendCodes(dst []byte, text string) ([]byte, error) {
	for _, r := range text {
		s, ok := gsmFromRune(r)
		if !ok {
			return nil, fmt.Errorf("gsm: %q is not in the GSM 7-bit alphabet", r)
		}
		if s.cost == 2 {
			dst = append(dst, escSeptet)
		}
		dst = append(dst, s.code)
	}
	return dst, nil
}

// TextOfCodes reads GSM 7-bit default alphabet codes written one septet
// an octet, as AppendCodes writes them and SMPP data_coding 0 carries
// them, as text; an octet above 0x7F is no septet (CodeBadContent).
func TextOfCodes(codes []byte) (string, error) {
	for i, c := range codes {
		if c > 0x7F {
			return "", msgkit.Errorf(msgkit.Invalid, CodeBadContent, "gsm: octet %d (0x%02X) is not a GSM 7-bit code", i+1, c)
		}
	}
	return gsmString(codes), nil
}

// TextOfUCS2 reads UTF-16 big-endian text, joining surrogate pairs; an odd
// length or a lone surrogate is CodeBadContent.
func TextOfUCS2(b []byte) (string, error) {
	s, err := ucsString(b)
	if err != nil {
		return "", msgkit.Wrap(err, msgkit.Invalid, CodeBadContent, err.Error())
	}
	return s, nil
}

// Pack returns user data as the air interface carries it: the header
// hdr (nil for none), fill bits up to the next septet boundary, then the
// septet codes packed least significant bit first (3GPP TS 23.040
// 9.2.3.24, TS 23.038 6.1.2.1.1).
func Pack(hdr, codes []byte) []byte {
	first := (len(hdr)*8 + 6) / 7
	ud := make([]byte, (7*(first+len(codes))+7)/8)
	copy(ud, hdr)
	packSeptets(ud, codes, first)
	return ud
}
