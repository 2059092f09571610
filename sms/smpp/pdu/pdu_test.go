package pdu_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// cmpOpts compares PDUs: a decoded empty short_message or parameter list
// is the same as none.
var cmpOpts = []cmp.Option{cmpopts.EquateEmpty()}

// hx reads hexadecimal octets written field by field; spaces are ignored.
func hx(fields ...string) []byte {
	s := strings.ReplaceAll(strings.Join(fields, ""), " ", "")
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(fmt.Sprintf("bad test vector %q: %v", s, err))
	}
	return b
}

type vector struct {
	name string
	raw  []byte
	pdu  pdu.PDU
}

// vectors are PDUs written out octet by octet as SMPP 3.4 chapter 4 lays
// out each command: the 16-octet header (section 3.2), the mandatory
// parameters in order, then the optional parameters as tag, length and
// value (section 5.3).
var vectors = []vector{
	{
		name: "bind_transmitter",
		raw: hx(
			"0000002f",           // command_length 47
			"00000002",           // command_id bind_transmitter
			"00000000",           // command_status
			"00000001",           // sequence_number 1
			"534d50503354455354", // system_id "SMPP3TEST"
			"00",                 //   its NUL
			"7365637265743038",   // password "secret08"
			"00",                 //   its NUL
			"5355424d495431",     // system_type "SUBMIT1"
			"00",                 //   its NUL
			"34",                 // interface_version 3.4
			"01",                 // addr_ton international
			"01",                 // addr_npi ISDN
			"00",                 // address_range ""
		),
		pdu: pdu.PDU{Seq: 1, Body: &pdu.Bind{
			Mode: pdu.Transmitter, SystemID: "SMPP3TEST", Password: "secret08", SystemType: "SUBMIT1",
			Version: pdu.InterfaceVersion, Range: pdu.Address{TON: 1, NPI: 1},
		}},
	},
	{
		name: "bind_receiver",
		raw: hx(
			"00000024",   // command_length 36
			"00000001",   // command_id bind_receiver
			"00000000",   // command_status
			"00000002",   // sequence_number 2
			"52454356",   // system_id "RECV"
			"00",         //   its NUL
			"70617373",   // password "pass"
			"00",         //   its NUL
			"00",         // system_type ""
			"34",         // interface_version 3.4
			"01",         // addr_ton international
			"01",         // addr_npi ISDN
			"5e34343737", // address_range "^4477"
			"00",         //   its NUL
		),
		pdu: pdu.PDU{Seq: 2, Body: &pdu.Bind{
			Mode: pdu.Receiver, SystemID: "RECV", Password: "pass",
			Version: pdu.InterfaceVersion, Range: pdu.Address{TON: 1, NPI: 1, Addr: "^4477"},
		}},
	},
	{
		name: "bind_transceiver",
		raw: hx(
			"00000027",         // command_length 39
			"00000009",         // command_id bind_transceiver
			"00000000",         // command_status
			"00000003",         // sequence_number 3
			"65736d652d747278", // system_id "esme-trx"
			"00",               //   its NUL
			"7365637265743038", // password "secret08"
			"00",               //   its NUL
			"00",               // system_type ""
			"34",               // interface_version 3.4
			"00",               // addr_ton unknown
			"00",               // addr_npi unknown
			"00",               // address_range ""
		),
		pdu: pdu.PDU{Seq: 3, Body: &pdu.Bind{
			Mode: pdu.Transceiver, SystemID: "esme-trx", Password: "secret08", Version: pdu.InterfaceVersion,
		}},
	},
	{
		name: "bind_transmitter_resp",
		raw: hx(
			"00000015", // command_length 21
			"80000002", // command_id bind_transmitter_resp
			"00000000", // command_status ESME_ROK
			"00000001", // sequence_number 1
			"534d5343", // system_id "SMSC"
			"00",       //   its NUL
		),
		pdu: pdu.PDU{Seq: 1, Body: &pdu.BindResp{Mode: pdu.Transmitter, SystemID: "SMSC"}},
	},
	{
		name: "bind_receiver_resp with sc_interface_version",
		raw: hx(
			"0000001a", // command_length 26
			"80000001", // command_id bind_receiver_resp
			"00000000", // command_status ESME_ROK
			"00000002", // sequence_number 2
			"534d5343", // system_id "SMSC"
			"00",       //   its NUL
			"0210",     // tag sc_interface_version
			"0001",     //   length 1
			"34",       //   value 3.4
		),
		pdu: pdu.PDU{Seq: 2, Body: &pdu.BindResp{
			Mode: pdu.Receiver, SystemID: "SMSC",
			TLVs: pdu.TLVs{{Tag: pdu.TagSCInterfaceVersion, Value: []byte{0x34}}},
		}},
	},
	{
		name: "bind_transceiver_resp with sc_interface_version",
		raw: hx(
			"0000001a", // command_length 26
			"80000009", // command_id bind_transceiver_resp
			"00000000", // command_status ESME_ROK
			"00000003", // sequence_number 3
			"534d5343", // system_id "SMSC"
			"00",       //   its NUL
			"0210",     // tag sc_interface_version
			"0001",     //   length 1
			"34",       //   value 3.4
		),
		pdu: pdu.PDU{Seq: 3, Body: &pdu.BindResp{
			Mode: pdu.Transceiver, SystemID: "SMSC",
			TLVs: pdu.TLVs{{Tag: pdu.TagSCInterfaceVersion, Value: []byte{0x34}}},
		}},
	},
	{
		name: "bind_transceiver_resp",
		raw: hx(
			"00000015", // command_length 21
			"80000009", // command_id bind_transceiver_resp
			"00000000", // command_status ESME_ROK
			"00000007", // sequence_number 7
			"534d5343", // system_id "SMSC"
			"00",       //   its NUL
		),
		pdu: pdu.PDU{Seq: 7, Body: &pdu.BindResp{Mode: pdu.Transceiver, SystemID: "SMSC"}},
	},
	{
		// SMPP 3.4 section 4.1.2: no body when command_status is not 0.
		name: "bind_transmitter_resp refused, no body",
		raw: hx(
			"00000010", // command_length 16
			"80000002", // command_id bind_transmitter_resp
			"0000000e", // command_status ESME_RINVPASWD
			"00000001", // sequence_number 1
		),
		pdu: pdu.PDU{Status: pdu.ESME_RINVPASWD, Seq: 1, Body: &pdu.BindResp{Mode: pdu.Transmitter}},
	},
	{
		name: "unbind",
		raw: hx(
			"00000010", // command_length 16
			"00000006", // command_id unbind
			"00000000", // command_status
			"00000004", // sequence_number 4
		),
		pdu: pdu.PDU{Seq: 4, Body: &pdu.Empty{ID: pdu.CmdUnbind}},
	},
	{
		name: "unbind_resp",
		raw: hx(
			"00000010", // command_length 16
			"80000006", // command_id unbind_resp
			"00000000", // command_status ESME_ROK
			"00000004", // sequence_number 4
		),
		pdu: pdu.PDU{Seq: 4, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}},
	},
	{
		name: "enquire_link",
		raw: hx(
			"00000010", // command_length 16
			"00000015", // command_id enquire_link
			"00000000", // command_status
			"00000005", // sequence_number 5
		),
		pdu: pdu.PDU{Seq: 5, Body: &pdu.Empty{ID: pdu.CmdEnquireLink}},
	},
	{
		name: "enquire_link_resp",
		raw: hx(
			"00000010", // command_length 16
			"80000015", // command_id enquire_link_resp
			"00000000", // command_status ESME_ROK
			"7fffffff", // sequence_number 0x7fffffff, the highest
		),
		pdu: pdu.PDU{Seq: 0x7fffffff, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}},
	},
	{
		name: "generic_nack",
		raw: hx(
			"00000010", // command_length 16
			"80000000", // command_id generic_nack
			"00000003", // command_status ESME_RINVCMDID
			"00000009", // sequence_number 9
		),
		pdu: pdu.PDU{Status: pdu.ESME_RINVCMDID, Seq: 9, Body: &pdu.Empty{ID: pdu.CmdGenericNack}},
	},
	{
		name: "submit_sm GSM text",
		raw: hx(
			"0000003e",                 // command_length 62
			"00000004",                 // command_id submit_sm
			"00000000",                 // command_status
			"0000000a",                 // sequence_number 10
			"00",                       // service_type ""
			"05",                       // source_addr_ton alphanumeric
			"00",                       // source_addr_npi unknown
			"4d73674b6974",             // source_addr "MsgKit"
			"00",                       //   its NUL
			"01",                       // dest_addr_ton international
			"01",                       // dest_addr_npi ISDN
			"343437373030393030313233", // destination_addr "447700900123"
			"00",                       //   its NUL
			"00",                       // esm_class
			"00",                       // protocol_id
			"00",                       // priority_flag
			"00",                       // schedule_delivery_time ""
			"00",                       // validity_period ""
			"01",                       // registered_delivery: a receipt
			"00",                       // replace_if_present_flag
			"00",                       // data_coding SMSC default alphabet
			"00",                       // sm_default_msg_id
			"0b",                       // sm_length 11
			"48656c6c6f20776f726c64",   // short_message "Hello world"
		),
		pdu: pdu.PDU{Seq: 10, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
			Source:             pdu.Address{TON: 5, Addr: "MsgKit"},
			Dest:               pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			RegisteredDelivery: pdu.RegisteredDeliveryAll,
			Message:            []byte("Hello world"),
		}}},
	},
	{
		name: "submit_sm UCS-2 with a user data header",
		raw: hx(
			"0000003d",                 // command_length 61
			"00000004",                 // command_id submit_sm
			"00000000",                 // command_status
			"0000000b",                 // sequence_number 11
			"00",                       // service_type ""
			"05",                       // source_addr_ton alphanumeric
			"00",                       // source_addr_npi unknown
			"4d73674b6974",             // source_addr "MsgKit"
			"00",                       //   its NUL
			"01",                       // dest_addr_ton international
			"01",                       // dest_addr_npi ISDN
			"343437373030393030313233", // destination_addr "447700900123"
			"00",                       //   its NUL
			"40",                       // esm_class UDHI
			"00",                       // protocol_id
			"00",                       // priority_flag
			"00",                       // schedule_delivery_time ""
			"00",                       // validity_period ""
			"01",                       // registered_delivery: a receipt
			"00",                       // replace_if_present_flag
			"08",                       // data_coding UCS-2
			"00",                       // sm_default_msg_id
			"0a",                       // sm_length 10
			"05",                       // short_message: UDH length 5
			"00 03 2a 02 01",           //   concatenation, 8-bit reference 0x2a, part 1 of 2
			"0048 0069",                //   "Hi" in UCS-2
		),
		pdu: pdu.PDU{Seq: 11, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
			Source:             pdu.Address{TON: 5, Addr: "MsgKit"},
			Dest:               pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			ESMClass:           pdu.ESMClassUDHI,
			RegisteredDelivery: pdu.RegisteredDeliveryAll,
			DataCoding:         0x08,
			Message:            []byte{0x05, 0x00, 0x03, 0x2a, 0x02, 0x01, 0x00, 'H', 0x00, 'i'},
		}}},
	},
	{
		name: "submit_sm with SAR parameters",
		raw: hx(
			"0000004b",                 // command_length 75
			"00000004",                 // command_id submit_sm
			"00000000",                 // command_status
			"0000000c",                 // sequence_number 12
			"00",                       // service_type ""
			"05",                       // source_addr_ton alphanumeric
			"00",                       // source_addr_npi unknown
			"4d73674b6974",             // source_addr "MsgKit"
			"00",                       //   its NUL
			"01",                       // dest_addr_ton international
			"01",                       // dest_addr_npi ISDN
			"343437373030393030313233", // destination_addr "447700900123"
			"00",                       //   its NUL
			"00",                       // esm_class
			"00",                       // protocol_id
			"00",                       // priority_flag
			"00",                       // schedule_delivery_time ""
			"00",                       // validity_period ""
			"01",                       // registered_delivery: a receipt
			"00",                       // replace_if_present_flag
			"00",                       // data_coding
			"00",                       // sm_default_msg_id
			"08",                       // sm_length 8
			"70617274206f6e65",         // short_message "part one"
			"020c 0002 1234",           // sar_msg_ref_num 0x1234
			"020e 0001 02",             // sar_total_segments 2
			"020f 0001 01",             // sar_segment_seqnum 1
		),
		pdu: pdu.PDU{Seq: 12, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
			Source:             pdu.Address{TON: 5, Addr: "MsgKit"},
			Dest:               pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			RegisteredDelivery: pdu.RegisteredDeliveryAll,
			Message:            []byte("part one"),
			TLVs: pdu.TLVs{
				{Tag: pdu.TagSarMsgRefNum, Value: []byte{0x12, 0x34}},
				{Tag: pdu.TagSarTotalSegments, Value: []byte{2}},
				{Tag: pdu.TagSarSegmentSeqnum, Value: []byte{1}},
			},
		}}},
	},
	{
		name: "submit_sm with message_payload",
		raw: hx(
			"00000050",                 // command_length 80
			"00000004",                 // command_id submit_sm
			"00000000",                 // command_status
			"0000000d",                 // sequence_number 13
			"00",                       // service_type ""
			"05",                       // source_addr_ton alphanumeric
			"00",                       // source_addr_npi unknown
			"4d73674b6974",             // source_addr "MsgKit"
			"00",                       //   its NUL
			"01",                       // dest_addr_ton international
			"01",                       // dest_addr_npi ISDN
			"343437373030393030313233", // destination_addr "447700900123"
			"00",                       //   its NUL
			"00",                       // esm_class
			"00",                       // protocol_id
			"00",                       // priority_flag
			"00",                       // schedule_delivery_time ""
			"00",                       // validity_period ""
			"01",                       // registered_delivery: a receipt
			"00",                       // replace_if_present_flag
			"00",                       // data_coding
			"00",                       // sm_default_msg_id
			"00",                       // sm_length 0: the message is in message_payload
			"0424",                     // tag message_payload
			"0019",                     //   length 25
			"48656c6c6f20766961206d6573736167655f7061796c6f6164", // "Hello via message_payload"
		),
		pdu: pdu.PDU{Seq: 13, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
			Source:             pdu.Address{TON: 5, Addr: "MsgKit"},
			Dest:               pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			RegisteredDelivery: pdu.RegisteredDeliveryAll,
			TLVs:               pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte("Hello via message_payload")}},
		}}},
	},
	{
		name: "submit_sm with schedule_delivery_time and validity_period",
		raw: hx(
			"00000061",                         // command_length 97
			"00000004",                         // command_id submit_sm
			"00000000",                         // command_status
			"0000000e",                         // sequence_number 14
			"434d54",                           // service_type "CMT"
			"00",                               //   its NUL
			"05",                               // source_addr_ton alphanumeric
			"00",                               // source_addr_npi unknown
			"4d73674b6974",                     // source_addr "MsgKit"
			"00",                               //   its NUL
			"01",                               // dest_addr_ton international
			"01",                               // dest_addr_npi ISDN
			"343437373030393030313233",         // destination_addr "447700900123"
			"00",                               //   its NUL
			"00",                               // esm_class
			"00",                               // protocol_id
			"01",                               // priority_flag 1
			"3235303130313132303030303030342b", // schedule_delivery_time "250101120000004+" (absolute)
			"00",                               //   its NUL
			"30303030303130303030303030303052", // validity_period "000001000000000R" (relative: a day)
			"00",                               //   its NUL
			"01",                               // registered_delivery: a receipt
			"00",                               // replace_if_present_flag
			"00",                               // data_coding
			"00",                               // sm_default_msg_id
			"0b",                               // sm_length 11
			"48656c6c6f20776f726c64",           // short_message "Hello world"
		),
		pdu: pdu.PDU{Seq: 14, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
			ServiceType:          "CMT",
			Source:               pdu.Address{TON: 5, Addr: "MsgKit"},
			Dest:                 pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			Priority:             1,
			ScheduleDeliveryTime: "250101120000004+",
			ValidityPeriod:       "000001000000000R",
			RegisteredDelivery:   pdu.RegisteredDeliveryAll,
			Message:              []byte("Hello world"),
		}}},
	},
	{
		name: "submit_sm_resp",
		raw: hx(
			"00000019",         // command_length 25
			"80000004",         // command_id submit_sm_resp
			"00000000",         // command_status ESME_ROK
			"0000000a",         // sequence_number 10
			"3566336132623163", // message_id "5f3a2b1c"
			"00",               //   its NUL
		),
		pdu: pdu.PDU{Seq: 10, Body: &pdu.SubmitSMResp{MessageID: "5f3a2b1c"}},
	},
	{
		// SMPP 3.4 section 4.4.2: no body when command_status is not 0.
		name: "submit_sm_resp throttled, no body",
		raw: hx(
			"00000010", // command_length 16
			"80000004", // command_id submit_sm_resp
			"00000058", // command_status ESME_RTHROTTLED
			"0000000b", // sequence_number 11
		),
		pdu: pdu.PDU{Status: pdu.ESME_RTHROTTLED, Seq: 11, Body: &pdu.SubmitSMResp{}},
	},
	{
		name: "deliver_sm delivery receipt",
		raw: hx(
			"000000bb",                 // command_length 187
			"00000005",                 // command_id deliver_sm
			"00000000",                 // command_status
			"00000100",                 // sequence_number 256
			"00",                       // service_type ""
			"01",                       // source_addr_ton international
			"01",                       // source_addr_npi ISDN
			"343437373030393030313233", // source_addr "447700900123"
			"00",                       //   its NUL
			"05",                       // dest_addr_ton alphanumeric
			"00",                       // dest_addr_npi unknown
			"4d73674b6974",             // destination_addr "MsgKit"
			"00",                       //   its NUL
			"04",                       // esm_class: SMSC delivery receipt
			"00",                       // protocol_id
			"00",                       // priority_flag
			"00",                       // schedule_delivery_time ""
			"00",                       // validity_period ""
			"00",                       // registered_delivery
			"00",                       // replace_if_present_flag
			"00",                       // data_coding
			"00",                       // sm_default_msg_id
			"6f",                       // sm_length 111
			"69643a356633613262316320", // short_message "id:5f3a2b1c "
			"7375623a30303120",         //   "sub:001 "
			"646c7672643a30303020",     //   "dlvrd:000 "
			"7375626d697420646174653a3235303130313132303020", // "submit date:2501011200 "
			"646f6e6520646174653a3235303130313132303120",     // "done date:2501011201 "
			"737461743a554e44454c495620",                     // "stat:UNDELIV "
			"6572723a30333420",                               // "err:034 "
			"746578743a48656c6c6f20776f726c64",               // "text:Hello world"
			"001e 0009 3566336132623163 00",                  // receipted_message_id "5f3a2b1c"
			"0427 0001 05",                                   // message_state UNDELIVERABLE
			"0423 0003 03 0022",                              // network_error_code GSM, 34
		),
		pdu: pdu.PDU{Seq: 256, Body: &pdu.DeliverSM{ShortMessage: pdu.ShortMessage{
			Source:   pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			Dest:     pdu.Address{TON: 5, Addr: "MsgKit"},
			ESMClass: pdu.ESMClassReceipt,
			Message:  []byte("id:5f3a2b1c sub:001 dlvrd:000 submit date:2501011200 done date:2501011201 stat:UNDELIV err:034 text:Hello world"),
			TLVs: pdu.TLVs{
				{Tag: pdu.TagReceiptedMessageID, Value: []byte("5f3a2b1c\x00")},
				{Tag: pdu.TagMessageState, Value: []byte{5}},
				{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, 0x00, 0x22}},
			},
		}}},
	},
	{
		name: "deliver_sm_resp",
		raw: hx(
			"00000011", // command_length 17
			"80000005", // command_id deliver_sm_resp
			"00000000", // command_status ESME_ROK
			"00000100", // sequence_number 256
			"00",       // message_id "" (unused)
		),
		pdu: pdu.PDU{Seq: 256, Body: &pdu.DeliverSMResp{}},
	},
	{
		name: "data_sm",
		raw: hx(
			"00000046",                           // command_length 70
			"00000103",                           // command_id data_sm
			"00000000",                           // command_status
			"0000000f",                           // sequence_number 15
			"00",                                 // service_type ""
			"01",                                 // source_addr_ton international
			"01",                                 // source_addr_npi ISDN
			"343437373030393030313233",           // source_addr "447700900123"
			"00",                                 //   its NUL
			"00",                                 // dest_addr_ton unknown
			"01",                                 // dest_addr_npi ISDN
			"3132333435",                         // destination_addr "12345"
			"00",                                 //   its NUL
			"00",                                 // esm_class
			"01",                                 // registered_delivery: a receipt
			"00",                                 // data_coding
			"0424 0011",                          // message_payload, length 17
			"48656c6c6f2076696120646174615f736d", // "Hello via data_sm"
			"0204 0002 0007",                     // user_message_reference 7
		),
		pdu: pdu.PDU{Seq: 15, Body: &pdu.DataSM{
			Source:             pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
			Dest:               pdu.Address{NPI: 1, Addr: "12345"},
			RegisteredDelivery: pdu.RegisteredDeliveryAll,
			TLVs: pdu.TLVs{
				{Tag: pdu.TagMessagePayload, Value: []byte("Hello via data_sm")},
				{Tag: pdu.TagUserMessageReference, Value: []byte{0, 7}},
			},
		}},
	},
	{
		name: "data_sm_resp",
		raw: hx(
			"00000017",     // command_length 23
			"80000103",     // command_id data_sm_resp
			"00000000",     // command_status ESME_ROK
			"0000000f",     // sequence_number 15
			"613162326333", // message_id "a1b2c3"
			"00",           //   its NUL
		),
		pdu: pdu.PDU{Seq: 15, Body: &pdu.DataSMResp{MessageID: "a1b2c3"}},
	},
	{
		name: "data_sm_resp delivery failure with delivery_failure_reason",
		raw: hx(
			"00000016",     // command_length 22
			"80000103",     // command_id data_sm_resp
			"000000fe",     // command_status ESME_RDELIVERYFAILURE
			"00000010",     // sequence_number 16
			"00",           // message_id ""
			"0425 0001 01", // delivery_failure_reason 1: destination unavailable
		),
		pdu: pdu.PDU{Status: pdu.ESME_RDELIVERYFAILURE, Seq: 16, Body: &pdu.DataSMResp{
			TLVs: pdu.TLVs{{Tag: pdu.TagDeliveryFailureReason, Value: []byte{1}}},
		}},
	},
}

