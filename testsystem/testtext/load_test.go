package testtext_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// ownLibrary is an operator's library: Slovenian with gsm and ucs_set
// texts, Georgian with ucs texts and no alphabet.
const ownLibrary = `{"languages": [
  {"code": "sl", "name": "Slovenian", "sender": "Preizkus",
   "alphabet": "ABCČDEFGHIJKLMNOPRSŠTUVZŽabcčdefghijklmnoprsštuvzž",
   "templates": {
     "gsm": [{"text": "Preizkus poti {mark}: to sporocilo preverja dostavo."}],
     "ucs_set": [{"text": "Abeceda {mark}: ABCČDEFGHIJKLMNOPRSŠTUVZŽ abcčdefghijklmnoprsštuvzž", "sender": "Abeceda"}]
   }},
  {"code": "ka", "name": "Georgian", "sender": "Test",
   "templates": {"ucs": [{"text": "ტესტი {mark}"}]}}
]}`

func TestLoadOwnLibrary(t *testing.T) {
	l, err := testtext.Load(strings.NewReader(ownLibrary))
	if err != nil {
		t.Fatal(err)
	}
	want := []testtext.Language{{Code: "ka", Name: "Georgian"}, {Code: "sl", Name: "Slovenian"}}
	if diff := cmp.Diff(want, l.Languages()); diff != "" {
		t.Errorf("Languages (-want +got):\n%s", diff)
	}
	got := checkText(t, l, "sl", testtext.GSM, "AB12", 7)
	if want := (testtext.Text{Body: "Preizkus poti AB12: to sporocilo preverja dostavo.", DCS: gsm.DCSGSM, Parts: 1, Sender: "Preizkus"}); got != want {
		t.Errorf("Text = %+v\n want %+v", got, want)
	}
	if got := checkText(t, l, "sl", testtext.UCSSet, "AB12", 0); got.Sender != "Abeceda" {
		t.Errorf("sender %q, want the template's", got.Sender)
	}
	for _, tc := range []struct {
		lang string
		kind testtext.Kind
		want string
	}{
		{"sl", testtext.UCS, `language "sl" has no ucs texts; use gsm or ucs_set`},
		{"sl", testtext.GSMSet, `language "sl" has no gsm_set texts; use gsm or ucs_set`},
		{"ka", testtext.GSM, `language "ka" has no gsm texts; use ucs`}, // no alphabet tells its script
	} {
		_, err := l.Text(tc.lang, tc.kind, "M", 0)
		if msgkit.CodeOf(err) != "text_type_unavailable" || msgkit.MessageOf(err) != tc.want {
			t.Errorf("Text(%s, %s): %v\n want %s", tc.lang, tc.kind, err, tc.want)
		}
	}
}

func TestLoadBuiltinFile(t *testing.T) {
	f, err := os.Open("templates.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := testtext.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(testtext.Default().Languages(), l.Languages()); diff != "" {
		t.Errorf("Languages (-Default +Load):\n%s", diff)
	}
}

// problem is a field of Load's error: its name and a part of its message.
type problem struct{ name, says string }

