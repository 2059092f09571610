package testtext_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem/testtext"
	"pgregory.net/rapid"
)

// rule is what a kind's texts must be, written out here independently of
// the package.
type rule struct {
	dcs      gsm.DCS
	min, max int
}

var rules = map[testtext.Kind]rule{
	testtext.GSM:       {gsm.DCSGSM, 1, 1},
	testtext.GSMConcat: {gsm.DCSGSM, 2, 4},
	testtext.GSMSet:    {gsm.DCSGSM, 1, 4},
	testtext.UCS:       {gsm.DCSUCS, 1, 1},
	testtext.UCSConcat: {gsm.DCSUCS, 2, 4},
	testtext.UCSSet:    {gsm.DCSUCS, 1, 4},
}

// gsmPrintable is every printable character of the GSM 03.38 default
// alphabet (in code order, carriage return and escape left out, line feed
// kept) and of its extension table (form feed left out), from 3GPP TS
// 23.038 6.2.1.
const gsmPrintable = "@£$¥èéùìòÇ\nØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
	"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà" +
	"^{}\\[~]|€"

// sentinel is a mark no template holds, to find where a mark goes.
const sentinel = "QX7JQX7JQX7J"

// latin are the languages with every kind; the others have the ucs kinds.
var latin = []string{"en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr"}

var required = map[string]string{
	"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
	"pt": "Portuguese", "nl": "Dutch", "pl": "Polish", "tr": "Turkish", "el": "Greek",
	"ru": "Russian", "uk": "Ukrainian", "ar": "Arabic", "he": "Hebrew", "zh": "Chinese", "hi": "Hindi",
}

// scripts is the script each built-in language's texts are written in.
var scripts = map[string]*unicode.RangeTable{
	"el": unicode.Greek, "ru": unicode.Cyrillic, "uk": unicode.Cyrillic, "ar": unicode.Arabic,
	"he": unicode.Hebrew, "zh": unicode.Han, "hi": unicode.Devanagari,
}

func kindsOf(code string) []testtext.Kind {
	if slices.Contains(latin, code) {
		return testtext.Kinds()
	}
	return []testtext.Kind{testtext.UCS, testtext.UCSConcat, testtext.UCSSet}
}

// alphabets reads the languages' alphabets from templates.json itself.
func alphabets(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("templates.json")
	if err != nil {
		t.Fatal(err)
	}
	var lib struct {
		Languages []struct{ Code, Alphabet string }
	}
	if err := json.Unmarshal(data, &lib); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range lib.Languages {
		out[l.Code] = l.Alphabet
	}
	return out
}

type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// checkText checks that Text gives a text of kind k holding mark exactly
// once, as the kind's rule says, and returns it.
func checkText(t tb, l *testtext.Library, lang string, k testtext.Kind, mark string, n uint64) testtext.Text {
	t.Helper()
	got, err := l.Text(lang, k, mark, n)
	if err != nil {
		t.Fatalf("Text(%q, %s, %q, %d): %v", lang, k, mark, n, err)
	}
	ref, err := l.Text(lang, k, sentinel, n)
	if err != nil {
		t.Fatalf("Text(%q, %s, %q, %d): %v", lang, k, sentinel, n, err)
	}
	if c := strings.Count(ref.Body, sentinel); c != 1 {
		t.Fatalf("%s %s[%d]: mark %q appears %d times in %q", lang, k, n, sentinel, c, ref.Body)
	}
	if want := strings.Replace(ref.Body, sentinel, mark, 1); got.Body != want {
		t.Errorf("%s %s[%d] with mark %q:\n got %q\nwant %q", lang, k, n, mark, got.Body, want)
	}
	c, err := gsm.CountText(got.Body, gsm.DCSAuto)
	if err != nil {
		t.Fatalf("%s %s[%d]: CountText: %v", lang, k, n, err)
	}
	if got.DCS != c.DCS || got.Parts != c.Parts {
		t.Errorf("%s %s[%d]: Text says %v in %d parts, CountText %v in %d", lang, k, n, got.DCS, got.Parts, c.DCS, c.Parts)
	}
	r := rules[k]
	if c.DCS != r.dcs || c.Parts < r.min || c.Parts > r.max {
		t.Errorf("%s %s[%d] with mark %q is %v in %d parts; want %v in %d to %d: %q",
			lang, k, n, mark, c.DCS, c.Parts, r.dcs, r.min, r.max, got.Body)
	}
	s, err := sms.ParseSender(got.Sender)
	if err != nil || s.Numeric || len(got.Sender) > sms.MaxAlphanumericSender {
		t.Errorf("%s %s[%d]: sender %q: %v, numeric %v", lang, k, n, got.Sender, err, s.Numeric)
	}
	return got
}

