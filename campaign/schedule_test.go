package campaign_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones of the rules, on any machine

	"github.com/msgkit/msgkit/campaign"
	"pgregory.net/rapid"
)

var now = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// series is the first n occurrences of a rule from now, each searched
// from the one before.
func series(t *testing.T, raw string, from time.Time, n int) []string {
	t.Helper()
	s, err := campaign.ParseSchedule(campaign.Scheduled, raw, from)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	var out []string
	var cursor time.Time
	seq := 0
	after, inclusive := from, true
	for range n {
		next, ord, ok := s.Next(cursor, seq, after, inclusive)
		if !ok {
			out = append(out, "end")
			break
		}
		out = append(out, fmt.Sprintf("%s#%d", next.Format(time.RFC3339), ord))
		cursor, seq, after, inclusive = next, ord, next, false
	}
	return out
}

func TestRules(t *testing.T) {
	for _, tt := range []struct {
		name, rule string
		from       time.Time
		want       []string
	}{
		{"daily at nine UTC, from the request", "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0", now,
			[]string{"2026-03-21T09:00:00Z#1", "2026-03-22T09:00:00Z#2", "2026-03-23T09:00:00Z#3"}},
		{"RRULE: prefix, lower case", "rrule:freq=weekly;byday=mo;byhour=8;byminute=30;bysecond=0", now,
			[]string{"2026-03-23T08:30:00Z#1", "2026-03-30T08:30:00Z#2"}},
		// Berlin moves to summer time on 2026-03-29: 09:00 stays 09:00 on
		// the wall, an hour earlier in UTC.
		{"spring, wall clock kept", "DTSTART;TZID=Europe/Berlin:20260327T090000\nRRULE:FREQ=DAILY", now,
			[]string{"2026-03-27T08:00:00Z#1", "2026-03-28T08:00:00Z#2", "2026-03-29T07:00:00Z#3", "2026-03-30T07:00:00Z#4"}},
		// 02:30 does not exist on 2026-03-29 in Berlin: the offset before
		// the gap is used, 02:30 CET, which is 03:30 CEST.
		{"spring, a time in the gap", "DTSTART;TZID=Europe/Berlin:20260328T023000\nRRULE:FREQ=DAILY;COUNT=3", now,
			[]string{"2026-03-28T01:30:00Z#1", "2026-03-29T01:30:00Z#2", "2026-03-30T00:30:00Z#3", "end"}},
		// 02:30 occurs twice on 2026-10-25: the first, CEST, is meant.
		{"autumn, a time twice", "DTSTART;TZID=Europe/Berlin:20261024T023000\nRRULE:FREQ=DAILY;COUNT=3", now,
			[]string{"2026-10-24T00:30:00Z#1", "2026-10-25T00:30:00Z#2", "2026-10-26T01:30:00Z#3", "end"}},
		{"autumn in New York", "DTSTART;TZID=America/New_York:20261031T090000\nRRULE:FREQ=DAILY;COUNT=3", now,
			[]string{"2026-10-31T13:00:00Z#1", "2026-11-01T14:00:00Z#2", "2026-11-02T14:00:00Z#3", "end"}},
		{"UNTIL in local time is read in the zone", "DTSTART;TZID=Europe/Berlin:20261101T100000\nRRULE:FREQ=DAILY;UNTIL=20261103T100000", now,
			[]string{"2026-11-01T09:00:00Z#1", "2026-11-02T09:00:00Z#2", "2026-11-03T09:00:00Z#3", "end"}},
		{"UNTIL in UTC", "DTSTART:20261101T100000Z\nRRULE:FREQ=DAILY;UNTIL=20261102T095959Z", now,
			[]string{"2026-11-01T10:00:00Z#1", "end"}},
		{"COUNT counts from DTSTART, not from the request", "DTSTART:20260318T120000Z\nRRULE:FREQ=DAILY;COUNT=4", now,
			[]string{"2026-03-20T12:00:00Z#3", "2026-03-21T12:00:00Z#4", "end"}},
		{"last Monday of the month", "DTSTART:20260301T090000Z\nRRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-1", now,
			[]string{"2026-03-30T09:00:00Z#1", "2026-04-27T09:00:00Z#2", "2026-05-25T09:00:00Z#3"}},
		{"leap days only", "DTSTART:20260101T000000Z\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", now,
			[]string{"2028-02-29T00:00:00Z#1", "2032-02-29T00:00:00Z#2"}},
		{"every 15 minutes", "DTSTART:20260320T115500Z\nRRULE:FREQ=MINUTELY;INTERVAL=15", now,
			[]string{"2026-03-20T12:10:00Z#2", "2026-03-20T12:25:00Z#3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := series(t, tt.rule, tt.from, len(tt.want))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestRuleNormalForm(t *testing.T) {
	for _, tt := range []struct{ rule, want string }{
		{"FREQ=DAILY", "DTSTART:20260320T120000Z\nRRULE:FREQ=DAILY"},
		{"DTSTART;TZID=Europe/Berlin:20261101T100000\nRRULE:FREQ=DAILY;UNTIL=20261103T100000", "DTSTART;TZID=Europe/Berlin:20261101T100000\nRRULE:FREQ=DAILY;UNTIL=20261103T090000Z"},
		{"DTSTART:20261101T100000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,FR;COUNT=5", "DTSTART:20261101T100000Z\nRRULE:FREQ=WEEKLY;COUNT=5;BYDAY=MO,FR"},
	} {
		s, err := campaign.ParseSchedule(campaign.Scheduled, tt.rule, now)
		if err != nil || s.Rule != tt.want || s.RRule() != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.rule, s.Rule, err, tt.want)
		}
		// The normal form reads back as the same schedule, with or
		// without the checks of a request.
		again, err := campaign.ParseSchedule(campaign.Scheduled, s.Rule, now)
		restored, rerr := campaign.RestoreSchedule(campaign.Scheduled, s.Rule)
		if err != nil || rerr != nil || again.Rule != s.Rule || restored.Rule != s.Rule {
			t.Errorf("%q again: %q %v, restored %q %v", s.Rule, again.Rule, err, restored.Rule, rerr)
		}
		a, _, _ := s.Next(time.Time{}, 0, now, true)
		b, _, _ := restored.Next(time.Time{}, 0, now, true)
		if !a.Equal(b) {
			t.Errorf("%q: restored next %v, want %v", s.Rule, b, a)
		}
	}
}

func TestScheduleRefusals(t *testing.T) {
	for _, tt := range []struct {
		typ  campaign.ScheduleType
		raw  string
		want string
	}{
		{campaign.Now, "2026-12-01 09:00:00", "leave it out for now"},
		{campaign.Once, "", `UTC time "Y-m-d H:i:s"`},
		{campaign.Once, "2026-12-01T09:00:00Z", `UTC time "Y-m-d H:i:s"`},
		{campaign.Once, "2026-03-20 12:00:00", "is not in the future"},
		{campaign.Once, "2026-02-30 09:00:00", `UTC time "Y-m-d H:i:s"`},
		{campaign.Scheduled, "", "is required for a scheduled campaign"},
		{campaign.Scheduled, "FREQ=SECONDLY", "FREQ=SECONDLY is not allowed"},
		{campaign.Scheduled, "FREQ=DAILY;COUNT=100001", "COUNT must be from 1"},
		{campaign.Scheduled, "FREQ=DAILY;INTERVAL=5000", "INTERVAL must be from 1 to 1000"},
		{campaign.Scheduled, "FREQ=MINUTELY;BYSECOND=0,30", "at most one BYSECOND"},
		{campaign.Scheduled, "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "never match"},
		{campaign.Scheduled, "FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31", "never match"},
		{campaign.Scheduled, "DTSTART:20250101T000000Z\nRRULE:FREQ=DAILY;UNTIL=20250201T000000Z", "its end has passed"},
		{campaign.Scheduled, "DTSTART:20250101T000000Z\nRRULE:FREQ=DAILY;COUNT=10", "its end has passed"},
		{campaign.Scheduled, "DTSTART:20200101T000000Z\nRRULE:FREQ=MINUTELY", "more than 100000 occurrences before now"},
		{campaign.Scheduled, "FREQ=FORTNIGHTLY", "schedule_rrule"},
		{campaign.Scheduled, "FREQ=DAILY;COLOUR=RED", "unknown RRULE property"},
		{campaign.Scheduled, "DTSTART;TZID=Mars/Olympus:20261101T100000\nRRULE:FREQ=DAILY", "DTSTART"},
		{campaign.Scheduled, "DTSTART:20261101T100000Z\nRRULE:FREQ=DAILY;DTSTART=20261101T100000Z", "DTSTART is given twice"},
		{campaign.Scheduled, "RRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY", "first of two lines must be DTSTART"},
		{campaign.Scheduled, "a\nb\nc", "one RRULE"},
	} {
		_, err := campaign.ParseSchedule(tt.typ, tt.raw, now)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: %v, want it to say %q", tt.typ, tt.raw, err, tt.want)
		}
	}
}

// The next occurrence from a cursor is the one a walk from DTSTART finds:
// cursors never change the series, they only save the walk.
func TestNextFromCursorIsTheWalk(t *testing.T) {
	rules := []string{
		"FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0;BYSECOND=0",
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;BYHOUR=10;BYMINUTE=0;BYSECOND=0",
		"FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=1,-1;COUNT=40",
		"FREQ=HOURLY;INTERVAL=7;BYMINUTE=5;BYSECOND=0",
		"FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU;BYHOUR=2;BYMINUTE=30;BYSECOND=0",
	}
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"}
	rapid.Check(t, func(t *rapid.T) {
		zone := rapid.SampledFrom(zones).Draw(t, "zone")
		rule := rapid.SampledFrom(rules).Draw(t, "rule")
		start := now.Add(time.Duration(rapid.IntRange(-30*24, 30*24).Draw(t, "startHours")) * time.Hour).Truncate(time.Second)
		loc, _ := time.LoadLocation(zone)
		raw := "DTSTART;TZID=" + zone + ":" + start.In(loc).Format("20060102T150405") + "\nRRULE:" + rule
		from := start.Add(time.Duration(rapid.IntRange(-48, 24*90).Draw(t, "fromHours")) * time.Hour)
		s, err := campaign.ParseSchedule(campaign.Scheduled, raw, from)
		if err != nil {
			t.Fatalf("%v", err)
		}
		// From DTSTART, n steps; and each step from the previous cursor.
		var cursor time.Time
		seq := 0
		after, inclusive := from, true
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			got, ord, ok := s.Next(cursor, seq, after, inclusive)
			want, wantOrd, wantOK := s.Next(time.Time{}, 0, after, inclusive)
			if ok != wantOK || !got.Equal(want) || ord != wantOrd {
				t.Fatalf("%q after %v: from cursor %v #%d %v, from DTSTART %v #%d %v", raw, after, got, ord, ok, want, wantOrd, wantOK)
			}
			if !ok {
				return
			}
			if !got.After(after) && !(inclusive && got.Equal(after)) {
				t.Fatalf("%v is not after %v", got, after)
			}
			cursor, seq, after, inclusive = got, ord, got, false
		}
	})
}

