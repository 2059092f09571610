package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
)

func TestCheckJSON(t *testing.T) {
	long := map[string]int{"text": 10, "items[].name": 8}
	for _, tt := range []struct {
		name, body string
		field      string // "": accepted
		says       string
	}{
		{"an object", `{"a":"x","b":[1,2.5e3,-0,true,false,null],"c":{"d":"\u00e9\ud83d\ude00\n\/"}}`, "", ""},
		{"a scalar", ` "x" `, "", ""},
		{"invalid UTF-8", "{\"a\":\"x\xffy\"}", "a", "invalid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xff\":1}", "body", "invalid UTF-8"},
		{"a lone high surrogate", `{"a":"\ud800"}`, "a", "lone surrogate"},
		{"a high surrogate before a letter", `{"a":"\ud83dx"}`, "a", "lone surrogate"},
		{"two high surrogates", `{"a":"\ud83d\ud83d"}`, "a", "lone surrogate"},
		{"a lone low surrogate", `{"a":"x\udc00"}`, "a", "lone surrogate"},
		{"a surrogate pair", `{"a":"\uD83D\uDE00"}`, "", ""},
		{"NUL escaped", `{"a":"x\u0000y"}`, "a", "NUL"},
		{"NUL in a key", `{"a\u0000":1}`, "body", "NUL"},
		{"a key twice", `{"a":1,"b":2,"a":3}`, "a", "given twice"},
		{"keys that differ in case", `{"name":1,"NAME":2}`, "NAME", "differ only in case"},
		{"keys that fold alike beyond ASCII", `{"s":1,"ſ":2}`, "ſ", "differ only in case"},
		{"the Kelvin sign", `{"k":1,"K":2}`, "K", "differ only in case"},
		{"a key twice, escaped", `{"a":1,"\u0061":2}`, "a", "given twice"},
		{"a key twice, deep", `{"items":[{"n":1},{"n":2,"m":3,"N":4}]}`, "items[1].N", "differ only in case"},
		{"a key twice in a large object", `{` + manyKeys(40) + `,"k7":1}`, "k7", "given twice"},
		{"the same key in two objects", `{"a":{"x":1},"b":{"x":2}}`, "", ""},
		{"invalid UTF-8 in an array", "[1,{\"a\":[\"\xc3\"]}]", "[1].a[0]", "invalid UTF-8"},
		{"a string too long", `{"a":"` + strings.Repeat("é", 21) + `"}`, "a", "longer than 20 characters"},
		{"a string as long as allowed", `{"a":"` + strings.Repeat("é", 20) + `"}`, "", ""},
		{"a long place", `{"text":"` + strings.Repeat("x", 10) + `"}`, "", ""},
		{"a long place too long", `{"text":"` + strings.Repeat("x", 11) + `"}`, "text", "longer than 10 characters"},
		{"a long place in an array", `{"items":[{"name":"12345678"},{"name":"123456789"}]}`, "items[1].name", "longer than 8 characters"},
		{"a key too long", `{"` + strings.Repeat("k", 21) + `":1}`, "body", "longer than 20 characters"},
		{"escapes count as one character", `{"a":"` + strings.Repeat(`\n`, 20) + `"}`, "", ""},
		{"empty", "  ", "body", "empty"},
		{"truncated", `{"a":[1,`, "body", "ends inside"},
		{"malformed", `{"a":}`, "body", "not valid JSON"},
		{"two values", `{} {}`, "body", "exactly one"},
		{"a bad escape", `{"a":"\x"}`, "body", "not valid JSON"},
		{"a control character", "{\"a\":\"\x01\"}", "body", "not valid JSON"},
		{"a leading zero", `{"a":01}`, "body", "not valid JSON"},
		{"too deep", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "body", "nests too deeply"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := httpapi.CheckJSON([]byte(tt.body), 20, long)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok || e.Kind != msgkit.Invalid || e.Code != httpapi.CodeInvalidJSON || len(e.Fields) != 1 {
				t.Fatalf("error %#v, want one invalid_json field", err)
			}
			if e.Fields[0].Name != tt.field || !strings.Contains(e.Message, tt.says) {
				t.Errorf("field %q, message %q; want %q saying %q", e.Fields[0].Name, e.Message, tt.field, tt.says)
			}
			if strings.Contains(e.Message, "é") || strings.Contains(e.Message, "12345") {
				t.Errorf("the message quotes the value: %q", e.Message)
			}
		})
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	return b.String()
}

// surrogateEscape finds \uD800 to \uDFFF escapes, which encoding/json
// reads as U+FFFD and so cannot tell apart: texts with them are left to
// the table tests.
var surrogateEscape = regexp.MustCompile(`(?i)\\u[d][89a-f]`)

// FuzzCheckJSON holds CheckJSON to encoding/json: it accepts exactly the
// texts json.Valid accepts that are valid UTF-8, hold no NUL character and
// give no key twice in one object, not even in another case; and every
// refusal is an Invalid error naming one field.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"a":{"b":[1,{"c":"x","C":"y"}]}}`, `null`, `[1]`, `{"\u0061":1,"a":2}`,
		`{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":[],"b":{},"c":""}`, ` { "a" : true , "b" : null } `, `{"a":"\u0000"}`,
		`{"s":1,"ſ":2}`, `1e5`, `-0.5E+3`, `"\t"`, `{"a":}`, `[1,]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := httpapi.CheckJSON(data, 0, nil)
		if err != nil {
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name == "" {
				t.Fatalf("CheckJSON(%q) = %#v", data, err)
			}
		}
		if surrogateEscape.Match(data) {
			return
		}
		want := json.Valid(data) && utf8.Valid(data) && keptByJSON(data)
		if (err == nil) != want {
			t.Fatalf("CheckJSON(%q) = %v; encoding/json and the rules say accepted %v", data, err, want)
		}
	})
}

// keptByJSON reports whether a valid JSON text holds no NUL character
// and no object that gives a key twice, in any case, as json.Decoder's
// tokens show it.
func keptByJSON(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if s, ok := tok.(string); ok && strings.ContainsRune(s, 0) {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.keys != nil && top.expectKey {
			for seen := range top.keys {
				if strings.EqualFold(seen, k) {
					return false
				}
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

// BenchmarkDecodeJSON is a typical create body (a finance invoice of 20
// items, 2.6 KB) through DecodeJSON: the kit's rules (CheckJSON) and
// encoding/json's decoding; BenchmarkCheckJSON the rules alone.
func BenchmarkDecodeJSON(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		var v map[string]json.RawMessage
		if err := httpapi.DecodeJSON(httptest.NewRecorder(), r, &v, httpapi.DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckJSON(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := httpapi.CheckJSON(body, httpapi.DefaultMaxString, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func benchBody() []byte {
	var items []string
	for i := range 20 {
		items = append(items, `{"name":"SMS traffic `+strconv.Itoa(i)+`","quantity":1200,"price":0.045,"vatPercent":20}`)
	}
	return []byte(`{"custID":1001,"currency":978,"invType":1,"templateID":3,"invNumberFix":"C-2026-0001","invDate":"2026-01-31",` +
		`"deliveryDate":"2026-01-31","invDueDateDays":30,"vatInPrice":1,"vatPercent":20,"dataSourceCodeName":"POSTPAID",` +
		`"domainCodeName":"BULK","comment":"Ünïcödé comment \u00e9\ud83d\ude00","items":[` + strings.Join(items, ",") + `]}`)
}
