package gsm

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"pgregory.net/rapid"
)

// gsmBasic is the GSM 03.38 default alphabet in code order, 0x00..0x7F, as
// 3GPP TS 23.038 section 6.2.1 lists it (0x1B is the escape).
const gsmBasic = "@£$¥èéùìòÇ\nØø\rÅå" +
	"Δ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ" +
	" !\"#¤%&'()*+,-./" +
	"0123456789:;<=>?" +
	"¡ABCDEFGHIJKLMNO" +
	"PQRSTUVWXYZÄÖÑÜ§" +
	"¿abcdefghijklmno" +
	"pqrstuvwxyzäöñüà"

// gsmExtension is the extension table of 3GPP TS 23.038 section 6.2.1.1:
// character -> code after the escape.
var gsmExtension = map[rune]uint8{
	'\f': 0x0A, '^': 0x14, '{': 0x28, '}': 0x29, '\\': 0x2F,
	'[': 0x3C, '~': 0x3D, ']': 0x3E, '|': 0x40, '€': 0x65,
}

func TestGSMAlphabet(t *testing.T) {
	runes := []rune(gsmBasic)
	if len(runes) != 128 {
		t.Fatalf("test table has %d characters, want 128", len(runes))
	}
	for code, r := range runes {
		if code == escSeptet {
			continue
		}
		got, ok := gsmFromRune(r)
		if !ok || got.code != uint8(code) || got.cost != 1 {
			t.Errorf("%q: got code %#x cost %d ok %v, want %#x cost 1", r, got.code, got.cost, ok, code)
		}
	}
	for r, code := range gsmExtension {
		got, ok := gsmFromRune(r)
		if !ok || got.code != code || got.cost != 2 {
			t.Errorf("%q: got code %#x cost %d ok %v, want escape + %#x", r, got.code, got.cost, ok, code)
		}
		if Septets(r) != 2 {
			t.Errorf("Septets(%q) = %d, want 2", r, Septets(r))
		}
	}
	// The escape character itself is sent as escape + escape (the character
	// counting rule of bulk SMS).
	if Septets('\x1b') != 2 {
		t.Errorf("escape counts %d, want 2", Septets('\x1b'))
	}
	for _, r := range "`\tçÀ€\u00a0ÿ😀ä" {
		want := strings.ContainsRune(gsmBasic, r) || gsmExtension[r] != 0
		if InAlphabet(r) != want {
			t.Errorf("InAlphabet(%q) = %v, want %v", r, InAlphabet(r), want)
		}
	}
	// Every ASCII byte agrees with the rune lookup (the fast path's table).
	for c := rune(0); c < 128; c++ {
		s, ok := gsmFromRune(c)
		if int(asciiCost[c]) != int(s.cost) || (ok && asciiCode[c] != s.code) {
			t.Errorf("ASCII %#x: table cost %d code %#x, lookup cost %d code %#x", c, asciiCost[c], asciiCode[c], s.cost, s.code)
		}
	}
}