// vec is the vector named name.
func vec(name string) vector {
	for _, v := range vectors {
		if v.name == name {
			return v
		}
	}
	panic("no vector " + name)
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			got, err := pdu.Decode(v.raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(v.pdu, got, cmpOpts...); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
			enc, err := pdu.Append(nil, v.pdu)
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
			if !bytes.Equal(enc, v.raw) {
				t.Errorf("Append:\n got %x\nwant %x", enc, v.raw)
			}
			// After other octets, command_length still counts this PDU only.
			prefix := []byte("earlier")
			enc, err = pdu.Append(prefix[:len(prefix):len(prefix)], v.pdu)
			if err != nil {
				t.Fatalf("Append after a prefix: %v", err)
			}
			if !bytes.Equal(enc[:len(prefix)], prefix) || !bytes.Equal(enc[len(prefix):], v.raw) {
				t.Errorf("Append after a prefix:\n got %x\nwant %x%x", enc, prefix, v.raw)
			}
			if got := v.pdu.Body.Command(); uint32(got) != binary.BigEndian.Uint32(v.raw[4:]) {
				t.Errorf("Command() = %v, the vector's command_id is 0x%08x", got, binary.BigEndian.Uint32(v.raw[4:]))
			}
		})
	}
}

func TestVectorsCoverEveryCommand(t *testing.T) {
	seen := map[pdu.CommandID]bool{}
	for _, v := range vectors {
		seen[v.pdu.Body.Command()] = true
	}
	for _, c := range allCommands {
		if !seen[c.id] {
			t.Errorf("no vector of %s", c.name)
		}
	}
}

