package gsm

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

// unhex decodes hex written with spaces between octets.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wsiPayload joins the parts' data in order.
func wsiPayload(m Message) []byte {
	var b []byte
	for _, p := range m.Parts {
		b = append(b, p.Data...)
	}
	return b
}

// TestSplitWSIKnownVector checks one encoding octet by octet. The expected
// octets were derived by hand from the standards, not from the code:
//
//	42           WSP TID: the concatenation reference (WAP-230 §8.2.1)
//	06           WSP PDU type Push (WAP-230 §8.2.4.1, Table 34)
//	03           HeadersLen, uintvar: ContentType and Headers are 3 octets
//	AE           Content-Type application/vnd.wap.sic, well-known 0x2E | 0x80
//	AF 82        X-Wap-Application-Id (0x2F | 0x80): x-wap-application:wml.ua (0x02 | 0x80)
//	02           WBXML version 1.2 (WAP-192 §5.4)
//	05           public identifier "-//WAPFORUM//DTD SI 1.0//EN"
//	6A           charset UTF-8 (MIBenum 106)
//	00           string table length 0
//	45           <si>, tag 0x05 with content (0x40) (WAP-167 §9.3.1)
//	C6           <indication>, tag 0x06 with attributes (0x80) and content (0x40)
//	0D           attribute start href="http://www." (WAP-167 §9.3.2)
//	03 "example" 00  STR_I inline string
//	85           attribute value ".com/" (WAP-167 §9.3.3)
//	01           END of the attribute list
//	03 "Example" 00  STR_I: the title as content
//	01 01        </indication></si>
//
// 35 octets fit one SMS, so the UDH is port addressing alone: UDHL 06, IEI
// 05, IEDL 04, ports 0B84 (2948) and 23F0 (9200) (3GPP TS 23.040
// §9.2.3.24.4). The §10 example of WAP-167 encodes its href the same way:
// 0D 03 "xyz" 00 85 03 "email/123/abc.wml" 00.
func TestSplitWSIKnownVector(t *testing.T) {
	m, err := SplitWSI("http://www.example.com/", "Example", 0x42)
	if err != nil {
		t.Fatal(err)
	}
	want := Message{DCS: DCSBinary, Parts: []Part{{
		Data: unhex(t, "42 06 03 AE AF 82 02 05 6A 00 45 C6 0D 03 6578616D706C65 00 85 01 03 4578616D706C65 00 01 01"),
		UDH:  UDH{DstPort: 2948, SrcPort: 9200},
	}}}
	want.Parts[0].Units = len(want.Parts[0].Data)
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("SplitWSI (-want +got):\n%s", diff)
	}
	if got, want := hex.EncodeToString(m.Parts[0].UDH.Bytes()), "0605040b8423f0"; got != want {
		t.Errorf("UDH = %s, want %s", got, want)
	}
}

// TestAppendHref checks the href tokenization against hand-encoded octets
// (WAP-167 §9.3.2 start tokens, §9.3.3 value tokens).
func TestAppendHref(t *testing.T) {
	tests := []struct {
		href string
		want string
	}{
		{"http://www.example.com/", "0D 03 6578616D706C65 00 85"},
		{"https://www.example.edu/", "0F 03 6578616D706C65 00 86"},
		{"http://example.net/", "0C 03 6578616D706C65 00 87"},
		{"https://example.org/", "0E 03 6578616D706C65 00 88"},
		// Every occurrence is replaced; text between tokens is an inline
		// string, adjacent tokens need none.
		{"https://a.org/b.com/.net/c", "0E 03 61 00 88 03 62 00 85 87 03 63 00"},
		// A scheme in another case gets no prefix token: the decoded href
		// must be byte-identical.
		{"HTTP://x.de/", "0B 03 485454503A2F2F782E64652F 00"},
		// ".com" without the slash is not a token.
		{"http://x.com", "0C 03 782E636F6D 00"},
	}
	for _, tt := range tests {
		got := appendHref(nil, tt.href)
		if want := unhex(t, tt.want); !bytes.Equal(got, want) {
			t.Errorf("appendHref(%q) = % X, want % X", tt.href, got, want)
		}
		if n := hrefLen(tt.href); n != len(got) {
			t.Errorf("hrefLen(%q) = %d, want %d", tt.href, n, len(got))
		}
	}
}

