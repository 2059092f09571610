package campaign

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// ScheduleType is when a campaign runs.
type ScheduleType string

// The schedule types.
const (
	Now       ScheduleType = "now"       // as soon as it is saved active
	Once      ScheduleType = "once"      // once, at a set time in the future
	Scheduled ScheduleType = "scheduled" // on every occurrence of a recurrence rule
)

// OnceLayout is the layout of a once schedule_rrule: a UTC wall time.
const OnceLayout = "2006-01-02 15:04:05"

// MaxCount bounds a rule's COUNT.
const MaxCount = 100_000

// Schedule is a checked schedule: the time of a once campaign, or the
// recurrence rule of a scheduled one, with its start (DTSTART, in its
// time zone) and its UNTIL in UTC.
type Schedule struct {
	Type ScheduleType
	At   time.Time // Once: the time, UTC
	// Rule is the rule of a Scheduled campaign in its normal form:
	// "DTSTART[;TZID=zone]:YYYYMMDDTHHMMSS[Z]\nRRULE:..." with UNTIL in
	// UTC. It is what schedule_rrule answers.
	Rule    string
	opt     rrule.ROption
	horizon time.Duration
}

// ParseSchedule checks a schedule_rrule for typ at now. A once time is
// "Y-m-d H:i:s" in UTC and must be after now. A rule is an iCalendar
// RRULE (with or without "RRULE:"), optionally preceded by a DTSTART line
// ("DTSTART:20261201T090000Z" or "DTSTART;TZID=Europe/Berlin:20261201T090000");
// without DTSTART the rule starts at now (whole seconds, UTC). FREQ is
// MINUTELY or slower; COUNT is at most MaxCount; UNTIL given in local time
// is read in the DTSTART's zone and kept in UTC. A rule with no
// occurrence after now within its search horizon (see Next) is refused:
// some combinations of BYxxx parts never match. Problems are plain
// errors: the caller names the field.
func ParseSchedule(typ ScheduleType, raw string, now time.Time) (Schedule, error) {
	raw = strings.TrimSpace(raw)
	switch typ {
	case Now:
		if raw != "" {
			return Schedule{}, errors.New("schedule_rrule is for once and scheduled campaigns; leave it out for now")
		}
		return Schedule{Type: Now}, nil
	case Once:
		at, err := time.ParseInLocation(OnceLayout, raw, time.UTC)
		if err != nil {
			return Schedule{}, errors.New("schedule_rrule of a once campaign is a UTC time \"Y-m-d H:i:s\", such as 2026-12-01 09:00:00")
		}
		if !at.After(now) {
			return Schedule{}, fmt.Errorf("schedule_rrule %s is not in the future", raw)
		}
		return Schedule{Type: Once, At: at}, nil
	case Scheduled:
		return parseRule(raw, now)
	}
	return Schedule{}, fmt.Errorf("unknown schedule type %q", typ)
}

func parseRule(raw string, now time.Time) (Schedule, error) {
	if raw == "" {
		return Schedule{}, errors.New("schedule_rrule is required for a scheduled campaign: an iCalendar RRULE")
	}
	lines := strings.FieldsFunc(raw, func(r rune) bool { return r == '\n' || r == '\r' })
	var dtstart time.Time
	var ruleLine string
	switch len(lines) {
	case 1:
		ruleLine = lines[0]
	case 2:
		head := strings.TrimSpace(lines[0])
		if !strings.HasPrefix(strings.ToUpper(head), "DTSTART") || len(head) < 8 || (head[7] != ':' && head[7] != ';') {
			return Schedule{}, errors.New("schedule_rrule: the first of two lines must be DTSTART")
		}
		t, err := rrule.StrToDtStart(head[8:], time.UTC)
		if err != nil {
			return Schedule{}, fmt.Errorf("schedule_rrule: DTSTART: %v", err)
		}
		dtstart, ruleLine = t, lines[1]
	default:
		return Schedule{}, errors.New("schedule_rrule is one RRULE, optionally after a DTSTART line")
	}
	ruleLine = strings.TrimSpace(ruleLine)
	if len(ruleLine) >= 6 && strings.EqualFold(ruleLine[:6], "RRULE:") {
		ruleLine = ruleLine[6:]
	}
	loc := time.UTC
	if !dtstart.IsZero() {
		loc = dtstart.Location()
	}
	parsed, err := rrule.StrToROptionInLocation(strings.ToUpper(ruleLine), loc)
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule_rrule: %v", err)
	}
	opt := *parsed
	if !opt.Dtstart.IsZero() && !dtstart.IsZero() {
		return Schedule{}, errors.New("schedule_rrule: DTSTART is given twice")
	}
	if dtstart.IsZero() {
		dtstart = opt.Dtstart
	}
	if dtstart.IsZero() {
		dtstart = now.UTC().Truncate(time.Second)
	}
	opt.Dtstart = dtstart
	if !opt.Until.IsZero() {
		opt.Until = opt.Until.UTC()
	}
	switch {
	case opt.Freq == rrule.SECONDLY:
		return Schedule{}, errors.New("schedule_rrule: FREQ=SECONDLY is not allowed; a campaign runs at most once a minute")
	case opt.Count < 0 || opt.Count > MaxCount:
		return Schedule{}, fmt.Errorf("schedule_rrule: COUNT must be from 1 to %d", MaxCount)
	case opt.Interval < 0 || opt.Interval > 1000:
		return Schedule{}, errors.New("schedule_rrule: INTERVAL must be from 1 to 1000")
	case len(opt.Bysecond) > 1:
		return Schedule{}, errors.New("schedule_rrule: at most one BYSECOND, as a campaign runs at most once a minute")
	}
	if _, err := rrule.NewRRule(opt); err != nil {
		return Schedule{}, fmt.Errorf("schedule_rrule: %v", err)
	}
	s := Schedule{Type: Scheduled, opt: opt, horizon: horizon(opt)}
	s.Rule = s.normal()
	switch _, _, found := s.next(time.Time{}, 0, now, true); found {
	case tooFar:
		return Schedule{}, fmt.Errorf("schedule_rrule starts more than %d occurrences before now: give a later DTSTART", MaxScan)
	case none:
		return Schedule{}, errors.New("schedule_rrule has no occurrence from now on: its end has passed, or its parts never match")
	}
	return s, nil
}

