package contacts

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// flatItem, when it reads an item, reads it as encoding/json and
// itemInput do.
func FuzzFlatItem(f *testing.F) {
	for _, s := range []string{`{"mobile":"+38640123456","first_name":"Ana"}`, ` { "a" : null , "uuid":"x", "a":"b"} `, `{}`, `{"email":"\u00e9"}`,
		`{"channel_telegram_data":null,"opt_status":"in"}`, "{\"x\":\"\xff\"}", `{"a":"b",}`, `{"a":1}`, `[]`, `{"a":"b"} x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		in, given, ok := flatItem([]byte(raw))
		var body map[string]json.RawMessage
		err := json.Unmarshal([]byte(raw), &body)
		if !ok {
			return
		}
		if err != nil || body == nil {
			t.Fatalf("flatItem read %q, which encoding/json refuses: %v", raw, err)
		}
		want, wantGiven, bad := itemInput(body)
		if len(bad) > 0 {
			t.Fatalf("flatItem read %q, which has bad members %v", raw, bad)
		}
		if bytesNull(want.TelegramData) && in.TelegramData == nil { // null: no data, either way
			want.TelegramData, in.TelegramData = nil, nil
		}
		if diff := cmp.Diff(want, in); diff != "" {
			t.Fatalf("%q (-json +flat):\n%s", raw, diff)
		}
		if diff := cmp.Diff(wantGiven, given); diff != "" {
			t.Fatalf("%q given (-json +flat):\n%s", raw, diff)
		}
	})
}

func bytesNull(b json.RawMessage) bool { return b == nil || string(b) == "null" }

// The law of packing: the items read back, in chunks of any size, are
// the items appended.
func TestImportItemsRoundTrip(t *testing.T) {
	lists := []string{"11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002", ""}
	text := rapid.StringMatching(`[a-zA-Z0-9 .@+ÄŠ😀-]{1,12}`)
	maybe := func(rt *rapid.T, label string) string {
		if rapid.Bool().Draw(rt, label+"?") {
			return text.Draw(rt, label)
		}
		return ""
	}
	status := func(rt *rapid.T, label string) OptStatus {
		return rapid.SampledFrom([]OptStatus{"", OptIn, OptOut}).Draw(rt, label)
	}
	rapid.Check(t, func(rt *rapid.T) {
		var items []ImportItem
		for range rapid.IntRange(0, 12).Draw(rt, "items") {
			if rapid.IntRange(0, 3).Draw(rt, "kind") == 0 {
				items = append(items, ImportItem{Raw: []byte(text.Draw(rt, "raw")), Errors: []msgkit.FieldError{{Name: text.Draw(rt, "name"), Message: "m"}}})
				continue
			}
			var c Contact
			for f := segmentation.Field(1); f < numText; f++ {
				c.values[f] = maybe(rt, "value")
			}
			for n := range rapid.IntRange(0, 3).Draw(rt, "columns") {
				c.setValue(segmentation.ColumnField(1+n*7), text.Draw(rt, "column"))
			}
			c.ListUUID = rapid.SampledFrom(lists).Draw(rt, "list")
			c.Member = rapid.SampledFrom([]MemberStatus{Subscribed, Unsubscribed, ""}).Draw(rt, "member")
			c.MobileRaw, c.BMobileRaw = maybe(rt, "mobile_raw"), maybe(rt, "b_mobile_raw")
			if rapid.Bool().Draw(rt, "birthday") {
				c.Birthday = msgkit.Date{Year: rapid.IntRange(1, 9999).Draw(rt, "y"), Month: time.Month(rapid.IntRange(1, 12).Draw(rt, "m")), Day: rapid.IntRange(1, 28).Draw(rt, "d")}
			}
			c.OptStatus, c.OptStatusWebpush, c.OptStatusWhatsApp = status(rt, "opt"), status(rt, "webpush"), status(rt, "whatsapp")
			c.Telegram = Channel{Name: rapid.SampledFrom([]string{"", ChannelTelegram}).Draw(rt, "tg"), Identifier: maybe(rt, "tg_id"), OptStatus: status(rt, "tg_opt")}
			switch rapid.IntRange(0, 2).Draw(rt, "data") {
			case 1:
				c.Telegram.Data = []byte{}
			case 2:
				c.Telegram.Data = []byte(`{"chat":` + strconv.Itoa(rapid.Int().Draw(rt, "chat")) + `}`)
			}
			var given []string
			for _, name := range []string{"channel_telegram_data", "email", "mobile", "opt_status", "column_8", "unknown"} {
				if rapid.Bool().Draw(rt, "given "+name) {
					given = append(given, name)
				}
			}
			items = append(items, ImportItem{Contact: c, Given: given})
		}
		var s ImportItems
		for _, it := range items {
			s.Append(it)
		}
		if s.Len() != len(items) {
			t.Fatalf("Len = %d, want %d", s.Len(), len(items))
		}
		n := rapid.IntRange(1, len(items)+1).Draw(rt, "chunk")
		var got []ImportItem
		for chunk := range s.Chunks(n) {
			if len(chunk) > n {
				rt.Fatalf("a chunk of %d, over %d", len(chunk), n)
			}
			for _, it := range chunk {
				it.Given = slices.Clone(it.Given) // the next chunk reuses it
				got = append(got, it)
			}
		}
		if diff := cmp.Diff(items, got, cmp.AllowUnexported(Contact{})); diff != "" {
			rt.Fatalf("(-appended +read):\n%s", diff)
		}
	})
}