// TestSplitWSIBoundaries checks the step from one part to two and the
// MaxParts limit. With href "http://www.example.com/" the payload is 28
// octets plus the title: TID and WSP headers 6, WBXML header 4, <si> and
// <indication> 2, href 11 (0D, 03 "example" 00, 85), END 1, STR_I and NUL 2,
// two ENDs 2.
func TestSplitWSIBoundaries(t *testing.T) {
	const href, overhead = "http://www.example.com/", 28
	tests := []struct {
		name      string
		payload   int
		wantParts int
	}{
		{"fits one part", 133, 1},         // 140 - 7-octet port UDH
		{"one octet over", 134, 2},        // 128 + 6
		{"two full parts", 256, 2},        // 2 × 128
		{"one over two", 257, 3},          //
		{"MaxParts full", 255 * 128, 255}, // 140 - 12-octet UDH = 128 each
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title := strings.Repeat("a", tt.payload-overhead)
			m, err := SplitWSI(href, title, 7)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(wsiPayload(m)); got != tt.payload {
				t.Fatalf("payload = %d octets, want %d", got, tt.payload)
			}
			if m.NumParts() != tt.wantParts {
				t.Fatalf("parts = %d, want %d", m.NumParts(), tt.wantParts)
			}
			checkWSIParts(t, m, 7)
		})
	}

	t.Run("MaxParts plus one octet", func(t *testing.T) {
		_, err := SplitWSI(href, strings.Repeat("a", 255*128-overhead+1), 7)
		checkWSIError(t, err, CodeTooManyParts, "title")
	})
	t.Run("url alone too long", func(t *testing.T) {
		_, err := SplitWSI("http://x.de/"+strings.Repeat("p", 255*128), "t", 7)
		checkWSIError(t, err, CodeTooManyParts, "url")
	})
}

// fataler is what *testing.T and *rapid.T have in common for the checks.
type fataler interface {
	Fatalf(format string, args ...any)
}

// checkWSIParts checks the laws every split obeys: 8-bit data, the WAP push
// ports, Units = len(Data) within the part's capacity, all parts but the last
// full, and a concatenation IE exactly when there is more than one part.
func checkWSIParts(t fataler, m Message, ref uint8) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	if m.DCS != DCSBinary {
		t.Fatalf("DCS = %v, want 8BIT", m.DCS)
	}
	n := len(m.Parts)
	if n < 1 || n > MaxParts {
		t.Fatalf("%d parts", n)
	}
	for i, p := range m.Parts {
		want := UDH{DstPort: WAPPushPort, SrcPort: WAPSessionPort}
		if n > 1 {
			want.Ref, want.Total, want.Seq = ref, uint8(n), uint8(i+1)
		}
		if p.UDH != want {
			t.Fatalf("part %d: UDH = %+v, want %+v", i+1, p.UDH, want)
		}
		capacity := userDataOctets - p.UDH.Len()
		if p.Units != len(p.Data) || p.Units < 1 || p.Units > capacity {
			t.Fatalf("part %d: Units %d, len(Data) %d, capacity %d", i+1, p.Units, len(p.Data), capacity)
		}
		if i < n-1 && p.Units != capacity {
			t.Fatalf("part %d of %d holds %d octets, want a full %d", i+1, n, p.Units, capacity)
		}
		if p.Text != "" {
			t.Fatalf("part %d: Text = %q, want empty for 8-bit data", i+1, p.Text)
		}
	}
}