// withTLVs returns body with only its first k optional parameters.
func withTLVs(body pdu.Body, k int) (pdu.Body, bool) {
	switch b := body.(type) {
	case *pdu.BindResp:
		c := *b
		c.TLVs = c.TLVs[:k]
		return &c, true
	case *pdu.SubmitSM:
		c := *b
		c.TLVs = c.TLVs[:k]
		return &c, true
	case *pdu.DeliverSM:
		c := *b
		c.TLVs = c.TLVs[:k]
		return &c, true
	case *pdu.DataSM:
		c := *b
		c.TLVs = c.TLVs[:k]
		return &c, true
	case *pdu.DataSMResp:
		c := *b
		c.TLVs = c.TLVs[:k]
		return &c, true
	}
	return nil, false
}

func tlvsOf(body pdu.Body) pdu.TLVs {
	switch b := body.(type) {
	case *pdu.BindResp:
		return b.TLVs
	case *pdu.SubmitSM:
		return b.TLVs
	case *pdu.DeliverSM:
		return b.TLVs
	case *pdu.DataSM:
		return b.TLVs
	case *pdu.DataSMResp:
		return b.TLVs
	}
	return nil
}

// zeroBody is a body of body's type with nothing set.
func zeroBody(body pdu.Body) pdu.Body {
	switch b := body.(type) {
	case *pdu.BindResp:
		return &pdu.BindResp{Mode: b.Mode}
	case *pdu.SubmitSMResp:
		return &pdu.SubmitSMResp{}
	case *pdu.DeliverSMResp:
		return &pdu.DeliverSMResp{}
	case *pdu.DataSMResp:
		return &pdu.DataSMResp{}
	case *pdu.Empty:
		return &pdu.Empty{ID: b.ID}
	}
	return nil
}

// patchLength sets command_length to the length of b, when b has one.
func patchLength(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) >= 4 {
		binary.BigEndian.PutUint32(b, uint32(len(b)))
	}
	return b
}

// checkDecodeError fails unless err is a *DecodeError naming a field with
// a status to answer it.
func checkDecodeError(t *testing.T, err error) *pdu.DecodeError {
	t.Helper()
	var de *pdu.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want a *DecodeError", err, err)
	}
	if de.Field == "" {
		t.Errorf("%v: names no field", err)
	}
	if de.Status == pdu.ESME_ROK {
		t.Errorf("%v: status ESME_ROK", err)
	}
	if !strings.Contains(de.Error(), de.Field) {
		t.Errorf("%q does not say the field %q", de.Error(), de.Field)
	}
	return de
}

// Every prefix of a vector, its command_length patched to the prefix's
// length, is refused, but for the few that are whole PDUs themselves: a
// body cut where an optional parameter starts (the parameters that
// follow are optional) and a response with an error status cut to its
// header (the body may be left out then).
func TestTruncations(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			var whole []pdu.PDU
			for k := range tlvsOf(v.pdu.Body) {
				b, _ := withTLVs(v.pdu.Body, k)
				whole = append(whole, pdu.PDU{Status: v.pdu.Status, Seq: v.pdu.Seq, Body: b})
			}
			if v.pdu.Body.Command().IsResponse() && v.pdu.Status != pdu.ESME_ROK && len(v.raw) > pdu.HeaderLen {
				whole = append(whole, pdu.PDU{Status: v.pdu.Status, Seq: v.pdu.Seq, Body: zeroBody(v.pdu.Body)})
			}
			accepted := 0
			for n := 0; n < len(v.raw); n++ {
				b := patchLength(v.raw[:n])
				got, err := pdu.Decode(b)
				if err == nil {
					found := false
					for _, w := range whole {
						if cmp.Equal(w, got, cmpOpts...) {
							found = true
						}
					}
					if !found {
						t.Errorf("%d octets of %d decoded as %+v", n, len(v.raw), got)
					}
					accepted++
					continue
				}
				de := checkDecodeError(t, err)
				if n < pdu.HeaderLen && (de.Field != "command_length" || de.Status != pdu.ESME_RINVCMDLEN) {
					t.Errorf("%d octets: %v, status %v, want command_length and ESME_RINVCMDLEN", n, err, de.Status)
				}
				if n >= pdu.HeaderLen && (de.Command != v.pdu.Body.Command() || de.Seq != v.pdu.Seq) {
					t.Errorf("%d octets: error of %v sequence %d, want %v sequence %d", n, de.Command, de.Seq, v.pdu.Body.Command(), v.pdu.Seq)
				}
			}
			if accepted != len(whole) {
				t.Errorf("%d prefixes decoded, want %d", accepted, len(whole))
			}
		})
	}
}

func TestTrailingOctet(t *testing.T) {
	for _, v := range vectors {
		for _, extra := range []byte{0x00, 0x01, 0xee} {
			// A response with an error status and no body followed by a NUL
			// is that response with an empty message_id or system_id.
			if extra == 0 && len(v.raw) == pdu.HeaderLen && v.pdu.Status != pdu.ESME_ROK {
				if _, ok := v.pdu.Body.(*pdu.Empty); !ok {
					continue
				}
			}
			t.Run(fmt.Sprintf("%s+%02x", v.name, extra), func(t *testing.T) {
				b := patchLength(append(bytes.Clone(v.raw), extra))
				got, err := pdu.Decode(b)
				if err == nil {
					t.Fatalf("decoded %+v", got)
				}
				de := checkDecodeError(t, err)
				if de.Command != v.pdu.Body.Command() || de.Seq != v.pdu.Seq {
					t.Errorf("error of %v sequence %d, want %v sequence %d", de.Command, de.Seq, v.pdu.Body.Command(), v.pdu.Seq)
				}
			})
		}
		t.Run(v.name+" with command_length one short", func(t *testing.T) {
			b := append(bytes.Clone(v.raw), 0xee) // command_length left as it was
			_, err := pdu.Decode(b)
			if de := checkDecodeError(t, err); de.Field != "command_length" || de.Status != pdu.ESME_RINVCMDLEN {
				t.Errorf("%v (status %v), want command_length and ESME_RINVCMDLEN", err, de.Status)
			}
		})
	}
}

// Helpers to assemble PDUs field by field for the rule cases.

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// rawPDU makes a PDU of a header and body parts, command_length counted.
func rawPDU(id pdu.CommandID, st pdu.Status, seq uint32, body ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(pdu.HeaderLen+len(cat(body...))))
	b = binary.BigEndian.AppendUint32(b, uint32(id))
	b = binary.BigEndian.AppendUint32(b, uint32(st))
	b = binary.BigEndian.AppendUint32(b, seq)
	return append(b, cat(body...)...)
}

