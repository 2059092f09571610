package gsm

// SMS-DELIVER as a test handset receives it: the route test system reads
// which service centre delivered a message and what arrived.
//
// Standards followed:
//
//   - 3GPP TS 27.005 3.1 (PDU mode): the SMSC address information precedes
//     the TPDU; its length octet counts the octets after it including the
//     type of address, and 0 means the PDU carries no SMSC address.
//   - 3GPP TS 23.040 9.2.2.1 (SMS-DELIVER): first octet (TP-MTI 00, TP-MMS,
//     TP-LP, TP-SRI, TP-UDHI, TP-RP), TP-OA, TP-PID, TP-DCS, TP-SCTS,
//     TP-UDL, TP-UD.
//   - 3GPP TS 23.040 9.1.2.3 (semi-octets: 0-9, '*', '#', 'a', 'b', 'c',
//     and 0xF as the filler) and 9.1.2.5 (address fields: the length counts
//     useful semi-octets; an alphanumeric address, TON 5, is GSM 7-bit
//     packed; at most 10 octets of value, so 20 digits or 11 septets).
//   - 3GPP TS 23.040 9.2.3.11 (TP-SCTS): seven octets of swapped semi-octets,
//     the time zone in quarter hours with its sign in bit 3.
//   - 3GPP TS 23.040 9.2.3.16 and 9.2.3.24 (TP-UDL counts septets for the
//     7-bit alphabet, octets otherwise; the user data header with its UDHL,
//     and fill bits that start the septets on a septet boundary); 9.2.3.24.1
//     and 9.2.3.24.8 (concatenation with an 8-bit and a 16-bit reference);
//     9.2.3.24.4 (16-bit application port addressing).
//   - 3GPP TS 23.038 4 (data coding scheme groups), 6.1.2.1 (packing of
//     septets), 6.2.1 and 6.2.1.1 (the default alphabet and its extension
//     table).
//
// Choices where the standards leave room:
//
//   - TP-SCTS carries two year digits: they are read as 2000-2099, and
//     EncodeDeliver refuses other years. It carries whole seconds, so a time
//     stamp with a fraction of a second is refused rather than truncated.
//     A negative zero zone (sign bit with zero quarters) reads as offset 0.
//   - A numeric address keeps its digits but not its type of number (the
//     Address type has no room for it): EncodeDeliver writes TP-OA with type
//     0x91, and an SMSC with type 0x91 when it starts with '+' and 0x81
//     otherwise. An SMSC address with an international type of number reads
//     as '+' and its digits, any other as digits alone.
//   - Escape + escape reads as U+001B: that is how gsmFromRune (and the bulk
//     SMS interface) sends the escape character, so the codec stays its own
//     inverse; 23.038 would show a space. Any other undefined extension code
//     reads as the default-table character of that code, as 23.038 6.2.1.1
//     says, and a lone escape at the end, which escapes nothing, as a space.
//   - Reserved data codings read as the GSM 7-bit alphabet, as 23.038 4
//     says; compressed text is refused.
//   - A concatenation element with zero parts, or a sequence number of zero
//     or above the part count, is ignored (23.040 9.2.3.24.1 says so); when
//     several occur, the last valid one wins. Ports of zero read as no
//     port addressing. Other elements are skipped.
//   - Decoding is strict about structure: every length is checked against
//     the octets present, octets after the user data are an error, and so
//     are a filler semi-octet inside an address, an SMSC address of a type
//     without digits and one over 20 digits. The value of the filler after
//     an odd number of digits is not checked.

