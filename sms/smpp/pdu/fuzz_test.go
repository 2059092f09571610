package pdu_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// FuzzDecode: Decode never panics, refuses with a *DecodeError naming a
// field and a status, and what it accepts encodes back to the same
// octets (a response with an error status may gain or lose its body) and
// decodes again to the same PDU.
func FuzzDecode(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.raw)
	}
	for _, c := range decodeRules {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		p, err := pdu.Decode(b)
		if err != nil {
			var de *pdu.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T), want a *DecodeError", err, err)
			}
			if de.Field == "" || de.Status == pdu.ESME_ROK {
				t.Fatalf("%v: field %q, status %v", err, de.Field, de.Status)
			}
			return
		}
		if p.Body == nil {
			t.Fatal("decoded without a body")
		}
		out, err := pdu.Append(nil, p)
		if err != nil {
			t.Fatalf("Append of a decoded PDU: %v", err)
		}
		if !bytes.Equal(b, in) {
			t.Fatal("Append changed the decoded octets")
		}
		errorResp := p.Body.Command().IsResponse() && p.Status != pdu.ESME_ROK
		if !errorResp && !bytes.Equal(out, b) {
			t.Fatalf("round trip:\n got %x\nwant %x", out, b)
		}
		q, err := pdu.Decode(out)
		if err != nil {
			t.Fatalf("Decode of %x from Append: %v", out, err)
		}
		if diff := cmp.Diff(p, q, cmpOpts...); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzRead: reading arbitrary octets as a stream of PDUs with a limit of
// 4096 never panics, never holds a buffer beyond the limit, and ends the
// stream as Read says: io.EOF between PDUs, io.ErrUnexpectedEOF inside
// one, ErrTooLong after command_length alone.
func FuzzRead(f *testing.F) {
	f.Add(stream())
	for _, v := range vectors {
		f.Add(v.raw)
	}
	f.Add(hx("7fffffff 00000004 00000000 00000001"))
	f.Add(hx("00001001 00000004 00000000 00000001"))
	f.Add(hx("00001000 00000004 00000000 00000001"))
	f.Add(hx("0000000f 00000015 00000000 00000001"))
	f.Add(cat(rawPDU(0x00000003, 0, 1), vec("enquire_link").raw))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 4096
		r := bytes.NewReader(in)
		var buf []byte
		for {
			before := r.Len()
			p, nb, err := pdu.Read(r, buf, limit)
			if cap(nb) > limit {
				t.Fatalf("buffer of capacity %d, limit %d", cap(nb), limit)
			}
			buf = nb
			read := before - r.Len()
			var de *pdu.DecodeError
			switch {
			case err == nil:
				if p.Body == nil || read != len(nb) {
					t.Fatalf("read %d octets, buffer of %d, body %v", read, len(nb), p.Body)
				}
				out, err := pdu.Append(nil, p)
				if err != nil {
					t.Fatalf("Append of a read PDU: %v", err)
				}
				q, err := pdu.Decode(out)
				if err != nil {
					t.Fatalf("Decode of %x from Append: %v", out, err)
				}
				if diff := cmp.Diff(p, q, cmpOpts...); diff != "" {
					t.Fatalf("round trip (-first +second):\n%s", diff)
				}
			case errors.As(err, &de):
				if read != len(nb) {
					t.Fatalf("%v after %d octets of a PDU of %d", err, read, len(nb))
				}
			case errors.Is(err, pdu.ErrTooLong):
				if read != 4 {
					t.Fatalf("%v after %d octets", err, read)
				}
				return
			case err == io.EOF:
				if before != 0 {
					t.Fatalf("io.EOF with %d octets left", before)
				}
				return
			case err == io.ErrUnexpectedEOF:
				if before == 0 || r.Len() != 0 {
					t.Fatalf("io.ErrUnexpectedEOF with %d octets, %d left", before, r.Len())
				}
				return
			default:
				t.Fatalf("error %v (%T)", err, err)
			}
		}
	})
}

