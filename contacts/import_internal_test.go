package contacts

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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