func TestSplitTextVectors(t *testing.T) {
	rep := strings.Repeat
	tests := []struct {
		name  string
		text  string
		dcs   DCS
		want  DCS
		units []int
	}{
		{"160 GSM is one", rep("a", 160), DCSGSM, DCSGSM, []int{160}},
		{"161 GSM is two", rep("a", 161), DCSGSM, DCSGSM, []int{153, 8}},
		{"306 GSM fills two parts", rep("a", 306), DCSGSM, DCSGSM, []int{153, 153}},
		{"307 GSM needs a third", rep("a", 307), DCSGSM, DCSGSM, []int{153, 153, 1}},
		{"70 UCS is one", rep("ж", 70), DCSUCS, DCSUCS, []int{70}},
		{"71 UCS is two", rep("ж", 71), DCSUCS, DCSUCS, []int{67, 4}},
		{"134 UCS fills two parts", rep("ж", 134), DCSUCS, DCSUCS, []int{67, 67}},
		{"135 UCS needs a third", rep("ж", 135), DCSUCS, DCSUCS, []int{67, 67, 1}},
		{"GSM-only text asked as UCS stays UCS", rep("a", 71), DCSUCS, DCSUCS, []int{67, 4}},
		{"153 brackets are three parts", rep("]", 153), DCSGSM, DCSGSM, []int{152, 152, 2}},
		{"80 euro is one", rep("€", 80), DCSGSM, DCSGSM, []int{160}},
		{"81 euro is two", rep("€", 81), DCSGSM, DCSGSM, []int{152, 10}},
		{"escape at a part boundary moves to the next part", rep("a", 152) + "]" + rep("b", 10), DCSGSM, DCSGSM, []int{152, 12}},
		{"escape just fitting a part", rep("a", 151) + "]" + rep("b", 10), DCSGSM, DCSGSM, []int{153, 10}},
		{"escape at 159..160 fits one", rep("a", 158) + "~", DCSGSM, DCSGSM, []int{160}},
		{"escape at 160..161 splits", rep("a", 159) + "~", DCSGSM, DCSGSM, []int{153, 8}},
		{"36 whales", rep("🐳", 36), DCSUCS, DCSUCS, []int{66, 6}},
		{"emoji at a part boundary", rep("a", 66) + "😀" + rep("b", 10), DCSUCS, DCSUCS, []int{66, 12}},
		{"35 whales fit one", rep("🐳", 35), DCSUCS, DCSUCS, []int{70}},
		{"auto picks GSM", "Hello {world} €", DCSAuto, DCSGSM, []int{18}},
		{"auto picks UCS for a non-GSM character", "Hello `world`", DCSAuto, DCSUCS, []int{13}},
		{"auto keeps ç exact with UCS", "français", DCSAuto, DCSUCS, []int{8}},
		{"ç sent as Ç with GSM", "français", DCSGSM, DCSGSM, []int{8}},
		{"escape character counts two", "a\x1bb", DCSGSM, DCSGSM, []int{4}},
		{"255 parts", rep("a", 39015), DCSGSM, DCSGSM, nil},
		{"255 UCS parts", rep("ж", 255*67), DCSUCS, DCSUCS, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := SplitText(tc.text, tc.dcs, 7)
			if err != nil {
				t.Fatal(err)
			}
			if m.DCS != tc.want {
				t.Errorf("DCS %v, want %v", m.DCS, tc.want)
			}
			var units []int
			for _, p := range m.Parts {
				units = append(units, p.Units)
			}
			if tc.units == nil {
				if len(units) != MaxParts {
					t.Fatalf("%d parts, want %d", len(units), MaxParts)
				}
			} else if diff := cmp.Diff(tc.units, units); diff != "" {
				t.Errorf("units (-want +got):\n%s", diff)
			}
			c, err := CountText(tc.text, tc.dcs)
			if err != nil {
				t.Fatal(err)
			}
			if c.Parts != len(m.Parts) || c.DCS != m.DCS {
				t.Errorf("CountText %+v disagrees with SplitText (%d parts, %v)", c, len(m.Parts), m.DCS)
			}
		})
	}
}