func checkWSIError(t testing.TB, err error, code string, field string) {
	t.Helper()
	var e *msgkit.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *msgkit.Error", err)
	}
	if got := msgkit.CodeOf(err); got != code {
		t.Errorf("code = %q, want %q: %v", got, code, err)
	}
	if e.Kind != msgkit.Invalid {
		t.Errorf("kind = %v, want %v", e.Kind, msgkit.Invalid)
	}
	if field == "" {
		return
	}
	if len(e.Fields) != 1 || e.Fields[0].Name != field {
		t.Errorf("fields = %+v, want one naming %q", e.Fields, field)
	}
}

func TestSplitWSIErrors(t *testing.T) {
	const okURL, okTitle = "https://example.com/", "Hello"
	tests := []struct {
		name       string
		url, title string
		code       string
		field      string
	}{
		{"empty url", "", okTitle, CodeMissing, "url"},
		{"relative url", "/path", okTitle, CodeBadValue, "url"},
		{"no scheme", "www.example.com", okTitle, CodeBadValue, "url"},
		{"ftp", "ftp://example.com/", okTitle, CodeBadValue, "url"},
		{"javascript", "javascript:alert(1)", okTitle, CodeBadValue, "url"},
		{"opaque http", "http:example.com", okTitle, CodeBadValue, "url"},
		{"no host", "http://", okTitle, CodeBadValue, "url"},
		{"port only", "http://:80/", okTitle, CodeBadValue, "url"},
		{"space", "http://example.com/a b", okTitle, CodeBadValue, "url"},
		{"blank", " ", okTitle, CodeBadValue, "url"},
		{"NUL", "http://example.com/\x00", okTitle, CodeBadValue, "url"},
		{"newline", "http://example.com/\n", okTitle, CodeBadValue, "url"},
		{"C1 control", "http://example.com/\u0085", okTitle, CodeBadValue, "url"},
		{"invalid UTF-8 url", "http://example.com/\xff", okTitle, CodeBadValue, "url"},
		{"bad escape", "http://example.com/%zz", okTitle, CodeBadValue, "url"},
		{"empty title", okURL, "", CodeMissing, "title"},
		{"blank title", okURL, " \u00a0 ", CodeMissing, "title"},
		{"invalid UTF-8 title", okURL, "caf\xe9", CodeBadContent, "title"},
		{"NUL in title", okURL, "a\x00b", CodeBadContent, "title"},
		{"tab in title", okURL, "a\tb", CodeBadContent, "title"},
		{"newline in title", okURL, "a\nb", CodeBadContent, "title"},
		{"DEL in title", okURL, "a\x7fb", CodeBadContent, "title"},
		{"noncharacter in title", okURL, "a\uffffb", CodeBadContent, "title"},
		// The url is checked first, so a request wrong in both names the url.
		{"both wrong", "", "", CodeMissing, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := SplitWSI(tt.url, tt.title, 1)
			if err == nil {
				t.Fatalf("SplitWSI(%q, %q) = %d parts, want an error", tt.url, tt.title, m.NumParts())
			}
			checkWSIError(t, err, tt.code, tt.field)
		})
	}
}

func TestSplitWSIAccepts(t *testing.T) {
	tests := []struct{ url, title string }{
		{"http://example.com", "no path"},
		{"HTTPS://Example.COM/Path", "upper case scheme and host"},
		{"http://user:pw@example.com:8080/a?b=c&d=.org/#frag", "every URL part"},
		{"http://[2001:db8::1]/", "IPv6 host"},
		{"https://例え.jp/パス", "non-ASCII"},
		{"http://x.de/", " leading and trailing spaces "},
		{"http://x.de/", "emoji 🎉 and CJK 漢字"},
	}
	for _, tt := range tests {
		m, err := SplitWSI(tt.url, tt.title, 200)
		if err != nil {
			t.Errorf("SplitWSI(%q, %q): %v", tt.url, tt.title, err)
			continue
		}
		url, title, err := DecodeWSI(m.Parts)
		if err != nil || url != tt.url || title != tt.title {
			t.Errorf("DecodeWSI = %q, %q, %v; want %q, %q", url, title, err, tt.url, tt.title)
		}
	}
}

