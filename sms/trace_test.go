package sms

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"pgregory.net/rapid"
)

func TestMaskMSISDN(t *testing.T) {
	tests := []struct{ in, want MSISDN }{
		{"+38640123456", "+38640****56"},     // Slovenia: 386, then 40, then 56
		{"+4915112345678", "+4915*******78"}, // Germany: 49
		{"+12025550123", "+120******23"},     // NANP: 1
		{"38640123456", "38640****56"},       // without +
		{"+38612", "+386**"},                 // nothing to hide between: the code only
		{"+999123456", "+999****56"},         // unknown code: its first digit, then two
		{"", ""},
	}
	for _, tc := range tests {
		if got := MaskMSISDN(tc.in); got != tc.want {
			t.Errorf("MaskMSISDN(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A masked number keeps its length and the '+', and hides at least one
// digit of every number longer than its country code.
func TestMaskMSISDNHides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := MSISDN("+" + rapid.StringMatching(`[1-9][0-9]{2,14}`).Draw(t, "n"))
		got := MaskMSISDN(n)
		if len(got) != len(n) || got[0] != '+' || !strings.Contains(string(got), "*") {
			t.Fatalf("MaskMSISDN(%s) = %s", n, got)
		}
		for i := range got {
			if got[i] != '*' && got[i] != n[i] {
				t.Fatalf("MaskMSISDN(%s) = %s changes a digit", n, got)
			}
		}
	})
}

func TestAppendPartEventsKeepsFirstAndLatest(t *testing.T) {
	var h []PartEvent
	for n := 1; n <= MaxPartEvents+5; n++ {
		h = AppendPartEvents(h, PartEvent{State: StateBuffered, ErrorCode: DLRError(n)})
		want := min(n, MaxPartEvents)
		if len(h) != want || h[0].ErrorCode != 1 || h[len(h)-1].ErrorCode != DLRError(n) {
			t.Fatalf("after %d events: %+v", n, h)
		}
	}
	if h[1].ErrorCode != 7 {
		t.Errorf("second kept event %d, want 7", h[1].ErrorCode)
	}
}

func TestAttemptOf(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	long := "x" + strings.Repeat("é", MaxAttemptError) // an odd cut would split a letter
	got := AttemptOf(Report{AttemptedAt: at, LastError: long})
	if got.At != at || len(got.Error) != MaxAttemptError-1 || !strings.HasPrefix(long, got.Error) {
		t.Errorf("AttemptOf = %+v", got)
	}
	if got := AttemptOf(Report{LastError: "the report URL answered 503"}); got.Error != "the report URL answered 503" {
		t.Errorf("a short error changed: %q", got.Error)
	}
	var log []ReportAttempt
	for n := range MaxReportAttempts + 3 {
		log = AppendReportAttempt(log, ReportAttempt{At: at.Add(time.Duration(n))})
	}
	if len(log) != MaxReportAttempts || !log[0].At.Equal(at) || !log[len(log)-1].At.Equal(at.Add(MaxReportAttempts+2)) {
		t.Errorf("bounded attempts %+v", log)
	}
}

func TestCheckTraceQuery(t *testing.T) {
	str := func(op msgkit.Op, attr, v string) msgkit.Filter {
		return msgkit.Filter{Op: op, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
	}
	for _, tc := range []struct {
		name    string
		filters []msgkit.Filter
		ok      bool
	}{
		{"account", []msgkit.Filter{str(msgkit.OpEq, "account", "shop")}, true},
		{"id", []msgkit.Filter{str(msgkit.OpEq, "receiver", "+38640123456"), str(msgkit.OpEq, "id", "m-1")}, true},
		{"nothing", nil, false},
		{"receiver only", []msgkit.Filter{str(msgkit.OpEq, "receiver", "+38640123456")}, false},
		{"account by prefix", []msgkit.Filter{str(msgkit.OpStartsWith, "account", "s")}, false},
		{"account in", []msgkit.Filter{{Op: msgkit.OpIn, Attr: "account", Values: []msgkit.Value{msgkit.StringValue("a"), msgkit.StringValue("b")}}}, false},
	} {
		err := CheckTraceQuery(msgkit.ListQuery{Filters: tc.filters})
		if tc.ok != (err == nil) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if e, ok := errors.AsType[*msgkit.Error](err); err != nil && (!ok || e.Kind != msgkit.Invalid || e.Code != CodeTraceUnbounded || e.Fields[0].Name != "account") {
			t.Errorf("%s: refusal %#v", tc.name, err)
		}
	}
}

// The Tracer refuses an unbounded search before asking the store.
func TestTracerRefusesUnbounded(t *testing.T) {
	tr := NewTracer(nil, TracerOptions{})
	_, err := tr.Messages(t.Context(), msgkit.ListQuery{}, TraceView{Numbers: true})
	if msgkit.CodeOf(err) != CodeTraceUnbounded {
		t.Errorf("error %v, want %s", err, CodeTraceUnbounded)
	}
}