// horizon bounds the search for an occurrence: a rule whose next
// occurrence lies further away counts as having none.
func horizon(opt rrule.ROption) time.Duration {
	const day = 24 * time.Hour
	n := time.Duration(max(opt.Interval, 1))
	switch opt.Freq {
	case rrule.MINUTELY:
		return 31 * day * n
	case rrule.HOURLY:
		return 2 * 366 * day * n
	case rrule.DAILY, rrule.WEEKLY:
		return 10 * 366 * day * n
	case rrule.MONTHLY:
		return 30 * 366 * day * n
	}
	return 200 * 366 * day * n
}

// normal is the rule's normal form: DTSTART in its zone, then the RRULE
// with UNTIL in UTC.
func (s Schedule) normal() string {
	start := s.opt.Dtstart
	head := "DTSTART:" + start.UTC().Format("20060102T150405Z")
	if loc := start.Location(); loc != time.UTC && loc.String() != "UTC" {
		head = "DTSTART;TZID=" + loc.String() + ":" + start.Format("20060102T150405")
	}
	opt := s.opt
	opt.Dtstart = time.Time{}
	return head + "\nRRULE:" + opt.RRuleString()
}

// Start is the rule's DTSTART.
func (s Schedule) Start() time.Time { return s.opt.Dtstart }

// Next is the first occurrence of a Scheduled campaign after after (at
// or after it when inclusive), with its ordinal in the series (1 for
// the first occurrence). cursor and seq are an occurrence known already
// and its ordinal, from where the rule is scanned (the zero cursor scans
// from DTSTART): the rule is never walked again from a start years ago,
// and COUNT keeps counting from the cursor. ok is false when the series
// has no further occurrence within the search horizon (31 days × INTERVAL
// for MINUTELY, 2 years for HOURLY, 10 for DAILY and WEEKLY, 30 for
// MONTHLY, 200 for YEARLY, each × INTERVAL), after its UNTIL or COUNT.
func (s Schedule) Next(cursor time.Time, seq int, after time.Time, inclusive bool) (time.Time, int, bool) {
	t, ord, found := s.next(cursor, seq, after, inclusive)
	return t, ord, found == ok
}

// MaxScan bounds the occurrences walked to find the next one: a rule
// whose DTSTART lies further back is refused when parsed, and later
// searches start from a known occurrence.
const MaxScan = 100_000

// The outcomes of a search.
const (
	ok = iota
	none
	tooFar
)

func (s Schedule) next(cursor time.Time, seq int, after time.Time, inclusive bool) (time.Time, int, int) {
	if s.Type != Scheduled {
		return time.Time{}, 0, none
	}
	opt := s.explicit()
	count := opt.Count
	opt.Count = 0 // counted here, so a walk from a cursor counts on
	ord := 0      // the ordinal of the last occurrence walked
	var skip time.Time
	if !cursor.IsZero() && seq > 0 && cursor.After(opt.Dtstart) {
		// Restart at the start of the cursor's period: the same phase
		// of INTERVAL, and every occurrence after the cursor in reach.
		opt.Dtstart, skip, ord = restart(opt, cursor), cursor, seq
	}
	if after.Before(opt.Dtstart) {
		after, inclusive = opt.Dtstart, true
	}
	if limit := after.Add(s.horizon); opt.Until.IsZero() || opt.Until.After(limit) {
		opt.Until = limit
	}
	r, err := rrule.NewRRule(opt)
	if err != nil {
		return time.Time{}, 0, none
	}
	next := r.Iterator()
	var prev time.Time
	for walked := 0; walked < MaxScan; walked++ {
		t, more := next()
		if !more {
			return time.Time{}, 0, none
		}
		t = firstOfTwice(t)
		if !skip.IsZero() && !t.After(skip) || t.Equal(prev) {
			continue
		}
		prev = t
		ord++
		if count > 0 && ord > count {
			return time.Time{}, 0, none
		}
		if t.After(after) || inclusive && t.Equal(after) {
			return t.UTC(), ord, ok
		}
	}
	return time.Time{}, 0, tooFar
}

