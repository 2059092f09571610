package bulksmsapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// FuzzCheckJSON compares checkJSON with encoding/json on valid JSON: it
// refuses exactly the texts that are not an object, hold invalid UTF-8 or
// give a key twice in one object (texts with surrogate escapes, which json
// cannot tell apart from U+FFFD, are left to the table tests), and every
// refusal is a 109.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"x","c":"y"}]}}`, `null`, `[1]`, `{"\u0061":1,"a":2}`,
		`{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":[],"b":{},"c":""}`, ` { "a" : true , "b" : null } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := checkJSON(body)
		if err != nil && (msgkit.KindOf(err) != msgkit.Invalid || sms.CodeOf(err) != sms.CodeBadContentFormat) {
			t.Fatalf("refusal %v is not a 109", err)
		}
		if !json.Valid(body) || bytes.Contains(bytes.ToLower(body), []byte(`\ud`)) {
			return
		}
		trimmed := bytes.TrimSpace(body)
		want := trimmed[0] != '{' || !utf8.Valid(body) || duplicateKeys(body)
		if (err != nil) != want {
			t.Fatalf("checkJSON(%q) = %v; want a refusal: %v", body, err, want)
		}
	})
}

// duplicateKeys reports whether an object of the valid JSON text gives a
// key twice, as json.Decoder's tokens show it.
func duplicateKeys(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.keys != nil && top.expectKey {
			if top.keys[k] {
				return true
			}
			top.keys[k], top.expectKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expectKey = true
		}
	}
}

func BenchmarkCheckJSON(b *testing.B) {
	body := []byte(`{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","dcs":"gsm","text":"` +
		strings.Repeat("Hello world ", 10) + `","dlrMask":19,"dlrUrl":"https://example.com/dlr","custom":{"order":1}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := checkJSON(body); err != nil {
			b.Fatal(err)
		}
	}
}