// Random PDUs of every body, each field within its bounds, encode and
// decode back to themselves, by Decode and by Read.
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := pdu.PDU{
			Status: rapid.OneOf(rapid.Just(pdu.ESME_ROK), rapid.SampledFrom(sortedStatuses()), rapid.Map(rapid.Uint32(), toStatus)).Draw(t, "status"),
			Seq:    rapid.Uint32().Draw(t, "seq"),
			Body:   bodyGen.Draw(t, "body"),
		}
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "prefix")
		out, err := pdu.Append(bytes.Clone(prefix), p)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		if !bytes.Equal(out[:len(prefix)], prefix) {
			t.Fatalf("Append changed the octets before: %x, want %x", out[:len(prefix)], prefix)
		}
		raw := out[len(prefix):]
		got, err := pdu.Decode(raw)
		if err != nil {
			t.Fatalf("Decode of %x: %v", raw, err)
		}
		if diff := cmp.Diff(p, got, cmpOpts...); diff != "" {
			t.Fatalf("Decode (-want +got):\n%s", diff)
		}
		// One after the other on a stream.
		r := bytes.NewReader(bytes.Repeat(raw, 2))
		var buf []byte
		for i := range 2 {
			got, buf, err = pdu.Read(r, buf, 0)
			if err != nil {
				t.Fatalf("Read %d: %v", i, err)
			}
			if diff := cmp.Diff(p, got, cmpOpts...); diff != "" {
				t.Fatalf("Read %d (-want +got):\n%s", i, diff)
			}
		}
	})
}

func toStatus(v uint32) pdu.Status { return pdu.Status(v) }

// sortedStatuses are the named statuses in a fixed order, for rapid to
// draw them the same way each run.
func sortedStatuses() []pdu.Status {
	s := pdu.Statuses()
	slices.Sort(s)
	return s
}

// fixedLen are the lengths SMPP 3.4 section 5.3.2 gives the optional
// parameters the codec checks.
var fixedLen = map[pdu.Tag]int{
	pdu.TagSarMsgRefNum: 2, pdu.TagSarTotalSegments: 1, pdu.TagSarSegmentSeqnum: 1, pdu.TagSCInterfaceVersion: 1,
	pdu.TagMessageState: 1, pdu.TagNetworkErrorCode: 3, pdu.TagSourcePort: 2, pdu.TagDestinationPort: 2,
	pdu.TagUserMessageReference: 2, pdu.TagPayloadType: 1, pdu.TagDeliveryFailureReason: 1,
	pdu.TagMoreMessagesToSend: 1, pdu.TagLanguageIndicator: 1, pdu.TagMSMsgWaitFacilities: 1,
}

var knownTags = []pdu.Tag{
	pdu.TagSarMsgRefNum, pdu.TagSarTotalSegments, pdu.TagSarSegmentSeqnum, pdu.TagSCInterfaceVersion,
	pdu.TagMessageState, pdu.TagNetworkErrorCode, pdu.TagSourcePort, pdu.TagDestinationPort,
	pdu.TagUserMessageReference, pdu.TagPayloadType, pdu.TagDeliveryFailureReason, pdu.TagMoreMessagesToSend,
	pdu.TagLanguageIndicator, pdu.TagMSMsgWaitFacilities, pdu.TagMessagePayload, pdu.TagReceiptedMessageID,
	pdu.TagAdditionalStatusInfo, pdu.TagCallbackNum, pdu.TagUSSDServiceOp,
}

// text draws a C-Octet String of at most max characters, without NUL.
func text(max int) *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.ByteRange(1, 255), 0, max), func(b []byte) string { return string(b) })
}

// timeGen draws an SMPP time: none, or 16 characters.
var timeGen = rapid.OneOf(rapid.Just(""), rapid.Map(rapid.SliceOfN(rapid.ByteRange(1, 255), 16, 16), func(b []byte) string { return string(b) }))

func address(max int) *rapid.Generator[pdu.Address] {
	return rapid.Custom(func(t *rapid.T) pdu.Address {
		return pdu.Address{TON: rapid.Byte().Draw(t, "ton"), NPI: rapid.Byte().Draw(t, "npi"), Addr: text(max).Draw(t, "addr")}
	})
}

var tlvsGen = rapid.Custom(func(t *rapid.T) pdu.TLVs {
	n := rapid.IntRange(0, 5).Draw(t, "tlvs")
	var ts pdu.TLVs
	for range n {
		tag := rapid.OneOf(rapid.SampledFrom(knownTags), rapid.Map(rapid.Uint16(), func(v uint16) pdu.Tag { return pdu.Tag(v) })).Draw(t, "tag")
		size, fixed := fixedLen[tag]
		if !fixed {
			size = rapid.OneOf(rapid.IntRange(0, 40), rapid.IntRange(0, 2000)).Draw(t, "size")
		}
		ts = append(ts, pdu.TLV{Tag: tag, Value: rapid.SliceOfN(rapid.Byte(), size, size).Draw(t, "value")})
	}
	return ts
})

