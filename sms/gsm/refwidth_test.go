package gsm

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"pgregory.net/rapid"
)

// airOctets is what a part takes of the 140 octets of user data with a
// header of hdr octets: GSM septets packed after fill bits up to the next
// septet boundary, UCS-2 two octets a unit.
func airOctets(dcs DCS, hdr, units int) int {
	if dcs == DCSUCS {
		return hdr + 2*units
	}
	return (7*((8*hdr+6)/7+units) + 7) / 8
}

// A part split for a width fits 140 octets with the concatenation header
// of that width (6 or 7 octets), the parts join to the text, each but the
// last is as full as the next character allows, and CountTextRef agrees.
func TestSplitTextRefFits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := anyText().Draw(t, "text")
		dcs := rapid.SampledFrom([]DCS{DCSAuto, DCSGSM, DCSUCS}).Draw(t, "dcs")
		w := rapid.SampledFrom([]RefWidth{Ref8, Ref16}).Draw(t, "width")
		m, err := SplitTextRef(nil, text, dcs, 7, w)
		c, cerr := CountTextRef(text, dcs, w)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("SplitTextRef error %v, CountTextRef error %v", err, cerr)
		}
		if err != nil {
			return
		}
		if c.Parts != m.NumParts() || c.DCS != m.DCS {
			t.Fatalf("count %+v, split %d parts of %s", c, m.NumParts(), m.DCS)
		}
		hdr := 6
		if w == Ref16 {
			hdr = 7
		}
		if m.NumParts() == 1 {
			hdr = 0
		}
		var joined strings.Builder
		for i, p := range m.Parts {
			units := 0
			for _, r := range p.Text {
				if m.DCS == DCSUCS {
					units += utf16.RuneLen(r)
				} else {
					units += Septets(r)
				}
			}
			if units != p.Units {
				t.Fatalf("part %d says %d units, holds %d", i, p.Units, units)
			}
			if n := airOctets(m.DCS, hdr, units); n > 140 {
				t.Fatalf("part %d of %d: %d units and a %d-octet header take %d octets", i+1, m.NumParts(), units, hdr, n)
			}
			if i < len(m.Parts)-1 {
				next := []rune(m.Parts[i+1].Text)[0]
				cost := Septets(next)
				if m.DCS == DCSUCS {
					cost = utf16.RuneLen(next)
				}
				if airOctets(m.DCS, hdr, units+cost) <= 140 {
					t.Fatalf("part %d of %d has room for %q", i+1, m.NumParts(), next)
				}
			}
			joined.WriteString(p.Text)
		}
		want := text
		if dcs == DCSGSM {
			want = strings.ReplaceAll(text, "ç", "Ç")
		}
		if joined.String() != want {
			t.Fatalf("parts join to %q, not %q", joined.String(), want)
		}
	})
}

// The vectors of the issue: a 16-bit reference leaves 152 septets or 66
// UCS-2 units a part.
func TestSplitTextRef16Sizes(t *testing.T) {
	for _, tc := range []struct {
		text  string
		dcs   DCS
		parts []int
	}{
		{strings.Repeat("a", 306), DCSGSM, []int{152, 152, 2}},
		{strings.Repeat("a", 304), DCSGSM, []int{152, 152}},
		{strings.Repeat("a", 161), DCSGSM, []int{152, 9}},
		{strings.Repeat("ж", 134), DCSUCS, []int{66, 66, 2}},
		{strings.Repeat("ж", 71), DCSUCS, []int{66, 5}},
		{strings.Repeat("a", 151) + "€" + strings.Repeat("a", 10), DCSGSM, []int{151, 12}},
	} {
		m, err := SplitTextRef(nil, tc.text, tc.dcs, 1, Ref16)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, p := range m.Parts {
			got = append(got, p.Units)
		}
		if !slices.Equal(got, tc.parts) {
			t.Errorf("%d×%q: parts of %v units, want %v", len(tc.text), tc.text[:1], got, tc.parts)
		}
	}
}

// A push split for 16-bit references fits 140 octets with ports and the
// 16-bit element (13 octets), and joins to the same payload.
func TestSplitWSIRef16(t *testing.T) {
	url := "https://example.com/" + strings.Repeat("x", 600)
	m8, err := SplitWSIRef(url, "title", 3, Ref8)
	if err != nil {
		t.Fatal(err)
	}
	m16, err := SplitWSIRef(url, "title", 3, Ref16)
	if err != nil {
		t.Fatal(err)
	}
	var d8, d16 []byte
	for _, p := range m8.Parts {
		d8 = append(d8, p.Data...)
	}
	for _, p := range m16.Parts {
		d16 = append(d16, p.Data...)
		if n := 13 + len(p.Data); n > 140 {
			t.Fatalf("a part takes %d octets", n)
		}
	}
	if string(d8) != string(d16) || m16.Parts[0].Units != 127 {
		t.Fatalf("16-bit parts of %d octets do not join to the payload", m16.Parts[0].Units)
	}
}
