package pdu_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

var timeNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestParseTime(t *testing.T) {
	cet := time.FixedZone("", 3600)
	for _, c := range []struct {
		in   string
		want time.Time // zero with err: refused
		err  bool
	}{
		{"", time.Time{}, false},
		{"261201120000000+", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), false},
		{"261201120000000-", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), false},
		{"261201133015704+", time.Date(2026, 12, 1, 13, 30, 15, 700_000_000, cet), false},
		{"261201103015722-", time.Date(2026, 12, 1, 16, 0, 15, 700_000_000, time.UTC), false},
		{"991231235959948+", time.Date(2099, 12, 31, 11, 59, 59, 900_000_000, time.UTC), false},
		{"000101000000048-", time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC), false},
		{"280229000000000+", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC), false},
		{"000001000000000R", timeNow.Add(24 * time.Hour), false},
		{"000000480000000R", timeNow.Add(48 * time.Hour), false},
		{"000000000130000R", timeNow.Add(90 * time.Second), false},
		{"000100000000000R", time.Date(2026, 12, 28, 12, 0, 0, 0, time.UTC), false},
		{"010000000000000R", time.Date(2027, 11, 28, 12, 0, 0, 0, time.UTC), false},
		{"999999999999000R", timeNow.AddDate(99, 99, 99).Add(99*time.Hour + 99*time.Minute + 99*time.Second), false},
		{"000000000000000R", timeNow, false},
		// Beyond the format.
		{"261301120000000+", time.Time{}, true},
		{"261200120000000+", time.Time{}, true},
		{"260431120000000+", time.Time{}, true},
		{"270229000000000+", time.Time{}, true},
		{"261201240000000+", time.Time{}, true},
		{"261201126000000+", time.Time{}, true},
		{"261201120060000+", time.Time{}, true},
		{"261201120000049+", time.Time{}, true},
		{"000001000000100R", time.Time{}, true},
		{"000001000000001R", time.Time{}, true},
		{"26120112000000XR", time.Time{}, true},
		{"2612011200000000", time.Time{}, true},
		{"261201120000000Z", time.Time{}, true},
		{"26120112000000+", time.Time{}, true},
		{"2612011200000000+", time.Time{}, true},
		{"-61201120000000+", time.Time{}, true},
	} {
		got, err := pdu.ParseTime(c.in, timeNow)
		switch {
		case c.err && !errors.Is(err, pdu.ErrTime):
			t.Errorf("%q: %v, %v; want ErrTime", c.in, got, err)
		case !c.err && (err != nil || !got.Equal(c.want)):
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	for _, c := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), "261201120000000+"},
		{time.Date(2026, 12, 1, 13, 30, 15, 799_999_999, time.FixedZone("", 3600)), "261201133015704+"},
		{time.Date(2026, 12, 1, 10, 30, 0, 0, time.FixedZone("", -5*3600-30*60)), "261201103000022-"},
		{time.Date(2026, 12, 1, 14, 0, 0, 0, time.FixedZone("", 13*3600)), "261201010000000+"}, // beyond 48 quarters: UTC
		{time.Date(2026, 12, 1, 12, 10, 0, 0, time.FixedZone("", 10*60)), "261201120000000+"},  // not whole quarters: UTC
	} {
		if got, err := pdu.FormatTime(c.in); err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, y := range []int{1999, 2100} {
		if s, err := pdu.FormatTime(time.Date(y, 6, 1, 0, 0, 0, 0, time.UTC)); err == nil {
			t.Errorf("%d: %q, want an error", y, s)
		}
	}
}

// smppInstant draws an instant an SMPP time holds: 2000 to 2099, to the
// tenth of a second, in a zone of whole quarter hours within twelve.
var smppInstant = rapid.Custom(func(t *rapid.T) time.Time {
	zone := time.FixedZone("", rapid.IntRange(-48, 48).Draw(t, "quarters")*15*60)
	local := time.Date(rapid.IntRange(2000, 2099).Draw(t, "year"), time.January, 1, 0, 0, 0, 0, zone)
	end := local.AddDate(1, 0, 0)
	tenths := rapid.Int64Range(0, int64(end.Sub(local)/(100*time.Millisecond))-1).Draw(t, "tenths")
	return local.Add(time.Duration(tenths) * 100 * time.Millisecond)
})

// Absolute times round-trip: an instant formatted reads back to itself in
// its own offset, and a time read formats back to its text (a '-' of a
// zero offset written '+').
func TestTimeRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := smppInstant.Draw(t, "t")
		s, err := pdu.FormatTime(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := pdu.ParseTime(s, timeNow)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		_, inOff := in.Zone()
		_, backOff := back.Zone()
		if !back.Equal(in) || backOff != inOff {
			t.Fatalf("%v formatted %q, read back %v", in, s, back)
		}
		again, err := pdu.FormatTime(back)
		if err != nil || again != s {
			t.Fatalf("%q read and formatted: %q, %v", s, again, err)
		}
	})
}

// A relative time of hours, minutes and seconds is that long after now,
// whatever now is.
func TestRelativeTimeProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := smppInstant.Draw(t, "now")
		h, m, sec := rapid.IntRange(0, 99).Draw(t, "h"), rapid.IntRange(0, 99).Draw(t, "m"), rapid.IntRange(0, 99).Draw(t, "s")
		s := "000000" + two(h) + two(m) + two(sec) + "000R"
		got, err := pdu.ParseTime(s, now)
		want := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
		if err != nil || got.Sub(now) != want {
			t.Fatalf("%q after %v: %v, %v; want %v later", s, now, got, err, want)
		}
	})
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// FuzzParseTime: ParseTime never panics; what it refuses is ErrTime; an
// absolute time it reads formats back to its text (but a '-' of a zero
// offset); a relative one is never before now; anything of another
// length than 0 or 16 is refused.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"", "261201120000000+", "261201133015704-", "000001000000000R", "999999999999000R",
		"270229000000000+", "261201120000049+", "26120112000000XR", "000000000000000R"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := pdu.ParseTime(s, timeNow)
		if err != nil {
			if !errors.Is(err, pdu.ErrTime) {
				t.Fatalf("%q: %v, want ErrTime in its chain", s, err)
			}
			return
		}
		switch {
		case s == "":
			if !got.IsZero() {
				t.Fatalf("\"\": %v", got)
			}
		case len(s) != pdu.TimeLen:
			t.Fatalf("%q of %d characters read as %v", s, len(s), got)
		case s[15] == 'R':
			if got.Before(timeNow) {
				t.Fatalf("%q: %v, before now", s, got)
			}
		default:
			back, err := pdu.FormatTime(got)
			want := s
			if strings.HasSuffix(s, "00-") {
				want = s[:15] + "+"
			}
			if err != nil || back != want {
				t.Fatalf("%q read as %v, formatted %q, %v", s, got, back, err)
			}
		}
	})
}
