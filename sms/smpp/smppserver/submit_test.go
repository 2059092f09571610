package smppserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// What the gateway cannot honour is refused before it, with the status
// of the package doc's table.
func TestRefusedBeforeTheGateway(t *testing.T) {
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)) // before the absolute validity below
	f := newFixture(t, smppserver.Options{Clock: clock.Now}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transceiver, "shop", "pw")
	sm := func(change func(*pdu.ShortMessage)) pdu.PDU {
		p := submitSM("Hi", nil)
		change(&p.Body.(*pdu.SubmitSM).ShortMessage)
		return p
	}
	for _, c := range []struct {
		name string
		p    pdu.PDU
		want pdu.Status
	}{
		{"data_coding 3", sm(func(m *pdu.ShortMessage) { m.DataCoding = 3 }), pdu.ESME_RSUBMITFAIL},
		{"a receipt's esm_class", sm(func(m *pdu.ShortMessage) { m.ESMClass = pdu.ESMClassReceipt }), pdu.ESME_RINVESMCLASS},
		{"priority 4", sm(func(m *pdu.ShortMessage) { m.Priority = 4 }), pdu.ESME_RINVPRTFLG},
		{"scheduled", sm(func(m *pdu.ShortMessage) { m.ScheduleDeliveryTime = "261201120000000+" }), pdu.ESME_RINVSCHED},
		{"bad validity", sm(func(m *pdu.ShortMessage) { m.ValidityPeriod = "26120112000000XR" }), pdu.ESME_RINVEXPIRY},
		{"replace", sm(func(m *pdu.ShortMessage) { m.ReplaceIfPresent = 1 }), pdu.ESME_RINVREPFLAG},
		{"predefined", sm(func(m *pdu.ShortMessage) { m.DefaultMsgID = 1 }), pdu.ESME_RINVDFTMSGID},
		{"registered_delivery reserved bits", sm(func(m *pdu.ShortMessage) { m.RegisteredDelivery = 0x20 }), pdu.ESME_RINVREGDLVFLG},
		{"both message fields", sm(func(m *pdu.ShortMessage) { m.TLVs = pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte("x")}} }), pdu.ESME_ROPTPARNOTALLWD},
		{"UDHI without a header", sm(func(m *pdu.ShortMessage) { m.ESMClass, m.Message = pdu.ESMClassUDHI, []byte{9, 0} }), pdu.ESME_RINVESMCLASS},
		{"a port element", sm(func(m *pdu.ShortMessage) {
			m.ESMClass, m.Message = pdu.ESMClassUDHI, []byte{6, 0x05, 4, 0x0B, 0x84, 0x23, 0xF0, 'x'}
		}), pdu.ESME_RSUBMITFAIL},
		{"part 3 of 2", submitSM("x", udh8(1, 2, 3)), pdu.ESME_RSUBMITFAIL},
		{"SAR incomplete", sm(func(m *pdu.ShortMessage) { m.TLVs = pdu.TLVs{pdu.U16(pdu.TagSarMsgRefNum, 1)} }), pdu.ESME_RMISSINGOPTPARAM},
		{"SAR part 0", sm(func(m *pdu.ShortMessage) {
			m.TLVs = pdu.TLVs{pdu.U16(pdu.TagSarMsgRefNum, 1), pdu.U8(pdu.TagSarTotalSegments, 2), pdu.U8(pdu.TagSarSegmentSeqnum, 0)}
		}), pdu.ESME_RINVOPTPARAMVAL},
		{"septet above 0x7F (109)", sm(func(m *pdu.ShortMessage) { m.Message = []byte{'H', 0x80} }), pdu.ESME_RSUBMITFAIL},
		{"odd UCS-2 (109)", sm(func(m *pdu.ShortMessage) { m.DataCoding, m.Message = 8, []byte{0, 'H', 0} }), pdu.ESME_RSUBMITFAIL},
		{"receiver without a route (114)", sm(func(m *pdu.ShortMessage) { m.Dest.Addr = "4915112345678" }), pdu.ESME_RINVDSTADR},
		{"a bad receiver (112)", sm(func(m *pdu.ShortMessage) { m.Dest.Addr = "12" }), pdu.ESME_RINVDSTADR},
		{"a bad sender (107)", sm(func(m *pdu.ShortMessage) { m.Source.Addr = "My$Shop" }), pdu.ESME_RINVSRCADR},
		{"no text (110)", sm(func(m *pdu.ShortMessage) { m.Message = nil }), pdu.ESME_RSUBMITFAIL},
		{"a relative validity", sm(func(m *pdu.ShortMessage) { m.ValidityPeriod = "000001000000000R" }), pdu.ESME_ROK},
		{"an absolute validity, flash", sm(func(m *pdu.ShortMessage) { m.ValidityPeriod, m.DataCoding = "261201120000004+", 0x10 }), pdu.ESME_ROK},
	} {
		if got := e.call(t, c.p).Status; got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// data_sm without message_payload.
	d := pdu.PDU{Body: &pdu.DataSM{Source: pdu.Address{Addr: "MyShop"}, Dest: pdu.Address{Addr: "38640123456"}}}
	if got := e.call(t, d).Status; got != pdu.ESME_RMISSINGOPTPARAM {
		t.Errorf("data_sm without message_payload: %s", got)
	}
}

// A whole long message in message_payload (submit_sm and data_sm) is
// accepted and charged per part, as over HTTP.
func TestMessagePayload(t *testing.T) {
	f := newFixture(t, smppserver.Options{}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transmitter, "shop", "pw")
	text := strings.Repeat("0123456789", 30) // 300 septets: 2 parts
	sm := submitSM("", nil)
	sm.Body.(*pdu.SubmitSM).TLVs = pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte(text)}}
	ds := pdu.PDU{Body: &pdu.DataSM{Source: pdu.Address{TON: 5, Addr: "MyShop"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"},
		TLVs: pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte(text)}}}}
	for _, p := range []pdu.PDU{sm, ds} {
		r := e.call(t, p)
		if r.Status != pdu.ESME_ROK {
			t.Fatalf("%s: %s", p.Body.Command(), r.Status)
		}
		var id string
		switch b := r.Body.(type) {
		case *pdu.SubmitSMResp:
			id = b.MessageID
		case *pdu.DataSMResp:
			id = b.MessageID
		}
		m, err := f.store.Message(t.Context(), sms.MessageID(id))
		if err != nil || len(m.Parts) != 2 || m.Charged.String() != "0.1" || m.Parts[0].Text+m.Parts[1].Text != text {
			t.Errorf("%s: %d parts, %s charged, %v", p.Body.Command(), len(m.Parts), m.Charged, err)
		}
	}
}

// A long message whose parts do not all come within PartsTimeout is
// dropped; a message's parts with another data_coding are refused.
func TestIncompleteMessageDropped(t *testing.T) {
	f := newFixture(t, smppserver.Options{PartsTimeout: 50 * time.Millisecond}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transmitter, "shop", "pw")
	if r := e.call(t, submitSM("first ", udh8(7, 3, 1))); r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	other := submitSM("\x00x", udh8(7, 3, 2))
	other.Body.(*pdu.SubmitSM).DataCoding = 8
	if r := e.call(t, other); r.Status != pdu.ESME_RSUBMITFAIL {
		t.Errorf("a part in another coding: %s", r.Status)
	}
	if f.srv.Gathering() != 1 {
		t.Fatalf("%d gathering", f.srv.Gathering())
	}
	waitFor(t, func() bool { return f.srv.Gathering() == 0 })
}