// The PDU below is the annotated example of WAP-167 §10 behind the WSP
// header a Kannel push proxy sends: TID 01, Push 06, HeadersLen 04, and a
// general-form Content-Type (length 03, 0xAE, charset 0x81 = utf-8 0xEA).
// The SI also carries created and si-expires as OPAQUE dates, which the
// decoder reads and ignores.
const wap167Example = "01 06 04 03 AE 81 EA" +
	" 02 05 6A 00 45 C6 0D 03 78797A 00 85 03 656D61696C2F3132332F6162632E776D6C 00" +
	" 0A C3 07 19990625152315 10 C3 04 20990630 01" +
	" 03 596F7520686176652034206E657720656D61696C73 00 01 01"

func TestDecodeWSI(t *testing.T) {
	port := UDH{DstPort: WAPPushPort, SrcPort: WAPSessionPort}
	tests := []struct {
		name      string
		pdu       string
		url, text string
	}{
		{"WAP-167 example", wap167Example, "http://www.xyz.com/email/123/abc.wml", "You have 4 new emails"},
		{
			// A string table holding "example" (STR_T 00), an ENTITY for
			// é (0xE9), SWITCH_PAGE 0 before a tag, an action attribute and
			// an <info> element that the decoder skips.
			"string table, entity, action, info",
			"07 06 01 AE 02 05 6A 08 6578616D706C6500 45 00 00 C6 07 0C 83 00 85 01 03 6361 00 02 81 69 03 21 00 01 47 88 12 03 63 00 01 01 01",
			"http://example.com/", "caé!",
		},
		{
			// Content-Type as text, with the Quote octet a text may start with.
			"text content type",
			"07 06 19 7F 6170706C69636174696F6E2F766E642E7761702E736963 00 02 05 6A 00 45 C6 0B 03 687474703A2F2F782E6465 00 01 03 78 00 01 01",
			"http://x.de", "x",
		},
		{
			// Public identifier 0 followed by its string table index.
			"literal public id",
			"07 06 01 AE 02 00 00 6A 1C " + hex.EncodeToString([]byte("-//WAPFORUM//DTD SI 1.0//EN")) + " 00 45 C6 0B 03 78 00 01 03 79 00 01 01",
			"x", "y",
		},
	}
	// The same SI behind every form a WSP Content-Type value can take
	// (WAP-230 §8.4.2.24), after a processing instruction the decoder skips,
	// with an attribute named in the string table that it ignores.
	const body = "02 05 6A 04 666F6F00 43 0B 03 70 00 01 45 C6 04 00 03 76 00 0C 03 782E6465 00 01 03 79 00 01 01"
	sicText := hex.EncodeToString([]byte("Application/VND.wap.sic"))
	for _, ct := range []struct{ name, headers string }{
		{"short integer", "01 AE"},
		{"short integer and more headers", "03 AE AF 82"},
		{"general form", "04 03 AE 81 EA"},
		{"length quote", "03 1F 01 AE"},
		{"long integer", "03 02 01 2E"},
		{"general form text", "19 18 " + sicText + " 00"},
	} {
		tests = append(tests, struct {
			name      string
			pdu       string
			url, text string
		}{"content type " + ct.name, "07 06 " + ct.headers + " " + body, "http://x.de", "y"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, text, err := DecodeWSI([]Part{{Data: unhex(t, tt.pdu), UDH: port}})
			if err != nil {
				t.Fatal(err)
			}
			if url != tt.url || text != tt.text {
				t.Errorf("DecodeWSI = %q, %q; want %q, %q", url, text, tt.url, tt.text)
			}
		})
	}
}

