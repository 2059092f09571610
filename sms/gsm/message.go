package gsm

// DCS is the data coding of a message's parts.
type DCS uint8

// The data codings. DCSAuto is a request, never a result: splitting resolves
// it to DCSGSM or DCSUCS. DCSBinary (8-bit data) is what WAP push uses.
const (
	DCSAuto   DCS = iota // choose GSM when every character fits, else UCS
	DCSGSM               // GSM 03.38 default alphabet, 7-bit septets
	DCSUCS               // UCS-2 (UTF-16 code units), 16 bits each
	DCSBinary            // 8-bit data, one octet per unit
)

var dcsNames = [...]string{DCSAuto: "auto", DCSGSM: "GSM", DCSUCS: "UCS", DCSBinary: "8BIT"}

// String is the name as the bulk SMS interface spells it ("GSM", "UCS").
func (d DCS) String() string {
	if int(d) < len(dcsNames) {
		return dcsNames[d]
	}
	return "unknown"
}

// Per-message capacities in units of the coding (140 octets of user data).
const (
	MaxParts = 255 // an 8-bit concatenation reference counts parts 1..255

	GSMSingle = 160 // septets in a message without a UDH
	GSMPart   = 153 // septets in a part after a 6-octet concatenation UDH
	UCSSingle = 70  // UTF-16 units without a UDH
	UCSPart   = 67  // UTF-16 units after a 6-octet concatenation UDH

	// With a 16-bit concatenation reference (IEI 0x08) the header is
	// 7 octets: 56 bits, a septet boundary, so no fill bits.
	GSMPart16 = 152 // septets in a part after a 7-octet concatenation UDH
	UCSPart16 = 66  // UTF-16 units after a 7-octet concatenation UDH

	userDataOctets = 140
)

// RefWidth is the width of the concatenation reference a message's parts
// carry. The splitter writes 8-bit references (UDH); a network that ties
// parts by a 16-bit one (IEI 0x08, an element one octet longer) needs
// them split for it, one unit less a part.
type RefWidth uint8

// The widths.
const (
	Ref8  RefWidth = iota // IEI 0x00, 6-octet header: GSMPart, UCSPart
	Ref16                 // IEI 0x08, 7-octet header: GSMPart16, UCSPart16
)

func (w RefWidth) gsmPart() int {
	if w == Ref16 {
		return GSMPart16
	}
	return GSMPart
}

// UDH holds the user data header fields a part needs. A zero Total means the
// message is not concatenated; zero ports mean no application port
// addressing.
type UDH struct {
	Ref   uint8 // concatenation reference, the same in every part of a message
	Total uint8 // number of parts
	Seq   uint8 // this part's number, 1..Total

	DstPort uint16 // 16-bit application port addressing (WAP push: 2948)
	SrcPort uint16
}

// Empty reports whether the part needs no header at all.
func (u UDH) Empty() bool { return u.Total == 0 && u.DstPort == 0 && u.SrcPort == 0 }

// Len is the header's length in octets including its length octet, 0 when empty.
func (u UDH) Len() int {
	n := 0
	if u.DstPort != 0 || u.SrcPort != 0 {
		n += 6 // IEI 0x05, IEDL 4, two 16-bit ports
	}
	if u.Total != 0 {
		n += 5 // IEI 0x00, IEDL 3, ref, total, seq
	}
	if n == 0 {
		return 0
	}
	return n + 1
}

// Bytes encodes the header as it precedes the user data (3GPP TS 23.040
// 9.2.3.24): UDHL, then application port addressing (IEI 0x05) and
// concatenation with an 8-bit reference (IEI 0x00). Nil when empty.
func (u UDH) Bytes() []byte {
	n := u.Len()
	if n == 0 {
		return nil
	}
	b := make([]byte, 0, n)
	b = append(b, byte(n-1))
	if u.DstPort != 0 || u.SrcPort != 0 {
		b = append(b, 0x05, 0x04, byte(u.DstPort>>8), byte(u.DstPort), byte(u.SrcPort>>8), byte(u.SrcPort))
	}
	if u.Total != 0 {
		b = append(b, 0x00, 0x03, u.Ref, u.Total, u.Seq)
	}
	return b
}

// Part is one physical SMS of a message.
type Part struct {
	// Text is what this part shows on the phone: for DCSGSM the text as sent
	// (a requested ç travels as Ç), for DCSUCS exactly the customer's text.
	// Empty for DCSBinary.
	Text string
	// Data is the user data of a DCSBinary part (after its UDH); nil otherwise.
	Data []byte
	// Units is the part's length in its coding's units: septets for GSM (an
	// escaped character counts two), UTF-16 units for UCS, octets for binary.
	Units int
	UDH   UDH
}

// Message is a text or push content split into the physical SMS that a
// network carries.
type Message struct {
	DCS   DCS // never DCSAuto
	Parts []Part
}

// NumParts is the number of physical SMS, the unit of charging.
func (m Message) NumParts() int { return len(m.Parts) }
