package pdu

import (
	"encoding/binary"
	"fmt"
)

// Tag is an optional parameter's tag (SMPP 3.4 5.3.2).
type Tag uint16

// The optional parameters an ESME meets in practice.
const (
	TagDestAddrSubunit        Tag = 0x0005
	TagSourceAddrSubunit      Tag = 0x000D
	TagPayloadType            Tag = 0x0019
	TagAdditionalStatusInfo   Tag = 0x001D
	TagReceiptedMessageID     Tag = 0x001E
	TagMSMsgWaitFacilities    Tag = 0x0030
	TagUserMessageReference   Tag = 0x0204
	TagSourcePort             Tag = 0x020A
	TagDestinationPort        Tag = 0x020B
	TagSarMsgRefNum           Tag = 0x020C
	TagLanguageIndicator      Tag = 0x020D
	TagSarTotalSegments       Tag = 0x020E
	TagSarSegmentSeqnum       Tag = 0x020F
	TagSCInterfaceVersion     Tag = 0x0210
	TagNetworkErrorCode       Tag = 0x0423
	TagMessagePayload         Tag = 0x0424
	TagDeliveryFailureReason  Tag = 0x0425
	TagMoreMessagesToSend     Tag = 0x0426
	TagMessageState           Tag = 0x0427
	TagUSSDServiceOp          Tag = 0x0501
	TagAlertOnMessageDelivery Tag = 0x130C
	TagQOSTimeToLive          Tag = 0x0017
	TagSetDPF                 Tag = 0x0421
	TagMSAvailabilityStatus   Tag = 0x0422
	TagDisplayTime            Tag = 0x1201
	TagMSValidity             Tag = 0x1204
	TagPrivacyIndicator       Tag = 0x0201
	TagCallbackNum            Tag = 0x0381
	TagNumberOfMessages       Tag = 0x0304
	TagDPFResult              Tag = 0x0420
	TagSourceSubaddress       Tag = 0x0202
	TagDestSubaddress         Tag = 0x0203
	TagUserResponseCode       Tag = 0x0205
	TagSMSSignal              Tag = 0x1203
	TagItsReplyType           Tag = 0x1380
	TagItsSessionInfo         Tag = 0x1383
	TagDestNetworkType        Tag = 0x0006
	TagSourceNetworkType      Tag = 0x000E
	TagDestBearerType         Tag = 0x0007
	TagSourceBearerType       Tag = 0x000F
	TagDestTelematicsID       Tag = 0x0008
	TagSourceTelematicsID     Tag = 0x0010
	TagCallbackNumPresInd     Tag = 0x0302
	TagCallbackNumAtag        Tag = 0x0303
)

// fixedLen are the lengths the specification fixes for the parameters
// msgkit reads; a TLV of such a tag with another length is refused.
var fixedLen = map[Tag]int{
	TagSarMsgRefNum: 2, TagSarTotalSegments: 1, TagSarSegmentSeqnum: 1, TagSCInterfaceVersion: 1,
	TagMessageState: 1, TagNetworkErrorCode: 3, TagSourcePort: 2, TagDestinationPort: 2,
	TagUserMessageReference: 2, TagPayloadType: 1, TagDeliveryFailureReason: 1, TagMoreMessagesToSend: 1,
	TagLanguageIndicator: 1, TagMSMsgWaitFacilities: 1,
}

// TLV is an optional parameter: tag, and a value of at most 65,535
// octets.
type TLV struct {
	Tag   Tag
	Value []byte
}

// TLVs are a PDU's optional parameters, in the order sent.
type TLVs []TLV

// Get returns the value of the last parameter with tag t.
func (ts TLVs) Get(t Tag) ([]byte, bool) {
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Tag == t {
			return ts[i].Value, true
		}
	}
	return nil, false
}

// Uint returns the value of a parameter of 1, 2 or 4 octets as a number.
func (ts TLVs) Uint(t Tag) (uint32, bool) {
	v, ok := ts.Get(t)
	if !ok {
		return 0, false
	}
	switch len(v) {
	case 1:
		return uint32(v[0]), true
	case 2:
		return uint32(binary.BigEndian.Uint16(v)), true
	case 4:
		return binary.BigEndian.Uint32(v), true
	}
	return 0, false
}

// CString returns a C-Octet String parameter without its NUL (also
// accepted without one, as some SMSCs send receipted_message_id).
func (ts TLVs) CString(t Tag) (string, bool) {
	v, ok := ts.Get(t)
	if !ok {
		return "", false
	}
	if n := len(v); n > 0 && v[n-1] == 0 {
		v = v[:n-1]
	}
	return string(v), true
}

// U8, U16 and CStr make parameters.
func U8(t Tag, v uint8) TLV   { return TLV{t, []byte{v}} }
func U16(t Tag, v uint16) TLV { return TLV{t, binary.BigEndian.AppendUint16(nil, v)} }
func CStr(t Tag, s string) TLV {
	return TLV{t, append([]byte(s), 0)}
}

// NetworkErrorCode is the network_error_code parameter: the network type
// (1 ANSI-136, 2 IS-95, 3 GSM, ...) and its error code.
type NetworkErrorCode struct {
	Type byte
	Code uint16
}

// NetworkError reads network_error_code.
func (ts TLVs) NetworkError() (NetworkErrorCode, bool) {
	v, ok := ts.Get(TagNetworkErrorCode)
	if !ok || len(v) != 3 {
		return NetworkErrorCode{}, false
	}
	return NetworkErrorCode{Type: v[0], Code: binary.BigEndian.Uint16(v[1:])}, true
}

func appendTLVs(b []byte, cmd CommandID, ts TLVs) ([]byte, error) {
	for _, t := range ts {
		if len(t.Value) > 0xFFFF {
			return nil, &EncodeError{Command: cmd, Field: fmt.Sprintf("optional parameter 0x%04x", uint16(t.Tag)), Reason: fmt.Sprintf("%d octets, at most 65535", len(t.Value))}
		}
		if n, fixed := fixedLen[t.Tag]; fixed && len(t.Value) != n {
			return nil, &EncodeError{Command: cmd, Field: fmt.Sprintf("optional parameter 0x%04x", uint16(t.Tag)), Reason: fmt.Sprintf("%d octets, it has %d", len(t.Value), n)}
		}
		b = binary.BigEndian.AppendUint16(b, uint16(t.Tag))
		b = binary.BigEndian.AppendUint16(b, uint16(len(t.Value)))
		b = append(b, t.Value...)
	}
	return b, nil
}
