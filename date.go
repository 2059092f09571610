package msgkit

import (
	"strconv"
	"time"
)

// Date is a civil date without a time of day or a zone: an invoice date, a
// birthday, a period end. It exists so that such dates are never a
// time.Time at midnight, whose meaning shifts with the zone it is read in.
// The zero Date is not a valid date; IsZero reports it.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses a strict YYYY-MM-DD date: exactly four year digits, two
// month digits and two day digits, and the day must exist in that month, so
// 2026-02-30 and 2026-2-3 are refused rather than normalised. A bad date is
// an Invalid *Error with code CodeInvalidDate.
func ParseDate(s string) (Date, error) {
	d, ok := parseDate(s)
	if !ok {
		return Date{}, &Error{Kind: Invalid, Code: CodeInvalidDate,
			Message: "invalid date " + quote(s) + ": want an existing date of the form YYYY-MM-DD"}
	}
	return d, nil
}

// CodeInvalidDate is the Code of the error ParseDate and the Date
// unmarshalers return.
const CodeInvalidDate = "invalid_date"

func parseDate(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return Date{}, false
	}
	date := Date{Year: y, Month: time.Month(m), Day: d}
	if !date.IsValid() {
		return Date{}, false
	}
	return date, true
}

// digits parses a short run of ASCII digits; no sign, no spaces.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// DateOf returns the civil date of t in t's own location, so the caller
// chooses the zone (t.In(loc)) before asking which day it is.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// IsValid reports whether d is a date that exists and that the text form can
// carry: years 0000 to 9999, months 1 to 12, and a day within the month.
func (d Date) IsValid() bool {
	if d.Year < 0 || d.Year > 9999 || d.Month < time.January || d.Month > time.December || d.Day < 1 {
		return false
	}
	return d.Day <= daysIn(d.Year, d.Month)
}

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// IsZero reports whether d is the zero Date, which optional dates use to
// mean "not set".
func (d Date) IsZero() bool { return d == Date{} }

// String returns d as YYYY-MM-DD. Dates outside the range IsValid accepts
// are still printed, though not parseable back.
func (d Date) String() string {
	if d.Year >= 0 && d.Year <= 9999 && d.Month >= 0 && d.Month <= 99 && d.Day >= 0 && d.Day <= 99 {
		b := make([]byte, 10)
		put := func(at, v, width int) {
			for i := at + width - 1; i >= at; i-- {
				b[i] = byte('0' + v%10)
				v /= 10
			}
		}
		put(0, d.Year, 4)
		b[4] = '-'
		put(5, int(d.Month), 2)
		b[7] = '-'
		put(8, d.Day, 2)
		return string(b)
	}
	return strconv.Itoa(d.Year) + "-" + strconv.Itoa(int(d.Month)) + "-" + strconv.Itoa(d.Day)
}

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.Year != e.Year:
		return cmpInt(d.Year, e.Year)
	case d.Month != e.Month:
		return cmpInt(int(d.Month), int(e.Month))
	}
	return cmpInt(d.Day, e.Day)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// AddDays returns the date n days after d (before it when n is negative),
// for due dates and periods. Invalid dates are normalised first, as
// time.Date does.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC))
}

// In returns the instant at which d begins in loc: midnight, or the first
// instant of the day when a zone transition skips midnight. A nil loc is
// UTC.
func (d Date) In(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
	if DateOf(t) != d {
		// Midnight fell in a gap and time.Date chose the evening before;
		// the day begins where that zone period ends.
		if _, end := t.ZoneBounds(); !end.IsZero() && DateOf(end) == d {
			t = end
		}
	}
	return t
}

// MarshalText encodes d as YYYY-MM-DD; an invalid date (including the zero
// Date) is an error rather than text that could not be read back.
func (d Date) MarshalText() ([]byte, error) {
	if !d.IsValid() {
		return nil, Errorf(Internal, CodeInvalidDate, "cannot encode invalid date %s", d.String())
	}
	return []byte(d.String()), nil
}

// UnmarshalText decodes a strict YYYY-MM-DD date.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON encodes d as a JSON string "YYYY-MM-DD".
func (d Date) MarshalJSON() ([]byte, error) {
	b, err := d.MarshalText()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+2)
	out = append(out, '"')
	out = append(out, b...)
	return append(out, '"'), nil
}

// UnmarshalJSON decodes a JSON string "YYYY-MM-DD". JSON null leaves d
// unchanged, as encoding/json expects of unmarshalers.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return &Error{Kind: Invalid, Code: CodeInvalidDate,
			Message: "invalid date " + quote(string(b)) + ": want a JSON string of the form YYYY-MM-DD"}
	}
	return d.UnmarshalText(b[1 : len(b)-1])
}