// cs is a C-Octet String: s and its NUL.
func cs(s string) []byte { return append([]byte(s), 0) }

// chars is a string of n characters.
func chars(n int) string { return strings.Repeat("7", n) }

func addr(ton, npi byte, s string) []byte { return append([]byte{ton, npi}, cs(s)...) }

// tlv is an optional parameter, its length counted.
func tlv(tag uint16, v ...byte) []byte { return tlvLen(tag, uint16(len(v)), v...) }

// tlvLen is an optional parameter with the length given.
func tlvLen(tag, n uint16, v ...byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, tag)
	b = binary.BigEndian.AppendUint16(b, n)
	return append(b, v...)
}

func bindBody(systemID, password, systemType, addrRange string) []byte {
	return cat(cs(systemID), cs(password), cs(systemType), []byte{0x34}, addr(1, 1, addrRange))
}

// sm is the body of a submit_sm or deliver_sm.
type sm struct {
	service, src, dst, sched, valid string
	smLen                           int // sm_length; -1 for len(msg)
	msg, tail                       []byte
}

func okSM() sm { return sm{src: "MsgKit", dst: "447700900123", smLen: -1, msg: []byte("hi")} }

func (f sm) bytes() []byte {
	n := f.smLen
	if n < 0 {
		n = len(f.msg)
	}
	return cat(cs(f.service), addr(5, 0, f.src), addr(1, 1, f.dst),
		[]byte{0, 0, 0}, // esm_class, protocol_id, priority_flag
		cs(f.sched), cs(f.valid),
		[]byte{1, 0, 0, 0}, // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id
		[]byte{byte(n)}, f.msg, f.tail)
}

func submit(mod func(*sm)) []byte {
	f := okSM()
	mod(&f)
	return rawPDU(pdu.CmdSubmitSM, 0, 42, f.bytes())
}

func deliver(mod func(*sm)) []byte {
	f := okSM()
	mod(&f)
	return rawPDU(pdu.CmdDeliverSM, 0, 42, f.bytes())
}

func dataSMBody(src, dst string, tail ...[]byte) []byte {
	return cat(cs(""), addr(1, 1, src), addr(1, 1, dst), []byte{0, 1, 0}, cat(tail...))
}

type ruleCase struct {
	name   string
	raw    []byte
	field  string
	status pdu.Status // ESME_ROK: any but it
}

// decodeRules are PDUs each wrong in one field.
var decodeRules = []ruleCase{
	// Lengths of C-Octet Strings, SMPP 3.4 section 4 (each maximum there
	// counts the NUL).
	{"bind system_id of 16", rawPDU(pdu.CmdBindTransmitter, 0, 42, bindBody(chars(16), "pw", "", "")), "system_id", pdu.ESME_RINVSYSID},
	{"bind password of 9", rawPDU(pdu.CmdBindReceiver, 0, 42, bindBody("esme", chars(9), "", "")), "password", pdu.ESME_RINVPASWD},
	{"bind system_type of 13", rawPDU(pdu.CmdBindTransceiver, 0, 42, bindBody("esme", "pw", chars(13), "")), "system_type", pdu.ESME_RINVSYSTYP},
	{"bind address_range of 41", rawPDU(pdu.CmdBindTransmitter, 0, 42, bindBody("esme", "pw", "", chars(41))), "address_range", pdu.ESME_ROK},
	{"bind system_id without NUL", rawPDU(pdu.CmdBindTransmitter, 0, 42, []byte("esme")), "system_id", pdu.ESME_RINVCMDLEN},
	{"bind password without NUL", rawPDU(pdu.CmdBindTransmitter, 0, 42, cs("esme"), []byte("pw")), "password", pdu.ESME_RINVCMDLEN},
	{"bind without interface_version", rawPDU(pdu.CmdBindTransmitter, 0, 42, cs("esme"), cs("pw"), cs("")), "interface_version", pdu.ESME_RINVCMDLEN},
	{"bind without addr_npi", rawPDU(pdu.CmdBindTransmitter, 0, 42, cs("esme"), cs("pw"), cs(""), []byte{0x34, 1}), "addr_npi", pdu.ESME_RINVCMDLEN},
	{"bind_transmitter_resp system_id of 16", rawPDU(pdu.CmdBindTransmitterResp, 0, 42, cs(chars(16))), "system_id", pdu.ESME_RINVSYSID},
	{"bind_receiver_resp system_id without NUL", rawPDU(pdu.CmdBindReceiverResp, 0, 42, []byte("SMSC")), "system_id", pdu.ESME_RINVCMDLEN},
	{"submit_sm service_type of 6", submit(func(f *sm) { f.service = chars(6) }), "service_type", pdu.ESME_RINVSERTYP},
	{"submit_sm source_addr of 21", submit(func(f *sm) { f.src = chars(21) }), "source_addr", pdu.ESME_RINVSRCADR},
	{"submit_sm destination_addr of 21", submit(func(f *sm) { f.dst = chars(21) }), "destination_addr", pdu.ESME_RINVDSTADR},
	{"deliver_sm source_addr of 21", deliver(func(f *sm) { f.src = chars(21) }), "source_addr", pdu.ESME_RINVSRCADR},
	{"deliver_sm destination_addr of 21", deliver(func(f *sm) { f.dst = chars(21) }), "destination_addr", pdu.ESME_RINVDSTADR},
	{"data_sm source_addr of 65", rawPDU(pdu.CmdDataSM, 0, 42, dataSMBody(chars(65), "1")), "source_addr", pdu.ESME_RINVSRCADR},
	{"data_sm destination_addr of 65", rawPDU(pdu.CmdDataSM, 0, 42, dataSMBody("1", chars(65))), "destination_addr", pdu.ESME_RINVDSTADR},
	{"data_sm service_type of 6", rawPDU(pdu.CmdDataSM, 0, 42, cs(chars(6)), addr(1, 1, "1"), addr(1, 1, "2"), []byte{0, 0, 0}), "service_type", pdu.ESME_RINVSERTYP},
	{"data_sm without data_coding", rawPDU(pdu.CmdDataSM, 0, 42, cs(""), addr(1, 1, "1"), addr(1, 1, "2"), []byte{0, 0}), "data_coding", pdu.ESME_RINVCMDLEN},
	{"submit_sm_resp message_id of 65", rawPDU(pdu.CmdSubmitSMResp, 0, 42, cs(chars(65))), "message_id", pdu.ESME_RINVMSGID},
	{"submit_sm_resp message_id without NUL", rawPDU(pdu.CmdSubmitSMResp, 0, 42, []byte("5f3a")), "message_id", pdu.ESME_RINVCMDLEN},
	{"submit_sm_resp ESME_ROK without body", rawPDU(pdu.CmdSubmitSMResp, 0, 42), "message_id", pdu.ESME_RINVCMDLEN},
	{"deliver_sm_resp message_id of 65", rawPDU(pdu.CmdDeliverSMResp, 0, 42, cs(chars(65))), "message_id", pdu.ESME_RINVMSGID},
	{"data_sm_resp message_id of 65", rawPDU(pdu.CmdDataSMResp, 0, 42, cs(chars(65))), "message_id", pdu.ESME_RINVMSGID},

	// Times: empty or 16 characters, SMPP 3.4 section 7.1.
	{"schedule_delivery_time of 15", submit(func(f *sm) { f.sched = chars(15) }), "schedule_delivery_time", pdu.ESME_RINVSCHED},
	{"schedule_delivery_time of 1", submit(func(f *sm) { f.sched = "R" }), "schedule_delivery_time", pdu.ESME_RINVSCHED},
	{"schedule_delivery_time of 17", submit(func(f *sm) { f.sched = chars(17) }), "schedule_delivery_time", pdu.ESME_RINVSCHED},
	{"validity_period of 15", submit(func(f *sm) { f.valid = chars(15) }), "validity_period", pdu.ESME_RINVEXPIRY},
	{"validity_period of 17", deliver(func(f *sm) { f.valid = chars(17) }), "validity_period", pdu.ESME_RINVEXPIRY},

	// short_message, SMPP 3.4 section 4.4.1.
	{"sm_length 255", submit(func(f *sm) { f.msg = bytes.Repeat([]byte{'a'}, 255) }), "sm_length", pdu.ESME_RINVMSGLEN},
	{"sm_length beyond the PDU", submit(func(f *sm) { f.smLen, f.msg = 10, []byte("hello") }), "short_message", pdu.ESME_RINVMSGLEN},
	{"sm_length 1, nothing left", deliver(func(f *sm) { f.smLen, f.msg = 1, nil }), "short_message", pdu.ESME_RINVMSGLEN},

	// Optional parameters, SMPP 3.4 section 5.3.
	{"parameter header of 3", submit(func(f *sm) { f.tail = []byte{0x02, 0x0c, 0x00} }), "optional parameters", pdu.ESME_RINVOPTPARSTREAM},
	{"parameter header of 1 after a parameter", submit(func(f *sm) { f.tail = cat(tlv(0x020e, 2), []byte{0x02}) }), "optional parameters", pdu.ESME_RINVOPTPARSTREAM},
	{"message_payload longer than the PDU", submit(func(f *sm) { f.tail = tlvLen(0x0424, 16, 'a', 'b', 'c', 'd') }), "optional parameter 0x0424", pdu.ESME_RINVOPTPARSTREAM},
	{"data_sm message_payload of length 0xffff", rawPDU(pdu.CmdDataSM, 0, 42, dataSMBody("1", "2", tlvLen(0x0424, 0xffff, 'a'))), "optional parameter 0x0424", pdu.ESME_RINVOPTPARSTREAM},
	{"bind_resp sc_interface_version of 1 octet missing", rawPDU(pdu.CmdBindTransceiverResp, 0, 42, cs("SMSC"), tlvLen(0x0210, 1)), "optional parameter 0x0210", pdu.ESME_RINVOPTPARSTREAM},
	{"sar_msg_ref_num of 1", submit(func(f *sm) { f.tail = tlv(0x020c, 1) }), "optional parameter 0x020c", pdu.ESME_RINVPARLEN},
	{"sar_msg_ref_num of 3", submit(func(f *sm) { f.tail = tlv(0x020c, 1, 2, 3) }), "optional parameter 0x020c", pdu.ESME_RINVPARLEN},
	{"sar_total_segments of 2", submit(func(f *sm) { f.tail = cat(tlv(0x020c, 0, 1), tlv(0x020e, 0, 2)) }), "optional parameter 0x020e", pdu.ESME_RINVPARLEN},
	{"sar_segment_seqnum of 0", submit(func(f *sm) { f.tail = tlv(0x020f) }), "optional parameter 0x020f", pdu.ESME_RINVPARLEN},
	{"message_state of 2", deliver(func(f *sm) { f.tail = tlv(0x0427, 0, 2) }), "optional parameter 0x0427", pdu.ESME_RINVPARLEN},
	{"network_error_code of 2", deliver(func(f *sm) { f.tail = tlv(0x0423, 3, 0) }), "optional parameter 0x0423", pdu.ESME_RINVPARLEN},
	{"network_error_code of 4", deliver(func(f *sm) { f.tail = tlv(0x0423, 3, 0, 0, 0) }), "optional parameter 0x0423", pdu.ESME_RINVPARLEN},
	{"data_sm message_state of 0", rawPDU(pdu.CmdDataSM, 0, 42, dataSMBody("1", "2", tlv(0x0427))), "optional parameter 0x0427", pdu.ESME_RINVPARLEN},
	{"data_sm_resp network_error_code of 1", rawPDU(pdu.CmdDataSMResp, pdu.ESME_RDELIVERYFAILURE, 42, cs(""), tlv(0x0423, 3)), "optional parameter 0x0423", pdu.ESME_RINVPARLEN},
	{"sc_interface_version of 2", rawPDU(pdu.CmdBindTransmitterResp, 0, 42, cs("SMSC"), tlv(0x0210, 0, 0x34)), "optional parameter 0x0210", pdu.ESME_RINVPARLEN},

	// The header, SMPP 3.4 sections 3.2 and 5.1.
	{"query_sm, unknown to the ESME", rawPDU(0x00000003, 0, 42, cs(""), addr(1, 1, "1")), "command_id", pdu.ESME_RINVCMDID},
	{"query_sm_resp", rawPDU(0x80000003, 0, 42, cs("1"), cs(""), []byte{2, 0}), "command_id", pdu.ESME_RINVCMDID},
	{"command_id 0x12345678", rawPDU(0x12345678, 0, 42), "command_id", pdu.ESME_RINVCMDID},
	{"command_id 0", rawPDU(0, 0, 42), "command_id", pdu.ESME_RINVCMDID},
	{"command_length 17 for 16 octets", hx("00000011 00000015 00000000 0000002a"), "command_length", pdu.ESME_RINVCMDLEN},
	{"command_length 15 for 16 octets", hx("0000000f 00000015 00000000 0000002a"), "command_length", pdu.ESME_RINVCMDLEN},
	{"command_length 0", hx("00000000 00000015 00000000 0000002a"), "command_length", pdu.ESME_RINVCMDLEN},
	{"command_length 0xffffffff", hx("ffffffff 00000015 00000000 0000002a"), "command_length", pdu.ESME_RINVCMDLEN},
	{"15 octets", hx("0000000f 00000015 00000000 000000"), "command_length", pdu.ESME_RINVCMDLEN},
	{"enquire_link with a body", rawPDU(pdu.CmdEnquireLink, 0, 42, []byte{0}), "command_length", pdu.ESME_RINVCMDLEN},
	{"submit_sm_resp with an octet after message_id", rawPDU(pdu.CmdSubmitSMResp, 0, 42, cs("1"), []byte{0}), "command_length", pdu.ESME_RINVCMDLEN},
	{"bind with an octet after address_range", rawPDU(pdu.CmdBindTransmitter, 0, 42, bindBody("esme", "pw", "", ""), []byte{1}), "command_length", pdu.ESME_RINVCMDLEN},
}

