package testsystem

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"pgregory.net/rapid"
)

// The law of receipts: whatever order a handset receives the parts of a
// message in, joining them gives back the text that was split, in its
// coding, with one PDU per part in part order.
func TestAssembleJoinsWhatSplitCut(t *testing.T) {
	gsm7 := []rune("abcdefghijklmnopqrstuvwxyzABC 0123456789.,!?@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞ^{}\\[~]|€ÆæßÉÄÖÑÜ§¿äöñüà\n")
	ucs := []rune("абвгдеёжзийклмнопрстуфхцчшщъыьэюя αβγδ ąęłńśźż 中文测试 📱🚀 ")
	rapid.Check(t, func(t *rapid.T) {
		alphabet := gsm7
		if rapid.Bool().Draw(t, "ucs") {
			alphabet = append(slices.Clone(gsm7), ucs...)
		}
		n := rapid.IntRange(1, 900).Draw(t, "length")
		text := string(rapid.SliceOfN(rapid.SampledFrom(alphabet), n, n).Draw(t, "text"))
		m, err := gsm.SplitText(text, gsm.DCSAuto, rapid.Uint8().Draw(t, "ref"))
		if err != nil {
			t.Fatalf("%v", err)
		}
		at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
		var got []sms.Received
		for i, p := range m.Parts {
			d := gsm.Deliver{SMSC: "+447802000332", Sender: gsm.Address{Value: "RouteTest"}, DCS: m.DCS, SCTS: at, Text: p.Text}
			if p.UDH.Total > 0 {
				d.Concat = gsm.Concat{Ref: uint16(p.UDH.Ref), Total: p.UDH.Total, Seq: p.UDH.Seq}
			}
			pdu, err := gsm.EncodeDeliver(d)
			if err != nil {
				t.Fatalf("part %d: %v", i, err)
			}
			got = append(got, sms.Received{At: at.Add(time.Duration(i) * time.Second), Network: "23410", PDU: pdu})
		}
		want := slices.Clone(got)
		perm := rapid.Permutation(got).Draw(t, "arrival")
		rs := assemble(perm, slog.New(slog.DiscardHandler))
		if len(rs) != 1 {
			t.Fatalf("%d messages assembled from %d parts", len(rs), len(perm))
		}
		r := rs[0]
		if r.Text != text || r.DCS != m.DCS || r.SMSC != "+447802000332" || r.Sender != "RouteTest" || r.Network != "23410" {
			t.Fatalf("assembled %q (%s) from %q (%s)", r.Text, r.DCS, text, m.DCS)
		}
		for i := range want {
			if !slices.Equal(r.PDUs[i], want[i].PDU) {
				t.Fatalf("PDU %d out of order", i)
			}
		}
		if !r.At.Equal(want[len(want)-1].At) {
			t.Fatalf("received at %v, want the last part's %v", r.At, want[len(want)-1].At)
		}
	})
}

// Parts of a message not all received are left out; a part that does
// not decode is skipped.
func TestAssembleIncomplete(t *testing.T) {
	m, err := gsm.SplitText("x"+string(slices.Repeat([]byte("y"), 300)), gsm.DCSGSM, 7)
	if err != nil {
		t.Fatal(err)
	}
	var got []sms.Received
	for _, p := range m.Parts[1:] {
		pdu, err := gsm.EncodeDeliver(gsm.Deliver{Sender: gsm.Address{Value: "A"}, DCS: m.DCS, SCTS: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Concat: gsm.Concat{Ref: 7, Total: p.UDH.Total, Seq: p.UDH.Seq}, Text: p.Text})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, sms.Received{PDU: pdu})
	}
	got = append(got, sms.Received{PDU: []byte{0x00, 0x04, 0xFF}})
	if rs := assemble(got, slog.New(slog.DiscardHandler)); len(rs) != 0 {
		t.Errorf("assembled %+v from an incomplete message", rs)
	}
}
