//go:build !purego

package gsm

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// checkBlocks compares the AVX2 scanner with the portable one and with
// utf8.ValidString on text: validity, units, parts and every cut.
func checkBlocks(t interface {
	Helper()
	Fatalf(string, ...any)
}, text string) {
	t.Helper()
	var gotCuts, wantCuts [300]cut
	got, gotOK := scanUCSBlocks(text, gotCuts[:])
	want, wantOK := scanUCSWords(text, wantCuts[:])
	if gotOK != utf8.ValidString(text) {
		t.Fatalf("scanUCSBlocks(%q) says valid %v", text, gotOK)
	}
	if !gotOK {
		return // the walk of invalid text means nothing
	}
	if gotOK != wantOK || got != want {
		t.Fatalf("scanUCSBlocks(%q) = %+v, %v; scanUCSWords %+v, %v", text, got, gotOK, want, wantOK)
	}
	if n := min(got.parts-1, len(gotCuts)); !slices.Equal(gotCuts[:n], wantCuts[:n]) {
		t.Fatalf("scanUCSBlocks(%q) cuts %v; scanUCSWords %v", text, gotCuts[:n], wantCuts[:n])
	}
	// With room for a few cuts only, the rest is counted without them.
	var few [3]cut
	if w, _ := scanUCSBlocks(text, few[:]); w != want {
		t.Fatalf("scanUCSBlocks(%q) noting 3 cuts = %+v; scanUCSWords %+v", text, w, want)
	}
	if n := min(got.parts-1, len(few)); !slices.Equal(few[:n], wantCuts[:n]) {
		t.Fatalf("scanUCSBlocks(%q) noting 3 cuts: %v; scanUCSWords %v", text, few[:n], wantCuts[:n])
	}
	if w, _ := scanUCSBlocks(text, nil); w != want {
		t.Fatalf("scanUCSBlocks(%q) counting = %+v; scanUCSWords %+v", text, w, want)
	}
}

// Every byte pair followed by every kind of byte, at offsets on both sides
// of a lane (16 bytes) and of a block (32): the AVX2 check agrees with
// utf8.ValidString.
func TestBlocksValidityPairs(t *testing.T) {
	needAVX2(t)
	tails := []string{"", "\x80", "\x90", "\xa0", "\x80\x80", "\xbf\xbf", "a", "\x80a", "\xc2"}
	for _, off := range []int{0, 1, 13, 14, 15, 16, 17, 29, 30, 31, 32, 33, 62} {
		prefix := strings.Repeat("a", off)
		for b0 := range 256 {
			for b1 := range 256 {
				for _, tail := range tails {
					text := prefix + string([]byte{byte(b0), byte(b1)}) + tail
					if _, ok := scanUCSBlocks(text, nil); ok != utf8.ValidString(text) {
						t.Fatalf("scanUCSBlocks(%q) says valid %v", text, ok)
					}
				}
			}
		}
	}
}

// Sequences of three and four bytes from the values where UTF-8's ranges
// turn, ending on both sides of a lane's end and a block's.
func TestBlocksValiditySequences(t *testing.T) {
	needAVX2(t)
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
		0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF}
	buf := []byte(strings.Repeat("a", 40))
	for _, end := range []int{15, 16, 17, 31, 32, 33, 34} {
		text := buf[:end]
		seq := text[end-4:]
		for _, b0 := range edges {
			for _, b1 := range edges {
				for _, b2 := range edges {
					for _, b3 := range edges {
						seq[0], seq[1], seq[2], seq[3] = b0, b1, b2, b3
						for cut := range 2 {
							s := string(text[:end-cut])
							got, ok := scanUCSBlocks(s, nil)
							if ok != utf8.ValidString(s) {
								t.Fatalf("scanUCSBlocks(%q) says valid %v", s, ok)
							}
							if want, _ := scanUCSWords(s, nil); ok && got != want {
								t.Fatalf("scanUCSBlocks(%q) = %+v; scanUCSWords %+v", s, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// Random texts of valid characters of every length and of bytes that break
// UTF-8: both scanners count, cut and judge alike.
func TestBlocksMatchWords(t *testing.T) {
	needAVX2(t)
	alphabet := []string{"a", " ", "ж", "é", "€", "中", "\uffff", "😀", "🐳", "\U0010FFFF",
		"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5", "\xff", "\xe2\x82", "\xf0\x9f"}
	rapid.Check(t, func(t *rapid.T) {
		valid := rapid.Bool().Draw(t, "valid")
		n := len(alphabet)
		if valid {
			n = 10
		}
		size := rapid.IntRange(0, 3000).Draw(t, "size")
		pieces := rapid.SliceOfN(rapid.IntRange(0, n-1), size, size).Draw(t, "pieces")
		var b strings.Builder
		for _, p := range pieces {
			b.WriteString(alphabet[p])
		}
		checkBlocks(t, b.String())
	})
}

func FuzzScanUCSBlocks(f *testing.F) {
	for _, s := range []string{"", "ж", strings.Repeat("😀ж a", 40), strings.Repeat("a", 31) + "\xf0\x9f\x98", strings.Repeat("中", 100)} {
		f.Add(s)
	}
	needAVX2(f)
	f.Fuzz(func(t *testing.T, text string) {
		checkBlocks(t, text)
	})
}

func needAVX2(t testing.TB) {
	if !haveAVX2 {
		t.Skip("this CPU has no AVX2")
	}
}