func TestDecodeRules(t *testing.T) {
	for _, c := range decodeRules {
		t.Run(c.name, func(t *testing.T) {
			got, err := pdu.Decode(c.raw)
			if err == nil {
				t.Fatalf("decoded %+v", got)
			}
			de := checkDecodeError(t, err)
			if de.Field != c.field {
				t.Errorf("field %q, want %q (%v)", de.Field, c.field, err)
			}
			if c.status != pdu.ESME_ROK && de.Status != c.status {
				t.Errorf("status %v, want %v (%v)", de.Status, c.status, err)
			}
			if len(c.raw) >= pdu.HeaderLen {
				if id := pdu.CommandID(binary.BigEndian.Uint32(c.raw[4:])); de.Command != id {
					t.Errorf("command %v, want %v", de.Command, id)
				}
				if seq := binary.BigEndian.Uint32(c.raw[12:]); de.Seq != seq {
					t.Errorf("sequence %d, want %d", de.Seq, seq)
				}
			}
		})
	}
}

// Each field at its longest is accepted, and encodes back to the same
// octets.
func TestFieldLimits(t *testing.T) {
	long := bytes.Repeat([]byte{'m'}, pdu.MaxShortMessage)
	for _, c := range []struct {
		name string
		raw  []byte
	}{
		{"bind", rawPDU(pdu.CmdBindTransmitter, 0, 1, bindBody(chars(15), chars(8), chars(12), chars(40)))},
		{"bind_resp", rawPDU(pdu.CmdBindReceiverResp, 0, 1, cs(chars(15)))},
		{"submit_sm", submit(func(f *sm) {
			f.service, f.src, f.dst, f.sched, f.valid, f.msg = chars(5), chars(20), chars(20), chars(16), chars(16), long
		})},
		{"deliver_sm", deliver(func(f *sm) { f.service, f.src, f.dst, f.msg = chars(5), chars(20), chars(20), long })},
		{"data_sm", rawPDU(pdu.CmdDataSM, 0, 1, cs(chars(5)), addr(1, 1, chars(64)), addr(1, 1, chars(64)), []byte{0, 0, 0},
			tlvLen(0x0424, 0xffff, bytes.Repeat([]byte{'p'}, 0xffff)...))},
		{"submit_sm_resp", rawPDU(pdu.CmdSubmitSMResp, 0, 1, cs(chars(64)))},
		{"deliver_sm_resp", rawPDU(pdu.CmdDeliverSMResp, 0, 1, cs(chars(64)))},
		{"data_sm_resp", rawPDU(pdu.CmdDataSMResp, 0, 1, cs(chars(64)))},
		{"parameters of every fixed length", rawPDU(pdu.CmdDataSM, 0, 1, dataSMBody("1", "2",
			tlv(0x020c, 1, 2), tlv(0x020e, 3), tlv(0x020f, 1), tlv(0x0210, 0x34), tlv(0x0427, 2), tlv(0x0423, 3, 0, 1),
			tlv(0x020a, 0, 1), tlv(0x020b, 0, 2), tlv(0x0204, 0, 3), tlv(0x0019, 1), tlv(0x0425, 0), tlv(0x0426, 1),
			tlv(0x020d, 1), tlv(0x0030, 0x80), tlv(0x1234), tlv(0xffff, 1, 2, 3, 4, 5)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := pdu.Decode(c.raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			enc, err := pdu.Append(nil, p)
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
			if !bytes.Equal(enc, c.raw) {
				t.Errorf("Append:\n got %x\nwant %x", enc, c.raw)
			}
		})
	}
}

func okSubmit() *pdu.SubmitSM {
	return &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		Source: pdu.Address{TON: 5, Addr: "MsgKit"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"}, Message: []byte("hi"),
	}}
}

func TestAppendRules(t *testing.T) {
	submitWith := func(mod func(*pdu.ShortMessage)) pdu.Body {
		s := okSubmit()
		mod(&s.ShortMessage)
		return s
	}
	deliverWith := func(mod func(*pdu.ShortMessage)) pdu.Body {
		s := okSubmit()
		mod(&s.ShortMessage)
		return &pdu.DeliverSM{ShortMessage: s.ShortMessage}
	}
	payload := func(n int) pdu.TLVs { return pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: make([]byte, n)}} }
	for _, c := range []struct {
		name  string
		body  pdu.Body
		field string
	}{
		{"no body", nil, "body"},
		{"bind system_id of 16", &pdu.Bind{Mode: pdu.Transmitter, SystemID: chars(16)}, "system_id"},
		{"bind password of 9", &pdu.Bind{Mode: pdu.Receiver, Password: chars(9)}, "password"},
		{"bind system_type of 13", &pdu.Bind{Mode: pdu.Transceiver, SystemType: chars(13)}, "system_type"},
		{"bind address_range of 41", &pdu.Bind{Mode: pdu.Transmitter, Range: pdu.Address{Addr: chars(41)}}, "address_range"},
		{"bind system_id with NUL", &pdu.Bind{Mode: pdu.Transmitter, SystemID: "es\x00me"}, "system_id"},
		{"bind password with NUL", &pdu.Bind{Mode: pdu.Transmitter, Password: "\x00"}, "password"},
		{"bind_resp system_id of 16", &pdu.BindResp{Mode: pdu.Transmitter, SystemID: chars(16)}, "system_id"},
		{"bind_resp sc_interface_version of 2", &pdu.BindResp{Mode: pdu.Transceiver, SystemID: "SMSC",
			TLVs: pdu.TLVs{{Tag: pdu.TagSCInterfaceVersion, Value: []byte{0, 0x34}}}}, "optional parameter 0x0210"},
		{"submit_sm service_type of 6", submitWith(func(m *pdu.ShortMessage) { m.ServiceType = chars(6) }), "service_type"},
		{"submit_sm source_addr of 21", submitWith(func(m *pdu.ShortMessage) { m.Source.Addr = chars(21) }), "source_addr"},
		{"submit_sm destination_addr of 21", submitWith(func(m *pdu.ShortMessage) { m.Dest.Addr = chars(21) }), "destination_addr"},
		{"submit_sm source_addr with NUL", submitWith(func(m *pdu.ShortMessage) { m.Source.Addr = "44\x0077" }), "source_addr"},
		{"submit_sm schedule_delivery_time of 15", submitWith(func(m *pdu.ShortMessage) { m.ScheduleDeliveryTime = chars(15) }), "schedule_delivery_time"},
		{"submit_sm schedule_delivery_time of 16 with NUL", submitWith(func(m *pdu.ShortMessage) { m.ScheduleDeliveryTime = chars(15) + "\x00" }), "schedule_delivery_time"},
		{"submit_sm validity_period of 17", submitWith(func(m *pdu.ShortMessage) { m.ValidityPeriod = chars(17) }), "validity_period"},
		{"submit_sm short_message of 255", submitWith(func(m *pdu.ShortMessage) { m.Message = make([]byte, 255) }), "short_message"},
		{"submit_sm message_payload of 65536", submitWith(func(m *pdu.ShortMessage) { m.TLVs = payload(0x10000) }), "optional parameter 0x0424"},
		{"submit_sm sar_msg_ref_num of 1", submitWith(func(m *pdu.ShortMessage) { m.TLVs = pdu.TLVs{pdu.U8(pdu.TagSarMsgRefNum, 1)} }), "optional parameter 0x020c"},
		{"submit_sm sar_total_segments of 2", submitWith(func(m *pdu.ShortMessage) { m.TLVs = pdu.TLVs{pdu.U16(pdu.TagSarTotalSegments, 1)} }), "optional parameter 0x020e"},
		{"deliver_sm destination_addr of 21", deliverWith(func(m *pdu.ShortMessage) { m.Dest.Addr = chars(21) }), "destination_addr"},
		{"deliver_sm service_type with NUL", deliverWith(func(m *pdu.ShortMessage) { m.ServiceType = "\x00" }), "service_type"},
		{"deliver_sm short_message of 255", deliverWith(func(m *pdu.ShortMessage) { m.Message = make([]byte, 255) }), "short_message"},
		{"deliver_sm network_error_code of 2", deliverWith(func(m *pdu.ShortMessage) { m.TLVs = pdu.TLVs{pdu.U16(pdu.TagNetworkErrorCode, 1)} }), "optional parameter 0x0423"},
		{"data_sm service_type of 6", &pdu.DataSM{ServiceType: chars(6)}, "service_type"},
		{"data_sm source_addr of 65", &pdu.DataSM{Source: pdu.Address{Addr: chars(65)}}, "source_addr"},
		{"data_sm destination_addr of 65", &pdu.DataSM{Dest: pdu.Address{Addr: chars(65)}}, "destination_addr"},
		{"data_sm message_payload of 65536", &pdu.DataSM{TLVs: payload(0x10000)}, "optional parameter 0x0424"},
		{"data_sm message_state of 0", &pdu.DataSM{TLVs: pdu.TLVs{{Tag: pdu.TagMessageState}}}, "optional parameter 0x0427"},
		{"submit_sm_resp message_id of 65", &pdu.SubmitSMResp{MessageID: chars(65)}, "message_id"},
		{"deliver_sm_resp message_id of 65", &pdu.DeliverSMResp{MessageID: chars(65)}, "message_id"},
		{"data_sm_resp message_id of 65", &pdu.DataSMResp{MessageID: chars(65)}, "message_id"},
		{"data_sm_resp message_id with NUL", &pdu.DataSMResp{MessageID: "a\x00"}, "message_id"},
		{"data_sm_resp additional_status_info_text of 65536", &pdu.DataSMResp{TLVs: pdu.TLVs{{Tag: pdu.TagAdditionalStatusInfo, Value: make([]byte, 0x10000)}}}, "optional parameter 0x001d"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := pdu.Append([]byte("kept"), pdu.PDU{Seq: 1, Body: c.body})
			var ee *pdu.EncodeError
			if !errors.As(err, &ee) {
				t.Fatalf("Append = %x, %v (%T), want an *EncodeError", out, err, err)
			}
			if ee.Field != c.field {
				t.Errorf("field %q, want %q (%v)", ee.Field, c.field, err)
			}
			if c.body != nil && ee.Command != c.body.Command() {
				t.Errorf("command %v, want %v", ee.Command, c.body.Command())
			}
			if !strings.Contains(ee.Error(), c.field) {
				t.Errorf("%q does not say the field %q", ee.Error(), c.field)
			}
		})
	}
}

