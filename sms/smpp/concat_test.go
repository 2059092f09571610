package smpp_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// concatConfigs are the ways a connection can carry long messages.
var concatConfigs = []struct {
	name string
	cfg  smpp.Config
}{
	{"udh8", smpp.Config{}},
	{"udh8 packed", smpp.Config{GSMPacked: true}},
	{"udh16", smpp.Config{Concat: smpp.ConcatUDH16}},
	{"udh16 packed", smpp.Config{Concat: smpp.ConcatUDH16, GSMPacked: true}},
	{"sar", smpp.Config{Concat: smpp.ConcatSAR}},
	{"sar packed", smpp.Config{Concat: smpp.ConcatSAR, GSMPacked: true}},
}

// wirePart is a submit_sm read back: its place in its message, its
// reference, the units it carries and the octets they take on the air.
type wirePart struct {
	ref, total, seq int
	units           []uint16 // GSM septet codes or UTF-16 units
	air             int
	// fill says the last unit, a zero, may be the 7 fill bits that end
	// packed septets on an octet: an @ there looks the same.
	fill bool
}

// readPart takes a submit_sm apart as a handset would get it.
func readPart(t testing.TB, sm *pdu.SubmitSM, packed bool) wirePart {
	t.Helper()
	msg := sm.Message
	if len(msg) == 0 {
		msg, _ = sm.TLVs.Get(pdu.TagMessagePayload)
	}
	w := wirePart{total: 1, seq: 1}
	hdr := 0
	if sm.ESMClass&pdu.ESMClassUDHI != 0 {
		hdr = int(msg[0]) + 1
		for ies := msg[1:hdr]; len(ies) >= 2; ies = ies[2+int(ies[1]):] {
			switch v := ies[2 : 2+int(ies[1])]; ies[0] {
			case 0x00:
				w.ref, w.total, w.seq = int(v[0]), int(v[1]), int(v[2])
			case 0x08:
				w.ref, w.total, w.seq = int(binary.BigEndian.Uint16(v)), int(v[2]), int(v[3])
			}
		}
	}
	if ref, ok := sm.TLVs.Uint(pdu.TagSarMsgRefNum); ok {
		total, _ := sm.TLVs.Uint(pdu.TagSarTotalSegments)
		seq, _ := sm.TLVs.Uint(pdu.TagSarSegmentSeqnum)
		w.ref, w.total, w.seq = int(ref), int(total), int(seq)
	}
	switch {
	case sm.DataCoding&0x0F == smpp.CodingUCS2:
		for i := hdr; i+1 < len(msg); i += 2 {
			w.units = append(w.units, binary.BigEndian.Uint16(msg[i:]))
		}
		w.air = len(msg)
	case packed:
		first := (8*hdr + 6) / 7
		for i := first; 7*(i+1) <= 8*len(msg); i++ {
			bit := 7 * i
			v := uint16(msg[bit/8]) >> (bit % 8)
			if bit%8 > 1 {
				v |= uint16(msg[bit/8+1]) << (8 - bit%8)
			}
			w.units = append(w.units, v&0x7F)
		}
		n := len(w.units)
		w.fill = n > 0 && w.units[n-1] == 0 && 7*(first+n) == 8*len(msg)
		w.air = len(msg)
	default:
		for _, c := range msg[hdr:] {
			w.units = append(w.units, uint16(c))
		}
		w.air = (7*((8*hdr+6)/7+len(w.units)) + 7) / 8
	}
	return w
}

