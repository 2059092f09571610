package bulksmsapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// benchSubmission is a typical submission body.
var benchSubmission = []byte(`{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","dcs":"gsm","text":"` +
	strings.Repeat("Hello world ", 10) + `","dlrMask":19,"dlrUrl":"https://example.com/dlr","custom":{"order":1}}`)

func BenchmarkDecodeSubmission(b *testing.B) {
	b.SetBytes(int64(len(benchSubmission)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeSubmission(benchSubmission); err != nil {
			b.Fatal(err)
		}
	}
}

// decodeSeeds are bodies for FuzzDecodeSubmission: each rule of the
// lenient types, case-folded and escaped keys, keys given twice, bad bytes
// at any depth, and malformed text.
func decodeSeeds() []string {
	const good = `{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","dcs":"gsm","text":"Hello","dlrMask":19,"dlrUrl":"https://example.com/dlr","custom":{"order":1},"unknown":"ignored"}`
	seeds := []string{
		good, string(benchSubmission), ``, ` `, " \t\r\n", "\v", "\u00a0", "\ufeff{}", `{`, `}`, `{}`, ` {} `, "\t{\n}\r\n",
		`null`, `[]`, `[1]`, `"x"`, `1`, `-`, `true`, `nul`, `{}]`, `{}}`, `{} x`, `{} {}`, `{}[]`, `{} ]x`, `{}"`,
		`{"text":1} ]`, `{"text":1} x`, `{"sender":true}}`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{"a":1 "b":2}`,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":tru}`, `{"a":truex}`, `{"a":nulll}`, `{"a":01}`, `{"a":1.}`,
		`{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":-}`, `{"a":--1}`, `{"a":+1}`, `{"a":1E-7}`, `{"a":-0.0e0}`, `{"a":0x1}`,
		`{"a":tru,"a":2}`, `{"a":[1,],"a":2}`, `{"a":01,"b":"` + "\xff" + `"}`, "{\"a\":\"\x01\",\"a\":1}", `{"a":"\x","a":1}`,
		"{\"a\":\"\\\xc3\xa9\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\x00\"}", `{"text":"a\u0000b"}`, `{"text":"\u0000"}`,
		// the lenient fields
		`{"sender":1e5}`, `{"sender":-1}`, `{"sender":1.5}`, `{"sender":0}`, `{"sender":-0}`, `{"sender":123456789012345678901234567890}`,
		`{"receiver":38640123456}`, `{"receiver":1E5}`, `{"receiver":true}`, `{"receiver":{}}`, `{"receiver":[]}`, `{"receiver":null}`,
		`{"sender":"a","SENDER":null}`, `{"sender":"a","Sender":7}`, `{"sender":"\u0031"}`,
		`{"dlrMask":19}`, `{"dlrMask":"19"}`, `{"dlrMask":"x"}`, `{"dlrMask":1e2}`, `{"dlrMask":true}`, `{"dlrMask":{}}`,
		`{"dlrMask":[]}`, `{"dlrMask":null}`, `{"dlrMask":"+5"}`, `{"dlrMask":"-0"}`, `{"dlrMask":-0}`, `{"dlrMask":" 1"}`,
		`{"dlrMask":"1_0"}`, `{"dlrMask":"0x1"}`, `{"dlrMask":9223372036854775807}`, `{"dlrMask":9223372036854775808}`,
		`{"dlrMask":-9223372036854775808}`, `{"dlrMask":"\u0031\u0039"}`, `{"dlrMask":19.0}`, `{"dlrMask":1e99}`, `{"dlrMask":""}`,
		`{"dlrMask":1,"DLRMASK":null}`, `{"dlrMask":"x","DLRMASK":1}`,
		// the plain fields
		`{"flash":true}`, `{"flash":false}`, `{"flash":"true"}`, `{"flash":null}`, `{"flash":1}`, `{"flash":true,"FLASH":null}`,
		`{"type":null}`, `{"type":1}`, `{"dcs":[]}`, `{"text":{}}`, `{"url":true}`, `{"title":false}`, `{"dlrUrl":0}`,
		`{"text":"a","TEXT":null}`, `{"text":"a","TEXT":"b"}`, `{"text":"a","text":"b"}`, `{"t\u0065xt":"a","text":"b"}`,
		`{"t\u0065xt":"é\n\ud83d\ude00\/"}`, `{"text":"\ud83d\ude00","TEXT":"\uD83D\uDE00"}`,
		`{"auth":null}`, `{"auth":"x"}`, `{"auth":[]}`, `{"auth":1}`, `{"auth":true}`, `{"auth":{}}`, `{"auth":{"username":null}}`,
		`{"auth":{"username":1}}`, `{"auth":{"password":{}}}`, `{"AUTH":{"USERNAME":"u","PassWord":"p"}}`,
		`{"auth":{"username":"u"},"Auth":{"password":"p"}}`, `{"auth":{"username":"u"},"Auth":null}`, `{"auth":{"username":"u"},"Auth":"x"}`,
		`{"auth":{"username":"u","username":"v"}}`, `{"auth":{"username":"u","USERNAME":"v"}}`, `{"auth":{"auth":{"username":1}}}`,
		`{"custom":null}`, `{"custom":"x"}`, `{"custom":1}`, `{"custom":[1, 2 ]}`, `{"custom":  {"a" : 1 }  }`, `{"custom":true}`,
		`{"custom":"\u0000"}`, `{"custom":{"a":1},"CUSTOM":null}`, `{"custom":{"a":1},"Custom":[2]}`, `{"custom":{"a":1,"a":2}}`,
		`{"custom":{"items":[{"note":"\ud83d"}]}}`, `{"custom":{"ab\udfff":1}}`, `{"custom":{"":{"\ud800":1}}}`,
		// case folding: U+017F folds to s, U+212A to k; U+0131 folds to nothing
		`{"ſender":"x","dcſ":"y","\u212aey":1}`, `{"TEXT":"t","Auth":{"uſername":"u","paſſword":"p"},"DlrUrl":"d","dlrmaſk":1}`,
		`{"tıtle":"x"}`, `{"TİTLE":"x"}`, `{"text":"a","ṫext":"b"}`, `{"ſender":"x","sender":"y"}`, `{"sender":"y","ſender":"x"}`,
		// which type error wins
		`{"text":1,"sender":true}`, `{"text":1,"dlrMask":"x"}`, `{"text":1,"flash":"x"}`, `{"flash":"x","text":1}`,
		`{"sender":true,"receiver":true}`, `{"auth":{"username":1},"type":2}`, `{"text":1,"a":tru}`, `{"sender":true,"x":"` + "\xff" + `"}`,
		`{"dlrMask":"x","a":"\ud800"}`, `{"text":1,"a":1,"a":2}`,
		// unknown members
		`{"unknown":{"a":[1,{"b":null}],"c":[]},"x":[[[]]],"y":-1.5e+3,"z":"\"\\"}`, `{"":1}`, `{"":1,"":2}`,
		// bad bytes at any depth
		"{\"text\":\"He\xffllo\"}", "{\"auth\":{\"username\":\"sh\xc3op\"}}", "{\"a\xff\":1}", "{\"a\\u0062\xff\":1}", "{\"\xff\":1}",
		"{\"custom\":{\"a\":[1,{\"b\":\"\xed\xa0\x80\"}]}}", `{"text":"a\ud800b"}`, `{"text":"a\ud800"}`, `{"text":"\ud800\u0041"}`,
		`{"text":"\udc00"}`, `{"text":"\ud800\udbff"}`, `{"text":"\ud800\uzzzz"}`, `{"text":"\ud800\`, `{"text":"\u12"}`, `{"\ud800":1}`,
		`{"text":"\ud800\x"}`, "{\"text\":\"\\ud800\xff\"}", "{\"text\":\"\xff\\ud800\"}", "{\"text\":\"\xf0\x9f\x98\"}",
		// deep nesting
		`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		`{"a":` + strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat("}", 10000) + `}`,
		`{"a":` + strings.Repeat("[", 10000) + `"` + "\xff" + `"` + strings.Repeat("]", 10000) + `}`,
		strings.Repeat("[", 10001),
	}
	// objects of more keys than keySet holds without a map
	var many strings.Builder
	for i := range 20 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	seeds = append(seeds, `{"custom":{`+many.String()+`"k3":1}}`, `{"custom":{`+many.String()+`"k\u0033":1}}`,
		`{`+many.String()+`"text":"t","k20":1}`, `{`+many.String()+`"k19":1}`)
	// the seeds of FuzzCheckJSON and FuzzSendSMS
	return append(seeds, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"x","c":"y"}]}}`, `{"\u0061":1,"a":2}`,
		`{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":[],"b":{},"c":""}`, ` { "a" : true , "b" : null } `,
		`{"receiver":-1}`, `{"custom":[]}`)
}