func TestSplitTextPartContents(t *testing.T) {
	m, err := SplitText(strings.Repeat("a", 152)+"]"+strings.Repeat("b", 10), DCSGSM, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := []Part{
		{Text: strings.Repeat("a", 152), Units: 152, UDH: UDH{Ref: 42, Total: 2, Seq: 1}},
		{Text: "]" + strings.Repeat("b", 10), Units: 12, UDH: UDH{Ref: 42, Total: 2, Seq: 2}},
	}
	if diff := cmp.Diff(want, m.Parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	single, err := SplitText("français", DCSGSM, 42)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Part{{Text: "franÇais", Units: 8}}, single.Parts); diff != "" {
		t.Errorf("a single part has no UDH and carries ç as Ç (-want +got):\n%s", diff)
	}
	if got := m.Parts[0].UDH.Bytes(); string(got) != "\x05\x00\x03\x2a\x02\x01" {
		t.Errorf("UDH bytes % x, want 05 00 03 2a 02 01", got)
	}
}

func TestSplitTextErrors(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		dcs   DCS
		code  string
		field string
	}{
		{"empty text", "", DCSAuto, CodeMissing, "text"},
		{"empty text GSM", "", DCSGSM, CodeMissing, "text"},
		{"non-GSM character with GSM", "price: 5`", DCSGSM, CodeNotInAlphabet, "text"},
		{"emoji with GSM", "hi 😀", DCSGSM, CodeNotInAlphabet, "text"},
		{"Cyrillic with GSM", "привет", DCSGSM, CodeNotInAlphabet, "text"},
		{"256 GSM parts", strings.Repeat("a", 39016), DCSGSM, CodeTooManyParts, "text"},
		{"256 parts in auto", strings.Repeat("a", 39016), DCSAuto, CodeTooManyParts, "text"},
		{"256 parts through escapes", strings.Repeat("a", 38000) + strings.Repeat("€", 700), DCSGSM, CodeTooManyParts, "text"},
		{"256 UCS parts", strings.Repeat("ж", 255*67+1), DCSUCS, CodeTooManyParts, "text"},
		{"256 UCS parts through surrogates", strings.Repeat("😀", 33*255) + "aa", DCSUCS, CodeTooManyParts, "text"},
		{"invalid UTF-8 GSM", "ab\xffc", DCSGSM, CodeBadContent, "text"},
		{"invalid UTF-8 UCS", "ab\xc3", DCSUCS, CodeBadContent, "text"},
		{"binary is not for text", "abc", DCSBinary, CodeBadValue, "dcs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SplitText(tc.text, tc.dcs, 0)
			checkCode(t, err, tc.code, tc.field)
			_, err = CountText(tc.text, tc.dcs)
			checkCode(t, err, tc.code, tc.field)
		})
	}
}

func checkCode(t *testing.T, err error, code string, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", code)
	}
	if got := msgkit.CodeOf(err); got != code {
		t.Fatalf("code %q (%v), want %q", got, err, code)
	}
	if !errors.Is(err, msgkit.Invalid) {
		t.Errorf("kind %v, want %v", msgkit.KindOf(err), msgkit.Invalid)
	}
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || len(e.Fields) == 0 || e.Fields[0].Name != field {
		t.Errorf("error %v does not name field %q", err, field)
	}
}

// units counts a part's text again, independently of the splitter.
func units(dcs DCS, s string) int {
	if dcs == DCSUCS {
		return len(utf16.Encode([]rune(s)))
	}
	n := 0
	for _, r := range s {
		n += Septets(r)
	}
	return n
}

// checkSplit asserts the laws every split obeys.
func checkSplit(t interface {
	Helper()
	Fatalf(string, ...any)
}, text string, dcs DCS, m Message) {
	t.Helper()
	want := text
	if dcs == DCSGSM {
		want = strings.ReplaceAll(text, "ç", "Ç")
	}
	var b strings.Builder
	single, part := GSMSingle, GSMPart
	if m.DCS == DCSUCS {
		single, part = UCSSingle, UCSPart
	}
	for i, p := range m.Parts {
		b.WriteString(p.Text)
		if got := units(m.DCS, p.Text); got != p.Units {
			t.Fatalf("part %d: Units %d, recounted %d", i, p.Units, got)
		}
		if len(m.Parts) == 1 {
			if p.Units > single || !p.UDH.Empty() {
				t.Fatalf("single part: %d units, UDH %+v", p.Units, p.UDH)
			}
			continue
		}
		if p.Units > part || p.Units == 0 {
			t.Fatalf("part %d: %d units, capacity %d", i, p.Units, part)
		}
		if p.UDH != (UDH{Ref: 9, Total: uint8(len(m.Parts)), Seq: uint8(i + 1)}) {
			t.Fatalf("part %d: UDH %+v", i, p.UDH)
		}
		if i < len(m.Parts)-1 {
			// Greedy: the next part's first character did not fit here.
			next, _ := utf8.DecodeRuneInString(m.Parts[i+1].Text)
			if p.Units+units(m.DCS, string(next)) <= part {
				t.Fatalf("part %d: %d units but %q would have fit", i, p.Units, next)
			}
		}
	}
	if len(m.Parts) > 1 && units(m.DCS, want) <= single {
		t.Fatalf("%d parts for a text that fits one", len(m.Parts))
	}
	if b.String() != want {
		t.Fatalf("parts re-assemble to %q, want %q", b.String(), want)
	}
	c, err := CountText(text, dcs)
	if err != nil || c.Parts != len(m.Parts) || c.DCS != m.DCS || c.Units != units(m.DCS, want) {
		t.Fatalf("CountText = %+v, %v; split has %d parts of %v, %d units", c, err, len(m.Parts), m.DCS, units(m.DCS, want))
	}
}

