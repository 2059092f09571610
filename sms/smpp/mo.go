package smpp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// MOError is why a mobile-originated deliver_sm cannot be read.
type MOError struct{ Reason string }

func (e *MOError) Error() string { return "smpp: mobile-originated message: " + e.Reason }

// InboundOf reads a deliver_sm that is no receipt (a message from a
// phone, mobile-originated) as the SMSC connection conn hands it over:
// its addresses, its text in its data_coding, and how it ties into a
// long message (a concatenation element of its user data header, 8-bit
// or 16-bit reference, or the sar_ parameters). packed says the SMSC
// packs GSM septets (Config.GSMPacked). The codings read: 0 (the GSM
// default alphabet), 1 (IA5, ASCII), 3 (Latin-1), 8 (UCS-2), each also in
// message class 0 to 3 (0x10-0x1B, 0xF0-0xF3). Binary codings, and a text
// that does not decode, are a *MOError: the message cannot be shown as
// text, and refusing it tells the SMSC so.
func InboundOf(d *pdu.DeliverSM, conn string, packed bool) (sms.Inbound, error) {
	m := d.ShortMessage
	in := sms.Inbound{Conn: conn, Source: strings.TrimPrefix(m.Source.Addr, "+"), Dest: strings.TrimPrefix(m.Dest.Addr, "+")}
	ud := m.Message
	if payload, ok := m.TLVs.Get(pdu.TagMessagePayload); ok && len(ud) == 0 {
		ud = payload
	}
	udhLen := 0
	if m.ESMClass&pdu.ESMClassUDHI != 0 {
		if len(ud) == 0 || int(ud[0])+1 > len(ud) {
			return sms.Inbound{}, &MOError{"esm_class says a user data header the message does not hold"}
		}
		udhLen = int(ud[0]) + 1
		if err := readConcat(ud[1:udhLen], &in); err != nil {
			return sms.Inbound{}, err
		}
	}
	if in.Total == 0 {
		ref, okRef := m.TLVs.Uint(pdu.TagSarMsgRefNum)
		total, okTotal := m.TLVs.Uint(pdu.TagSarTotalSegments)
		seq, okSeq := m.TLVs.Uint(pdu.TagSarSegmentSeqnum)
		if okRef && okTotal && okSeq {
			if total == 0 || total > 255 || seq == 0 || seq > total {
				return sms.Inbound{}, &MOError{fmt.Sprintf("sar_segment_seqnum %d of sar_total_segments %d", seq, total)}
			}
			in.Ref, in.Total, in.Seq = uint16(ref), uint8(total), uint8(seq)
		}
	}
	text, dcs, err := moText(m.DataCoding, ud, udhLen, packed)
	if err != nil {
		return sms.Inbound{}, err
	}
	in.Text, in.DCS = text, dcs
	return in, nil
}

// readConcat reads the concatenation element of a user data header h
// (without its length octet), if it has one; other elements are skipped.
func readConcat(h []byte, in *sms.Inbound) error {
	for len(h) > 0 {
		if len(h) < 2 || int(h[1])+2 > len(h) {
			return &MOError{"the user data header's elements overrun it"}
		}
		iei, v := h[0], h[2:2+int(h[1])]
		h = h[2+int(h[1]):]
		switch {
		case iei == 0x00 && len(v) == 3:
			in.Ref, in.Total, in.Seq = uint16(v[0]), v[1], v[2]
		case iei == 0x08 && len(v) == 4:
			in.Ref, in.Total, in.Seq = uint16(v[0])<<8|uint16(v[1]), v[2], v[3]
		default:
			continue
		}
		if in.Total > 0 && (in.Seq == 0 || in.Seq > in.Total) {
			return &MOError{fmt.Sprintf("part %d of a message of %d", in.Seq, in.Total)}
		}
	}
	return nil
}

// moText decodes user data ud, whose first udhLen octets are its header,
// in data_coding coding.
func moText(coding byte, ud []byte, udhLen int, packed bool) (string, gsm.DCS, error) {
	alphabet := coding
	switch {
	case coding&0xF0 == 0x10: // a message class: 0x10-0x1F
		alphabet = coding & 0x0C
	case coding&0xF0 == 0xF0: // data coding/message class: GSM or 8-bit data
		alphabet = coding & 0x04
	}
	body := ud[udhLen:]
	var text string
	var err error
	switch alphabet {
	case 0x00:
		if packed {
			text, err = gsm.TextOfCodes(unpack(ud, udhLen))
		} else {
			text, err = gsm.TextOfCodes(body)
		}
	case 0x01:
		for _, c := range body {
			if c >= 0x80 {
				return "", 0, &MOError{"an IA5 text holds an octet above 127"}
			}
		}
		text = string(body)
	case 0x03:
		var b strings.Builder
		for _, c := range body {
			b.WriteRune(rune(c))
		}
		text = b.String()
	case 0x08:
		text, err = gsm.TextOfUCS2(body)
		if err == nil {
			return text, gsm.DCSUCS, nil
		}
	default:
		return "", 0, &MOError{fmt.Sprintf("data_coding 0x%02x is not a text", coding)}
	}
	if err != nil || !utf8.ValidString(text) {
		return "", 0, &MOError{fmt.Sprintf("the text does not decode in data_coding 0x%02x: %v", coding, err)}
	}
	for _, r := range text {
		if !gsm.InAlphabet(r) {
			return text, gsm.DCSUCS, nil
		}
	}
	return text, gsm.DCSGSM, nil
}

// unpack reads the GSM septets packed in ud after its header of udhLen
// octets, which the fill bits round up to a septet boundary. When the
// octets hold a septet more than they need to and it is 0 (padding, not
// '@'), it is dropped.
func unpack(ud []byte, udhLen int) []byte {
	n := len(ud) * 8 / 7
	skip := (udhLen*8 + 6) / 7
	out := make([]byte, 0, max(n-skip, 0))
	for i := skip; i < n; i++ {
		bit := i * 7
		v := uint16(ud[bit/8]) >> (bit % 8)
		if bit%8 > 1 && bit/8+1 < len(ud) {
			v |= uint16(ud[bit/8+1]) << (8 - bit%8)
		}
		out = append(out, byte(v&0x7F))
	}
	if len(ud)*8%7 == 0 && len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}
