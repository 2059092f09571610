package smppserver

import (
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// The data_coding values the server takes (SMPP 3.4 5.2.19): the default
// alphabet as GSM 03.38 septets one an octet, UCS-2, and each in message
// class 0 (a flash message, GSM 03.38 coding group 0001xxxx), as package
// sms/smpp sends them.
const (
	codingGSM       byte = 0x00
	codingUCS2      byte = 0x08
	codingGSMFlash  byte = 0x10
	codingUCS2Flash byte = 0x18
	// IA5 (ASCII, as SMPP 3.4 defines it) and ISO 8859-1, which some
	// ESMEs send by default: read as text and sent in the GSM alphabet
	// when every character is in it, else in UCS-2. (The npm smpp
	// package labels its GSM codes 1: they agree with ASCII on letters,
	// digits, space and most punctuation, not on '@', '$' or '_'.)
	codingIA5    byte = 0x01
	codingLatin1 byte = 0x03
)

// message is what a submit_sm or data_sm says, read and checked: its
// user data without the header, and how it ties into a long message.
type message struct {
	source, dest       string
	coding             byte
	registeredDelivery byte // the receipts asked for (receiptMask)
	data               []byte
	concat             *concat // nil: the whole message

	validUntil time.Time // validity_period's end; zero: the account's validity
}

// concat ties a part to its message: the reference, the number of parts
// and this part's number (1..total).
type concat struct {
	ref        uint16
	total, seq uint8
}

// refusal is a request the server answers with a status of its own,
// before the gateway sees it.
type refusal struct {
	status pdu.Status
	reason string
}

func refuse(st pdu.Status, reason string) *refusal { return &refusal{st, reason} }

// readSubmit reads a submit_sm received at now.
func readSubmit(b *pdu.SubmitSM, now time.Time) (message, *refusal) {
	m := b.ShortMessage
	validUntil, err := pdu.ParseTime(m.ValidityPeriod, now)
	switch {
	case m.ESMClass&pdu.ESMClassReceiptMask != 0 || m.ESMClass&0x80 != 0:
		return message{}, refuse(pdu.ESME_RINVESMCLASS, "esm_class asks for a message type or a reply path the server does not send")
	case m.Priority > 3:
		return message{}, refuse(pdu.ESME_RINVPRTFLG, "priority_flag above 3")
	case m.ScheduleDeliveryTime != "":
		return message{}, refuse(pdu.ESME_RINVSCHED, "scheduled delivery is not offered: send when the message is due")
	case err != nil:
		return message{}, refuse(pdu.ESME_RINVEXPIRY, "validity_period: "+err.Error())
	case !validUntil.IsZero() && !validUntil.After(now):
		return message{}, refuse(pdu.ESME_RINVEXPIRY, "validity_period ended before the message came")
	case m.ReplaceIfPresent != 0:
		return message{}, refuse(pdu.ESME_RINVREPFLAG, "replace_if_present is not offered")
	case m.DefaultMsgID != 0:
		return message{}, refuse(pdu.ESME_RINVDFTMSGID, "there are no predefined messages")
	}
	data := m.Message
	if payload, ok := m.TLVs.Get(pdu.TagMessagePayload); ok {
		if len(data) > 0 {
			return message{}, refuse(pdu.ESME_ROPTPARNOTALLWD, "short_message and message_payload both hold the message")
		}
		data = payload
	}
	msg, r := readMessage(m.Source.Addr, m.Dest.Addr, m.ESMClass, m.RegisteredDelivery, m.DataCoding, data, m.TLVs)
	msg.validUntil = validUntil
	return msg, r
}

// readDataSM reads a data_sm: its message is in message_payload.
func readDataSM(b *pdu.DataSM) (message, *refusal) {
	if b.ESMClass&pdu.ESMClassReceiptMask != 0 || b.ESMClass&0x80 != 0 {
		return message{}, refuse(pdu.ESME_RINVESMCLASS, "esm_class asks for a message type or a reply path the server does not send")
	}
	data, ok := b.TLVs.Get(pdu.TagMessagePayload)
	if !ok {
		return message{}, refuse(pdu.ESME_RMISSINGOPTPARAM, "data_sm carries its message in message_payload")
	}
	return readMessage(b.Source.Addr, b.Dest.Addr, b.ESMClass, b.RegisteredDelivery, b.DataCoding, data, b.TLVs)
}

func readMessage(source, dest string, esmClass, rd, coding byte, data []byte, tlvs pdu.TLVs) (message, *refusal) {
	m := message{source: source, dest: dest, coding: coding, registeredDelivery: rd}
	switch coding {
	case codingGSM, codingUCS2, codingGSMFlash, codingUCS2Flash, codingIA5, codingLatin1:
	default:
		return message{}, refuse(pdu.ESME_RSUBMITFAIL, "data_coding is none of 0 (GSM 03.38) and 8 (UCS-2), in class 0 or not, 1 (ASCII) and 3 (Latin-1)")
	}
	if rd&^0x1F != 0 {
		return message{}, refuse(pdu.ESME_RINVREGDLVFLG, "registered_delivery sets reserved bits")
	}
	var r *refusal
	if esmClass&pdu.ESMClassUDHI != 0 {
		if data, m.concat, r = readUDH(data); r != nil {
			return message{}, r
		}
	}
	if sar, r := readSAR(tlvs); r != nil {
		return message{}, r
	} else if sar != nil && m.concat == nil {
		m.concat = sar
	}
	if m.concat != nil && m.concat.total == 1 {
		m.concat = nil // one part of one: the whole message
	}
	m.data = data
	return m, nil
}

// readUDH splits a user data header from the user data: concatenation
// with an 8-bit (IEI 0x00) or 16-bit (IEI 0x08) reference is read, and
// any other element refused, as the gateway sends text only.
func readUDH(ud []byte) ([]byte, *concat, *refusal) {
	if len(ud) == 0 || int(ud[0])+1 > len(ud) {
		return nil, nil, refuse(pdu.ESME_RINVESMCLASS, "esm_class says a user data header the message does not hold")
	}
	h, rest := ud[1:1+int(ud[0])], ud[1+int(ud[0]):]
	var c *concat
	for len(h) > 0 {
		if len(h) < 2 || int(h[1])+2 > len(h) {
			return nil, nil, refuse(pdu.ESME_RSUBMITFAIL, "the user data header's elements overrun it")
		}
		iei, v := h[0], h[2:2+int(h[1])]
		h = h[2+int(h[1]):]
		switch {
		case iei == 0x00 && len(v) == 3:
			c = &concat{ref: uint16(v[0]), total: v[1], seq: v[2]}
		case iei == 0x08 && len(v) == 4:
			c = &concat{ref: uint16(v[0])<<8 | uint16(v[1]), total: v[2], seq: v[3]}
		default:
			return nil, nil, refuse(pdu.ESME_RSUBMITFAIL, "the user data header holds an element other than concatenation")
		}
	}
	if c != nil && !c.valid() {
		return nil, nil, refuse(pdu.ESME_RSUBMITFAIL, "the concatenation's part number is 0 or above its total")
	}
	return rest, c, nil
}

// readSAR reads sar_msg_ref_num, sar_total_segments and
// sar_segment_seqnum: all three or none.
func readSAR(tlvs pdu.TLVs) (*concat, *refusal) {
	ref, okRef := tlvs.Uint(pdu.TagSarMsgRefNum)
	total, okTotal := tlvs.Uint(pdu.TagSarTotalSegments)
	seq, okSeq := tlvs.Uint(pdu.TagSarSegmentSeqnum)
	switch {
	case !okRef && !okTotal && !okSeq:
		return nil, nil
	case !okRef || !okTotal || !okSeq:
		return nil, refuse(pdu.ESME_RMISSINGOPTPARAM, "the SAR parameters go together: sar_msg_ref_num, sar_total_segments, sar_segment_seqnum")
	}
	c := &concat{ref: uint16(ref), total: uint8(total), seq: uint8(seq)}
	if !c.valid() {
		return nil, refuse(pdu.ESME_RINVOPTPARAMVAL, "sar_segment_seqnum is 0 or above sar_total_segments")
	}
	return c, nil
}

func (c *concat) valid() bool { return c.total > 0 && c.seq > 0 && c.seq <= c.total }

// submission is the whole message's user data as the gateway takes it:
// the text read from its coding.
func submission(m message, data []byte) (sms.Submission, error) {
	sub := sms.Submission{Type: sms.TypeText, Sender: m.source, Receiver: m.dest, Flash: m.coding&0x10 != 0, ValidUntil: m.validUntil}
	if sub.DLRMask = receiptMask(m.registeredDelivery); sub.DLRMask != nil {
		sub.DLRToBinds = true
	}
	var err error
	switch m.coding &^ 0x10 {
	case codingUCS2:
		sub.DCS = "UCS"
		sub.Text, err = gsm.TextOfUCS2(data)
	case codingIA5, codingLatin1:
		sub.Text, err = textOf8Bit(data, m.coding == codingLatin1)
		sub.DCS = "GSM"
		for _, r := range sub.Text {
			if !gsm.InAlphabet(r) {
				sub.DCS = "UCS"
				break
			}
		}
	default:
		sub.DCS = "GSM"
		sub.Text, err = gsm.TextOfCodes(data)
	}
	return sub, err
}

// receiptMask is the reports registered_delivery asks for, as the
// gateway's mask: its SMSC delivery receipt bits (0 and 1) ask for every
// final event (1; 3, which SMPP 3.4 reserves, is read as 1) or for
// failures only (2), and its intermediate notification bit (4) for each
// failed attempt the network retries (BUFFERED). The SME acknowledgement
// bits (2 and 3) ask for what no handset sends here: they are read and
// ignored. nil: no reports.
func receiptMask(rd byte) *int64 {
	var mask sms.DLRMask
	switch rd & 0x03 {
	case 1, 3:
		mask = sms.RecommendedDLRMask
	case 2:
		mask = sms.DLRMask(sms.EventUndelivered | sms.EventRejected)
	}
	if rd&0x10 != 0 {
		mask |= sms.DLRMask(sms.EventBuffered)
	}
	if mask == 0 {
		return nil
	}
	v := int64(mask)
	return &v
}

// textOf8Bit reads ASCII, or ISO 8859-1 when latin1, whose octets are the
// code points U+0000 to U+00FF; an octet above 0x7F in ASCII is bad
// content.
func textOf8Bit(data []byte, latin1 bool) (string, error) {
	r := make([]rune, len(data))
	for i, b := range data {
		if b > 0x7F && !latin1 {
			return "", msgkit.Errorf(msgkit.Invalid, gsm.CodeBadContent, "octet %d (0x%02X) is not ASCII", i+1, b)
		}
		r[i] = rune(b)
	}
	return string(r), nil
}