var gsmRunes = func() []rune {
	rs := []rune(gsmBasic)
	for r := range gsmExtension {
		rs = append(rs, r)
	}
	return rs
}()

func gsmText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		rs := rapid.SliceOfN(rapid.SampledFrom(gsmRunes), 0, 700).Draw(t, "runes")
		return string(rs)
	})
}

func anyText() *rapid.Generator[string] {
	return rapid.OneOf(
		gsmText(),
		rapid.StringN(0, 400, -1),
		rapid.Custom(func(t *rapid.T) string {
			rs := rapid.SliceOfN(rapid.SampledFrom([]rune("aç€]😀🐳жé\x1b ")), 0, 400).Draw(t, "runes")
			return string(rs)
		}),
	)
}

func TestSplitLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := anyText().Draw(t, "text")
		dcs := rapid.SampledFrom([]DCS{DCSAuto, DCSGSM, DCSUCS}).Draw(t, "dcs")
		m, err := SplitText(text, dcs, 9)
		_, cerr := CountText(text, dcs)
		if msgkit.CodeOf(err) != msgkit.CodeOf(cerr) || (err == nil) != (cerr == nil) {
			t.Fatalf("SplitText error %v, CountText error %v", err, cerr)
		}
		if err != nil {
			return
		}
		checkSplit(t, text, dcs, m)
	})
}

// SplitTextInto splits as SplitText does, into the slice it is given while
// that has room, and then allocates nothing.
func TestSplitTextInto(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := anyText().Draw(t, "text")
		dcs := rapid.SampledFrom([]DCS{DCSAuto, DCSGSM, DCSUCS}).Draw(t, "dcs")
		buf := make([]Part, rapid.IntRange(0, 10).Draw(t, "room"))
		want, werr := SplitText(text, dcs, 9)
		got, err := SplitTextInto(buf, text, dcs, 9)
		if !reflect.DeepEqual(err, werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("SplitTextInto = %+v, %v; SplitText %+v, %v", got, err, want, werr)
		}
		if err == nil && len(got.Parts) <= cap(buf) && &got.Parts[0] != &buf[:1][0] {
			t.Fatalf("%d parts fit a slice of %d, but were put elsewhere", len(got.Parts), cap(buf))
		}
	})
	for _, bt := range benchTexts() {
		var parts []Part
		allocs := testing.AllocsPerRun(100, func() {
			m, err := SplitTextInto(parts, bt.text, DCSAuto, 1)
			if err != nil {
				t.Fatal(err)
			}
			parts = m.Parts
		})
		if allocs != 0 {
			t.Errorf("%s: SplitTextInto reusing its parts allocates %v times", bt.name, allocs)
		}
	}
}

func TestAutoNeverPicksUCSForGSMText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := gsmText().Filter(func(s string) bool { return s != "" }).Draw(t, "text")
		c, err := CountText(text, DCSAuto)
		if err != nil {
			t.Fatal(err)
		}
		if c.DCS != DCSGSM {
			t.Fatalf("auto chose %v for GSM-only text %q", c.DCS, text)
		}
	})
}