// The law of defect 1: split as the connection says (Config.RefWidth),
// every part of any text under any concatenation fits the 140 octets of
// an SMS with its header, and the parts, taken in their order, give the
// text back, all with one reference.
func TestConcatFitsAndReassembles(t *testing.T) {
	for _, c := range concatConfigs {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, smppsim.Options{}, c.cfg)
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				// Texts of any length in GSM alone, or with characters
				// only UCS-2 has.
				alphabet := rapid.SampledFrom([]string{"abc xyz@€{}[]~^\\|Äé\n", "abc xyz@€{}[]~^\\|ÄžčжЖ😀é\n"}).Draw(rt, "alphabet")
				runes := make([]rune, rapid.IntRange(1, 700).Draw(rt, "length"))
				for i := range runes {
					runes[i] = rapid.SampledFrom([]rune(alphabet)).Draw(rt, "rune")
				}
				text := string(runes)
				n++
				dest := sms.MSISDN(fmt.Sprintf("+38641%06d", n))
				id := sms.MessageID(fmt.Sprintf("law-%d", n))
				m, err := gsm.SplitTextRef(nil, text, gsm.DCSAuto, 0, c.cfg.RefWidth())
				if err != nil {
					rt.Fatalf("split: %v", err)
				}
				var parts []sms.OutboundPart
				for i, p := range m.Parts {
					parts = append(parts, sms.OutboundPart{MsgID: id, PartNum: i, NumParts: len(m.Parts), Sender: sms.Sender{Value: "msgkit"},
						Receiver: dest, DCS: m.DCS, Text: p.Text, UDH: p.UDH})
				}
				if errs := send(t, e, parts...); errs != nil {
					rt.Fatalf("Send: %v", errs)
				}
				var got []wirePart
				for _, s := range e.sim.Submits() {
					if s.Dest().Addr == dest.Digits() {
						got = append(got, readPart(t, s.PDU.Body.(*pdu.SubmitSM), c.cfg.GSMPacked))
					}
				}
				if len(got) != len(parts) {
					rt.Fatalf("%d submits of %d parts", len(got), len(parts))
				}
				slices.SortFunc(got, func(a, b wirePart) int { return a.seq - b.seq })
				var want []uint16
				if m.DCS == gsm.DCSUCS {
					want = utf16.Encode([]rune(text))
				} else {
					codes, _ := gsm.AppendCodes(nil, text)
					for _, c := range codes {
						want = append(want, uint16(c))
					}
				}
				var units []uint16
				for i, w := range got {
					if w.air > 140 {
						rt.Fatalf("part %d of %d takes %d octets of user data", i+1, len(got), w.air)
					}
					if w.seq != i+1 || w.total != len(got) || w.ref != got[0].ref {
						rt.Fatalf("part %d: seq %d of %d, reference %d (the first's %d)", i+1, w.seq, w.total, w.ref, got[0].ref)
					}
					u := w.units
					if w.fill && (len(units)+len(u) > len(want) || want[len(units)+len(u)-1] != 0) {
						u = u[:len(u)-1] // fill bits, not an @
					}
					units = append(units, u...)
				}
				if !slices.Equal(units, want) {
					rt.Fatalf("the parts give %v, want %v", units, want)
				}
			})
		})
	}
}

// A part sized for an 8-bit reference does not fit a 16-bit one's
// header: the client refuses it rather than send 141 octets.
func TestConcatRefusesOversizedPart(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{Concat: smpp.ConcatUDH16})
	m, err := gsm.SplitText(strings.Repeat("a", 306), gsm.DCSGSM, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := sms.OutboundPart{MsgID: "big", NumParts: 2, Sender: sms.Sender{Value: "msgkit"}, Receiver: "+38640123456", DCS: gsm.DCSGSM, Text: m.Parts[0].Text, UDH: m.Parts[0].UDH}
	errs := send(t, e, p)
	var r *sms.Refusal
	if len(errs) != 1 || !errors.As(errs[0], &r) || len(e.sim.Submits()) != 0 {
		t.Fatalf("a 153-septet part under a 16-bit reference: %v, %d submits", errs, len(e.sim.Submits()))
	}
}

// The law of defect 4: consecutive long messages to one number never
// share a reference (a handset joins parts by sender and reference),
// whatever the concatenation, and a message's parts share theirs though
// they come in different Sends, between another message's parts.
func TestReferencesPerDestination(t *testing.T) {
	for _, c := range concatConfigs {
		if c.cfg.GSMPacked {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			e := start(t, smppsim.Options{}, c.cfg)
			long := func(id string, num int) sms.OutboundPart {
				p := part(id, num, "x")
				p.NumParts = 2
				p.UDH = gsm.UDH{Ref: 7, Total: 2, Seq: uint8(num + 1)} // the gateway's reference, alike for all
				return p
			}
			// Groups of four messages, their first parts and then their
			// second ones backwards, in Sends of 64 parts, so that a
			// message's parts come between others' and in different Sends.
			const msgs = 600
			distinct := msgs
			if c.cfg.Concat == smpp.ConcatUDH8 {
				distinct = 256
			}
			var order []sms.OutboundPart
			for g := 0; g < msgs; g += 4 {
				for k := range 4 {
					order = append(order, long(fmt.Sprint("r", g+k), 0))
				}
				for k := 3; k >= 0; k-- {
					order = append(order, long(fmt.Sprint("r", g+k), 1))
				}
			}
			for i := 0; i < len(order); i += 64 {
				if errs := send(t, e, order[i:min(i+64, len(order))]...); errs != nil {
					t.Fatal(errs)
				}
			}
			subs := e.sim.Submits()
			if len(subs) != len(order) {
				t.Fatalf("%d submits", len(subs))
			}
			refs := make([]int, msgs)
			for i, s := range subs {
				var n int
				fmt.Sscanf(string(order[i].MsgID), "r%d", &n)
				w := readPart(t, s.PDU.Body.(*pdu.SubmitSM), false)
				if order[i].PartNum == 0 {
					refs[n] = w.ref
				} else if w.ref != refs[n] {
					t.Fatalf("message %d: parts with references %d and %d", n, refs[n], w.ref)
				}
			}
			for i := range refs {
				for j := i + 1; j < min(i+distinct, len(refs)); j++ {
					if refs[i] == refs[j] {
						t.Fatalf("messages %d and %d to one number share the reference %d", i, j, refs[i])
					}
				}
			}
		})
	}
}
