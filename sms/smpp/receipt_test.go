package smpp

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

func rcptUTC(y, mo, d, h, mi, s int) time.Time {
	return time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
}

// rcptSamples are receipt texts shaped as SMSCs and gateways of several
// families write them, with what they read as.
var rcptSamples = []struct {
	name string
	text string
	want Receipt
}{
	{
		name: "appendix B as a Logica-style SMSC writes it",
		text: "id:0123456789 sub:001 dlvrd:001 submit date:2403151230 done date:2403151231 stat:DELIVRD err:000 Text:Hello from msgkit",
		want: Receipt{ID: "0123456789", Sub: 1, Dlvrd: 1, SubmitDate: rcptUTC(2024, 3, 15, 12, 30, 0), DoneDate: rcptUTC(2024, 3, 15, 12, 31, 0),
			Stat: "DELIVRD", Err: "000", Text: "Hello from msgkit", State: StateDelivered},
	},
	{
		name: "Kannel-style: hex id, seconds, lower-case text with a colon",
		text: "id:4f2a9c01 sub:001 dlvrd:001 submit date:240315123005 done date:240315123117 stat:DELIVRD err:000 text:Your code: 4711",
		want: Receipt{ID: "4f2a9c01", Sub: 1, Dlvrd: 1, SubmitDate: rcptUTC(2024, 3, 15, 12, 30, 5), DoneDate: rcptUTC(2024, 3, 15, 12, 31, 17),
			Stat: "DELIVRD", Err: "000", Text: "Your code: 4711", State: StateDelivered},
	},
	{
		name: "Jasmin-style: a UUID id, an empty text",
		text: "id:7a1b5c3e-2f4d-4e6a-9b8c-0d1e2f3a4b5c sub:001 dlvrd:000 submit date:2403151230 done date:2403151232 stat:UNDELIV err:001 text:",
		want: Receipt{ID: "7a1b5c3e-2f4d-4e6a-9b8c-0d1e2f3a4b5c", Sub: 1, Dlvrd: 0, SubmitDate: rcptUTC(2024, 3, 15, 12, 30, 0), DoneDate: rcptUTC(2024, 3, 15, 12, 32, 0),
			Stat: "UNDELIV", Err: "001", State: StateUndeliverable},
	},
	{
		name: "keys in any case, fields in any order, extra spaces",
		text: "  Stat:delivrd   ID:12345\tDone Date:2403151231  Submit_Date:2403151230  ERR:000 DLVRD:1 SUB:1 TEXT:   hi there  ",
		want: Receipt{ID: "12345", Sub: 1, Dlvrd: 1, SubmitDate: rcptUTC(2024, 3, 15, 12, 30, 0), DoneDate: rcptUTC(2024, 3, 15, 12, 31, 0),
			Stat: "delivrd", Err: "000", Text: "hi there", State: StateDelivered},
	},
	{
		name: "only id and stat",
		text: "id:99 stat:EXPIRED",
		want: Receipt{ID: "99", Sub: -1, Dlvrd: -1, Stat: "EXPIRED", State: StateExpired},
	},
	{
		name: "the text runs to the end, keys and colons included",
		text: "id:1 stat:DELIVRD err:000 text:id:2 stat:REJECTD: ok",
		want: Receipt{ID: "1", Sub: -1, Dlvrd: -1, Stat: "DELIVRD", Err: "000", Text: "id:2 stat:REJECTD: ok", State: StateDelivered},
	},
	{
		name: "values after spaces",
		text: "id: 777 sub: 001 stat:  ACCEPTD",
		want: Receipt{ID: "777", Sub: 1, Dlvrd: -1, Stat: "ACCEPTD", State: StateAccepted},
	},
	{
		name: "an empty value before a key, and at the end",
		text: "id:5 err: stat:ENROUTE done date: sub:",
		want: Receipt{ID: "5", Sub: -1, Dlvrd: -1, Stat: "ENROUTE", State: StateEnroute},
	},
	{
		name: "spaces before the colon, dates without separator",
		text: "id :5 stat :REJECTD submitdate:2402291200 DONE_DATE:2402291201",
		want: Receipt{ID: "5", Sub: -1, Dlvrd: -1, SubmitDate: rcptUTC(2024, 2, 29, 12, 0, 0), DoneDate: rcptUTC(2024, 2, 29, 12, 1, 0), Stat: "REJECTD", State: StateRejected},
	},
	{
		name: "an id of 64 characters",
		text: "id:" + strings.Repeat("a", 64) + " stat:DELIVRD",
		want: Receipt{ID: strings.Repeat("a", 64), Sub: -1, Dlvrd: -1, Stat: "DELIVRD", State: StateDelivered},
	},
	{
		name: "line ends and a C string's NUL at the end",
		text: "id:1 stat:DELIVRD err:000\r\n\x00",
		want: Receipt{ID: "1", Sub: -1, Dlvrd: -1, Stat: "DELIVRD", Err: "000", State: StateDelivered},
	},
	{
		name: "words that are no key are skipped",
		text: "Receipt for id:3 imsi:234150000000000 stat:DELETED network:vodafone",
		want: Receipt{ID: "3", Sub: -1, Dlvrd: -1, Stat: "DELETED", State: StateDeleted},
	},
	{
		name: "a key's prefix is no key",
		text: "identity:9 id:3 status:X stat:UNKNOWN errata:1 texts:no",
		want: Receipt{ID: "3", Sub: -1, Dlvrd: -1, Stat: "UNKNOWN", State: StateUnknown},
	},
	{
		name: "a stat msgkit does not know is kept, with no state",
		text: "id:3 stat:FAILED err:034",
		want: Receipt{ID: "3", Sub: -1, Dlvrd: -1, Stat: "FAILED", Err: "034"},
	},
	{
		name: "the full state name",
		text: "id:3 stat:Undeliverable",
		want: Receipt{ID: "3", Sub: -1, Dlvrd: -1, Stat: "Undeliverable", State: StateUndeliverable},
	},
	{
		name: "an id with colons",
		text: "id:ab:cd:01 stat:DELIVRD",
		want: Receipt{ID: "ab:cd:01", Sub: -1, Dlvrd: -1, Stat: "DELIVRD", State: StateDelivered},
	},
}