func TestLoadRefuses(t *testing.T) {
	long := strings.Repeat("a", 700)
	for _, tc := range []struct {
		name string
		in   string
		want []problem
	}{
		{"empty", ``, []problem{{"library", "empty"}}},
		{"cut short", `{"languages": [`, []problem{{"library", "ends too early"}}},
		{"bad syntax", `{"languages": x}`, []problem{{"library", "invalid JSON at byte"}}},
		{"not an object", `[]`, []problem{{"library", "the library must not be a JSON array"}}},
		{"wrong type", `{"languages": [{"code": 1}]}`, []problem{{"library", "languages.code must not be a JSON number"}}},
		{"unknown field", `{"languages": [], "version": 2}`, []problem{{"library", `unknown field "version"`}}},
		{"misspelt field", `{"languages": [{"code": "en", "alphabeth": "a"}]}`, []problem{{"library", `unknown field "alphabeth"`}}},
		{"no languages", `{"languages": []}`, []problem{{"languages", "no languages"}}},
		{"trailing data", `{"languages": []} {}`, []problem{
			{"library", "trailing data"},
			{"languages", "no languages"},
		}},
		{"codes", `{"languages": [
			{"code": "de", "name": "German", "sender": "Test", "templates": {"gsm": [{"text": "Test {mark}"}]}},
			{"code": "de", "name": "Deutsch", "sender": "Test", "templates": {"gsm": [{"text": "Test {mark}"}]}},
			{"code": "DE", "name": "German", "sender": "Test", "templates": {"gsm": [{"text": "Test {mark}"}]}},
			{"code": "iw", "name": "Hebrew", "sender": "Test", "templates": {"ucs": [{"text": "בדיקה {mark}"}]}},
			{"code": "deu", "name": "German", "sender": "Test", "templates": {"gsm": [{"text": "Test {mark}"}]}},
			{"name": "Nameless", "sender": "Test", "templates": {"gsm": [{"text": "Test {mark}"}]}}
		]}`, []problem{
			{"languages[1].code", `code "de" is used again (first by languages[0])`},
			{"languages[2].code", `code "DE" must be lower case`},
			{"languages[3].code", `code "iw" is not an ISO 639-1 code`},
			{"languages[4].code", `code "deu" is not an ISO 639-1 code`},
			{"languages[5].code", "code is missing"},
		}},
		{"language", `{"languages": [
			{"code": "en", "name": " English", "sender": "bad_sender", "alphabet": "ab1b",
			 "templates": {"sms": [{"text": "Test {mark}"}], "gsm": [{"text": "Test {mark}"}]}},
			{"code": "de", "sender": "Test", "templates": {"ucs_set": [{"text": "Tschüß {mark} ẞ"}]}},
			{"code": "fr", "name": "French", "sender": "+33123", "templates": {}},
			{"code": "es", "name": "Spanish", "sender": "0123456789ABCDEF", "templates": {"gsm": null}}
		]}`, []problem{
			{"en.name", `name " English" must be printable`},
			{"en.alphabet", `alphabet holds "1", which are not letters`},
			{"en.alphabet", `alphabet holds "b" more than once`},
			{"en.alphabet", `alphabet lacks "AB", the other case of its letters`},
			{"en.sender", `sender "bad_sender": sender must not contain '_'`},
			{"en.templates", `"sms" is not a kind of test text`},
			{"de.name", "name is missing"},
			{"de.alphabet", "alphabet is missing; ucs_set texts must hold it"},
			{"fr.sender", `sender "+33123" is numeric`},
			{"fr.templates", "the language has no templates"},
			{"es.sender", "at most 11 characters"},
			{"es.templates", "the language has no templates"},
		}},
		{"templates", `{"languages": [{"code": "pl", "name": "Polish", "alphabet": "AĄaą",
			"templates": {
			"gsm": [
				{"text": "no placeholder", "sender": "Test"},
				{"text": "{mark} and {mark}", "sender": "Test"},
				{"text": "Test {mark}: łódź", "sender": "Test"},
				{"text": "Test{mark}", "sender": "Test"},
				{"text": "Test {mark}", "sender": "12345"},
				{"text": "Test {mark}"},
				{"text": "Test {mark} ok", "sender": "Test"}
			],
			"gsm_concat": [{"text": "Short {mark}", "sender": "Test"}, {"text": "{mark} ` + long + `", "sender": "Test"}],
			"gsm_set": [{"text": "Set {mark}: [abc]", "sender": "Test"}],
			"ucs": [{"text": "All GSM {mark}", "sender": "Test"}, {"text": "` + long[:60] + ` “{mark}”", "sender": "Test"}],
			"ucs_concat": [{"text": "Short “{mark}”", "sender": "Test"}],
			"ucs_set": [{"text": "Litery {mark}: ą", "sender": "Test"}]
		}}]}`, []problem{
			{"pl.gsm[0]", "must hold {mark} exactly once; it holds it 0 times"},
			{"pl.gsm[1]", "it holds it 2 times"},
			{"pl.gsm[2]", `a gsm text must be GSM 7-bit, but 'ł' (U+0142) is not in the GSM alphabet`},
			{"pl.gsm[3]", "{mark} must not touch an ASCII letter or digit"},
			{"pl.gsm[4].sender", `sender "12345" is numeric`},
			{"pl.gsm[5].sender", "no sender"},
			{"pl.gsm_concat[0]", "with a 12-character mark the text needs 1 part; a gsm_concat text needs 2 to 4 parts"},
			{"pl.gsm_concat[1]", "with a 12-character mark the text needs 5 parts; a gsm_concat text needs 2 to 4 parts"},
			{"pl.gsm_set[0]", `a gsm_set text must hold every character of the GSM alphabet and its extension table, but lacks "\n!\"#$%&'()*+,-./0123456789;<=>?@ABCDEFGH" and 85 more`},
			{"pl.ucs[0]", "a ucs text must be UCS-2, but every character is in the GSM alphabet"},
			{"pl.ucs[1]", "with a 12-character mark the text needs 2 parts; a ucs text needs 1 part"},
			{"pl.ucs_concat[0]", "with a 12-character mark the text needs 1 part; a ucs_concat text needs 2 to 4 parts"},
			{"pl.ucs_set[0]", `a ucs_set text must hold every character of the alphabet, but lacks "AaĄ"`},
		}},
		{"too many parts", `{"languages": [{"code": "en", "name": "English", "sender": "Test",
			"templates": {"gsm_concat": [{"text": "{mark} ` + strings.Repeat("a", 255*153) + `"}]}}]}`, []problem{
			{"en.gsm_concat[0]", "with a 12-character mark: text needs more than 255 parts"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := testtext.Load(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Load = %v, want an error", l.Languages())
			}
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok || e.Kind != msgkit.Invalid || e.Code != "invalid_library" {
				t.Fatalf("error %v is not Invalid invalid_library", err)
			}
			wantMsg := fmt.Sprintf("the test text library has %d problems", len(tc.want))
			if len(tc.want) == 1 {
				wantMsg = "the test text library has 1 problem"
			}
			if e.Message != wantMsg {
				t.Errorf("message %q, want %q", e.Message, wantMsg)
			}
			var got []problem
			for i, f := range e.Fields {
				p := problem{name: f.Name, says: f.Message}
				if i < len(tc.want) && tc.want[i].name == f.Name && strings.Contains(f.Message, tc.want[i].says) {
					p.says = tc.want[i].says
				}
				got = append(got, p)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(problem{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzLoad checks that Load never panics, refuses with an
// invalid_library error naming each problem, and that a library it
// accepts gives a text of every kind a language has, of that kind. The
// seeds are small libraries: the fuzzer minimizes every input that finds
// new coverage, which takes a minute for one the size of templates.json
// (TestDefaultTexts covers that file).
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		ownLibrary, ``, `{}`, `{"languages": []}`, `{"languages": [{}]}`,
		`{"languages": [{"code": "en", "name": "English", "sender": "Test", "alphabet": "Aa",
			"templates": {"gsm": [{"text": "Test {mark}"}], "ucs_set": [{"text": "Aa {mark} “x”"}]}}]}`,
		`{"languages": [{"code": "en", "name": "E", "sender": "T", "templates": {"gsm": [{"text": "{mark}"}]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := testtext.Load(bytes.NewReader(data))
		if err != nil {
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok || e.Kind != msgkit.Invalid || e.Code != "invalid_library" || len(e.Fields) == 0 {
				t.Fatalf("Load: %v", err)
			}
			return
		}
		langs := l.Languages()
		if len(langs) == 0 {
			t.Fatal("Load accepts a library without languages")
		}
		for i, lang := range langs {
			if i > 0 && langs[i-1].Code >= lang.Code {
				t.Fatalf("languages unsorted or repeated: %v", langs)
			}
			if lang.Code != strings.ToLower(lang.Code) || len(lang.Code) != 2 || strings.TrimSpace(lang.Name) == "" {
				t.Fatalf("language %+v", lang)
			}
			has := 0
			for _, k := range testtext.Kinds() {
				_, err := l.Text(lang.Code, k, "M", 0)
				if msgkit.CodeOf(err) == "text_type_unavailable" {
					continue
				}
				has++
				for _, mark := range []string{"M", "ABCDEFGHIJKL"} {
					for _, n := range []uint64{0, 1, 1 << 63} {
						checkText(t, l, lang.Code, k, mark, n)
					}
				}
			}
			if has == 0 {
				t.Fatalf("language %s has no kind", lang.Code)
			}
		}
		if !slices.IsSortedFunc(langs, func(a, b testtext.Language) int { return strings.Compare(a.Code, b.Code) }) {
			t.Fatal("unsorted")
		}
	})
}