// FuzzDecodeSubmission holds decodeSubmission to referenceDecode: the same
// submission, or the same refusal (code, message and field), but for the
// differences the package doc records.
func FuzzDecodeSubmission(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(compareDecoders)
}

// compareDecoders fails t unless decodeSubmission answers body as
// referenceDecode does, or differs as allowedDifference allows.
func compareDecoders(t *testing.T, body []byte) {
	got, gotErr := decodeSubmission(body)
	want, wantErr := referenceDecode(body)
	if gotErr == nil && wantErr == nil {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", body, got, want)
		}
		return
	}
	if reflect.DeepEqual(gotErr, wantErr) || allowedDifference(body, gotErr, wantErr) {
		return
	}
	t.Fatalf("%q:\n got %#v, %v\nwant %#v, %v", body, got, gotErr, want, wantErr)
}

// allowedDifference tells whether the decoder may refuse body with got
// where referenceDecode answered want: anything after the object is 109,
// where referenceDecode took a closing bracket and judged types first;
// and a body malformed before a string with bad bytes or a key given
// twice is 109 naming no field, where referenceDecode could name the
// later fault.
func allowedDifference(body []byte, got, want error) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	valid := dec.Decode(new(json.RawMessage)) == nil
	trailing := valid && len(bytes.Trim(body[dec.InputOffset():], " \t\r\n")) > 0
	switch {
	case trailing && (want == nil || sms.CodeOf(want) == sms.CodeBadParameterValue):
		return reflect.DeepEqual(got, sms.CodeBadContentFormat.Errorf("the request body holds more than one JSON value"))
	case !valid && sms.CodeOf(want) == sms.CodeBadContentFormat:
		return reflect.DeepEqual(got, sms.CodeBadContentFormat.Errorf("the request body is not a JSON object"))
	}
	return false
}