// explicit is the rule's options with the parts rrule-go would take from
// DTSTART written out (the month, day and weekday of slower rules, the
// time of day), so that the rule means the same when walked from another
// start.
func (s Schedule) explicit() rrule.ROption {
	opt := s.opt
	start := opt.Dtstart
	if len(opt.Byweekno) == 0 && len(opt.Byyearday) == 0 && len(opt.Bymonthday) == 0 && len(opt.Byweekday) == 0 && len(opt.Byeaster) == 0 {
		switch opt.Freq {
		case rrule.YEARLY:
			if len(opt.Bymonth) == 0 {
				opt.Bymonth = []int{int(start.Month())}
			}
			opt.Bymonthday = []int{start.Day()}
		case rrule.MONTHLY:
			opt.Bymonthday = []int{start.Day()}
		case rrule.WEEKLY:
			opt.Byweekday = []rrule.Weekday{weekdays[start.Weekday()]}
		}
	}
	if len(opt.Byhour) == 0 && opt.Freq < rrule.HOURLY {
		opt.Byhour = []int{start.Hour()}
	}
	if len(opt.Byminute) == 0 && opt.Freq < rrule.MINUTELY {
		opt.Byminute = []int{start.Minute()}
	}
	if len(opt.Bysecond) == 0 {
		opt.Bysecond = []int{start.Second()}
	}
	return opt
}

var weekdays = [...]rrule.Weekday{
	time.Sunday: rrule.SU, time.Monday: rrule.MO, time.Tuesday: rrule.TU, time.Wednesday: rrule.WE,
	time.Thursday: rrule.TH, time.Friday: rrule.FR, time.Saturday: rrule.SA,
}

// restart is where a walk from cursor begins: for daily and slower
// rules the cursor's day (the other days of its period come from the
// rule's parts); for hourly and minutely ones the last step of the
// series, counted on the wall clock from DTSTART as rrule-go counts, that
// lies an interval before the cursor and exists on the clock (a time in
// a gap would shift the steps after it).
func restart(opt rrule.ROption, cursor time.Time) time.Time {
	start := opt.Dtstart
	loc := start.Location()
	c := cursor.In(loc)
	unit := time.Hour
	switch opt.Freq {
	case rrule.HOURLY:
	case rrule.MINUTELY:
		unit = time.Minute
	default:
		y, m, d := c.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	step := unit * time.Duration(max(opt.Interval, 1))
	from := wall(start)
	for k := wall(c).Sub(from)/step - 1; k > 0; k-- {
		w := from.Add(k * step)
		if t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, loc); wall(t).Equal(w) {
			return t
		}
	}
	return start
}

// wall is t's wall-clock reading as if it were UTC, so that wall times
// subtract without the zone's changes.
func wall(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// firstOfTwice is t, or the earlier instant with the same wall time in
// t's zone when the clock was set back (RFC 5545 3.3.5: a local time that
// occurs twice means its first occurrence). A time in a gap (the clock
// set forward) is already the instant after the gap's UTC offset, as the
// RFC asks.
func firstOfTwice(t time.Time) time.Time {
	for _, d := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		if u := t.Add(-d); sameWall(u, t) {
			return u
		}
	}
	return t
}

func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() && a.Second() == b.Second()
}

// RestoreSchedule reads a schedule as a store keeps it: its type and
// RRule() (the once time, or the rule in normal form), without the checks
// against the time of a request that ParseSchedule makes.
func RestoreSchedule(typ ScheduleType, rule string) (Schedule, error) {
	switch typ {
	case Now:
		return Schedule{Type: Now}, nil
	case Once:
		at, err := time.ParseInLocation(OnceLayout, rule, time.UTC)
		if err != nil {
			return Schedule{}, fmt.Errorf("campaign: a stored once time %q: %w", rule, err)
		}
		return Schedule{Type: Once, At: at}, nil
	case Scheduled:
		lines := strings.SplitN(rule, "\n", 2)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "DTSTART") || len(lines[0]) < 8 {
			return Schedule{}, fmt.Errorf("campaign: a stored rule %q is not in normal form", rule)
		}
		start, err := rrule.StrToDtStart(lines[0][8:], time.UTC)
		if err != nil {
			return Schedule{}, fmt.Errorf("campaign: a stored rule's DTSTART: %w", err)
		}
		opt, err := rrule.StrToROptionInLocation(strings.TrimPrefix(lines[1], "RRULE:"), time.UTC)
		if err != nil {
			return Schedule{}, fmt.Errorf("campaign: a stored rule: %w", err)
		}
		opt.Dtstart = start
		return Schedule{Type: Scheduled, Rule: rule, opt: *opt, horizon: horizon(*opt)}, nil
	}
	return Schedule{}, fmt.Errorf("campaign: a stored schedule type %q", typ)
}