// lacks returns the characters of set that text, its mark cut out, lacks.
func lacks(text, mark, set string) string {
	text = strings.Replace(text, mark, "", 1)
	var out []rune
	for _, r := range set {
		if !strings.ContainsRune(text, r) {
			out = append(out, r)
		}
	}
	return string(out)
}

func TestKinds(t *testing.T) {
	want := []testtext.Kind{"gsm", "gsm_concat", "gsm_set", "ucs", "ucs_concat", "ucs_set"}
	if diff := cmp.Diff(want, testtext.Kinds()); diff != "" {
		t.Errorf("Kinds (-want +got):\n%s", diff)
	}
	testtext.Kinds()[0] = "changed"
	if testtext.Kinds()[0] != testtext.GSM {
		t.Error("Kinds shares its slice")
	}
	for _, tc := range []struct {
		in   string
		want testtext.Kind
		ok   bool
	}{
		{"gsm", testtext.GSM, true},
		{"GSM_CONCAT", testtext.GSMConcat, true},
		{"Ucs_Set", testtext.UCSSet, true},
		{"ucs", testtext.UCS, true},
		{"", "", false},
		{"gsm ", "", false},
		{"unicode", "", false},
		{"gsm-set", "", false},
	} {
		got, ok := testtext.ParseKind(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestGSMPrintable(t *testing.T) {
	// The list above is the standard's; gsm.InAlphabet must agree with it, or
	// the gsm_set check would test something else.
	var fromSMS []rune
	for r := range rune(0x2100) {
		if gsm.InAlphabet(r) && (r == '\n' || !unicode.IsControl(r)) {
			fromSMS = append(fromSMS, r)
		}
	}
	want := []rune(gsmPrintable)
	slices.Sort(want)
	if diff := cmp.Diff(string(want), string(fromSMS)); diff != "" {
		t.Errorf("printable GSM characters (-standard +gsm.InAlphabet):\n%s", diff)
	}
}

func TestDefault(t *testing.T) {
	l := testtext.Default()
	if l != testtext.Default() {
		t.Error("Default loads a new library on every call")
	}
	langs := l.Languages()
	if !slices.IsSortedFunc(langs, func(a, b testtext.Language) int { return strings.Compare(a.Code, b.Code) }) {
		t.Errorf("Languages are not sorted by code: %v", langs)
	}
	for code, name := range required {
		got, ok := l.Language(code)
		if !ok || got != (testtext.Language{Code: code, Name: name}) {
			t.Errorf("Language(%q) = %v, %v; want %s", code, got, ok, name)
		}
		if !slices.Contains(langs, testtext.Language{Code: code, Name: name}) {
			t.Errorf("Languages lacks %s", code)
		}
	}
	if got, ok := l.Language("DE"); !ok || got.Code != "de" {
		t.Errorf(`Language("DE") = %v, %v`, got, ok)
	}
	if _, ok := l.Language("xx"); ok {
		t.Error(`Language("xx") is found`)
	}
	langs[0].Name = "changed"
	if l.Languages()[0].Name == "changed" {
		t.Error("Languages shares its slice")
	}
}

// TestDefaultTexts checks every language and kind of the built-in
// library: the kinds each language has, that it has two templates or
// more of each, and that every text is of its kind, with marks of 1 and
// 12 characters.
func TestDefaultTexts(t *testing.T) {
	l := testtext.Default()
	alpha := alphabets(t)
	marks := []string{"7", "Zq", "ABCDEFGH1234", "a1b2c3d4e5f6"}
	for _, lang := range l.Languages() {
		have := kindsOf(lang.Code)
		for _, k := range testtext.Kinds() {
			_, err := l.Text(lang.Code, k, "M", 0)
			if !slices.Contains(have, k) {
				if msgkit.CodeOf(err) != "text_type_unavailable" {
					t.Errorf("%s has %s texts, or fails otherwise: %v", lang.Code, k, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", lang.Code, k, err)
				continue
			}
			bodies := map[string]bool{}
			for n := range uint64(6) {
				for _, mark := range marks {
					got := checkText(t, l, lang.Code, k, mark, n)
					bodies[strings.Replace(got.Body, mark, "", 1)] = true
					switch k {
					case testtext.GSMSet:
						if miss := lacks(got.Body, mark, gsmPrintable); miss != "" {
							t.Errorf("%s %s[%d] lacks %q", lang.Code, k, n, miss)
						}
					case testtext.UCSSet:
						if miss := lacks(got.Body, mark, alpha[lang.Code]); miss != "" || alpha[lang.Code] == "" {
							t.Errorf("%s %s[%d] lacks %q of alphabet %q", lang.Code, k, n, miss, alpha[lang.Code])
						}
					}
					if script := scripts[lang.Code]; script != nil {
						letters := 0
						for _, r := range got.Body {
							if unicode.Is(script, r) {
								letters++
							}
						}
						if letters < 8 {
							t.Errorf("%s %s[%d] has %d letters of its script: %q", lang.Code, k, n, letters, got.Body)
						}
					}
				}
			}
			if len(bodies) < 2 {
				t.Errorf("%s %s has %d templates; want 2 or more", lang.Code, k, len(bodies))
			}
			last := checkText(t, l, lang.Code, k, "M", math.MaxUint64)
			if again := checkText(t, l, lang.Code, k, "M", math.MaxUint64); again != last {
				t.Errorf("%s %s: Text is not deterministic: %v, then %v", lang.Code, k, last, again)
			}
		}
	}
}

// TestLatinGSMTexts checks that the GSM texts of the Latin-script
// languages keep the letters of their language that GSM holds: a gsm text
// is not plain ASCII by accident where the language has such letters.
func TestLatinGSMTexts(t *testing.T) {
	l := testtext.Default()
	for _, tc := range []struct{ lang, letters string }{
		{"de", "äöüß"}, {"fr", "éèàù"}, {"es", "ñé¡¿"}, {"it", "àèéìòù"}, {"tr", "öü"},
	} {
		var all strings.Builder
		for _, k := range []testtext.Kind{testtext.GSM, testtext.GSMConcat} {
			for n := range uint64(2) {
				all.WriteString(checkText(t, l, tc.lang, k, "M", n).Body)
			}
		}
		if !strings.ContainsAny(all.String(), tc.letters) {
			t.Errorf("the gsm texts of %s hold none of %q", tc.lang, tc.letters)
		}
	}
}

func TestTextErrors(t *testing.T) {
	l := testtext.Default()
	for _, tc := range []struct {
		name, lang string
		kind       testtext.Kind
		mark       string
		wantKind   msgkit.Kind
		wantCode   string
		wantFields []string
		wantMsg    string // the whole message, when set
	}{
		{name: "unknown language", lang: "xx", kind: testtext.GSM, mark: "M", wantKind: msgkit.Invalid,
			wantCode: "unknown_language", wantFields: []string{"text_lang"},
			wantMsg: `language "xx" has no test texts; see the languages list`},
		{name: "empty language", lang: "", kind: testtext.UCS, mark: "M", wantKind: msgkit.Invalid,
			wantCode: "unknown_language", wantFields: []string{"text_lang"}},
		{name: "withdrawn code", lang: "iw", kind: testtext.UCS, mark: "M", wantKind: msgkit.Invalid,
			wantCode: "unknown_language", wantFields: []string{"text_lang"}},
		{name: "unknown kind", lang: "en", kind: "sms", mark: "M", wantKind: msgkit.Invalid,
			wantCode: "invalid_text_type", wantFields: []string{"text_type"},
			wantMsg: `text_type "sms" is not a kind of test text; use gsm, gsm_concat, gsm_set, ucs, ucs_concat or ucs_set`},
		{name: "kind not canonical", lang: "en", kind: "GSM", mark: "M", wantKind: msgkit.Invalid,
			wantCode: "invalid_text_type", wantFields: []string{"text_type"}},
		{name: "both unknown", lang: "xx", kind: "", mark: "M", wantKind: msgkit.Invalid,
			wantCode: "unknown_language", wantFields: []string{"text_lang", "text_type"}},
		{name: "gsm in Russian", lang: "ru", kind: testtext.GSM, mark: "M", wantKind: msgkit.Invalid,
			wantCode: "text_type_unavailable", wantFields: []string{"text_type"},
			wantMsg: `language "ru" has no gsm texts: its script is not in the GSM alphabet; use ucs, ucs_concat or ucs_set`},
		{name: "gsm_set in Greek", lang: "EL", kind: testtext.GSMSet, mark: "M", wantKind: msgkit.Invalid,
			wantCode: "text_type_unavailable", wantFields: []string{"text_type"},
			wantMsg: `language "el" has no gsm_set texts: its script is not in the GSM alphabet; use ucs, ucs_concat or ucs_set`},
		{name: "empty mark", lang: "en", kind: testtext.GSM, mark: "", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
		{name: "long mark", lang: "en", kind: testtext.GSM, mark: "ABCDEFGHIJKLM", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
		{name: "mark with a dash", lang: "en", kind: testtext.GSM, mark: "AB-12", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
		{name: "mark with a space", lang: "en", kind: testtext.GSM, mark: "AB 12", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
		{name: "mark not ASCII", lang: "de", kind: testtext.GSM, mark: "Ä1", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
		{name: "mark wins over language", lang: "xx", kind: "x", mark: "{mark}", wantKind: msgkit.Internal, wantCode: "invalid_mark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.Text(tc.lang, tc.kind, tc.mark, 0)
			if err == nil {
				t.Fatalf("Text = %v, want an error", got)
			}
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok {
				t.Fatalf("error %T is not a *msgkit.Error: %v", err, err)
			}
			if e.Kind != tc.wantKind || e.Code != tc.wantCode {
				t.Errorf("error %v is %v %q; want %v %q", err, e.Kind, e.Code, tc.wantKind, tc.wantCode)
			}
			var fields []string
			for _, f := range e.Fields {
				fields = append(fields, f.Name)
			}
			if diff := cmp.Diff(tc.wantFields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if tc.wantMsg != "" && e.Message != tc.wantMsg {
				t.Errorf("message %q\n want %q", e.Message, tc.wantMsg)
			}
			if tc.wantKind == msgkit.Internal && msgkit.MessageOf(err) != "internal error" {
				t.Errorf("MessageOf = %q; an internal error shows nothing", msgkit.MessageOf(err))
			}
		})
	}
}

func TestTextErrorMessagesStayShort(t *testing.T) {
	huge := strings.Repeat("ü", 100000)
	l := testtext.Default()
	for _, args := range [][2]string{{huge, "gsm"}, {"en", huge}, {huge, huge}} {
		_, err := l.Text(args[0], testtext.Kind(args[1]), "M", 0)
		if err == nil {
			t.Fatal("no error")
		}
		if n := len(err.Error()); n > 600 {
			t.Errorf("error of %d bytes: %.100s", n, err)
		}
	}
	if _, err := l.Text("en", testtext.GSM, huge, 0); err == nil {
		t.Error("no error")
	} else if n := len(err.Error()); n > 600 {
		t.Errorf("error of %d bytes: %.100s", n, err)
	}
}

// TestTextProperty draws languages, kinds, marks and n, good and bad,
// and checks that Text either gives a text of the kind holding the mark
// or fails with the right error.
func TestTextProperty(t *testing.T) {
	l := testtext.Default()
	var codes []string
	for _, lang := range l.Languages() {
		codes = append(codes, lang.Code, strings.ToUpper(lang.Code))
	}
	rapid.Check(t, func(t *rapid.T) {
		lang := rapid.OneOf(rapid.SampledFrom(codes), rapid.StringMatching(`[a-zA-Z]{0,3}`)).Draw(t, "lang")
		k := rapid.OneOf(rapid.SampledFrom(testtext.Kinds()),
			rapid.Map(rapid.String(), func(s string) testtext.Kind { return testtext.Kind(s) })).Draw(t, "kind")
		mark := rapid.OneOf(rapid.StringMatching(`[A-Za-z0-9]{1,12}`), rapid.String()).Draw(t, "mark")
		n := rapid.Uint64().Draw(t, "n")

		got, err := l.Text(lang, k, mark, n)
		_, langOK := l.Language(lang)
		_, kindOK := rules[k]
		markOK := len(mark) >= 1 && len(mark) <= 12 && !strings.ContainsFunc(mark, func(r rune) bool {
			return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		switch {
		case !markOK:
			if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != "invalid_mark" {
				t.Fatalf("mark %q: %v", mark, err)
			}
		case !langOK:
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != "unknown_language" {
				t.Fatalf("language %q: %v", lang, err)
			}
		case !kindOK:
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != "invalid_text_type" {
				t.Fatalf("kind %q: %v", k, err)
			}
		case msgkit.CodeOf(err) == "text_type_unavailable":
			if slices.Contains(kindsOf(strings.ToLower(lang)), k) {
				t.Fatalf("%s has %s texts: %v", lang, k, err)
			}
		case err != nil:
			t.Fatalf("Text(%q, %s, %q, %d): %v", lang, k, mark, n, err)
		default:
			if !slices.Contains(kindsOf(strings.ToLower(lang)), k) {
				t.Fatalf("%s has %s texts: %v", lang, k, got)
			}
			if again := checkText(t, l, lang, k, mark, n); again != got {
				t.Fatalf("Text is not deterministic: %v, then %v", got, again)
			}
		}
	})
}

func BenchmarkText(b *testing.B) {
	l := testtext.Default()
	for _, bc := range []struct {
		lang string
		kind testtext.Kind
	}{
		{"en", testtext.GSM},
		{"de", testtext.GSMConcat},
		{"fr", testtext.GSMSet},
		{"pl", testtext.UCS},
		{"zh", testtext.UCSConcat},
		{"ru", testtext.UCSSet},
	} {
		b.Run(bc.lang+"_"+string(bc.kind), func(b *testing.B) {
			b.ReportAllocs()
			var n uint64
			for b.Loop() {
				txt, err := l.Text(bc.lang, bc.kind, "K7PQ2MXD", n)
				if err != nil || txt.Parts == 0 {
					b.Fatal(txt, err)
				}
				n++
			}
		})
	}
}