func TestDecodeWSIErrors(t *testing.T) {
	m, err := SplitWSI("http://www.example.com/"+strings.Repeat("p", 300), "title", 9)
	if err != nil {
		t.Fatal(err)
	}
	parts := m.Parts // three parts
	with := func(edit func([]Part)) []Part {
		c := slices.Clone(parts)
		edit(c)
		return c
	}
	port := UDH{DstPort: WAPPushPort}
	single := func(hexPDU string) []Part { return []Part{{Data: unhex(t, hexPDU), UDH: port}} }
	tests := []struct {
		name  string
		parts []Part
	}{
		{"no parts", nil},
		{"missing part", parts[:2]},
		{"other port", with(func(p []Part) { p[1].UDH.DstPort = 9200 })},
		{"other ref", with(func(p []Part) { p[1].UDH.Ref++ })},
		{"repeated seq", with(func(p []Part) { p[2].UDH.Seq = 1 })},
		{"seq 0", with(func(p []Part) { p[0].UDH.Seq = 0 })},
		{"total disagrees", with(func(p []Part) { p[0].UDH.Total = 4 })},
		{"single part of two", []Part{{Data: parts[0].Data, UDH: UDH{Total: 2, Seq: 1, DstPort: WAPPushPort}}}},
		{"single part numbered 2 of 1", []Part{{Data: parts[0].Data, UDH: UDH{Total: 1, Seq: 2, DstPort: WAPPushPort}}}},
		{"not push", single("07 07 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"not sic", single("07 06 01 AF 02 05 6A 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"headers past end", single("07 06 7F AE")},
		{"uintvar too long", single("07 06 FF FF FF FF FF 01")},
		{"not SI", single("07 06 01 AE 02 06 6A 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"latin-1", single("07 06 01 AE 02 05 04 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"root not si", single("07 06 01 AE 02 05 6A 00 46 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"no indication", single("07 06 01 AE 02 05 6A 00 45 47 03 78 00 01 01")},
		{"no href", single("07 06 01 AE 02 05 6A 00 45 C6 11 03 78 00 01 03 79 00 01 01")},
		{"unknown attribute", single("07 06 01 AE 02 05 6A 00 45 C6 13 03 78 00 01 03 79 00 01 01")},
		{"unknown value token", single("07 06 01 AE 02 05 6A 00 45 C6 0B 89 01 03 79 00 01 01")},
		{"unterminated string", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78")},
		{"not ended", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 03 79 00 01")},
		{"trailing octets", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 03 79 00 01 01 01")},
		{"entity not a character", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 02 8F FF FF 7F 01 01")},
		{"string table index out of range", single("07 06 01 AE 02 05 6A 00 45 C6 0B 83 05 01 03 79 00 01 01")},
		{"invalid UTF-8 text", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 03 FF 00 01 01")},
		{"opaque href", single("07 06 01 AE 02 05 6A 00 45 C6 0B C3 01 78 01 03 79 00 01 01")},
		{"attribute page 1", single("07 06 01 AE 02 05 6A 00 45 C6 00 01 0B 03 78 00 01 03 79 00 01 01")},
		{"long integer not sic", single("07 06 03 02 01 2F 02 05 6A 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"PI not ended", single("07 06 01 AE 02 05 6A 00 43 0B 03 78 00 45 C6 0B 03 78 00 01 03 79 00 01 01")},
		{"extension token", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 C0 01 01")},
		{"element inside indication", single("07 06 01 AE 02 05 6A 00 45 C6 0B 03 78 00 01 07 01 01")},
		{"nested too deep", single("07 06 01 AE 02 05 6A 00 45" + strings.Repeat(" 47", 20) + strings.Repeat(" 01", 21))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, title, err := DecodeWSI(tt.parts)
			if err == nil {
				t.Fatalf("DecodeWSI = %q, %q; want an error", url, title)
			}
			checkWSIError(t, err, CodeBadContent, "")
		})
	}

	// Every truncation of a valid PDU fails cleanly.
	pdu := wsiPayload(m)
	for n := range len(pdu) {
		if _, _, err := DecodeWSI([]Part{{Data: pdu[:n], UDH: port}}); err == nil {
			t.Errorf("DecodeWSI of the first %d of %d octets succeeded", n, len(pdu))
		}
	}
}

// wsiURL generates valid http and https URLs whose paths are likely to hold
// the .com/ .edu/ .net/ .org/ value tokens, in places where they are and are
// not tokens.
func wsiURL() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		b.WriteString(rapid.SampledFrom([]string{"http://", "https://", "HTTP://", "Https://"}).Draw(t, "scheme"))
		if rapid.Bool().Draw(t, "www") {
			b.WriteString("www.")
		}
		labels := rapid.SliceOfN(rapid.StringMatching(`[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?`), 1, 3).Draw(t, "labels")
		b.WriteString(strings.Join(labels, "."))
		b.WriteString(rapid.SampledFrom([]string{".com", ".edu", ".net", ".org", ".de", ".io"}).Draw(t, "tld"))
		pieces := rapid.SliceOfN(rapid.SampledFrom([]string{
			"/", "a", "b1", "~u", ".com/", ".edu/", ".net/", ".org/", ".com", ".", "..", "x.co", "é",
			"?q=1", "&k=.net/", "%20", "-_", ":8080",
		}), 0, 200).Draw(t, "path")
		if len(pieces) > 0 && pieces[0] != "/" {
			b.WriteString("/")
		}
		b.WriteString(strings.Join(pieces, ""))
		return b.String()
	})
}

// wsiTitle generates titles of letters, digits, punctuation, symbols and
// spaces, up to a few thousand octets, never blank.
func wsiTitle() *rapid.Generator[string] {
	r := rapid.RuneFrom([]rune{'a', ' ', '.', '/', '€'}, unicode.L, unicode.N, unicode.P, unicode.S, unicode.Zs)
	return rapid.StringOfN(r, 1, 1500, -1).Filter(func(s string) bool { return strings.TrimSpace(s) != "" })
}

// TestSplitWSIRoundTrip: whatever valid url and title go in come back out of
// DecodeWSI, in any part order, and the split obeys the capacity laws.
func TestSplitWSIRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		url := wsiURL().Draw(t, "url")
		title := wsiTitle().Draw(t, "title")
		ref := rapid.Uint8().Draw(t, "ref")
		m, err := SplitWSI(url, title, ref)
		if err != nil {
			t.Fatalf("SplitWSI(%q, %q): %v", url, title, err)
		}
		checkWSIParts(t, m, ref)
		if got, want := len(wsiPayload(m)), wsiPayloadLen(url, title); got != want {
			t.Fatalf("payload is %d octets, wsiPayloadLen says %d", got, want)
		}
		if tid := m.Parts[0].Data[0]; tid != ref {
			t.Fatalf("TID = %d, want the reference %d", tid, ref)
		}
		parts := rapid.Permutation(m.Parts).Draw(t, "order")
		gotURL, gotTitle, err := DecodeWSI(parts)
		if err != nil {
			t.Fatalf("DecodeWSI: %v", err)
		}
		if gotURL != url || gotTitle != title {
			t.Fatalf("round trip = %q, %q; want %q, %q", gotURL, gotTitle, url, title)
		}
	})
}

// TestSplitWSIAnyInput: for arbitrary strings SplitWSI either round-trips or
// fails with one of its documented codes, naming a field.
func TestSplitWSIAnyInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		url := rapid.OneOf(rapid.String(), rapid.StringMatching(`https?://[a-z.]{1,9}/.{0,30}`)).Draw(t, "url")
		title := rapid.String().Draw(t, "title")
		m, err := SplitWSI(url, title, 3)
		if err != nil {
			var e *msgkit.Error
			if !errors.As(err, &e) || len(e.Fields) != 1 {
				t.Fatalf("err = %#v, want a *msgkit.Error naming one field", err)
			}
			switch c := msgkit.CodeOf(err); c {
			case CodeMissing, CodeBadValue, CodeBadContent, CodeTooManyParts:
			default:
				t.Fatalf("code %v: %v", c, err)
			}
			return
		}
		checkWSIParts(t, m, 3)
		gotURL, gotTitle, err := DecodeWSI(m.Parts)
		if err != nil || gotURL != url || gotTitle != title {
			t.Fatalf("DecodeWSI = %q, %q, %v; want %q, %q", gotURL, gotTitle, err, url, title)
		}
	})
}

// TestSplitWSIDataIsolated: appending to one part's Data must not change the
// next part, although the parts share one buffer.
func TestSplitWSIDataIsolated(t *testing.T) {
	m, err := SplitWSI("http://x.de/", strings.Repeat("t", 300), 1)
	if err != nil {
		t.Fatal(err)
	}
	next := slices.Clone(m.Parts[1].Data)
	_ = append(m.Parts[0].Data, 0xEE)
	if !bytes.Equal(m.Parts[1].Data, next) {
		t.Fatal("appending to part 1 changed part 2")
	}
}

func FuzzDecodeWSI(f *testing.F) {
	for _, in := range []struct{ url, title string }{
		{"http://www.example.com/", "Example"},
		{"https://a.org/b.com/.net/c?d=.edu/", "Grüße €"},
		{"HTTP://x.de/", strings.Repeat("long ", 60)},
	} {
		m, err := SplitWSI(in.url, in.title, 1)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(wsiPayload(m), uint8(0), false)
		f.Add(wsiPayload(m), uint8(userDataOctets-12), true)
	}
	f.Add(unhex(f, wap167Example), uint8(0), false)
	f.Add(unhex(f, wap167Example), uint8(20), true)
	f.Add([]byte{}, uint8(0), false)

	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, reverse bool) {
		// chunk 0 delivers data as one part; otherwise as parts of chunk
		// octets, possibly more than MaxParts, in order or reversed.
		var parts []Part
		if chunk == 0 {
			parts = []Part{{Data: data, Units: len(data), UDH: UDH{DstPort: WAPPushPort}}}
		} else {
			n := (len(data) + int(chunk) - 1) / int(chunk)
			for i := range n {
				d := data[i*int(chunk) : min((i+1)*int(chunk), len(data))]
				parts = append(parts, Part{Data: d, Units: len(d), UDH: UDH{Ref: 5, Total: uint8(n), Seq: uint8(i + 1), DstPort: WAPPushPort}})
			}
		}
		if reverse {
			slices.Reverse(parts)
		}
		url, title, err := DecodeWSI(parts)
		if err != nil {
			if c := msgkit.CodeOf(err); c != CodeBadContent {
				t.Fatalf("code %v: %v", c, err)
			}
			return
		}
		// What decodes and is acceptable input encodes to the same again.
		m, err := SplitWSI(url, title, 6)
		if err != nil {
			return
		}
		url2, title2, err := DecodeWSI(m.Parts)
		if err != nil || url2 != url || title2 != title {
			t.Fatalf("re-encoded %q, %q decodes to %q, %q, %v", url, title, url2, title2, err)
		}
	})
}

