package pdu

import (
	"errors"
	"fmt"
	"time"
)

// TimeLen is the length of an SMPP time: YYMMDDhhmmsstnnp.
const TimeLen = maxTime

// maxOffsetQuarters is the largest nn of an absolute time: 48 quarter
// hours, twelve hours from UTC.
const maxOffsetQuarters = 48

// ParseTime reads an SMPP time (SMPP 3.4 7.1.1), as schedule_delivery_time
// and validity_period hold it; "" is no time (the zero time, no error).
//
// An absolute time is YYMMDDhhmmsstnnp: the year 20YY (SMPP 3.4 names no
// century; two digits cover 2000 to 2099), month, day, hour, minute,
// second and tenth of a second as a local time, nn the quarter hours
// (00 to 48) that local time is ahead of UTC ('+') or behind it ('-').
// The result is in a fixed zone of that offset. Every field is checked
// against the calendar (no 31 April, no 24:00, no leap second).
//
// A relative time is YYMMDDhhmmss000R: years, months, days, hours, minutes
// and seconds after now, each added as given (000000480000000R is 48
// hours), the years, months and days by the calendar (time.AddDate); its
// tnn is 000.
func ParseTime(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if len(s) != TimeLen {
		return time.Time{}, timeError(s, "not 16 characters (YYMMDDhhmmsstnnp)")
	}
	var d [15]int
	for i := range d {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, timeError(s, "its first 15 characters are not all digits")
		}
		d[i] = int(s[i] - '0')
	}
	two := func(i int) int { return d[i]*10 + d[i+1] }
	year, month, day, hour, minute, second := two(0), two(2), two(4), two(6), two(8), two(10)
	tenth, quarters := d[12], two(13)
	switch s[15] {
	case 'R':
		if tenth != 0 || quarters != 0 {
			return time.Time{}, timeError(s, "a relative time ends 000R")
		}
		return now.AddDate(year, month, day).Add(time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute + time.Duration(second)*time.Second), nil
	case '+', '-':
	default:
		return time.Time{}, timeError(s, "its last character is none of +, - and R")
	}
	switch {
	case quarters > maxOffsetQuarters:
		return time.Time{}, timeError(s, "an offset from UTC of more than 48 quarter hours")
	case month < 1 || month > 12:
		return time.Time{}, timeError(s, "no such month")
	case hour > 23 || minute > 59 || second > 59:
		return time.Time{}, timeError(s, "no such time of day")
	}
	offset := quarters * 15 * 60
	if s[15] == '-' {
		offset = -offset
	}
	t := time.Date(2000+year, time.Month(month), day, hour, minute, second, tenth*int(100*time.Millisecond), time.FixedZone("", offset))
	if t.Day() != day || t.Month() != time.Month(month) {
		return time.Time{}, timeError(s, "no such day in its month")
	}
	return t, nil
}

// FormatTime writes t as an absolute SMPP time, to the tenth of a second
// (truncated), in t's offset from UTC when it is a whole number of quarter
// hours within twelve hours, else in UTC. ParseTime reads it back to the
// same instant. A year before 2000 or after 2099 has no SMPP time.
func FormatTime(t time.Time) (string, error) {
	_, offset := t.Zone()
	if offset%(15*60) != 0 || offset > maxOffsetQuarters*15*60 || offset < -maxOffsetQuarters*15*60 {
		t, offset = t.UTC(), 0
	}
	if t.Year() < 2000 || t.Year() > 2099 {
		return "", fmt.Errorf("pdu: %s has no SMPP time: its year is not 2000 to 2099", t)
	}
	sign := byte('+')
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%02d%02d%02d%02d%02d%02d%d%02d%c", t.Year()%100, int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(),
		t.Nanosecond()/int(100*time.Millisecond), offset/(15*60), sign), nil
}

// ErrTime is in the chain of every error of ParseTime.
var ErrTime = errors.New("not an SMPP time")

func timeError(s, reason string) error {
	return fmt.Errorf("pdu: %q: %w: %s", s, ErrTime, reason)
}