// next_dt of 10,000 scheduled campaigns of varied rules, each from its
// last occurrence: the runner's work after a round of occurrences.
func BenchmarkNext10k(b *testing.B) {
	rules := []string{
		"FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
		"FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=10;BYMINUTE=30;BYSECOND=0",
		"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-1;BYHOUR=8;BYMINUTE=0;BYSECOND=0",
		"FREQ=HOURLY;INTERVAL=6;BYMINUTE=0;BYSECOND=0",
		"FREQ=MINUTELY;INTERVAL=30;BYSECOND=0",
		"FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24;BYHOUR=18;BYMINUTE=0;BYSECOND=0",
		"FREQ=DAILY;INTERVAL=2;COUNT=500",
	}
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"}
	type campaignRun struct {
		s      campaign.Schedule
		cursor time.Time
		seq    int
	}
	runs := make([]campaignRun, 10_000)
	for i := range runs {
		raw := "DTSTART;TZID=" + zones[i%len(zones)] + ":20260101T000000\nRRULE:" + rules[i%len(rules)]
		s, err := campaign.ParseSchedule(campaign.Scheduled, raw, utc("2026-01-01T00:00:00Z"))
		if err != nil {
			b.Fatalf("%q: %v", raw, err)
		}
		t, seq, _ := s.Next(time.Time{}, 0, now, true)
		runs[i] = campaignRun{s, t, seq}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range runs {
			r := &runs[i]
			if _, _, ok := r.s.Next(r.cursor, r.seq, r.cursor, false); !ok {
				b.Fatal("no next occurrence")
			}
		}
	}
}