import (
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// Concat is a concatenation information element of a part: IEI 0x00 (8-bit
// reference) or, when Wide, IEI 0x08 (16-bit reference).
type Concat struct {
	Ref        uint16
	Total, Seq uint8
	Wide       bool
}

// Address is an originating address (TP-OA, 3GPP TS 23.040 9.1.2.5): digits
// when Numeric, else alphanumeric text in the GSM alphabet. It has the shape
// of sms.Sender, so a validated sender converts to it.
type Address struct {
	Value   string // the digits without '+', or the alphanumeric text
	Numeric bool
}

// Deliver is an SMS-DELIVER as a handset receives it.
type Deliver struct {
	SMSC string // the service centre's number, E.164 with '+', "" when the PDU has none
	// Sender is TP-OA: Numeric with the digits in Value for a numeric
	// address (any type of number but 5; an international number's digits
	// without '+'), not Numeric for an alphanumeric one (type of number 5).
	Sender           Address
	PID              byte
	DCS              DCS       // DCSGSM, DCSUCS or DCSBinary, from TP-DCS
	Class0           bool      // message class 0 (flash)
	SCTS             time.Time // the service centre time stamp, in its own zone (time.FixedZone)
	Concat           Concat    // zero when the part is not concatenated
	DstPort, SrcPort uint16    // 16-bit application port addressing (IEI 0x05), zero when absent
	Text             string    // DCSGSM and DCSUCS: the user data as text
	Data             []byte    // DCSBinary: the user data after the header
}

const (
	maxAddressDigits = 20 // ten octets of semi-octets (3GPP TS 23.040 9.1.2.5)
	maxAlphaSeptets  = 11 // 77 bits fit in the same ten octets

	firstOctetDeliver = 0x04 // TP-MTI 00, TP-MMS 1: no more messages are waiting
	udhiBit           = 0x40 // TP-UDHI

	tonInternational = 1
	tonAlphanumeric  = 5

	// maxDeliverPDU bounds an encoded PDU: SMSC (12), first octet, TP-OA
	// (12), TP-PID, TP-DCS, TP-SCTS (7), TP-UDL, TP-UD (140).
	maxDeliverPDU = 12 + 1 + 12 + 2 + 7 + 1 + userDataOctets
)

// semiOctetChars are the characters of semi-octets 0x0-0xE in an address
// (3GPP TS 23.040 9.1.2.3); 0xF is the filler.
const semiOctetChars = "0123456789*#abc"

func pduErrorf(format string, args ...any) error {
	return msgkit.Errorf(msgkit.Invalid, CodeInvalidPDU, format, args...)
}

// gsmDefaultRunes is the default alphabet of 3GPP TS 23.038 6.2.1 by code.
// 0x1B is the escape; alone it never reaches this table.
var gsmDefaultRunes = [128]rune{
	'@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
	'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', '\x1b', 'Æ', 'æ', 'ß', 'É',
	' ', '!', '"', '#', '¤', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', '/',
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
	'¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
	'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
	'¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à',
}

// gsmExtensionRunes is the extension table of 3GPP TS 23.038 6.2.1.1 by the
// code after the escape; 0 marks an undefined code. Escape + escape is
// U+001B, as gsmFromRune sends it.
var gsmExtensionRunes = [128]rune{
	0x0A: '\f', 0x14: '^', 0x1B: '\x1b', 0x28: '{', 0x29: '}', 0x2F: '\\',
	0x3C: '[', 0x3D: '~', 0x3E: ']', 0x40: '|', 0x65: '€',
}

// sctsZones holds the fixed zones TP-SCTS can name, -79..79 quarter hours,
// so that decoding allocates no location.
var sctsZones = func() (z [2*79 + 1]*time.Location) {
	for q := -79; q <= 79; q++ {
		z[q+79] = time.FixedZone("", q*15*60)
	}
	return z
}()

// EncodeDeliver writes d as a PDU-mode SMS-DELIVER: SMSC address
// information (3GPP TS 27.005 3.1), then the TPDU of 3GPP TS 23.040
// 9.2.2.1. It refuses what the PDU cannot carry exactly: text outside the
// coding, user data over 140 octets, a sender over 11 septets or 20 digits,
// an SMSC over 20 digits, a time stamp that TP-SCTS cannot hold.
func EncodeDeliver(d Deliver) ([]byte, error) {
	b := make([]byte, 0, maxDeliverPDU)
	b, err := appendSMSC(b, d.SMSC)
	if err != nil {
		return nil, err
	}
	var hbuf [13]byte // UDHL, ports (6), 16-bit concatenation (6)
	hdr, err := appendUDH(hbuf[:0], d)
	if err != nil {
		return nil, err
	}
	first := byte(firstOctetDeliver)
	if len(hdr) > 0 {
		first |= udhiBit
	}
	b = append(b, first)
	if b, err = appendOA(b, d.Sender); err != nil {
		return nil, err
	}
	dcs, err := encodeDCS(d.DCS, d.Class0)
	if err != nil {
		return nil, err
	}
	b = append(b, d.PID, dcs)
	if b, err = appendSCTS(b, d.SCTS); err != nil {
		return nil, err
	}
	return appendUserData(b, d, hdr)
}

// DecodeDeliver reads a PDU-mode SMS-DELIVER (3GPP TS 27.005 3.1, 3GPP TS
// 23.040 9.2.2.1). Every length is checked against the octets present: a
// malformed PDU is an Invalid error with code invalid_pdu naming the field.
func DecodeDeliver(pdu []byte) (Deliver, error) {
	var d Deliver
	if len(pdu) == 0 {
		return Deliver{}, pduErrorf("SMSC address: the PDU is empty")
	}
	n, p := int(pdu[0]), pdu[1:]
	if n > 0 {
		if n > 1+maxAddressDigits/2 {
			return Deliver{}, pduErrorf("SMSC address: length %d octets, at most %d", n, 1+maxAddressDigits/2)
		}
		if n > len(p) {
			return Deliver{}, pduErrorf("SMSC address: length %d octets, only %d present", n, len(p))
		}
		smsc, err := decodeSMSC(p[0], p[1:n])
		if err != nil {
			return Deliver{}, err
		}
		d.SMSC, p = smsc, p[n:]
	}
	if len(p) == 0 {
		return Deliver{}, pduErrorf("TP-MTI: the TPDU is missing")
	}
	first := p[0]
	if mti := first & 0x03; mti != 0 {
		return Deliver{}, pduErrorf("TP-MTI: %d is not SMS-DELIVER (0)", mti)
	}
	sender, p, err := decodeOA(p[1:])
	if err != nil {
		return Deliver{}, err
	}
	d.Sender = sender
	// TP-PID, TP-DCS, TP-SCTS (7) and TP-UDL are ten octets.
	if len(p) < 10 {
		field := [...]string{"TP-PID", "TP-DCS", "TP-SCTS", "TP-SCTS", "TP-SCTS", "TP-SCTS", "TP-SCTS", "TP-SCTS", "TP-SCTS", "TP-UDL"}[len(p)]
		return Deliver{}, pduErrorf("%s: the PDU ends after %d octets", field, len(pdu))
	}
	d.PID = p[0]
	if d.DCS, d.Class0, err = decodeDCS(p[1]); err != nil {
		return Deliver{}, err
	}
	if d.SCTS, err = decodeSCTS(p[2:9]); err != nil {
		return Deliver{}, err
	}
	if err := decodeUserData(&d, first&udhiBit != 0, int(p[9]), p[10:]); err != nil {
		return Deliver{}, err
	}
	return d, nil
}

// decodeSMSC reads the value of the SMSC address information: its length
// is in octets, so a final 0xF semi-octet is the filler of an odd count.
func decodeSMSC(toa byte, v []byte) (string, error) {
	if len(v) == 0 {
		return "", pduErrorf("SMSC address: type of address 0x%02X without digits", toa)
	}
	ton := toa >> 4 & 0x07
	if ton == tonAlphanumeric {
		return "", pduErrorf("SMSC address: type of address 0x%02X is alphanumeric, not a number", toa)
	}
	count := 2 * len(v)
	if v[len(v)-1]>>4 == 0xF {
		count--
	}
	var buf [1 + maxAddressDigits]byte
	out := buf[:0]
	if ton == tonInternational {
		out = append(out, '+')
	}
	for i := range count {
		c := semiOctet(v, i)
		if c == 0xF {
			return "", pduErrorf("SMSC address: filler semi-octet (0xF) at digit %d", i+1)
		}
		out = append(out, semiOctetChars[c])
	}
	return string(out), nil
}

// decodeOA reads TP-OA (3GPP TS 23.040 9.1.2.5) and returns what follows.
func decodeOA(p []byte) (Address, []byte, error) {
	if len(p) < 2 {
		return Address{}, nil, pduErrorf("TP-OA: the PDU ends inside the address")
	}
	l, toa := int(p[0]), p[1]
	if l > maxAddressDigits {
		return Address{}, nil, pduErrorf("TP-OA: length %d semi-octets, at most %d", l, maxAddressDigits)
	}
	octets := (l + 1) / 2
	v := p[2:]
	if octets > len(v) {
		return Address{}, nil, pduErrorf("TP-OA: %d semi-octets need %d octets, only %d present", l, octets, len(v))
	}
	v, rest := v[:octets], v[octets:]
	if toa>>4&0x07 == tonAlphanumeric {
		// The length counts useful semi-octets of the packed septets.
		var codes [maxAlphaSeptets]byte
		n := l * 4 / 7
		unpackSeptets(codes[:n], v, 0)
		return Address{Value: gsmString(codes[:n])}, rest, nil
	}
	var buf [maxAddressDigits]byte
	for i := range l {
		c := semiOctet(v, i)
		if c == 0xF {
			return Address{}, nil, pduErrorf("TP-OA: filler semi-octet (0xF) at digit %d", i+1)
		}
		buf[i] = semiOctetChars[c]
	}
	return Address{Value: string(buf[:l]), Numeric: true}, rest, nil
}

// semiOctet is the i-th semi-octet of v: the low nibble comes first
// (3GPP TS 23.040 9.1.2.3).
func semiOctet(v []byte, i int) byte {
	if i%2 == 0 {
		return v[i/2] & 0x0F
	}
	return v[i/2] >> 4
}

// decodeDCS reads TP-DCS by the coding groups of 3GPP TS 23.038 4.
func decodeDCS(b byte) (DCS, bool, error) {
	switch b >> 4 {
	case 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7:
		// General data coding (00xx) and automatic deletion (01xx): bit 5
		// compressed, bit 4 says bits 1-0 are a class, bits 3-2 the alphabet.
		if b&0x20 != 0 {
			return 0, false, pduErrorf("TP-DCS: 0x%02X is compressed, which is unsupported", b)
		}
		class0 := b&0x10 != 0 && b&0x03 == 0
		switch b >> 2 & 0x03 {
		case 1:
			return DCSBinary, class0, nil
		case 2:
			return DCSUCS, class0, nil
		}
		return DCSGSM, class0, nil // 0, and reserved 3 read as the default alphabet
	case 0xE:
		return DCSUCS, false, nil // message waiting, store, UCS2
	case 0xF:
		// Data coding/message class: bit 2 is 8-bit data, bits 1-0 the class.
		class0 := b&0x03 == 0
		if b&0x04 != 0 {
			return DCSBinary, class0, nil
		}
		return DCSGSM, class0, nil
	}
	// 1000-1011 are reserved and read as the default alphabet; 1100 and
	// 1101 (message waiting, discard or store) use it.
	return DCSGSM, false, nil
}

// encodeDCS writes TP-DCS in the general data coding group, with class 0
// when asked.
func encodeDCS(dcs DCS, class0 bool) (byte, error) {
	var b byte
	switch dcs {
	case DCSGSM:
		b = 0x00
	case DCSUCS:
		b = 0x08
	case DCSBinary:
		b = 0x04
	default:
		return 0, pduErrorf("DCS: %s is not GSM, UCS or 8BIT", dcs)
	}
	if class0 {
		b |= 0x10
	}
	return b, nil
}

// decodeSCTS reads TP-SCTS (3GPP TS 23.040 9.2.3.11).
func decodeSCTS(b []byte) (time.Time, error) {
	var v [6]int
	for i := range v {
		lo, hi := b[i]&0x0F, b[i]>>4
		if lo > 9 || hi > 9 {
			return time.Time{}, pduErrorf("TP-SCTS: octet %d (0x%02X) is not two decimal semi-octets", i+1, b[i])
		}
		v[i] = int(lo)*10 + int(hi)
	}
	tens, units := b[6]&0x07, b[6]>>4
	if units > 9 {
		return time.Time{}, pduErrorf("TP-SCTS: time zone octet 0x%02X is not decimal", b[6])
	}
	q := int(tens)*10 + int(units)
	if b[6]&0x08 != 0 {
		q = -q
	}
	year, month, day, hour, minute, second := 2000+v[0], v[1], v[2], v[3], v[4], v[5]
	t := time.Date(year, time.Month(month), day, hour, minute, second, 0, sctsZones[q+79])
	// time.Date normalises (February 30 becomes March 2); a time stamp that
	// it changes is not a time.
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || t.Day() != day {
		return time.Time{}, pduErrorf("TP-SCTS: %d-%02d-%02d %02d:%02d:%02d is not a valid time", year, month, day, hour, minute, second)
	}
	return t, nil
}

// appendSCTS writes TP-SCTS in t's own zone.
func appendSCTS(b []byte, t time.Time) ([]byte, error) {
	_, off := t.Zone()
	if off%(15*60) != 0 || off/(15*60) < -79 || off/(15*60) > 79 {
		return nil, pduErrorf("SCTS: zone offset %ds is not a whole number of quarter hours within ±19:45", off)
	}
	if t.Nanosecond() != 0 {
		return nil, pduErrorf("SCTS: TP-SCTS holds whole seconds, not %s", t.Format(time.RFC3339Nano))
	}
	if y := t.Year(); y < 2000 || y > 2099 {
		return nil, pduErrorf("SCTS: TP-SCTS holds the years 2000-2099, not %d", y)
	}
	for _, v := range [...]int{t.Year() - 2000, int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second()} {
		b = append(b, byte(v/10)|byte(v%10)<<4)
	}
	q := off / (15 * 60)
	sign := byte(0)
	if q < 0 {
		q, sign = -q, 0x08
	}
	return append(b, byte(q/10)|sign|byte(q%10)<<4), nil
}

// decodeUserData reads TP-UDL and TP-UD (3GPP TS 23.040 9.2.3.16,
// 9.2.3.24) into d, whose DCS is known.
func decodeUserData(d *Deliver, udhi bool, udl int, ud []byte) error {
	need, unit := udl, "octets"
	if d.DCS == DCSGSM {
		if udl > GSMSingle {
			return pduErrorf("TP-UDL: %d septets, at most %d", udl, GSMSingle)
		}
		need, unit = (udl*7+7)/8, "septets"
	} else if udl > userDataOctets {
		return pduErrorf("TP-UDL: %d octets, at most %d", udl, userDataOctets)
	}
	if need > len(ud) {
		return pduErrorf("TP-UDL: %d %s need %d octets of TP-UD, only %d present", udl, unit, need, len(ud))
	}
	if need < len(ud) {
		return pduErrorf("TP-UD: %d octets after the %d that TP-UDL counts", len(ud)-need, need)
	}
	hdr := 0
	if udhi {
		if need == 0 {
			return pduErrorf("TP-UDHI: set, but TP-UD is empty")
		}
		hdr = int(ud[0]) + 1
		if hdr > need {
			return pduErrorf("UDH: UDHL %d overruns the %d octets of TP-UD", ud[0], need)
		}
		if err := decodeUDH(d, ud[1:hdr]); err != nil {
			return err
		}
	}
	switch d.DCS {
	case DCSGSM:
		// The septets start after fill bits that align the header to a
		// septet boundary.
		first := (hdr*8 + 6) / 7
		if first > udl {
			return pduErrorf("UDH: %d octets take %d septets, more than TP-UDL %d", hdr, first, udl)
		}
		var codes [GSMSingle]byte
		n := udl - first
		unpackSeptets(codes[:n], ud, first)
		d.Text = gsmString(codes[:n])
	case DCSUCS:
		text, err := ucsString(ud[hdr:])
		if err != nil {
			return err
		}
		d.Text = text
	case DCSBinary:
		if len(ud) > hdr {
			d.Data = append([]byte(nil), ud[hdr:]...)
		}
	}
	return nil
}

// decodeUDH reads the information elements of a user data header
// (3GPP TS 23.040 9.2.3.24), without its UDHL.
func decodeUDH(d *Deliver, h []byte) error {
	for len(h) > 0 {
		if len(h) < 2 {
			return pduErrorf("UDH: information element 0x%02X has no length octet", h[0])
		}
		iei, n := h[0], int(h[1])
		if 2+n > len(h) {
			return pduErrorf("UDH: information element 0x%02X of %d octets overruns the header", iei, n)
		}
		v := h[2 : 2+n]
		switch iei {
		case 0x00:
			if n != 3 {
				return pduErrorf("UDH: concatenation (IEI 0x00) has %d octets, want 3", n)
			}
			if c := (Concat{Ref: uint16(v[0]), Total: v[1], Seq: v[2]}); c.valid() {
				d.Concat = c
			}
		case 0x08:
			if n != 4 {
				return pduErrorf("UDH: concatenation (IEI 0x08) has %d octets, want 4", n)
			}
			if c := (Concat{Ref: uint16(v[0])<<8 | uint16(v[1]), Total: v[2], Seq: v[3], Wide: true}); c.valid() {
				d.Concat = c
			}
		case 0x05:
			if n != 4 {
				return pduErrorf("UDH: application port addressing (IEI 0x05) has %d octets, want 4", n)
			}
			d.DstPort = uint16(v[0])<<8 | uint16(v[1])
			d.SrcPort = uint16(v[2])<<8 | uint16(v[3])
		}
		h = h[2+n:]
	}
	return nil
}

// valid reports whether c names a part that exists: 23.040 9.2.3.24.1 has
// the receiver ignore a zero count and a sequence number of zero or past
// the count.
func (c Concat) valid() bool { return c.Total != 0 && c.Seq != 0 && c.Seq <= c.Total }

// appendUDH appends the user data header d needs (with its UDHL), nothing
// when it needs none: application port addressing, then concatenation.
func appendUDH(h []byte, d Deliver) ([]byte, error) {
	c := d.Concat
	if c != (Concat{}) {
		if !c.valid() {
			return nil, pduErrorf("Concat: part %d of %d; want 1 <= Seq <= Total", c.Seq, c.Total)
		}
		if !c.Wide && c.Ref > 0xFF {
			return nil, pduErrorf("Concat: reference %d needs Wide (IEI 0x08)", c.Ref)
		}
	}
	ports := d.DstPort != 0 || d.SrcPort != 0
	if !ports && c == (Concat{}) {
		return h, nil
	}
	start := len(h)
	h = append(h, 0)
	if ports {
		h = append(h, 0x05, 4, byte(d.DstPort>>8), byte(d.DstPort), byte(d.SrcPort>>8), byte(d.SrcPort))
	}
	switch {
	case c == (Concat{}):
	case c.Wide:
		h = append(h, 0x08, 4, byte(c.Ref>>8), byte(c.Ref), c.Total, c.Seq)
	default:
		h = append(h, 0x00, 3, byte(c.Ref), c.Total, c.Seq)
	}
	h[start] = byte(len(h) - start - 1)
	return h, nil
}

// appendSMSC writes the SMSC address information of 3GPP TS 27.005 3.1.
func appendSMSC(b []byte, smsc string) ([]byte, error) {
	if smsc == "" {
		return append(b, 0), nil
	}
	digits, intl := strings.CutPrefix(smsc, "+")
	toa := byte(0x81) // unknown type of number, ISDN numbering plan
	if intl {
		toa = 0x91
	}
	if digits == "" || len(digits) > maxAddressDigits {
		return nil, pduErrorf("SMSC: %q must have 1 to %d digits", smsc, maxAddressDigits)
	}
	b = append(b, byte(1+(len(digits)+1)/2), toa)
	return appendSemiOctets(b, digits, "SMSC")
}

// appendOA writes TP-OA: a numeric sender as an international number, an
// alphanumeric one packed with its length in useful semi-octets.
func appendOA(b []byte, s Address) ([]byte, error) {
	if s.Numeric {
		if len(s.Value) > maxAddressDigits {
			return nil, pduErrorf("Sender: %d digits, at most %d", len(s.Value), maxAddressDigits)
		}
		b = append(b, byte(len(s.Value)), 0x91)
		return appendSemiOctets(b, s.Value, "Sender")
	}
	var buf [maxAlphaSeptets]byte
	codes, err := gsmCodes(buf[:0], s.Value, maxAlphaSeptets, "Sender")
	if err != nil {
		return nil, err
	}
	n := len(codes)
	b = append(b, byte((7*n+3)/4), 0xD0)
	b = append(b, make([]byte, (7*n+7)/8)...)
	packSeptets(b[len(b)-(7*n+7)/8:], codes, 0)
	return b, nil
}

// appendSemiOctets writes digits two to an octet, low nibble first, with a
// 0xF filler after an odd count (3GPP TS 23.040 9.1.2.3).
func appendSemiOctets(b []byte, digits, field string) ([]byte, error) {
	for i := 0; i < len(digits); i += 2 {
		lo := strings.IndexByte(semiOctetChars, digits[i])
		hi := 0xF
		if i+1 < len(digits) {
			hi = strings.IndexByte(semiOctetChars, digits[i+1])
		}
		if lo < 0 || hi < 0 {
			return nil, pduErrorf("%s: %q holds a character other than 0-9 * # a b c", field, digits)
		}
		b = append(b, byte(lo)|byte(hi)<<4)
	}
	return b, nil
}

// appendUserData writes TP-UDL and TP-UD: the header, then the text or the
// data in d's coding.
func appendUserData(b []byte, d Deliver, hdr []byte) ([]byte, error) {
	if d.DCS == DCSBinary {
		if d.Text != "" {
			return nil, pduErrorf("Text: an 8BIT message carries Data, not Text")
		}
		if len(hdr)+len(d.Data) > userDataOctets {
			return nil, pduErrorf("Data: %d octets, %d fit after the header", len(d.Data), userDataOctets-len(hdr))
		}
		b = append(b, byte(len(hdr)+len(d.Data)))
		b = append(b, hdr...)
		return append(b, d.Data...), nil
	}
	if len(d.Data) > 0 {
		return nil, pduErrorf("Data: a %s message carries Text, not Data", d.DCS)
	}
	if !utf8.ValidString(d.Text) {
		return nil, pduErrorf("Text: not valid UTF-8")
	}
	if d.DCS == DCSUCS {
		units := 0
		for _, r := range d.Text {
			units += utf16.RuneLen(r)
		}
		if len(hdr)+2*units > userDataOctets {
			return nil, pduErrorf("Text: %d UTF-16 units, %d fit after the header", units, (userDataOctets-len(hdr))/2)
		}
		b = append(b, byte(len(hdr)+2*units))
		b = append(b, hdr...)
		for _, r := range d.Text {
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				b = append(b, byte(r1>>8), byte(r1), byte(r2>>8), byte(r2))
			} else {
				b = append(b, byte(r>>8), byte(r))
			}
		}
		return b, nil
	}
	first := (len(hdr)*8 + 6) / 7 // septets the header and its fill bits take
	var buf [GSMSingle]byte
	codes, err := gsmCodes(buf[:0], d.Text, GSMSingle-first, "Text")
	if err != nil {
		return nil, err
	}
	udl := first + len(codes)
	n := (7*udl + 7) / 8
	b = append(b, byte(udl))
	b = append(b, make([]byte, n)...)
	ud := b[len(b)-n:]
	copy(ud, hdr)
	packSeptets(ud, codes, first)
	return b, nil
}