func FuzzSplitText(f *testing.F) {
	for _, s := range []string{"", "hello", strings.Repeat("]", 153), strings.Repeat("🐳", 36), "français", "a\xffb", strings.Repeat("a", 66) + "😀",
		strings.Repeat("ж", 71), strings.Repeat("жé€中😀", 40), "\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xe0\x9f\xbf", "\xc0\x80"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, text string, d uint8) {
		checkUCS(t, text)
		dcs := DCS(d % 4)
		m, err := SplitText(text, dcs, 9)
		if err != nil {
			if !knownCode(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		checkSplit(t, text, dcs, m)
	})
}

func benchTexts() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"GSM160", strings.Repeat("Hello world, see you at 10:30! ", 6)[:160]},
		{"GSM1000ext", strings.Repeat("Price: 10€ [promo] {code} ~50% off | ", 28)[:1000]},
		{"UCS500", firstRunes(strings.Repeat("Привет, мир! Встреча завтра в 10:30 у входа. ", 12), 500)},
		{"UCS500emoji", firstRunes(strings.Repeat("Привет, мир 😀 до встречи 🐳 ", 20), 500)},
	}
}

// firstRunes is the first n characters of s.
func firstRunes(s string, n int) string {
	return string([]rune(s)[:n])
}

func BenchmarkCountText(b *testing.B) {
	for _, bt := range benchTexts() {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CountText(bt.text, DCSAuto); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSplitText(b *testing.B) {
	for _, bt := range benchTexts() {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SplitText(bt.text, DCSAuto, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSplitTextInto(b *testing.B) {
	for _, bt := range benchTexts() {
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			b.ReportAllocs()
			var parts []Part
			for b.Loop() {
				m, err := SplitTextInto(parts, bt.text, DCSAuto, 1)
				if err != nil {
					b.Fatal(err)
				}
				parts = m.Parts
			}
		})
	}
}

// The one-pass GSM count (from the positions of two-septet characters)
// agrees with walking the text, whatever the room for positions.
func TestCountPathsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rapid.SampledFrom([]rune("ab]€😀çж")), 1, 2000).Draw(t, "runes")
		text := string(rs)
		room := rapid.IntRange(0, len(doubles{}.at)).Draw(t, "room")
		want, bad := walkGSM(text, true, GSMPart, nil)
		if bad >= 0 {
			return
		}
		got, _ := countGSM(text, true, &doubles{limit: room}, GSMPart)
		if got.total <= GSMSingle {
			got.parts, want.parts = 1, 1
		}
		if got != want {
			t.Fatalf("GSM: count %+v, walk %+v", got, want)
		}
	})
}

// splitUCS is how SplitText splits text with DCSUCS, written plainly
// (decode each character, count its UTF-16 units, start a part when it does
// not fit) for the fast path to be compared with. Its code is "" for no
// error.
func splitUCS(text string, ref uint8) ([]Part, string) {
	if text == "" {
		return nil, CodeMissing
	}
	if !utf8.ValidString(text) {
		return nil, CodeBadContent
	}
	var parts []Part
	start, units, total := 0, 0, 0
	for i, r := range text {
		n := utf16.RuneLen(r)
		if units+n > UCSPart { // a surrogate pair that does not fit moves whole
			parts = append(parts, Part{Text: text[start:i], Units: units})
			start, units = i, 0
		}
		units += n
		total += n
	}
	parts = append(parts, Part{Text: text[start:], Units: units})
	switch {
	case total <= UCSSingle:
		return []Part{{Text: text, Units: total}}, ""
	case len(parts) > MaxParts:
		return nil, CodeTooManyParts
	}
	for i := range parts {
		parts[i].UDH = UDH{Ref: ref, Total: uint8(len(parts)), Seq: uint8(i + 1)}
	}
	return parts, ""
}

// codeOf is msgkit.CodeOf, "" for no error.
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return msgkit.CodeOf(err)
}