var modeGen = rapid.SampledFrom([]pdu.BindMode{pdu.Transmitter, pdu.Receiver, pdu.Transceiver})

var shortMessageGen = rapid.Custom(func(t *rapid.T) pdu.ShortMessage {
	return pdu.ShortMessage{
		ServiceType:          text(5).Draw(t, "service_type"),
		Source:               address(20).Draw(t, "source"),
		Dest:                 address(20).Draw(t, "dest"),
		ESMClass:             rapid.Byte().Draw(t, "esm_class"),
		ProtocolID:           rapid.Byte().Draw(t, "protocol_id"),
		Priority:             rapid.Byte().Draw(t, "priority"),
		ScheduleDeliveryTime: timeGen.Draw(t, "schedule"),
		ValidityPeriod:       timeGen.Draw(t, "validity"),
		RegisteredDelivery:   rapid.Byte().Draw(t, "registered_delivery"),
		ReplaceIfPresent:     rapid.Byte().Draw(t, "replace_if_present"),
		DataCoding:           rapid.Byte().Draw(t, "data_coding"),
		DefaultMsgID:         rapid.Byte().Draw(t, "default_msg_id"),
		Message:              rapid.SliceOfN(rapid.Byte(), 0, pdu.MaxShortMessage).Draw(t, "message"),
		TLVs:                 tlvsGen.Draw(t, "tlvs"),
	}
})

var bodyGen = rapid.OneOf(
	rapid.Custom(func(t *rapid.T) pdu.Body {
		return &pdu.Bind{
			Mode:       modeGen.Draw(t, "mode"),
			SystemID:   text(15).Draw(t, "system_id"),
			Password:   text(8).Draw(t, "password"),
			SystemType: text(12).Draw(t, "system_type"),
			Version:    rapid.Byte().Draw(t, "version"),
			Range:      address(40).Draw(t, "range"),
		}
	}),
	rapid.Custom(func(t *rapid.T) pdu.Body {
		return &pdu.BindResp{Mode: modeGen.Draw(t, "mode"), SystemID: text(15).Draw(t, "system_id"), TLVs: tlvsGen.Draw(t, "tlvs")}
	}),
	rapid.Custom(func(t *rapid.T) pdu.Body { return &pdu.SubmitSM{ShortMessage: shortMessageGen.Draw(t, "sm")} }),
	rapid.Custom(func(t *rapid.T) pdu.Body { return &pdu.DeliverSM{ShortMessage: shortMessageGen.Draw(t, "sm")} }),
	rapid.Custom(func(t *rapid.T) pdu.Body { return &pdu.SubmitSMResp{MessageID: text(64).Draw(t, "message_id")} }),
	rapid.Custom(func(t *rapid.T) pdu.Body { return &pdu.DeliverSMResp{MessageID: text(64).Draw(t, "message_id")} }),
	rapid.Custom(func(t *rapid.T) pdu.Body {
		return &pdu.DataSM{
			ServiceType:        text(5).Draw(t, "service_type"),
			Source:             address(64).Draw(t, "source"),
			Dest:               address(64).Draw(t, "dest"),
			ESMClass:           rapid.Byte().Draw(t, "esm_class"),
			RegisteredDelivery: rapid.Byte().Draw(t, "registered_delivery"),
			DataCoding:         rapid.Byte().Draw(t, "data_coding"),
			TLVs:               tlvsGen.Draw(t, "tlvs"),
		}
	}),
	rapid.Custom(func(t *rapid.T) pdu.Body {
		return &pdu.DataSMResp{MessageID: text(64).Draw(t, "message_id"), TLVs: tlvsGen.Draw(t, "tlvs")}
	}),
	rapid.Custom(func(t *rapid.T) pdu.Body {
		return &pdu.Empty{ID: rapid.SampledFrom([]pdu.CommandID{
			pdu.CmdUnbind, pdu.CmdUnbindResp, pdu.CmdEnquireLink, pdu.CmdEnquireLinkResp, pdu.CmdGenericNack,
		}).Draw(t, "id")}
	}),
)