// TestDecodeSubmissionRandom compares the decoders on bodies made of the
// pieces their rules are about, which random bytes seldom make: keys of
// the fields in any case and spelling, values of every type, nesting, and
// now and then a fault.
func TestDecodeSubmissionRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range n {
		compareDecoders(t, randomBody(r))
	}
}

func randomBody(r *rand.Rand) []byte {
	var b bytes.Buffer
	b.WriteString(pick(r, "", "", "", " ", "\n\t"))
	randomObject(r, &b, 0)
	b.WriteString(pick(r, "", "", "", "", "", "", " ", "\r\n", "]", "}", " x", " {}", "\v"))
	return b.Bytes()
}

func randomObject(r *rand.Rand, b *bytes.Buffer, depth int) {
	b.WriteByte('{')
	for i := range r.IntN(6) {
		if i > 0 {
			b.WriteString(pick(r, ",", ",", ",", ", ", " ,\n"))
		}
		b.WriteString(pick(r, `"type"`, `"auth"`, `"sender"`, `"receiver"`, `"dcs"`, `"text"`, `"url"`, `"title"`,
			`"dlrMask"`, `"dlrUrl"`, `"flash"`, `"custom"`, `"username"`, `"password"`, `"TEXT"`, `"Auth"`, `"ſender"`,
			`"dlrmask"`, `"DLRURL"`, `"uſername"`, `"PASSWORD"`, `"t\u0065xt"`, `"\u0074ext"`, `"Text"`, `"unknown"`, `"a"`, `""`,
			`"ab\ud800"`, "\"a\xff\""))
		b.WriteString(pick(r, ":", ":", ": ", " : "))
		randomValue(r, b, depth+1)
	}
	b.WriteString(pick(r, "}", "}", "}", "}", " }", ",}", ""))
}