// A response with an error status goes without the body SMPP 3.4 leaves
// out (bind_*_resp, submit_sm_resp) when nothing is set in it, and with
// whatever is set in it otherwise.
func TestAppendErrorResponses(t *testing.T) {
	for _, c := range []struct {
		name string
		p    pdu.PDU
		raw  []byte
	}{
		{"submit_sm_resp", pdu.PDU{Status: pdu.ESME_RMSGQFUL, Seq: 2, Body: &pdu.SubmitSMResp{}},
			hx("00000010 80000004 00000014 00000002")},
		{"submit_sm_resp with message_id", pdu.PDU{Status: pdu.ESME_RMSGQFUL, Seq: 2, Body: &pdu.SubmitSMResp{MessageID: "a"}},
			hx("00000012 80000004 00000014 00000002 6100")},
		{"bind_receiver_resp", pdu.PDU{Status: pdu.ESME_RBINDFAIL, Seq: 2, Body: &pdu.BindResp{Mode: pdu.Receiver}},
			hx("00000010 80000001 0000000d 00000002")},
		{"bind_transceiver_resp with sc_interface_version", pdu.PDU{Status: pdu.ESME_RBINDFAIL, Seq: 2, Body: &pdu.BindResp{
			Mode: pdu.Transceiver, TLVs: pdu.TLVs{pdu.U8(pdu.TagSCInterfaceVersion, 0x34)}}},
			hx("00000016 80000009 0000000d 00000002 00 0210 0001 34")},
		{"deliver_sm_resp", pdu.PDU{Status: pdu.ESME_RX_T_APPN, Seq: 2, Body: &pdu.DeliverSMResp{}},
			hx("00000011 80000005 00000064 00000002 00")},
		{"data_sm_resp", pdu.PDU{Status: pdu.ESME_RX_P_APPN, Seq: 2, Body: &pdu.DataSMResp{}},
			hx("00000011 80000103 00000065 00000002 00")},
		{"generic_nack", pdu.PDU{Status: pdu.ESME_RINVCMDLEN, Seq: 2, Body: &pdu.Empty{ID: pdu.CmdGenericNack}},
			hx("00000010 80000000 00000002 00000002")},
	} {
		t.Run(c.name, func(t *testing.T) {
			enc, err := pdu.Append(nil, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, c.raw) {
				t.Errorf("Append:\n got %x\nwant %x", enc, c.raw)
			}
			got, err := pdu.Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.p, got, cmpOpts...); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodedValuesAreCapped(t *testing.T) {
	// Decoded values point into the PDU's octets, each no further than
	// its own end: appending to one must not overwrite the next field.
	v := vec("submit_sm with SAR parameters")
	raw := bytes.Clone(v.raw)
	p, err := pdu.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Body.(*pdu.SubmitSM)
	_ = append(s.Message, "XXXX"...)
	_ = append(s.TLVs[0].Value, "XXXX"...)
	if !bytes.Equal(raw, v.raw) {
		t.Errorf("appending to decoded values changed the PDU:\n got %x\nwant %x", raw, v.raw)
	}
}

// stream is every vector one after the other.
func stream() []byte {
	var b []byte
	for _, v := range vectors {
		b = append(b, v.raw...)
	}
	return b
}

func TestReadStream(t *testing.T) {
	for _, c := range []struct {
		name string
		r    func([]byte) io.Reader
		buf  []byte
	}{
		{"buffer of 512", func(b []byte) io.Reader { return bytes.NewReader(b) }, make([]byte, 0, 512)},
		{"no buffer", func(b []byte) io.Reader { return bytes.NewReader(b) }, nil},
		{"buffer of 8, a byte a read", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }, make([]byte, 8)},
		{"half reads", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.r(stream())
			buf := c.buf
			var first *byte
			for i, v := range vectors {
				p, nb, err := pdu.Read(r, buf, 0)
				if err != nil {
					t.Fatalf("PDU %d (%s): %v", i, v.name, err)
				}
				if diff := cmp.Diff(v.pdu, p, cmpOpts...); diff != "" {
					t.Fatalf("PDU %d (%s) (-want +got):\n%s", i, v.name, diff)
				}
				if !bytes.Equal(nb, v.raw) {
					t.Errorf("PDU %d (%s): buffer %x, want the PDU %x", i, v.name, nb, v.raw)
				}
				if len(v.raw) <= 512 && cap(nb) > 512 {
					t.Errorf("PDU %d: buffer of capacity %d", i, cap(nb))
				}
				// Every vector fits the first buffer a Read makes, so each
				// Read after it reuses that.
				if first == nil {
					first = &nb[:1][0]
				} else if &nb[:1][0] != first {
					t.Errorf("PDU %d (%s): a new buffer", i, v.name)
				}
				buf = nb
			}
			if _, _, err := pdu.Read(r, buf, 0); err != io.EOF {
				t.Errorf("at the end of the stream: %v, want io.EOF", err)
			}
		})
	}
}

func TestReadGrowsBuffer(t *testing.T) {
	v := vec("deliver_sm delivery receipt") // 187 octets
	buf := make([]byte, 0, 100)
	p, nb, err := pdu.Read(bytes.NewReader(v.raw), buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v.pdu, p, cmpOpts...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(nb) != len(v.raw) || cap(nb) < len(v.raw) {
		t.Errorf("buffer of length %d capacity %d", len(nb), cap(nb))
	}
}

// A Read after one that failed to decode reads the next PDU.
func TestReadAfterDecodeError(t *testing.T) {
	bad := rawPDU(0x00000003, 0, 77, cs("x")) // query_sm
	in := cat(bad, vec("enquire_link").raw)
	r := bytes.NewReader(in)
	_, buf, err := pdu.Read(r, nil, 0)
	if de := checkDecodeError(t, err); de.Status != pdu.ESME_RINVCMDID || de.Seq != 77 {
		t.Errorf("%v: status %v sequence %d", err, de.Status, de.Seq)
	}
	p, _, err := pdu.Read(r, buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(vec("enquire_link").pdu, p, cmpOpts...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadRefusesLength(t *testing.T) {
	const limit = 1 << 20
	for _, c := range []struct {
		name   string
		length uint32
		limit  int
	}{
		{"0", 0, limit},
		{"4", 4, limit},
		{"15", 15, limit},
		{"limit+1", limit + 1, limit},
		{"0x7fffffff", 0x7fffffff, limit},
		{"0xffffffff", 0xffffffff, limit},
		{"DefaultMaxPDU+1 with no limit", pdu.DefaultMaxPDU + 1, 0},
		{"17 with a limit of 16", 17, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The header and more: Read must stop after command_length.
			in := cat(binary.BigEndian.AppendUint32(nil, c.length), hx("00000004 00000000 00000001"), make([]byte, 64))
			r := bytes.NewReader(in)
			buf := make([]byte, 0, 32)
			_, nb, err := pdu.Read(r, buf, c.limit)
			if !errors.Is(err, pdu.ErrTooLong) {
				t.Fatalf("error %v, want ErrTooLong", err)
			}
			if read := len(in) - r.Len(); read != 4 {
				t.Errorf("read %d octets, want the 4 of command_length", read)
			}
			if cap(nb) != cap(buf) {
				t.Errorf("buffer capacity %d, want the %d given", cap(nb), cap(buf))
			}
		})
	}
}

// A command_length claiming 2 GiB costs no memory: Read refuses it before
// allocating.
func TestReadLyingLengthAllocates(t *testing.T) {
	const limit = 1 << 20
	in := cat(hx("7fffffff 00000004 00000000 00000001"), make([]byte, 1000))
	r := bytes.NewReader(in)
	var (
		buf    []byte
		err    error
		unread int
	)
	read := func() {
		r.Reset(in)
		_, buf, err = pdu.Read(r, nil, limit)
		unread = r.Len()
	}
	allocs := testing.AllocsPerRun(100, read)
	if !errors.Is(err, pdu.ErrTooLong) {
		t.Fatalf("error %v, want ErrTooLong", err)
	}
	if allocs > 8 { // the error and its message; nothing of the body
		t.Errorf("%.0f allocations a Read", allocs)
	}
	if cap(buf) != 0 {
		t.Errorf("buffer of capacity %d", cap(buf))
	}
	if unread != len(in)-4 {
		t.Errorf("read %d octets, want 4", len(in)-unread)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 100
	for range runs {
		read()
	}
	runtime.ReadMemStats(&after)
	// A Read allocating even the limit would take 100 MiB here.
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Errorf("%d Reads allocated %d octets", runs, n)
	}
}

func TestReadAtLimit(t *testing.T) {
	v := vec("submit_sm GSM text")
	if _, _, err := pdu.Read(bytes.NewReader(v.raw), nil, len(v.raw)); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, _, err := pdu.Read(bytes.NewReader(v.raw), nil, len(v.raw)-1); !errors.Is(err, pdu.ErrTooLong) {
		t.Errorf("one over the limit: %v, want ErrTooLong", err)
	}
}

func TestReadEOF(t *testing.T) {
	v := vec("submit_sm GSM text")
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"nothing", nil, io.EOF},
		{"2 octets of command_length", v.raw[:2], io.ErrUnexpectedEOF},
		{"command_length only", v.raw[:4], io.ErrUnexpectedEOF},
		{"the header", v.raw[:16], io.ErrUnexpectedEOF},
		{"all but an octet", v.raw[:len(v.raw)-1], io.ErrUnexpectedEOF},
		{"a PDU and half another", cat(vec("enquire_link").raw, v.raw[:30]), io.ErrUnexpectedEOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := bytes.NewReader(c.in)
			var err error
			var buf []byte
			for range 3 {
				if _, buf, err = pdu.Read(r, buf, 0); err != nil {
					break
				}
			}
			if err != c.want {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

func TestReadPassesReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	v := vec("submit_sm GSM text")
	for _, n := range []int{0, 2, 4, 20} {
		r := io.MultiReader(bytes.NewReader(v.raw[:n]), iotest.ErrReader(boom))
		if _, _, err := pdu.Read(r, nil, 0); !errors.Is(err, boom) {
			t.Errorf("after %d octets: %v, want boom", n, err)
		}
	}
}

// specStatuses are the command_status values of SMPP 3.4 section 5.1.3.
var specStatuses = map[string]uint32{
	"ESME_ROK":              0x00000000,
	"ESME_RINVMSGLEN":       0x00000001,
	"ESME_RINVCMDLEN":       0x00000002,
	"ESME_RINVCMDID":        0x00000003,
	"ESME_RINVBNDSTS":       0x00000004,
	"ESME_RALYBND":          0x00000005,
	"ESME_RINVPRTFLG":       0x00000006,
	"ESME_RINVREGDLVFLG":    0x00000007,
	"ESME_RSYSERR":          0x00000008,
	"ESME_RINVSRCADR":       0x0000000A,
	"ESME_RINVDSTADR":       0x0000000B,
	"ESME_RINVMSGID":        0x0000000C,
	"ESME_RBINDFAIL":        0x0000000D,
	"ESME_RINVPASWD":        0x0000000E,
	"ESME_RINVSYSID":        0x0000000F,
	"ESME_RCANCELFAIL":      0x00000011,
	"ESME_RREPLACEFAIL":     0x00000013,
	"ESME_RMSGQFUL":         0x00000014,
	"ESME_RINVSERTYP":       0x00000015,
	"ESME_RINVNUMDESTS":     0x00000033,
	"ESME_RINVDLNAME":       0x00000034,
	"ESME_RINVDESTFLAG":     0x00000040,
	"ESME_RINVSUBREP":       0x00000042,
	"ESME_RINVESMCLASS":     0x00000043,
	"ESME_RCNTSUBDL":        0x00000044,
	"ESME_RSUBMITFAIL":      0x00000045,
	"ESME_RINVSRCTON":       0x00000048,
	"ESME_RINVSRCNPI":       0x00000049,
	"ESME_RINVDSTTON":       0x00000050,
	"ESME_RINVDSTNPI":       0x00000051,
	"ESME_RINVSYSTYP":       0x00000053,
	"ESME_RINVREPFLAG":      0x00000054,
	"ESME_RINVNUMMSGS":      0x00000055,
	"ESME_RTHROTTLED":       0x00000058,
	"ESME_RINVSCHED":        0x00000061,
	"ESME_RINVEXPIRY":       0x00000062,
	"ESME_RINVDFTMSGID":     0x00000063,
	"ESME_RX_T_APPN":        0x00000064,
	"ESME_RX_P_APPN":        0x00000065,
	"ESME_RX_R_APPN":        0x00000066,
	"ESME_RQUERYFAIL":       0x00000067,
	"ESME_RINVOPTPARSTREAM": 0x000000C0,
	"ESME_ROPTPARNOTALLWD":  0x000000C1,
	"ESME_RINVPARLEN":       0x000000C2,
	"ESME_RMISSINGOPTPARAM": 0x000000C3,
	"ESME_RINVOPTPARAMVAL":  0x000000C4,
	"ESME_RDELIVERYFAILURE": 0x000000FE,
	"ESME_RUNKNOWNERR":      0x000000FF,
}

func TestStatuses(t *testing.T) {
	all := pdu.Statuses()
	if len(all) != len(specStatuses) {
		t.Errorf("%d statuses, SMPP 3.4 names %d", len(all), len(specStatuses))
	}
	names := map[string]pdu.Status{}
	for _, s := range all {
		name := s.String()
		if prev, dup := names[name]; dup {
			t.Errorf("0x%08x and 0x%08x are both %s", uint32(prev), uint32(s), name)
		}
		names[name] = s
		want, ok := specStatuses[name]
		if !ok {
			t.Errorf("0x%08x is %q, not a name of SMPP 3.4", uint32(s), name)
			continue
		}
		if uint32(s) != want {
			t.Errorf("%s is 0x%08x, SMPP 3.4 has 0x%08x", name, uint32(s), want)
		}
	}
	for name, v := range specStatuses {
		if _, ok := names[name]; !ok {
			t.Errorf("Statuses() lacks %s (0x%08x)", name, v)
		}
		if got := pdu.Status(v).String(); got != name {
			t.Errorf("Status(0x%08x) = %q, want %q", v, got, name)
		}
	}
	// The constants themselves.
	for _, c := range []struct {
		s    pdu.Status
		name string
	}{
		{pdu.ESME_ROK, "ESME_ROK"}, {pdu.ESME_RINVCMDLEN, "ESME_RINVCMDLEN"}, {pdu.ESME_RINVCMDID, "ESME_RINVCMDID"},
		{pdu.ESME_RINVSRCADR, "ESME_RINVSRCADR"}, {pdu.ESME_RINVDSTADR, "ESME_RINVDSTADR"}, {pdu.ESME_RINVMSGID, "ESME_RINVMSGID"},
		{pdu.ESME_RMSGQFUL, "ESME_RMSGQFUL"}, {pdu.ESME_RINVSERTYP, "ESME_RINVSERTYP"}, {pdu.ESME_RINVDSTTON, "ESME_RINVDSTTON"},
		{pdu.ESME_RINVSYSTYP, "ESME_RINVSYSTYP"}, {pdu.ESME_RTHROTTLED, "ESME_RTHROTTLED"}, {pdu.ESME_RX_T_APPN, "ESME_RX_T_APPN"},
		{pdu.ESME_RINVOPTPARSTREAM, "ESME_RINVOPTPARSTREAM"}, {pdu.ESME_RINVPARLEN, "ESME_RINVPARLEN"},
		{pdu.ESME_RDELIVERYFAILURE, "ESME_RDELIVERYFAILURE"}, {pdu.ESME_RUNKNOWNERR, "ESME_RUNKNOWNERR"},
	} {
		if got := c.s.String(); got != c.name {
			t.Errorf("%s.String() = %q", c.name, got)
		}
		if uint32(c.s) != specStatuses[c.name] {
			t.Errorf("%s = 0x%08x, want 0x%08x", c.name, uint32(c.s), specStatuses[c.name])
		}
	}
	// Reserved and vendor statuses print by number.
	for _, c := range []struct {
		s    pdu.Status
		want string
	}{
		{0x09, "command_status(0x00000009)"},
		{0x16, "command_status(0x00000016)"},
		{0xc5, "command_status(0x000000c5)"},
		{0x400, "command_status(0x00000400)"},
		{0xffffffff, "command_status(0xffffffff)"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("Status(0x%x).String() = %q, want %q", uint32(c.s), got, c.want)
		}
	}
}

// allCommands are the command_id values of SMPP 3.4 section 5.1.2.1 an
// ESME needs.
var allCommands = []struct {
	id    pdu.CommandID
	name  string
	value uint32
}{
	{pdu.CmdGenericNack, "generic_nack", 0x80000000},
	{pdu.CmdBindReceiver, "bind_receiver", 0x00000001},
	{pdu.CmdBindReceiverResp, "bind_receiver_resp", 0x80000001},
	{pdu.CmdBindTransmitter, "bind_transmitter", 0x00000002},
	{pdu.CmdBindTransmitterResp, "bind_transmitter_resp", 0x80000002},
	{pdu.CmdSubmitSM, "submit_sm", 0x00000004},
	{pdu.CmdSubmitSMResp, "submit_sm_resp", 0x80000004},
	{pdu.CmdDeliverSM, "deliver_sm", 0x00000005},
	{pdu.CmdDeliverSMResp, "deliver_sm_resp", 0x80000005},
	{pdu.CmdUnbind, "unbind", 0x00000006},
	{pdu.CmdUnbindResp, "unbind_resp", 0x80000006},
	{pdu.CmdBindTransceiver, "bind_transceiver", 0x00000009},
	{pdu.CmdBindTransceiverResp, "bind_transceiver_resp", 0x80000009},
	{pdu.CmdEnquireLink, "enquire_link", 0x00000015},
	{pdu.CmdEnquireLinkResp, "enquire_link_resp", 0x80000015},
	{pdu.CmdDataSM, "data_sm", 0x00000103},
	{pdu.CmdDataSMResp, "data_sm_resp", 0x80000103},
}

func TestCommandIDs(t *testing.T) {
	for _, c := range allCommands {
		if uint32(c.id) != c.value {
			t.Errorf("%s = 0x%08x, SMPP 3.4 has 0x%08x", c.name, uint32(c.id), c.value)
		}
		if got := c.id.String(); got != c.name {
			t.Errorf("0x%08x.String() = %q, want %q", c.value, got, c.name)
		}
		if got, want := c.id.IsResponse(), c.value&0x80000000 != 0; got != want {
			t.Errorf("%s.IsResponse() = %v", c.name, got)
		}
	}
	if pdu.RespBit != 0x80000000 {
		t.Errorf("RespBit = 0x%08x", uint32(pdu.RespBit))
	}
	for _, c := range []struct {
		id   pdu.CommandID
		want string
	}{
		{0x00000003, "command_id(0x00000003)"}, // query_sm
		{0x80000021, "command_id(0x80000021)"}, // submit_multi_resp
		{0x00000102, "command_id(0x00000102)"}, // alert_notification
	} {
		if got := c.id.String(); got != c.want {
			t.Errorf("CommandID(0x%08x).String() = %q, want %q", uint32(c.id), got, c.want)
		}
	}
	for _, c := range []struct {
		m    pdu.BindMode
		want string
		id   pdu.CommandID
	}{
		{pdu.Transmitter, "transmitter", pdu.CmdBindTransmitter},
		{pdu.Receiver, "receiver", pdu.CmdBindReceiver},
		{pdu.Transceiver, "transceiver", pdu.CmdBindTransceiver},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("BindMode %d = %q, want %q", c.m, got, c.want)
		}
		if got := (&pdu.Bind{Mode: c.m}).Command(); got != c.id {
			t.Errorf("Bind %s command %v", c.want, got)
		}
		if got := (&pdu.BindResp{Mode: c.m}).Command(); got != c.id|pdu.RespBit {
			t.Errorf("BindResp %s command %v", c.want, got)
		}
	}
	if got := (&pdu.Error{Command: pdu.CmdSubmitSMResp, Status: pdu.ESME_RTHROTTLED}).Error(); got != "smpp: submit_sm_resp: ESME_RTHROTTLED" {
		t.Errorf("Error() = %q", got)
	}
}

func TestTLVs(t *testing.T) {
	ts := pdu.TLVs{
		pdu.U8(pdu.TagMessageState, 2),
		pdu.CStr(pdu.TagReceiptedMessageID, "first"),
		{Tag: pdu.TagSarMsgRefNum, Value: []byte{0x12, 0x34}},
		{Tag: pdu.TagQOSTimeToLive, Value: []byte{0x00, 0x01, 0x51, 0x80}},
		{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, 0x01, 0x02}},
		pdu.U16(pdu.TagUserMessageReference, 0xbeef),
		{Tag: pdu.TagReceiptedMessageID, Value: []byte("last")}, // repeated, without its NUL
		{Tag: pdu.TagAdditionalStatusInfo, Value: nil},
		{Tag: pdu.TagCallbackNum, Value: []byte{1, 2, 3}},
	}
	if v, ok := ts.Get(pdu.TagReceiptedMessageID); !ok || string(v) != "last" {
		t.Errorf("Get of a repeated tag = %q, %v, want the last", v, ok)
	}
	if v, ok := ts.Get(pdu.TagMessagePayload); ok || v != nil {
		t.Errorf("Get of a missing tag = %q, %v", v, ok)
	}
	if v, ok := ts.Get(pdu.TagAdditionalStatusInfo); !ok || len(v) != 0 {
		t.Errorf("Get of an empty value = %q, %v", v, ok)
	}
	for _, c := range []struct {
		tag  pdu.Tag
		want uint32
		ok   bool
	}{
		{pdu.TagMessageState, 2, true},
		{pdu.TagSarMsgRefNum, 0x1234, true},
		{pdu.TagUserMessageReference, 0xbeef, true},
		{pdu.TagQOSTimeToLive, 86400, true},
		{pdu.TagNetworkErrorCode, 0, false}, // 3 octets
		{pdu.TagAdditionalStatusInfo, 0, false},
		{pdu.TagMessagePayload, 0, false},
	} {
		if got, ok := ts.Uint(c.tag); got != c.want || ok != c.ok {
			t.Errorf("Uint(0x%04x) = %d, %v, want %d, %v", uint16(c.tag), got, ok, c.want, c.ok)
		}
	}
	if s, ok := (pdu.TLVs{pdu.CStr(pdu.TagReceiptedMessageID, "5f3a2b1c")}).CString(pdu.TagReceiptedMessageID); !ok || s != "5f3a2b1c" {
		t.Errorf("CString with NUL = %q, %v", s, ok)
	}
	if s, ok := ts.CString(pdu.TagReceiptedMessageID); !ok || s != "last" {
		t.Errorf("CString without NUL = %q, %v", s, ok)
	}
	if s, ok := ts.CString(pdu.TagAdditionalStatusInfo); !ok || s != "" {
		t.Errorf("CString of an empty value = %q, %v", s, ok)
	}
	if s, ok := (pdu.TLVs{pdu.CStr(pdu.TagAdditionalStatusInfo, "")}).CString(pdu.TagAdditionalStatusInfo); !ok || s != "" {
		t.Errorf("CString of a NUL = %q, %v", s, ok)
	}
	if s, ok := ts.CString(pdu.TagMessagePayload); ok || s != "" {
		t.Errorf("CString of a missing tag = %q, %v", s, ok)
	}
	if ne, ok := ts.NetworkError(); !ok || ne != (pdu.NetworkErrorCode{Type: 3, Code: 0x0102}) {
		t.Errorf("NetworkError = %+v, %v", ne, ok)
	}
	if ne, ok := (pdu.TLVs{{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, 1}}}).NetworkError(); ok {
		t.Errorf("NetworkError of 2 octets = %+v, %v", ne, ok)
	}
	if ne, ok := (pdu.TLVs{}).NetworkError(); ok {
		t.Errorf("NetworkError of none = %+v, %v", ne, ok)
	}
	for _, c := range []struct {
		got  pdu.TLV
		want pdu.TLV
	}{
		{pdu.U8(pdu.TagSarTotalSegments, 3), pdu.TLV{Tag: 0x020e, Value: []byte{3}}},
		{pdu.U16(pdu.TagSarMsgRefNum, 0xabcd), pdu.TLV{Tag: 0x020c, Value: []byte{0xab, 0xcd}}},
		{pdu.CStr(pdu.TagReceiptedMessageID, "id"), pdu.TLV{Tag: 0x001e, Value: []byte{'i', 'd', 0}}},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}

	// The decoded receipt of the vectors, read with the helpers.
	p, err := pdu.Decode(vec("deliver_sm delivery receipt").raw)
	if err != nil {
		t.Fatal(err)
	}
	dlr := p.Body.(*pdu.DeliverSM)
	if id, ok := dlr.TLVs.CString(pdu.TagReceiptedMessageID); !ok || id != "5f3a2b1c" {
		t.Errorf("receipted_message_id = %q, %v", id, ok)
	}
	if st, ok := dlr.TLVs.Uint(pdu.TagMessageState); !ok || st != 5 {
		t.Errorf("message_state = %d, %v", st, ok)
	}
	if ne, ok := dlr.TLVs.NetworkError(); !ok || ne != (pdu.NetworkErrorCode{Type: 3, Code: 34}) {
		t.Errorf("network_error_code = %+v, %v", ne, ok)
	}
}

// The tags of the optional parameters against SMPP 3.4 section 5.3.2.
func TestTags(t *testing.T) {
	for _, c := range []struct {
		tag  pdu.Tag
		want uint16
	}{
		{pdu.TagDestAddrSubunit, 0x0005}, {pdu.TagSourceAddrSubunit, 0x000D}, {pdu.TagPayloadType, 0x0019},
		{pdu.TagAdditionalStatusInfo, 0x001D}, {pdu.TagReceiptedMessageID, 0x001E}, {pdu.TagMSMsgWaitFacilities, 0x0030},
		{pdu.TagUserMessageReference, 0x0204}, {pdu.TagSourcePort, 0x020A}, {pdu.TagDestinationPort, 0x020B},
		{pdu.TagSarMsgRefNum, 0x020C}, {pdu.TagLanguageIndicator, 0x020D}, {pdu.TagSarTotalSegments, 0x020E},
		{pdu.TagSarSegmentSeqnum, 0x020F}, {pdu.TagSCInterfaceVersion, 0x0210}, {pdu.TagNetworkErrorCode, 0x0423},
		{pdu.TagMessagePayload, 0x0424}, {pdu.TagDeliveryFailureReason, 0x0425}, {pdu.TagMoreMessagesToSend, 0x0426},
		{pdu.TagMessageState, 0x0427}, {pdu.TagUSSDServiceOp, 0x0501}, {pdu.TagAlertOnMessageDelivery, 0x130C},
	} {
		if uint16(c.tag) != c.want {
			t.Errorf("tag 0x%04x, SMPP 3.4 has 0x%04x", uint16(c.tag), c.want)
		}
	}
}