// gsmCodes appends the septets of text (an extension character as escape
// + code) to codes, refusing characters outside the alphabet and more than
// limit septets.
func gsmCodes(codes []byte, text string, limit int, field string) ([]byte, error) {
	for _, r := range text {
		s, ok := gsmFromRune(r)
		if !ok {
			return nil, pduErrorf("%s: %q is not in the GSM 7-bit alphabet", field, r)
		}
		if s.cost == 2 {
			codes = append(codes, escSeptet)
		}
		codes = append(codes, s.code)
		if len(codes) > limit {
			return nil, pduErrorf("%s: more than %d septets", field, limit)
		}
	}
	return codes, nil
}

// packSeptets writes codes into ud as septets first, first+1, …, least
// significant bit first (3GPP TS 23.038 6.1.2.1.1). ud is zeroed and long
// enough.
func packSeptets(ud, codes []byte, first int) {
	for i, c := range codes {
		bit := 7 * (first + i)
		k, s := bit>>3, uint(bit&7)
		ud[k] |= c << s
		if s > 1 {
			ud[k+1] |= c >> (8 - s)
		}
	}
}

// unpackSeptets reads len(codes) septets from ud starting at septet first;
// ud holds at least 7*(first+len(codes)) bits.
func unpackSeptets(codes, ud []byte, first int) {
	for i := range codes {
		bit := 7 * (first + i)
		k, s := bit>>3, uint(bit&7)
		v := ud[k] >> s
		if s > 1 {
			v |= ud[k+1] << (8 - s)
		}
		codes[i] = v & 0x7F
	}
}

