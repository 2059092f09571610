package smpp

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"time"
	"unicode/utf16"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// Concat is how the parts of a long message say that they belong
// together.
type Concat uint8

// The concatenation methods: a user data header with an 8-bit reference
// (IEI 0x00) or a 16-bit one (IEI 0x08), or the SAR optional parameters
// (sar_msg_ref_num, sar_total_segments, sar_segment_seqnum).
const (
	ConcatUDH8 Concat = iota
	ConcatUDH16
	ConcatSAR
)

// The data_coding values the client sends (SMPP 3.4 5.2.19): the SMSC's
// default alphabet taken as GSM 03.38, 8-bit data, UCS-2; a flash
// message is the same coding in message class 0 (the GSM 03.38 data
// coding groups 0001xxxx).
const (
	CodingGSM    byte = 0x00
	CodingBinary byte = 0x04
	CodingUCS2   byte = 0x08
	codingClass0 byte = 0x10
)

// submitOf makes the submit_sm of a part: its addresses, the coding, the
// user data header as the connection concatenates, the text in GSM
// septets (one an octet, or packed) or UCS-2, a receipt asked for, and
// the validity period as an absolute UTC time.
func (c *Client) submitOf(p sms.OutboundPart) (*pdu.SubmitSM, error) {
	sm := &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		ServiceType:        c.cfg.ServiceType,
		Source:             sourceAddr(p.Sender),
		Dest:               pdu.Address{TON: 1, NPI: 1, Addr: p.Receiver.Digits()},
		RegisteredDelivery: pdu.RegisteredDeliveryAll,
	}}
	if !p.ExpiresAt.IsZero() {
		sm.ValidityPeriod = absoluteTime(p.ExpiresAt)
	}
	udh := p.UDH
	var hdr []byte
	switch {
	case udh.Total > 1 && c.cfg.Concat == ConcatSAR:
		ref := c.refs.ref(sm.Dest.Addr, p.MsgID)
		sm.TLVs = pdu.TLVs{pdu.U16(pdu.TagSarMsgRefNum, ref), pdu.U8(pdu.TagSarTotalSegments, udh.Total), pdu.U8(pdu.TagSarSegmentSeqnum, udh.Seq)}
		udh.Total, udh.Seq, udh.Ref = 0, 0, 0
		hdr = udh.Bytes()
	case udh.Total > 1 && c.cfg.Concat == ConcatUDH16:
		total, seq := udh.Total, udh.Seq
		udh.Total, udh.Seq, udh.Ref = 0, 0, 0
		ports := udh.Bytes()
		ies := []byte{}
		if len(ports) > 0 {
			ies = append(ies, ports[1:]...)
		}
		ref := c.refs.ref(sm.Dest.Addr, p.MsgID)
		ies = append(ies, 0x08, 0x04, byte(ref>>8), byte(ref), total, seq)
		hdr = append([]byte{byte(len(ies))}, ies...)
	case udh.Total > 1:
		udh.Ref = uint8(c.refs.ref(sm.Dest.Addr, p.MsgID))
		hdr = udh.Bytes()
	case udh.Total == 1:
		udh.Total, udh.Seq, udh.Ref = 0, 0, 0 // one part needs no concatenation
		hdr = udh.Bytes()
	default:
		hdr = udh.Bytes()
	}
	if len(hdr) > 0 {
		sm.ESMClass |= pdu.ESMClassUDHI
	}
	var air int // octets of user data on the air interface
	switch p.DCS {
	case gsm.DCSUCS:
		sm.DataCoding = CodingUCS2
		msg := append([]byte(nil), hdr...)
		for _, u := range utf16.Encode([]rune(p.Text)) {
			msg = binary.BigEndian.AppendUint16(msg, u)
		}
		sm.Message = msg
		air = len(msg)
	case gsm.DCSBinary:
		sm.DataCoding = CodingBinary
		sm.Message = append(append([]byte(nil), hdr...), p.Data...)
		air = len(sm.Message)
	default:
		codes, err := gsm.AppendCodes(nil, p.Text)
		if err != nil {
			return nil, err
		}
		if c.cfg.GSMPacked {
			sm.Message = gsm.Pack(hdr, codes)
		} else {
			sm.Message = append(append([]byte(nil), hdr...), codes...)
		}
		air = airOctetsGSM(len(hdr), len(codes))
	}
	if air > maxUserData {
		return nil, fmt.Errorf("the part takes %d octets of user data with its %d-octet header, more than %d (a 16-bit reference needs parts split for it: sms.GatewayOptions.RefWidth)", air, len(hdr), maxUserData)
	}
	if p.Flash {
		sm.DataCoding |= codingClass0
	}
	if len(sm.Message) > pdu.MaxShortMessage {
		sm.TLVs = append(sm.TLVs, pdu.TLV{Tag: pdu.TagMessagePayload, Value: sm.Message})
		sm.Message = nil
	}
	return sm, nil
}

// maxUserData is the user data an SMS carries on the air interface
// (3GPP TS 23.040 9.2.3.16): every part must fit it with its header.
const maxUserData = 140

// airOctetsGSM is what hdr octets of header and n septets take on the air
// interface, whether the SMSC gets them packed or one an octet: the
// header, fill bits up to a septet boundary, the septets packed.
func airOctetsGSM(hdr, n int) int {
	return (7*((8*hdr+6)/7+n) + 7) / 8
}

// RefWidth is the width of the concatenation reference this connection
// gives a long message's parts, for splitting them to fit
// (sms.GatewayOptions.RefWidth): 16 bits with ConcatUDH16, whose header
// is an octet longer; 8 otherwise (SAR puts its reference outside the
// user data).
func (c Config) RefWidth() gsm.RefWidth {
	if c.Concat == ConcatUDH16 {
		return gsm.Ref16
	}
	return gsm.Ref8
}

// sourceAddr is the sender's TON and NPI: alphanumeric (5, 0); a number
// of 7 digits or more international (1, 1); a shorter one a network's
// short code (3, 0).
func sourceAddr(s sms.Sender) pdu.Address {
	switch {
	case !s.Numeric:
		return pdu.Address{TON: 5, NPI: 0, Addr: s.Value}
	case len(s.Value) >= 7:
		return pdu.Address{TON: 1, NPI: 1, Addr: s.Value}
	}
	return pdu.Address{TON: 3, NPI: 0, Addr: s.Value}
}

// absoluteTime is t as SMPP 3.4's absolute time format (7.1.1),
// YYMMDDhhmmsstnnp in UTC: tenths 0, offset 00 quarter hours, '+'.
func absoluteTime(t time.Time) string {
	return t.UTC().Format("060102150405") + "000+"
}

// ref16 is a hash of a message's id: where refTable starts counting a
// destination's references.
func ref16(id sms.MessageID) uint16 {
	h := fnv.New32a()
	h.Write([]byte(id))
	s := h.Sum32()
	return uint16(s ^ s>>16)
}

// errEncode is a part the client cannot put into a submit_sm.
func errEncode(err error) error {
	return &sms.Refusal{Code: sms.DLRSupplierRejected, Reason: fmt.Sprintf("smpp: the part cannot be encoded: %v", err)}
}
