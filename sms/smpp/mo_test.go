package smpp_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

func mo(esm, coding byte, ud []byte, tlvs ...pdu.TLV) *pdu.DeliverSM {
	return &pdu.DeliverSM{ShortMessage: pdu.ShortMessage{
		Source: pdu.Address{TON: 1, NPI: 1, Addr: "41790000001"}, Dest: pdu.Address{Addr: "+4560"},
		ESMClass: esm, DataCoding: coding, Message: ud, TLVs: tlvs}}
}

func codes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := gsm.AppendCodes(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInboundOf(t *testing.T) {
	ucs := []byte{0x00, 'h', 0x04, 0x10} // "hА"
	for _, tc := range []struct {
		name   string
		d      *pdu.DeliverSM
		packed bool
		want   sms.Inbound
	}{
		{"GSM", mo(0, 0, codes(t, "Hello @ €")), false, sms.Inbound{Text: "Hello @ €", DCS: gsm.DCSGSM}},
		{"GSM class 0", mo(0, 0xF0, codes(t, "x")), false, sms.Inbound{Text: "x", DCS: gsm.DCSGSM}},
		{"GSM packed", mo(0, 0, gsm.Pack(nil, codes(t, "hellohello"))), true, sms.Inbound{Text: "hellohello", DCS: gsm.DCSGSM}},
		{"GSM packed, 7 septets", mo(0, 0, gsm.Pack(nil, codes(t, "1234567"))), true, sms.Inbound{Text: "1234567", DCS: gsm.DCSGSM}},
		{"IA5", mo(0, 1, []byte("plain")), false, sms.Inbound{Text: "plain", DCS: gsm.DCSGSM}},
		{"Latin-1", mo(0, 3, []byte{'a', 0xE9, 0xFE}), false, sms.Inbound{Text: "aéþ", DCS: gsm.DCSUCS}},
		{"UCS-2", mo(0, 8, ucs), false, sms.Inbound{Text: "hА", DCS: gsm.DCSUCS}},
		{"UCS-2 flash", mo(0, 0x18, ucs), false, sms.Inbound{Text: "hА", DCS: gsm.DCSUCS}},
		{"payload", mo(0, 0, nil, pdu.TLV{Tag: pdu.TagMessagePayload, Value: codes(t, "long")}), false, sms.Inbound{Text: "long", DCS: gsm.DCSGSM}},
		{"UDH 8-bit", mo(0x40, 0, append([]byte{5, 0, 3, 0x12, 3, 2}, codes(t, "part")...)), false,
			sms.Inbound{Text: "part", DCS: gsm.DCSGSM, Ref: 0x12, Total: 3, Seq: 2}},
		{"UDH 16-bit, other element first", mo(0x40, 8, append([]byte{9, 0x24, 1, 1, 8, 4, 0x12, 0x34, 2, 1}, ucs...)), false,
			sms.Inbound{Text: "hА", DCS: gsm.DCSUCS, Ref: 0x1234, Total: 2, Seq: 1}},
		{"UDH packed", mo(0x40, 0, gsm.Pack([]byte{5, 0, 3, 9, 2, 2}, codes(t, "tail"))), true,
			sms.Inbound{Text: "tail", DCS: gsm.DCSGSM, Ref: 9, Total: 2, Seq: 2}},
		{"SAR", mo(0, 0, codes(t, "sar"), pdu.U16(pdu.TagSarMsgRefNum, 500), pdu.U8(pdu.TagSarTotalSegments, 2), pdu.U8(pdu.TagSarSegmentSeqnum, 2)), false,
			sms.Inbound{Text: "sar", DCS: gsm.DCSGSM, Ref: 500, Total: 2, Seq: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := smpp.InboundOf(tc.d, "smsc", tc.packed)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Conn, tc.want.Source, tc.want.Dest = "smsc", "41790000001", "4560"
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range []struct {
		name string
		d    *pdu.DeliverSM
	}{
		{"binary", mo(0, 4, []byte{1, 2})},
		{"8-bit class", mo(0, 0xF4, []byte{1})},
		{"IA5 above 127", mo(0, 1, []byte{0x80})},
		{"UDHI without header", mo(0x40, 0, nil)},
		{"header overrun", mo(0x40, 0, []byte{4, 0, 3, 1})},
		{"part 0", mo(0x40, 0, []byte{5, 0, 3, 1, 2, 0})},
		{"SAR beyond", mo(0, 0, []byte("x"), pdu.U8(pdu.TagSarMsgRefNum, 1), pdu.U8(pdu.TagSarTotalSegments, 2), pdu.U8(pdu.TagSarSegmentSeqnum, 3))},
		{"odd UCS-2", mo(0, 8, []byte{0})},
	} {
		var moErr *smpp.MOError
		if _, err := smpp.InboundOf(tc.d, "smsc", false); !errors.As(err, &moErr) {
			t.Errorf("%s: %v, want a MOError", tc.name, err)
		}
	}
}

// FuzzInboundOf: any deliver_sm is read or refused with a MOError, never
// a panic, and a text read is valid UTF-8 with a part number within its
// total.
func FuzzInboundOf(f *testing.F) {
	f.Add(byte(0x40), byte(0), []byte{5, 0, 3, 1, 2, 1, 'a'}, false)
	f.Add(byte(0), byte(8), []byte{0, 'a'}, false)
	f.Add(byte(0x40), byte(0), []byte{5, 0, 3, 1, 2, 1, 0xff, 0x80}, true)
	f.Fuzz(func(t *testing.T, esm, coding byte, ud []byte, packed bool) {
		in, err := smpp.InboundOf(mo(esm, coding, ud), "c", packed)
		var moErr *smpp.MOError
		switch {
		case err != nil && !errors.As(err, &moErr):
			t.Fatalf("%v is no MOError", err)
		case err == nil && in.Total > 1 && (in.Seq == 0 || in.Seq > in.Total):
			t.Fatalf("part %d of %d", in.Seq, in.Total)
		}
	})
}

// inboundSink records what the client hands over; it fails while fail is
// set.
type inboundSink struct {
	mu   sync.Mutex
	fail bool
	got  []sms.Inbound
}

func (s *inboundSink) HandleInbound(_ context.Context, in sms.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("store down")
	}
	s.got = append(s.got, in)
	return nil
}

func (s *inboundSink) taken() []sms.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sms.Inbound(nil), s.got...)
}

// A deliver_sm that is no receipt is handed to Options.Inbound and
// acknowledged once taken; a sink that fails answers ESME_RX_T_APPN, so
// the SMSC offers it again.
func TestMobileOriginatedPassedOn(t *testing.T) {
	in := &inboundSink{fail: true}
	e := startWith(t, smppsim.Options{}, smpp.Config{}, smpp.Options{Inbound: in})
	e.waitBound(t, 1)
	if err := e.sim.Deliver("msgkit", "mo-1", *mo(0x40, 0, append([]byte{5, 0, 3, 7, 2, 1}, codes(t, "hello ")...))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := e.sim.Wait(ctx, func() bool { return len(e.sim.Refusals()) == 1 }); err != nil {
		t.Fatal("a message the sink did not take was not refused")
	}
	in.mu.Lock()
	in.fail = false
	in.mu.Unlock()
	e.sim.DropAll() // the SMSC offers it again on the new bind
	if _, err := e.sim.WaitAcked(ctx, 1); err != nil {
		t.Fatalf("offered again: %v", err)
	}
	got := in.taken()
	want := []sms.Inbound{{Conn: "sim", Source: "41790000001", Dest: "4560", DCS: gsm.DCSGSM, Text: "hello ", Ref: 7, Total: 2, Seq: 1}}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".At" }, cmp.Ignore())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(got) == 1 && got[0].At.IsZero() {
		t.Error("no arrival time")
	}
}

// A message that is no text is refused for good (ESME_RX_P_APPN), and a
// client without Options.Inbound refuses for now (ESME_RX_T_APPN): never
// acknowledged and dropped.
func TestMobileOriginatedRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts smpp.Options
		d    *pdu.DeliverSM
	}{
		{"binary", smpp.Options{Inbound: &inboundSink{}}, mo(0, 4, []byte{1})},
		{"no sink", smpp.Options{}, mo(0, 0, []byte("x"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startWith(t, smppsim.Options{}, smpp.Config{}, tc.opts)
			e.waitBound(t, 1)
			if err := e.sim.Deliver("msgkit", "k", *tc.d); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := e.sim.Wait(ctx, func() bool { return len(e.sim.Refusals()) == 1 }); err != nil {
				t.Fatal("not refused")
			}
			if len(e.sim.Acked()) != 0 {
				t.Error("acknowledged")
			}
		})
	}
}
