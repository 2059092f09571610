package contacts

import (
	"testing"

	"pgregory.net/rapid"
)

// generalE164 is E164In through the library's parser alone: the reading
// the fast paths must give.
func generalE164(v, region string) (string, bool) {
	var buf [maxPhoneDigits]byte
	d, plus, ok := phoneDigits(v, buf[:0])
	if !ok {
		return "", false
	}
	switch {
	case plus || len(d) >= 2 && d[0] == '0' && d[1] == '0':
		if !plus {
			d = d[2:]
		}
		if len(d) < 3 || len(d) > 15 {
			return "", false
		}
		return parseE164("+"+string(d), "")
	case region != "" && len(d) >= 2:
		return parseE164(string(d), region)
	}
	return "", false
}

// phoneRegions are regions whose metadata exercises every branch of the
// fast paths: a plain national prefix (SI, DE), none (IT), a calling code
// shared by many regions (US, GB), a prefix that is a pattern with a
// transform rule (AR), leading digits (RU), and an unknown code.
var phoneRegions = []string{"", "SI", "DE", "IT", "US", "GB", "AR", "RU", "XX"}

// The fast paths and the library's parser read every input alike.
func checkE164Agrees(t interface{ Fatalf(string, ...any) }, v, region string) {
	got, ok := E164In(v, region)
	want, wantOK := generalE164(v, region)
	if got != want || ok != wantOK {
		t.Fatalf("E164In(%q, %q) = %q, %v; the library reads %q, %v", v, region, got, ok, want, wantOK)
	}
}

func TestE164FastPathAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.SampledFrom([]string{"", "+", "00", "0", "+386", "+1", "+44", "+7", "+39", "+54", "+800", "+882", "386", "1"}).Draw(t, "prefix")
		rest := rapid.StringOfN(rapid.RuneFrom([]rune("0123456789 -()")), 0, 16, -1).Draw(t, "rest")
		checkE164Agrees(t, prefix+rest, rapid.SampledFrom(phoneRegions).Draw(t, "region"))
	})
}

func FuzzE164(f *testing.F) {
	for _, s := range []string{"+38640123456", "0038640123456", "040 123 456", "+386 (40) 123-456", "+1 202 555 0143", "011 44 20 7946 0018",
		"8 800 555 35 35", "011 15 2345 6789", "+80012345678", "+44 020 7946 0018"} {
		for i := range phoneRegions {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, v string, region uint8) {
		checkE164Agrees(t, v, phoneRegions[int(region)%len(phoneRegions)])
		if e, ok := E164(v); ok {
			if again, ok := E164(e); !ok || again != e {
				t.Fatalf("E164(%q) = %q; E164 of that = %q, %v", v, e, again, ok)
			}
		}
	})
}

// The library's parser alone, for BenchmarkE164's figures.
func BenchmarkE164General(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := generalE164("+386 40 123 456", ""); !ok {
			b.Fatal("refused")
		}
	}
}