// gsmString reads septet codes as text (3GPP TS 23.038 6.2.1, 6.2.1.1).
func gsmString(codes []byte) string {
	// A septet is at most two octets of UTF-8: the default table stays below
	// U+0800 and an extension character takes two septets.
	var buf [2 * GSMSingle]byte
	out := buf[:0]
	for i := 0; i < len(codes); i++ {
		r := gsmDefaultRunes[codes[i]]
		switch {
		case codes[i] != escSeptet:
		case i+1 == len(codes):
			r = ' ' // a lone escape at the end shows as a space
		default:
			i++
			if r = gsmExtensionRunes[codes[i]]; r == 0 {
				r = gsmDefaultRunes[codes[i]]
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

// ucsString reads UTF-16 big-endian text, joining surrogate pairs.
func ucsString(b []byte) (string, error) {
	if len(b)%2 != 0 {
		return "", pduErrorf("TP-UD: UCS-2 text of %d octets is not a whole number of 16-bit units", len(b))
	}
	// A unit is at most three octets of UTF-8, a surrogate pair four.
	var buf [3 * userDataOctets / 2]byte
	out := buf[:0]
	for i := 0; i < len(b); i += 2 {
		r := rune(b[i])<<8 | rune(b[i+1])
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return "", pduErrorf("TP-UD: lone low surrogate 0x%04X at UTF-16 unit %d", r, i/2+1)
		case r >= 0xD800 && r <= 0xDBFF:
			var r2 rune
			if i+3 < len(b) {
				r2 = rune(b[i+2])<<8 | rune(b[i+3])
			}
			if r2 < 0xDC00 || r2 > 0xDFFF {
				return "", pduErrorf("TP-UD: lone high surrogate 0x%04X at UTF-16 unit %d", r, i/2+1)
			}
			r = utf16.DecodeRune(r, r2)
			i += 2
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out), nil
}