func randomValue(r *rand.Rand, b *bytes.Buffer, depth int) {
	if depth < 4 {
		switch r.IntN(8) {
		case 0:
			randomObject(r, b, depth)
			return
		case 1:
			b.WriteByte('[')
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteString(pick(r, ",", ",", ", "))
				}
				randomValue(r, b, depth+1)
			}
			b.WriteString(pick(r, "]", "]", "]", ",]", ""))
			return
		}
	}
	b.WriteString(pick(r, `"x"`, `""`, `"sh op"`, `"\u00e9\n\/"`, `"\ud83d\ude00"`, `"\u0000"`, `"19"`, `"+5"`, `"-0"`,
		`" 1"`, `"\u0031"`, `"9223372036854775808"`, `1`, `0`, `-1`, `-0`, `1.5`, `1e5`, `1E2`, `19`, `38640123456`,
		`123456789012345678901234567890`, `true`, `false`, `null`, `null`, `{}`, `[]`, `{"a":1}`, `[1, "x"]`,
		"\"\xff\"", `"\ud800"`, `"a\udc00"`, `tru`, `01`, "\"\x01\"", `"\x"`, `[1,]`, `1.`, `-`))
}

func pick(r *rand.Rand, choices ...string) string { return choices[r.IntN(len(choices))] }

// FuzzCheckJSON compares the decoder with encoding/json on valid JSON: it
// refuses with 109 exactly the texts that are not an object, hold invalid
// UTF-8 or give a key twice in one object (in any case) (texts with surrogate escapes,
// which json cannot tell apart from U+FFFD, are left to the table tests),
// and any other refusal is a 112.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"x","c":"y"}]}}`, `null`, `[1]`, `{"\u0061":1,"a":2}`,
		`{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":[],"b":{},"c":""}`, ` { "a" : true , "b" : null } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := decodeSubmission(body)
		if !json.Valid(body) || bytes.Contains(bytes.ToLower(body), []byte(`\ud`)) {
			return
		}
		trimmed := bytes.TrimSpace(body)
		want := trimmed[0] != '{' || !utf8.Valid(body) || duplicateKeys(body)
		refused := err != nil && sms.CodeOf(err) == sms.CodeBadContentFormat
		if refused != want {
			t.Fatalf("decodeSubmission(%q) = %v; want a 109: %v", body, err, want)
		}
		if err != nil && !refused && sms.CodeOf(err) != sms.CodeBadParameterValue {
			t.Fatalf("decodeSubmission(%q) = %v; want a 112", body, err)
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
			for seen := range top.keys {
				if strings.EqualFold(seen, k) {
					return true
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

// The decoder's own answers where it differs from referenceDecode, and
// where encoding/json's rules are easy to get wrong.
func TestDecodeSubmission(t *testing.T) {
	for _, tc := range []struct {
		body, code, field string // code "" means accepted
		want              sms.Submission
	}{
		{body: `{}]`, code: "109"},
		{body: `{"text":"a"} }`, code: "109"},
		{body: `{"text":1} x`, code: "109"},
		{body: `{"a":tru,"a":2}`, code: "109"},
		{body: `{"a":"` + "\x01" + `","b":"` + "\xff" + `"}`, code: "109"},
		{body: `{"text":1,"sender":true}`, code: "112", field: "sender"},
		{body: `{"text":1,"flash":"x"}`, code: "112", field: "text"},
		{body: `{"AUTH":{"USERNAME":1}}`, code: "112", field: "auth.username"},
		{body: `{"dlrMask":1.5}`, code: "112", field: "dlrMask"},
		// Keys that differ only in case name one field: given twice.
		{body: `{"text":"a","TEXT":null}`, code: "109", field: "TEXT"},
		{body: `{"ſender":7,"Auth":{"uſername":"u"},"auth":{"password":"p"}}`, code: "109", field: "auth"},
		{body: `{"auth":{"username":"u","USERNAME":"v"}}`, code: "109", field: "auth.USERNAME"},
		{body: `{"ſender":7,"t\u0065xt":"\ud83d\ude00","Auth":{"uſername":"u","password":"p"},"dlrMask":"\u0031","custom":[ 1 ]}`,
			want: sms.Submission{Sender: "7", Text: "😀", Username: "u", Password: "p", DLRMask: new(int64(1)), Custom: []byte(`[ 1 ]`)}},
	} {
		got, err := decodeSubmission([]byte(tc.body))
		if tc.code == "" {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %#v, %v; want %#v", tc.body, got, err, tc.want)
			}
			continue
		}
		e, _ := errors.AsType[*msgkit.Error](err)
		var field string
		if e != nil && len(e.Fields) > 0 {
			field = e.Fields[0].Name
		}
		if e == nil || e.Code != tc.code || field != tc.field {
			t.Errorf("%s: %v; want %s naming %q", tc.body, err, tc.code, tc.field)
		}
	}
}