func BenchmarkSplitWSI(b *testing.B) {
	benchmarks := []struct {
		name, url, title string
	}{
		{"one part", "https://www.example.com/offers/summer?utm_source=sms", "Summer sale: 20% off everything until Sunday"},
		{"ten parts", "https://www.example.com/offers/summer?utm_source=sms", strings.Repeat("Summer sale! ", 95)},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.url) + len(bm.title)))
			for b.Loop() {
				if _, err := SplitWSI(bm.url, bm.title, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeWSI(b *testing.B) {
	m, err := SplitWSI("https://www.example.com/offers/summer?utm_source=sms", strings.Repeat("Summer sale! ", 95), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(wsiPayload(m))))
	for b.Loop() {
		if _, _, err := DecodeWSI(m.Parts); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleSplitWSI() {
	m, err := SplitWSI("http://www.example.com/", "Example", 0x42)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range m.Parts {
		fmt.Printf("%s UDH % X\n", m.DCS, p.UDH.Bytes())
		fmt.Printf("data % X\n", p.Data)
	}
	url, title, err := DecodeWSI(m.Parts)
	fmt.Println(url, title, err)
	// Output:
	// 8BIT UDH 06 05 04 0B 84 23 F0
	// data 42 06 03 AE AF 82 02 05 6A 00 45 C6 0D 03 65 78 61 6D 70 6C 65 00 85 01 03 45 78 61 6D 70 6C 65 00 01 01
	// http://www.example.com/ Example <nil>
}