// checkUCS compares SplitText and CountText with DCSUCS to splitUCS.
func checkUCS(t interface {
	Helper()
	Fatalf(string, ...any)
}, text string) {
	t.Helper()
	want, code := splitUCS(text, 9)
	m, err := SplitText(text, DCSUCS, 9)
	if codeOf(err) != code {
		t.Fatalf("SplitText(%q): error %v, want code %q", text, err, code)
	}
	c, cerr := CountText(text, DCSUCS)
	if codeOf(cerr) != code {
		t.Fatalf("CountText(%q): error %v, want code %q", text, cerr, code)
	}
	if code != "" {
		return
	}
	if diff := cmp.Diff(want, m.Parts); diff != "" || m.DCS != DCSUCS {
		t.Fatalf("SplitText(%q) is %v (-want +got):\n%s", text, m.DCS, diff)
	}
	total := 0
	for _, p := range want {
		total += p.Units
	}
	if c != (Count{DCS: DCSUCS, Parts: len(want), Units: total}) {
		t.Fatalf("CountText(%q) = %+v; want %d parts, %d units", text, c, len(want), total)
	}
}

func TestSplitUCSAsPlainly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Runs of characters of each UTF-8 length, and bytes that break it.
		alphabet := []string{"a", " ", "ж", "é", "€", "中", "\uffff", "😀", "🐳", "\U0010FFFF",
			"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5", "\xff", "\xe2\x82", "\xf0\x9f"}
		weights := rapid.SliceOfN(rapid.IntRange(0, 1000), len(alphabet), len(alphabet)).Draw(t, "weights")
		weights[rapid.IntRange(0, 9).Draw(t, "valid")] += 1000
		pieces := rapid.SliceOfN(rapid.IntRange(0, 1<<30), 0, 600).Draw(t, "pieces")
		var b strings.Builder
		sum := 0
		for _, w := range weights {
			sum += w
		}
		for _, p := range pieces {
			p %= sum
			k := 0
			for p >= weights[k] {
				p -= weights[k]
				k++
			}
			b.WriteString(alphabet[k])
		}
		checkUCS(t, b.String())
	})
}

// Every byte pair, followed by every kind of byte, at every offset of a
// word: the word-at-a-time check of UTF-8 agrees with utf8.ValidString.
func TestScanUCSValidity(t *testing.T) {
	tails := []string{"", "\x80", "\x90", "\xa0", "\x80\x80", "\xbf\xbf", "a", "\x80a", "\xc2"}
	for off := range 9 {
		prefix := strings.Repeat("ж", off/2) + strings.Repeat("a", off%2)
		for b0 := range 256 {
			for b1 := range 256 {
				for _, tail := range tails {
					text := prefix + string([]byte{byte(b0), byte(b1)}) + tail
					if _, ok := scanUCS(text, nil); ok != utf8.ValidString(text) {
						t.Fatalf("scanUCS(%q) says valid %v", text, ok)
					}
				}
			}
		}
	}
}

// knownCode reports whether err is Invalid with one of the package's codes.
func knownCode(err error) bool {
	switch msgkit.CodeOf(err) {
	case CodeMissing, CodeBadContent, CodeNotInAlphabet, CodeTooManyParts, CodeBadValue:
		return msgkit.KindOf(err) == msgkit.Invalid
	}
	return false
}

// The septets and UCS-2 an SMPP submit_sm carries read back as the text.
func TestTextOfCodesAndUCS2(t *testing.T) {
	for _, text := range []string{"", "Hello @ £€ [x]", "Ç{}^~|\\ ÄÖÑÜ§¿äöñüà"} {
		codes, err := AppendCodes(nil, text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TextOfCodes(codes)
		if err != nil || got != text {
			t.Errorf("TextOfCodes(AppendCodes(%q)) = %q, %v", text, got, err)
		}
	}
	if _, err := TextOfCodes([]byte{'a', 0x80}); msgkit.CodeOf(err) != CodeBadContent {
		t.Errorf("an octet above 0x7F: %v", err)
	}
	if got, err := TextOfUCS2([]byte{0x00, 'h', 0xD8, 0x3D, 0xDE, 0x00}); err != nil || got != "h😀" {
		t.Errorf("TextOfUCS2: %q, %v", got, err)
	}
	for _, bad := range [][]byte{{0x00}, {0xDC, 0x00}, {0xD8, 0x3D, 0x00, 'a'}} {
		if _, err := TextOfUCS2(bad); msgkit.CodeOf(err) != CodeBadContent {
			t.Errorf("TextOfUCS2(% X): %v", bad, err)
		}
	}
}
