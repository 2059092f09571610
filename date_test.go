package msgkit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestParseDate(t *testing.T) {
	good := []struct {
		in   string
		want Date
	}{
		{"2026-01-31", Date{2026, time.January, 31}},
		{"2024-02-29", Date{2024, time.February, 29}},
		{"2000-02-29", Date{2000, time.February, 29}},
		{"0000-01-01", Date{0, time.January, 1}},
		{"9999-12-31", Date{9999, time.December, 31}},
		{"2026-04-30", Date{2026, time.April, 30}},
	}
	for _, tt := range good {
		got, err := ParseDate(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
	bad := []string{
		"", "2026-02-30", "2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00",
		"2026-1-01", "2026-01-1", "26-01-01", "2026/01/01", "2026-01-01T00:00:00Z", " 2026-01-01", "2026-01-01 ",
		"+026-01-01", "2026-0a-01", "２０２６-01-01", "20260101",
	}
	for _, in := range bad {
		d, err := ParseDate(in)
		if err == nil {
			t.Errorf("ParseDate(%q) = %v, want an error", in, d)
			continue
		}
		if KindOf(err) != Invalid || CodeOf(err) != CodeInvalidDate {
			t.Errorf("ParseDate(%q) error %v, want invalid %s", in, err, CodeInvalidDate)
		}
	}
}

// TestParseDateAgreesWithTime: for any text of the date's shape, ParseDate
// accepts exactly what time.Parse accepts, with the same day.
func TestParseDateAgreesWithTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[0-9]{4}-[0-9]{2}-[0-9]{2}`).Draw(t, "s")
		d, err := ParseDate(s)
		tm, terr := time.Parse("2006-01-02", s)
		if (err == nil) != (terr == nil) {
			t.Fatalf("ParseDate(%q) err %v, time.Parse err %v", s, err, terr)
		}
		if err == nil && d != DateOf(tm) {
			t.Fatalf("ParseDate(%q) = %v, time says %v", s, d, DateOf(tm))
		}
	})
}

func dateGen() *rapid.Generator[Date] {
	return rapid.Custom(func(t *rapid.T) Date {
		base := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
		return DateOf(base.AddDate(0, 0, rapid.IntRange(0, 3652058).Draw(t, "days")))
	})
}

func TestDateLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, e := dateGen().Draw(t, "d"), dateGen().Draw(t, "e")
		if !d.IsValid() {
			t.Fatalf("%v is not valid", d)
		}
		back, err := ParseDate(d.String())
		if err != nil || back != d {
			t.Fatalf("ParseDate(%q) = %v, %v", d.String(), back, err)
		}
		if got, want := d.Compare(e), d.In(time.UTC).Compare(e.In(time.UTC)); got != want {
			t.Fatalf("%v.Compare(%v) = %d, time says %d", d, e, got, want)
		}
		if d.Before(e) != (d.Compare(e) < 0) || d.After(e) != (d.Compare(e) > 0) {
			t.Fatalf("Before/After disagree with Compare for %v, %v", d, e)
		}
		n := rapid.IntRange(-1000, 1000).Draw(t, "n")
		if got := d.AddDays(n).AddDays(-n); got != d {
			t.Fatalf("%v + %d - %d = %v", d, n, n, got)
		}
		if n > 0 && !d.AddDays(n).After(d) {
			t.Fatalf("%v + %d is not after it", d, n)
		}
	})
}

func TestDateOf(t *testing.T) {
	tokyo := time.FixedZone("tokyo", 9*3600)
	instant := time.Date(2026, 1, 31, 20, 0, 0, 0, time.UTC)
	if got := DateOf(instant); got != (Date{2026, 1, 31}) {
		t.Errorf("DateOf in UTC = %v", got)
	}
	if got := DateOf(instant.In(tokyo)); got != (Date{2026, 2, 1}) {
		t.Errorf("DateOf in Tokyo = %v, want 2026-02-01", got)
	}
}

func TestDateAddDays(t *testing.T) {
	tests := []struct {
		d    Date
		n    int
		want Date
	}{
		{Date{2026, 1, 31}, 1, Date{2026, 2, 1}},
		{Date{2024, 2, 28}, 1, Date{2024, 2, 29}},
		{Date{2026, 2, 28}, 1, Date{2026, 3, 1}},
		{Date{2026, 1, 1}, -1, Date{2025, 12, 31}},
		{Date{2026, 1, 1}, 365, Date{2027, 1, 1}},
	}
	for _, tt := range tests {
		if got := tt.d.AddDays(tt.n); got != tt.want {
			t.Errorf("%v.AddDays(%d) = %v, want %v", tt.d, tt.n, got, tt.want)
		}
	}
}

func TestDateIn(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	d := Date{2026, time.March, 29} // DST starts at 02:00, midnight exists
	if got, want := d.In(berlin), time.Date(2026, 3, 29, 0, 0, 0, 0, berlin); !got.Equal(want) {
		t.Errorf("In(Berlin) = %v, want %v", got, want)
	}
	if got := d.In(nil); !got.Equal(time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("In(nil) = %v, want UTC midnight", got)
	}
	// In São Paulo, 2018-11-04 began at 01:00: midnight did not exist.
	sp, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	got := (Date{2018, time.November, 4}).In(sp)
	if DateOf(got) != (Date{2018, time.November, 4}) || got.Hour() != 1 {
		t.Errorf("In(São Paulo) on a day without midnight = %v, want 01:00 that day", got)
	}
	if before := got.Add(-time.Nanosecond); DateOf(before) == (Date{2018, time.November, 4}) {
		t.Errorf("%v is not the first instant of the day", got)
	}
}

func TestDateString(t *testing.T) {
	tests := []struct {
		d    Date
		want string
	}{
		{Date{2026, 3, 1}, "2026-03-01"},
		{Date{7, 1, 2}, "0007-01-02"},
		{Date{}, "0000-00-00"},
		{Date{10000, 1, 1}, "10000-1-1"},
		{Date{-1, 1, 1}, "-1-1-1"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestDateValidity(t *testing.T) {
	if (Date{}).IsValid() || !(Date{}).IsZero() {
		t.Error("the zero Date must be zero and invalid")
	}
	if (Date{2026, 1, 1}).IsZero() {
		t.Error("a real date is not zero")
	}
	for _, d := range []Date{{2026, 2, 29}, {2026, 0, 1}, {2026, 13, 1}, {2026, 1, 32}, {-1, 1, 1}, {10000, 1, 1}} {
		if d.IsValid() {
			t.Errorf("%#v is valid", d)
		}
	}
}

func TestDateJSON(t *testing.T) {
	type doc struct {
		Due  Date  `json:"due"`
		Paid *Date `json:"paid"`
	}
	in := doc{Due: Date{2026, 2, 1}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"due":"2026-02-01","paid":null}` {
		t.Errorf("json = %s", b)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	keep := Date{2026, 5, 5}
	if err := keep.UnmarshalJSON([]byte("null")); err != nil || keep != (Date{2026, 5, 5}) {
		t.Errorf("null changed the date to %v (%v)", keep, err)
	}
	for _, bad := range []string{`"2026-02-30"`, `20260201`, `"2026-02-01`, `""`, `"`, `{}`} {
		var d Date
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("json.Unmarshal(%s) = %v, want an error", bad, d)
		}
		if err := d.UnmarshalJSON([]byte(bad)); KindOf(err) != Invalid {
			t.Errorf("UnmarshalJSON(%s) error %v, want Invalid", bad, err)
		}
	}
	if _, err := json.Marshal(doc{}); err == nil {
		t.Error("marshalling the zero Date succeeded; it has no YYYY-MM-DD form")
	}
}

func TestDateText(t *testing.T) {
	var m map[Date]int
	if err := json.Unmarshal([]byte(`{"2026-01-02":3}`), &m); err != nil {
		t.Fatal(err)
	}
	if m[Date{2026, 1, 2}] != 3 {
		t.Errorf("map key not decoded: %v", m)
	}
	b, err := json.Marshal(m)
	if err != nil || string(b) != `{"2026-01-02":3}` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	var d Date
	if err := d.UnmarshalText([]byte("2026-02-30")); KindOf(err) != Invalid {
		t.Errorf("UnmarshalText of a non-existent day: %v", err)
	}
	if _, err := (Date{2026, 2, 30}).MarshalText(); err == nil {
		t.Error("MarshalText of a non-existent day succeeded")
	}
}