func TestParseReceiptText(t *testing.T) {
	for _, tc := range rcptSamples {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReceiptText([]byte(tc.text))
			if err != nil {
				t.Fatalf("ParseReceiptText(%q): %v", tc.text, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseReceiptText(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestParseReceiptTextEveryStat(t *testing.T) {
	for s := StateEnroute; s <= StateRejected; s++ {
		for _, stat := range []string{s.Stat(), strings.ToLower(s.Stat()), s.String(), strings.ToLower(s.String())} {
			r, err := ParseReceiptText([]byte("id:1 sub:001 dlvrd:001 stat:" + stat + " err:000 text:x"))
			if err != nil {
				t.Fatalf("stat %s: %v", stat, err)
			}
			if r.State != s || r.Stat != stat {
				t.Errorf("stat %s: State %v, Stat %q; want %v", stat, r.State, r.Stat, s)
			}
		}
	}
}

func TestParseReceiptTextRefuses(t *testing.T) {
	const tail = " stat:DELIVRD"
	for _, tc := range []struct {
		text, field string
	}{
		{"", "receipt"},
		{"   \x00", "receipt"},
		{"hello world", "receipt"},
		{"Your parcel: arrives today", "receipt"},
		{"sub:001 dlvrd:001 stat:DELIVRD", "id"},
		{"id: stat:DELIVRD", "id"},
		{"id:1 sub:001 err:000 text:stat:DELIVRD", "stat"},
		{"id:1 stat:", "stat"},
		{"id:" + strings.Repeat("7", 65) + tail, "id"},
		{"id:1 sub:abc" + tail, "sub"},
		{"id:1 sub:-1" + tail, "sub"},
		{"id:1 dlvrd:1234567890" + tail, "dlvrd"},
		{"id:1 submit date:240315123" + tail, "submit date"},
		{"id:1 submit date:24031512301" + tail, "submit date"},
		{"id:1 submit date:20240315123000" + tail, "submit date"},
		{"id:1 done date:2413151230" + tail, "done date"},
		{"id:1 done date:2400151230" + tail, "done date"},
		{"id:1 done date:2402301230" + tail, "done date"},
		{"id:1 done date:2302291230" + tail, "done date"},
		{"id:1 done date:2403001230" + tail, "done date"},
		{"id:1 done date:2403152430" + tail, "done date"},
		{"id:1 done date:2403151260" + tail, "done date"},
		{"id:1 done date:240315123060" + tail, "done date"},
		{"id:1 done date:24031512a0" + tail, "done date"},
		{"id:1 done date:+403151230" + tail, "done date"},
		{"id:1 id:2" + tail, "id"},
		{"id:1 stat:DELIVRD STAT:UNDELIV", "stat"},
		{"id:1" + tail + " Text:a text:b", ""}, // not refused: the second text is the first's
	} {
		r, err := ParseReceiptText([]byte(tc.text))
		if tc.field == "" {
			if err != nil {
				t.Errorf("ParseReceiptText(%q): %v", tc.text, err)
			}
			continue
		}
		var re *ReceiptError
		if !errors.As(err, &re) {
			t.Errorf("ParseReceiptText(%q) = %+v, %v; want a *ReceiptError", tc.text, r, err)
			continue
		}
		if re.Field != tc.field {
			t.Errorf("ParseReceiptText(%q): %v; want the field %q", tc.text, err, tc.field)
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("ParseReceiptText(%q): %q does not name %q", tc.text, err, tc.field)
		}
	}
}

func TestParseReceiptTextIn(t *testing.T) {
	zone := time.FixedZone("UTC+3", 3*3600)
	r, err := ParseReceiptTextIn([]byte("id:1 submit date:2403151230 done date:240315123145 stat:DELIVRD"), zone)
	if err != nil {
		t.Fatal(err)
	}
	if want := rcptUTC(2024, 3, 15, 9, 30, 0); !r.SubmitDate.Equal(want) || r.SubmitDate.Location() != zone {
		t.Errorf("SubmitDate %v, want %v in %v", r.SubmitDate, want, zone)
	}
	if want := rcptUTC(2024, 3, 15, 9, 31, 45); !r.DoneDate.Equal(want) {
		t.Errorf("DoneDate %v, want %v", r.DoneDate, want)
	}
	// Rendered in its own location, it reads back there.
	again, err := ParseReceiptTextIn(FormatReceiptText(r), zone)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, again); diff != "" {
		t.Errorf("re-read (-first +second):\n%s", diff)
	}
	// nil is UTC.
	r, err = ParseReceiptTextIn([]byte("id:1 done date:2403151230 stat:DELIVRD"), nil)
	if err != nil || r.DoneDate.Location() != time.UTC {
		t.Errorf("nil location: %v, %v", r.DoneDate, err)
	}
}

// TestParseReceiptTextAllocs holds ParseReceiptText to the receipt's
// strings: skipped words and a long text cost nothing more.
func TestParseReceiptTextAllocs(t *testing.T) {
	for _, text := range []string{
		rcptSamples[0].text,
		strings.Repeat("junk:word ", 1000) + rcptSamples[0].text,
		rcptSamples[0].text + strings.Repeat(" more text", 1000),
	} {
		b := []byte(text)
		n := testing.AllocsPerRun(20, func() {
			if _, err := ParseReceiptText(b); err != nil {
				t.Fatal(err)
			}
		})
		if n > 4 { // id, stat, err, text
			t.Errorf("ParseReceiptText of %d octets: %v allocations, want at most 4", len(b), n)
		}
	}
}

func TestMessageState(t *testing.T) {
	want := []struct {
		s          MessageState
		name, stat string
	}{
		{1, "ENROUTE", "ENROUTE"}, {2, "DELIVERED", "DELIVRD"}, {3, "EXPIRED", "EXPIRED"}, {4, "DELETED", "DELETED"},
		{5, "UNDELIVERABLE", "UNDELIV"}, {6, "ACCEPTED", "ACCEPTD"}, {7, "UNKNOWN", "UNKNOWN"}, {8, "REJECTED", "REJECTD"},
	}
	for _, w := range want {
		if !w.s.Valid() || w.s.String() != w.name || w.s.Stat() != w.stat {
			t.Errorf("state %d: %v %q %q, want %q %q", byte(w.s), w.s.Valid(), w.s.String(), w.s.Stat(), w.name, w.stat)
		}
		for _, text := range []string{w.stat, w.name, strings.ToLower(w.stat), strings.ToLower(w.name)} {
			if s, ok := ParseStat(text); !ok || s != w.s {
				t.Errorf("ParseStat(%q) = %v, %v; want %v", text, s, ok, w.s)
			}
		}
	}
	for _, s := range []MessageState{0, 9, 255} {
		if s.Valid() || s.Stat() != "" || s.String() != fmt.Sprintf("message_state(%d)", byte(s)) {
			t.Errorf("state %d: %v %q %q", byte(s), s.Valid(), s.String(), s.Stat())
		}
	}
	for _, text := range []string{"", "DELIVERD", "DELIV", "FAILED", "DELIVRD "} {
		if s, ok := ParseStat(text); ok {
			t.Errorf("ParseStat(%q) = %v", text, s)
		}
	}
}

func rcptDeliver(esm byte, text string, tlvs ...pdu.TLV) *pdu.DeliverSM {
	d := &pdu.DeliverSM{ShortMessage: pdu.ShortMessage{
		Source:   pdu.Address{TON: 1, NPI: 1, Addr: "447700900123"},
		Dest:     pdu.Address{TON: 5, NPI: 0, Addr: "msgkit"},
		ESMClass: esm,
		TLVs:     tlvs,
	}}
	if text != "" {
		d.Message = []byte(text)
	}
	return d
}

func TestReceiptOf(t *testing.T) {
	const text = "id:123 sub:001 dlvrd:001 submit date:2403151230 done date:2403151231 stat:DELIVRD err:000 text:Hello"
	parsed := rcptSamples[0].want // a template, changed below
	parsed.ID, parsed.Text = "123", "Hello"
	tlvOnly := func(id string, s MessageState) Receipt {
		return Receipt{ID: id, Sub: -1, Dlvrd: -1, State: s}
	}
	with := func(r Receipt, f func(*Receipt)) Receipt { f(&r); return r }
	for _, tc := range []struct {
		name      string
		d         *pdu.DeliverSM
		isReceipt bool
		want      Receipt
		field     string // of the error expected
	}{
		{name: "nil", d: nil},
		{name: "mobile-originated, shaped as a receipt", d: rcptDeliver(0x00, text)},
		{name: "mobile-originated with UDHI", d: rcptDeliver(0x40, text)},
		{name: "SME delivery acknowledgement", d: rcptDeliver(0x08, text)},
		{name: "user acknowledgement", d: rcptDeliver(0x10, text)},
		{name: "two type bits at once", d: rcptDeliver(0x0C, text)},
		{name: "conversation abort", d: rcptDeliver(0x18, text)},
		{name: "SMSC delivery receipt", d: rcptDeliver(0x04, text), isReceipt: true, want: parsed},
		{name: "receipt with the other esm_class bits set", d: rcptDeliver(0xC7, text), isReceipt: true, want: parsed},
		{name: "intermediate notification", d: rcptDeliver(0x20, "id:123 stat:ENROUTE err:029"), isReceipt: true,
			want: Receipt{ID: "123", Sub: -1, Dlvrd: -1, Stat: "ENROUTE", Err: "029", State: StateEnroute}},
		{name: "message_payload", d: rcptDeliver(0x04, "", pdu.TLV{Tag: pdu.TagMessagePayload, Value: []byte(text)}), isReceipt: true, want: parsed},
		{name: "message_payload wins over short_message", d: rcptDeliver(0x04, "id:9 stat:UNDELIV", pdu.TLV{Tag: pdu.TagMessagePayload, Value: []byte(text)}), isReceipt: true, want: parsed},
		{name: "empty message_payload leaves short_message", d: rcptDeliver(0x04, text, pdu.TLV{Tag: pdu.TagMessagePayload, Value: nil}), isReceipt: true, want: parsed},
		{name: "TLVs win over the text", d: rcptDeliver(0x04, text, pdu.CStr(pdu.TagReceiptedMessageID, "7B"), pdu.U8(pdu.TagMessageState, byte(StateUndeliverable))), isReceipt: true,
			want: with(parsed, func(r *Receipt) { r.ID, r.State = "7B", StateUndeliverable })},
		{name: "receipted_message_id without its NUL", d: rcptDeliver(0x04, text, pdu.TLV{Tag: pdu.TagReceiptedMessageID, Value: []byte("7B")}), isReceipt: true,
			want: with(parsed, func(r *Receipt) { r.ID = "7B" })},
		{name: "empty receipted_message_id leaves the text's", d: rcptDeliver(0x04, text, pdu.CStr(pdu.TagReceiptedMessageID, "")), isReceipt: true, want: parsed},
		{name: "TLVs only, no text", d: rcptDeliver(0x04, "", pdu.CStr(pdu.TagReceiptedMessageID, "abc"), pdu.U8(pdu.TagMessageState, byte(StateDelivered))), isReceipt: true,
			want: tlvOnly("abc", StateDelivered)},
		{name: "TLVs only, a text of no receipt shape", d: rcptDeliver(0x04, "Message delivered", pdu.CStr(pdu.TagReceiptedMessageID, "abc"), pdu.U8(pdu.TagMessageState, byte(StateExpired))), isReceipt: true,
			want: tlvOnly("abc", StateExpired)},
		{name: "TLVs only, a text with a bad date", d: rcptDeliver(0x04, "id:1 done date:2499999999 stat:DELIVRD text:x", pdu.CStr(pdu.TagReceiptedMessageID, "abc"), pdu.U8(pdu.TagMessageState, byte(StateRejected))), isReceipt: true,
			want: tlvOnly("abc", StateRejected)},
		{name: "text without stat, message_state", d: rcptDeliver(0x04, "id:123 sub:001 err:000 text:Hi", pdu.U8(pdu.TagMessageState, byte(StateDelivered))), isReceipt: true,
			want: Receipt{ID: "123", Sub: 1, Dlvrd: -1, Err: "000", Text: "Hi", State: StateDelivered}},
		{name: "text without id, receipted_message_id", d: rcptDeliver(0x04, "stat:UNDELIV err:001", pdu.CStr(pdu.TagReceiptedMessageID, "0A1")), isReceipt: true,
			want: Receipt{ID: "0A1", Sub: -1, Dlvrd: -1, Stat: "UNDELIV", Err: "001", State: StateUndeliverable}},
		{name: "network_error_code kept", d: rcptDeliver(0x04, "id:5 stat:UNDELIV err:000", pdu.TLV{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, 0, 1}}), isReceipt: true,
			want: Receipt{ID: "5", Sub: -1, Dlvrd: -1, Stat: "UNDELIV", Err: "000", State: StateUndeliverable, NetworkError: pdu.NetworkErrorCode{Type: 3, Code: 1}}},
		{name: "a message_state that is no state leaves the text's", d: rcptDeliver(0x04, text, pdu.U8(pdu.TagMessageState, 9)), isReceipt: true, want: parsed},
		{name: "an unknown stat is kept", d: rcptDeliver(0x04, "id:1 stat:FAILED"), isReceipt: true,
			want: Receipt{ID: "1", Sub: -1, Dlvrd: -1, Stat: "FAILED"}},

		{name: "no id anywhere", d: rcptDeliver(0x04, "stat:DELIVRD", pdu.U8(pdu.TagMessageState, 2)), isReceipt: true, field: "id"},
		{name: "no state anywhere", d: rcptDeliver(0x04, "id:1 err:000", pdu.CStr(pdu.TagReceiptedMessageID, "1")), isReceipt: true, field: "stat"},
		{name: "only a message_state that is no state", d: rcptDeliver(0x04, "", pdu.CStr(pdu.TagReceiptedMessageID, "1"), pdu.U8(pdu.TagMessageState, 0)), isReceipt: true, field: "message_state"},
		{name: "a message_state of two octets", d: rcptDeliver(0x04, "", pdu.CStr(pdu.TagReceiptedMessageID, "1"), pdu.U16(pdu.TagMessageState, 2)), isReceipt: true, field: "message_state"},
		{name: "an empty message_state", d: rcptDeliver(0x04, "", pdu.CStr(pdu.TagReceiptedMessageID, "1"), pdu.TLV{Tag: pdu.TagMessageState, Value: nil}), isReceipt: true, field: "message_state"},
		{name: "a bad date and no TLVs", d: rcptDeliver(0x04, "id:1 submit date:2413151230 stat:DELIVRD"), isReceipt: true, field: "submit date"},
		{name: "a bad date and only the id TLV", d: rcptDeliver(0x04, "id:1 submit date:2413151230 stat:DELIVRD", pdu.CStr(pdu.TagReceiptedMessageID, "1")), isReceipt: true, field: "submit date"},
		{name: "no text, no TLVs", d: rcptDeliver(0x04, ""), isReceipt: true, field: "id"},
		{name: "a receipted_message_id too long", d: rcptDeliver(0x04, text, pdu.CStr(pdu.TagReceiptedMessageID, strings.Repeat("1", 65))), isReceipt: true, field: "receipted_message_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, isReceipt, err := ReceiptOf(tc.d)
			if isReceipt != tc.isReceipt {
				t.Fatalf("isReceipt %v, want %v", isReceipt, tc.isReceipt)
			}
			if tc.field != "" {
				var re *ReceiptError
				if !errors.As(err, &re) || re.Field != tc.field {
					t.Fatalf("ReceiptOf = %+v, %v; want an error of the field %q", got, err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReceiptOfWire reads receipts as they come off the wire: encoded,
// decoded, then read.
func TestReceiptOfWire(t *testing.T) {
	long := "id:" + strings.Repeat("f", 64) + " sub:001 dlvrd:001 submit date:2403151230 done date:2403151231 stat:DELIVRD err:000 text:" + strings.Repeat("long text ", 30)
	for _, d := range []*pdu.DeliverSM{
		rcptDeliver(0x04, rcptSamples[0].text, pdu.CStr(pdu.TagReceiptedMessageID, "0123456789"), pdu.U8(pdu.TagMessageState, 2), pdu.TLV{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, 0, 0}}),
		rcptDeliver(0x04, "", pdu.TLV{Tag: pdu.TagMessagePayload, Value: []byte(long)}),
	} {
		raw, err := pdu.Append(nil, pdu.PDU{Seq: 7, Body: d})
		if err != nil {
			t.Fatal(err)
		}
		p, err := pdu.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := ReceiptOf(p.Body.(*pdu.DeliverSM))
		if !ok || err != nil {
			t.Fatalf("ReceiptOf: %v, %v", ok, err)
		}
		want, _, _ := ReceiptOf(d)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-before the wire +after):\n%s", diff)
		}
		if got.State != StateDelivered {
			t.Errorf("state %v", got.State)
		}
	}
}

func TestReceiptEvent(t *testing.T) {
	rc := func(s MessageState, err string) Receipt {
		return Receipt{ID: "1", Sub: -1, Dlvrd: -1, State: s, Err: err}
	}
	gsm := func(r Receipt, typ byte, code uint16) Receipt {
		r.NetworkError = pdu.NetworkErrorCode{Type: typ, Code: code}
		return r
	}
	for _, tc := range []struct {
		r      Receipt
		status sms.Status
		code   sms.DLRError
	}{
		{rc(StateDelivered, "000"), sms.StatusDelivered, 0},
		{rc(StateDelivered, "001"), sms.StatusDelivered, 0},
		{rc(StateExpired, ""), sms.StatusExpired, sms.DLRValidityExpired},
		{rc(StateExpired, "029"), sms.StatusExpired, sms.DLRValidityExpired},
		{rc(StateEnroute, ""), sms.StatusAccepted, 0},
		{rc(StateEnroute, "000"), sms.StatusAccepted, 0},
		{rc(StateEnroute, "029"), sms.StatusTemporaryFailure, sms.DLRAbsentSubscriber},
		{rc(StateEnroute, "001"), sms.StatusAccepted, 0},
		{gsm(rc(StateEnroute, ""), 3, 22), sms.StatusTemporaryFailure, sms.DLRMemoryFull},
		{rc(StateAccepted, ""), sms.StatusAccepted, 0},
		{rc(StateAccepted, "029"), sms.StatusAccepted, 0},
		{rc(StateUndeliverable, ""), sms.StatusPermanentFailure, sms.DLRUndeliverable},
		{rc(StateUndeliverable, "000"), sms.StatusPermanentFailure, sms.DLRUndeliverable},
		{rc(StateUndeliverable, "001"), sms.StatusPermanentFailure, sms.DLRSubscriberUnknown},
		{rc(StateUndeliverable, "1"), sms.StatusPermanentFailure, sms.DLRSubscriberUnknown},
		{rc(StateUndeliverable, "013"), sms.StatusPermanentFailure, 13},
		{rc(StateUndeliverable, "112"), sms.StatusPermanentFailure, 112},
		{rc(StateUndeliverable, "029"), sms.StatusTemporaryFailure, sms.DLRAbsentSubscriber},
		{rc(StateUndeliverable, "022"), sms.StatusTemporaryFailure, sms.DLRMemoryFull},
		{rc(StateUndeliverable, "027"), sms.StatusPermanentFailure, sms.DLRUndeliverable}, // not in the table
		{rc(StateUndeliverable, "996"), sms.StatusPermanentFailure, sms.DLRUndeliverable}, // beyond GSM's range
		{rc(StateUndeliverable, "500"), sms.StatusPermanentFailure, sms.DLRUndeliverable},
		{rc(StateUndeliverable, "00B"), sms.StatusPermanentFailure, sms.DLRUndeliverable}, // not decimal
		{rc(StateUndeliverable, "-1"), sms.StatusPermanentFailure, sms.DLRUndeliverable},
		{gsm(rc(StateUndeliverable, "029"), 3, 1), sms.StatusPermanentFailure, sms.DLRSubscriberUnknown}, // the TLV first
		{gsm(rc(StateUndeliverable, "013"), 3, 27), sms.StatusPermanentFailure, 13},                      // an unknown TLV code yields to err
		{gsm(rc(StateUndeliverable, ""), 1, 1), sms.StatusPermanentFailure, sms.DLRUndeliverable},        // ANSI-136, not GSM
		{gsm(rc(StateUndeliverable, ""), 3, 257), sms.StatusPermanentFailure, sms.DLRUndeliverable},      // beyond GSM's range
		{gsm(rc(StateUndeliverable, ""), 3, 0), sms.StatusPermanentFailure, sms.DLRUndeliverable},
		{rc(StateUnknown, ""), sms.StatusPermanentFailure, sms.DLROtherError},
		{rc(StateUnknown, "000"), sms.StatusPermanentFailure, sms.DLROtherError},
		{rc(StateUnknown, "001"), sms.StatusPermanentFailure, sms.DLRSubscriberUnknown},
		{rc(StateUnknown, "029"), sms.StatusTemporaryFailure, sms.DLRAbsentSubscriber},
		{rc(StateRejected, ""), sms.StatusPermanentFailure, sms.DLRSupplierRejected},
		{rc(StateRejected, "001"), sms.StatusPermanentFailure, sms.DLRSubscriberUnknown},
		{rc(StateRejected, "029"), sms.StatusPermanentFailure, sms.DLRSupplierRejected},
		{rc(StateDeleted, ""), sms.StatusPermanentFailure, sms.DLRSupplierRejected},
		{rc(StateDeleted, "013"), sms.StatusPermanentFailure, 13},
		{rc(0, "001"), sms.StatusAccepted, 0},
		{rc(9, "001"), sms.StatusAccepted, 0},
	} {
		st, code := tc.r.Event()
		if st != tc.status || code != tc.code {
			t.Errorf("%v err %q network %+v: %v %d, want %v %d", tc.r.State, tc.r.Err, tc.r.NetworkError, st, code, tc.status, tc.code)
		}
		// The code is the one the part's report carries.
		if got := sms.ErrorCodeFor(sms.StatusEvent{Status: st, ErrorCode: code}); got != code {
			t.Errorf("%v err %q: the report would carry %d, not %d", tc.r.State, tc.r.Err, got, code)
		}
	}
}

// TestReceiptEventStep runs each receipt's event through the delivery
// state machine: a receipt of a final SMPP state ends a part the SMSC has
// (a rejection among them, which sms.StatusRejected would not), and an
// intermediate one leaves it open.
func TestReceiptEventStep(t *testing.T) {
	for s := MessageState(0); s <= StateRejected+1; s++ {
		for _, err := range []string{"", "000", "001", "029"} {
			r := Receipt{ID: "1", State: s, Err: err}
			st, code := r.Event()
			for _, from := range []sms.PartState{sms.StateSubmitted, sms.StateSentToSMSC, sms.StateBuffered} {
				next, _, _ := sms.Step(from, st)
				temporary := code.Temporary() && st == sms.StatusTemporaryFailure
				switch {
				case s == StateDelivered && next != sms.StateDelivered,
					temporary && next != sms.StateBuffered,
					!temporary && slices.Contains([]MessageState{StateExpired, StateDeleted, StateUndeliverable, StateUnknown, StateRejected}, s) && next != sms.StateUndelivered,
					slices.Contains([]MessageState{0, StateAccepted, StateRejected + 1}, s) && next.Final(),
					s == StateEnroute && next.Final():
					t.Errorf("%v err %q: %v %d moves a part %v to %v", s, err, st, code, from, next)
				}
			}
		}
	}
}

func TestIDVariants(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"", nil},
		{"abc-def", []string{"abc-def"}},
		{"7a1b5c3e-2f4d-4e6a-9b8c-0d1e2f3a4b5c", []string{"7a1b5c3e-2f4d-4e6a-9b8c-0d1e2f3a4b5c"}},
		{"255", []string{"255", "FF", "ff", "597"}},
		{"FF", []string{"FF", "ff", "255"}},
		{"ff", []string{"ff", "FF", "255"}},
		{"DEADbeef", []string{"DEADbeef", "DEADBEEF", "deadbeef", "3735928559"}},
		{"0001A", []string{"0001A", "1A", "1a", "26"}},
		{"0000012345", []string{"0000012345", "12345", "3039", "74565"}},
		{"10", []string{"10", "A", "a", "16"}},
		{"1", []string{"1"}},
		{"0", []string{"0"}},
		{"000", []string{"000", "0"}},
		{"18446744073709551615", []string{"18446744073709551615", "FFFFFFFFFFFFFFFF", "ffffffffffffffff"}},
		{"18446744073709551616", []string{"18446744073709551616"}},
		{"FFFFFFFFFFFFFFFF", []string{"FFFFFFFFFFFFFFFF", "ffffffffffffffff", "18446744073709551615"}},
		{"10000000000000000", []string{"10000000000000000", "2386F26FC10000", "2386f26fc10000"}}, // hex overflows
		{"0x1A", []string{"0x1A"}},
		{"+12", []string{"+12"}},
		{"-12", []string{"-12"}},
		{"1_000", []string{"1_000"}},
		{" 12", []string{" 12"}},
	} {
		if got := IDVariants(tc.id); !slices.Equal(got, tc.want) {
			t.Errorf("IDVariants(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

// TestIDVariantsMatch: whatever radix, case and padding each side uses,
// the receipt's variants find the SMSC's id when it is written without
// padding.
func TestIDVariantsMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64().Draw(t, "n")
		pad := strings.Repeat("0", rapid.IntRange(0, 4).Draw(t, "pad"))
		dec, hex := strconv.FormatUint(n, 10), strconv.FormatUint(n, 16)
		forms := []string{dec, hex, strings.ToUpper(hex)}
		for _, receipt := range forms {
			got := IDVariants(pad + receipt)
			if got[0] != pad+receipt {
				t.Fatalf("IDVariants(%q) = %q: not the id first", pad+receipt, got)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
				t.Fatalf("IDVariants(%q) = %q: duplicates", pad+receipt, got)
			}
			for _, submitted := range forms {
				if !slices.Contains(got, submitted) {
					t.Fatalf("IDVariants(%q) = %q, without %q", pad+receipt, got, submitted)
				}
			}
		}
	})
}

func TestFormatReceiptText(t *testing.T) {
	r := rcptSamples[0].want
	if got, want := string(FormatReceiptText(r)), rcptSamples[0].text; got != want {
		t.Errorf("FormatReceiptText = %q, want %q", got, want)
	}
	r.DoneDate = rcptUTC(2024, 3, 15, 12, 31, 7)
	r.Sub, r.Dlvrd = -1, -1
	r.Err, r.Text = "", ""
	if got, want := string(FormatReceiptText(r)), "id:0123456789 submit date:2403151230 done date:240315123107 stat:DELIVRD Text:"; got != want {
		t.Errorf("FormatReceiptText = %q, want %q", got, want)
	}
	// A receipt from the parameters alone writes its state's stat.
	r = Receipt{ID: "abc", Sub: -1, Dlvrd: -1, State: StateUndeliverable}
	if got, want := string(FormatReceiptText(r)), "id:abc stat:UNDELIV Text:"; got != want {
		t.Errorf("FormatReceiptText = %q, want %q", got, want)
	}
	for _, tc := range rcptSamples {
		enc := FormatReceiptText(tc.want)
		got, err := ParseReceiptText(enc)
		if err != nil {
			t.Fatalf("%s: ParseReceiptText(%q): %v", tc.name, enc, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: %q read back (-want +got):\n%s", tc.name, enc, diff)
		}
	}
}

// TestFormatReceiptTextRoundTrip: any receipt of the shape
// ParseReceiptText returns is read back from its rendering.
func TestFormatReceiptTextRoundTrip(t *testing.T) {
	stats := []string{"DELIVRD", "delivrd", "UNDELIVERABLE", "REJECTD", "EXPIRED", "DELETED", "ACCEPTD", "UNKNOWN", "ENROUTE", "FAILED", "x:y"}
	date := func(t *rapid.T, label string) time.Time {
		if rapid.Bool().Draw(t, label+" absent") {
			return time.Time{}
		}
		sec := 0
		if rapid.Bool().Draw(t, label+" has seconds") {
			sec = rapid.IntRange(0, 59).Draw(t, label+" second")
		}
		return rcptUTC(rapid.IntRange(2000, 2099).Draw(t, label+" year"), rapid.IntRange(1, 12).Draw(t, label+" month"),
			rapid.IntRange(1, 28).Draw(t, label+" day"), rapid.IntRange(0, 23).Draw(t, label+" hour"), rapid.IntRange(0, 59).Draw(t, label+" minute"), sec)
	}
	rapid.Check(t, func(t *rapid.T) {
		r := Receipt{
			ID:         rapid.StringMatching(`[!-~]{1,64}`).Draw(t, "id"),
			Sub:        rapid.IntRange(-1, 999).Draw(t, "sub"),
			Dlvrd:      rapid.IntRange(-1, 999).Draw(t, "dlvrd"),
			SubmitDate: date(t, "submit date"),
			DoneDate:   date(t, "done date"),
			Stat:       rapid.SampledFrom(stats).Draw(t, "stat"),
			Err:        rapid.StringMatching(`([!-~]{1,5})?`).Draw(t, "err"),
			Text:       strings.Trim(rapid.StringMatching(`[ -~]{0,40}`).Draw(t, "text"), " "),
		}
		r.State, _ = ParseStat(r.Stat)
		enc := FormatReceiptText(r)
		got, err := ParseReceiptText(enc)
		if err != nil {
			t.Fatalf("ParseReceiptText(%q): %v", enc, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("%q read back (-want +got):\n%s", enc, diff)
		}
	})
}

// FuzzParseReceiptText feeds ParseReceiptText any octets. It must never
// panic; what it refuses is a *ReceiptError naming a field, and what it
// accepts has an id and a stat, renders with FormatReceiptText, and reads
// back to the same Receipt (the rendering being a fixed point). The same
// octets as a deliver_sm's text, its event and its id's variants must not
// panic either.
func FuzzParseReceiptText(f *testing.F) {
	for _, tc := range rcptSamples {
		f.Add([]byte(tc.text))
	}
	for _, s := range []string{"", "id:", "text:", "id:1 stat:X text:", "id: stat: err: text:", "submit date:9912312359 done date:000101000000 id:z stat:z",
		"ID :a STAT :b SUBMIT_DATE:2402291200", "id:1\x00 stat:2\x00\x00", "id:\xff\xfe stat:\x80 text:\xc3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReceiptText(b)
		d := rcptDeliver(0x04, "", pdu.TLV{Tag: pdu.TagMessagePayload, Value: b})
		if rr, ok, err := ReceiptOf(d); ok && err == nil {
			rr.Event()
		}
		if err != nil {
			var re *ReceiptError
			if !errors.As(err, &re) || re.Field == "" {
				t.Fatalf("ParseReceiptText(%q): %v is not a *ReceiptError naming a field", b, err)
			}
			return
		}
		if r.ID == "" || len(r.ID) > 64 || r.Stat == "" {
			t.Fatalf("ParseReceiptText(%q) = %+v: no id or stat", b, r)
		}
		r.Event()
		if v := IDVariants(r.ID); len(v) == 0 || v[0] != r.ID {
			t.Fatalf("IDVariants(%q) = %q", r.ID, v)
		}
		enc := FormatReceiptText(r)
		again, err := ParseReceiptText(enc)
		if err != nil {
			t.Fatalf("ParseReceiptText(%q) = %+v, rendered %q, which does not read: %v", b, r, enc, err)
		}
		if diff := cmp.Diff(r, again); diff != "" {
			t.Fatalf("%q rendered as %q (-first +second):\n%s", b, enc, diff)
		}
		if enc2 := FormatReceiptText(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("%q renders as %q, then as %q", b, enc, enc2)
		}
	})
}
