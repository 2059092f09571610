package smstest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func traceTests() []storeTest {
	return []storeTest{
		{"TraceListing", testTraceListing},
		{"TraceListingRefusesUnbounded", testTraceRefusal},
		{"TraceMessage", testTraceMessage},
		{"TracePartHistory", testTracePartHistory},
		{"TracePartHistoryBound", testTraceHistoryBound},
		{"TraceReportAttempts", testTraceReportAttempts},
		{"TraceMasking", testTraceMasking},
	}
}

// traced accepts message id of account to receiver, submitted at.
func traced(t *testing.T, s sms.Store, id, account, receiver string, at time.Time) {
	t.Helper()
	if _, err := s.Account(t.Context(), account); errors.Is(err, msgkit.NotFound) {
		if err := s.CreateAccount(t.Context(), Account(account, "1000")); err != nil {
			t.Fatal(err)
		}
	}
	m := Message(id, account, "0.01")
	m.Receiver, m.SubmittedAt = sms.MSISDN(receiver), at
	if err := s.Accept(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

func eq(attr, v string) msgkit.Filter {
	return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
}

func timeFilter(op msgkit.Op, at time.Time) msgkit.Filter {
	return msgkit.Filter{Op: op, Attr: "submittedAt", Values: []msgkit.Value{msgkit.TimeValue(at.Truncate(time.Microsecond))}}
}

func traceIDs(t *testing.T, s Store, q msgkit.ListQuery) ([]string, int) {
	t.Helper()
	page, err := s.TraceMessages(t.Context(), q)
	if err != nil {
		t.Fatalf("TraceMessages(%+v): %v", q, err)
	}
	ids := []string{}
	for _, m := range page.Items {
		ids = append(ids, string(m.ID))
	}
	return ids, page.Total
}

// The listing filters, sorts and pages alike on every store: by account
// or id, receiver (the full number) and submission time; by id unless
// sorted; the total counts every match.
func testTraceListing(t *testing.T, s Store) {
	minute := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	traced(t, s, "m-5", "shop", "+38640123456", minute(1))
	traced(t, s, "m-3", "shop", "+38640999888", minute(2))
	traced(t, s, "m-4", "shop", "+38640123456", minute(3))
	traced(t, s, "m-1", "shop", "+4915112345678", minute(3)) // ties m-4
	traced(t, s, "m-2", "other", "+38640123456", minute(4))
	queue(t, s, "m-3", 1, sms.StateDelivered)

	page, err := s.TraceMessages(t.Context(), msgkit.ListQuery{Filters: []msgkit.Filter{eq("id", "m-3")}})
	if err != nil || len(page.Items) != 1 || page.Total != 1 {
		t.Fatalf("by id: %+v, %v", page, err)
	}
	want := sms.MessageSummary{ID: "m-3", Account: "shop", Type: "text", Sender: sms.Sender{Value: "MyShop"}, Receiver: "+38640999888",
		SubmittedAt: minute(2).Truncate(time.Microsecond).UTC(), ExpiresAt: t0.Add(24 * time.Hour).Truncate(time.Microsecond).UTC(),
		Charged: dec("0.02"), Currency: "EUR", States: []sms.PartState{sms.StateSubmitted, sms.StateDelivered}}
	if diff := gocmp.Diff(want, page.Items[0], equate); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}

	asc := []msgkit.SortKey{{Attr: "submittedAt"}}
	desc := []msgkit.SortKey{{Attr: "submittedAt", Desc: true}}
	for _, tc := range []struct {
		name  string
		q     msgkit.ListQuery
		want  []string
		total int
	}{
		{"account", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}}, []string{"m-1", "m-3", "m-4", "m-5"}, 4},
		{"account sorted", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: asc}, []string{"m-5", "m-3", "m-1", "m-4"}, 4},
		{"account newest first", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: desc}, []string{"m-1", "m-4", "m-3", "m-5"}, 4},
		{"by id descending", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: []msgkit.SortKey{{Attr: "id", Desc: true}}}, []string{"m-5", "m-4", "m-3", "m-1"}, 4},
		{"receiver", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), eq("receiver", "+38640123456")}}, []string{"m-4", "m-5"}, 2},
		{"receiver of no message", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), eq("receiver", "+38640123457")}}, []string{}, 0},
		{"time range", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), timeFilter(msgkit.OpGte, minute(2)), timeFilter(msgkit.OpLte, minute(3))}, Sort: asc},
			[]string{"m-3", "m-1", "m-4"}, 3},
		{"time range and receiver", msgkit.ListQuery{Filters: []msgkit.Filter{timeFilter(msgkit.OpGte, minute(2)), eq("receiver", "+38640123456"), eq("account", "shop")}},
			[]string{"m-4"}, 1},
		{"first page", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: desc, PageNumber: 1, PageSize: 3}, []string{"m-1", "m-4", "m-3"}, 4},
		{"second page", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: desc, PageNumber: 2, PageSize: 3}, []string{"m-5"}, 4},
		{"past the end", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, Sort: desc, PageNumber: 3, PageSize: 3}, []string{}, 4},
		{"full page", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop")}, PageNumber: 2, PageSize: 2}, []string{"m-4", "m-5"}, 4},
		{"id of another account", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), eq("id", "m-2")}}, []string{}, 0},
		{"id and account", msgkit.ListQuery{Filters: []msgkit.Filter{eq("id", "m-2"), eq("account", "other")}}, []string{"m-2"}, 1},
		{"unknown account", msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "nobody")}}, []string{}, 0},
		{"id and more", msgkit.ListQuery{Filters: []msgkit.Filter{eq("id", "m-1"), {Op: msgkit.OpStartsWith, Attr: "receiver", Values: []msgkit.Value{msgkit.StringValue("+49")}}}}, []string{"m-1"}, 1},
	} {
		ids, total := traceIDs(t, s, tc.q)
		if !slices.Equal(ids, tc.want) || total != tc.total {
			t.Errorf("%s: %q of %d, want %q of %d", tc.name, ids, total, tc.want, tc.total)
		}
	}
}

// A search that names neither an account nor a message id with eq is
// refused, naming the field, on every store.
func testTraceRefusal(t *testing.T, s Store) {
	traced(t, s, "m-1", "shop", "+38640123456", t0)
	for _, q := range []msgkit.ListQuery{
		{},
		{Filters: []msgkit.Filter{eq("receiver", "+38640123456")}},
		{Filters: []msgkit.Filter{{Op: msgkit.OpStartsWith, Attr: "account", Values: []msgkit.Value{msgkit.StringValue("sh")}}}},
		{Filters: []msgkit.Filter{{Op: msgkit.OpNeq, Attr: "id", Values: []msgkit.Value{msgkit.StringValue("m-2")}}}},
		{Filters: []msgkit.Filter{timeFilter(msgkit.OpGte, t0)}},
	} {
		_, err := s.TraceMessages(t.Context(), q)
		requireKind(t, err, msgkit.Invalid)
		requireErrorCode(t, err, sms.CodeTraceUnbounded)
		if e, ok := errors.AsType[*msgkit.Error](err); !ok || len(e.Fields) != 1 || e.Fields[0].Name != "account" {
			t.Errorf("refusal %v names no field account", err)
		}
	}
}

// Trace shows the message as stored, its parts with their queue fields,
// and NotFound for a message the store does not keep.
func testTraceMessage(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	stored, err := s.Message(t.Context(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Trace(t.Context(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	wantMsg := stored
	wantMsg.Parts = nil
	var parts []sms.PartRecord
	for _, p := range tr.Parts {
		parts = append(parts, p.PartRecord)
		if len(p.History) != 0 || p.SMSCConn != "" || p.SMSCID != "" {
			t.Errorf("part %d of an accepted message has history %+v, SMSC %q %q", p.Num, p.History, p.SMSCConn, p.SMSCID)
		}
	}
	if diff := gocmp.Diff(wantMsg, tr.Message, equate); diff != "" {
		t.Errorf("traced message (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(stored.Parts, parts, equate); diff != "" {
		t.Errorf("traced parts (-want +got):\n%s", diff)
	}
	if len(tr.Reports) != 0 {
		t.Errorf("reports %+v", tr.Reports)
	}
	_, err = s.Trace(t.Context(), "nope")
	requireKind(t, err, msgkit.NotFound)
	requireErrorCode(t, err, sms.CodeMessageNotFound)
}

func event(state sms.PartState, code sms.DLRError, at time.Time) sms.PartEvent {
	return sms.PartEvent{State: state, ErrorCode: code, At: at.Truncate(time.Microsecond).UTC()}
}

func setState(state sms.PartState, code sms.DLRError, at time.Time) func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
	return func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: state, ErrorCode: code, UpdatedAt: at}, true, nil
	}
}

func histories(t *testing.T, s Store, id string) [][]sms.PartEvent {
	t.Helper()
	tr, err := s.Trace(t.Context(), sms.MessageID(id))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]sms.PartEvent
	for _, p := range tr.Parts {
		out = append(out, p.History)
	}
	return out
}

// Every saved update appends the part's new state to its history, by
// UpdatePart, UpdateParts (a part changed twice in one batch gets both)
// and UpdatePartsLeasing; an update without change, a failed one and one
// after a failed change of its part append nothing.
func testTracePartHistory(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2")
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	k0, k1 := sms.PartKey{MsgID: "m-1", PartNum: 0}, sms.PartKey{MsgID: "m-1", PartNum: 1}
	if err := s.UpdatePart(t.Context(), k0, setState(sms.StateSentToSMSC, 0, at(1))); err != nil {
		t.Fatal(err)
	}
	unchanged := func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{}, false, nil
	}
	if err := s.UpdatePart(t.Context(), k1, unchanged); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	errs := s.UpdateParts(t.Context(), []sms.PartChange{
		{Key: k0, Fn: setState(sms.StateBuffered, sms.DLRAbsentSubscriber, at(2))},
		{Key: sms.PartKey{MsgID: "m-2", PartNum: 1}, Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{}, false, boom
		}},
		{Key: k0, Fn: setState(sms.StateBuffered, sms.DLRMemoryFull, at(3))},
		{Key: k1, Fn: setState(sms.StateDelivered, 0, at(3))},
		{Key: sms.PartKey{MsgID: "m-2", PartNum: 1}, Fn: setState(sms.StateDelivered, 0, at(3))},
		{Key: k0, Fn: setState(sms.StateDelivered, 0, at(4))},
	})
	for i, ok := range []bool{true, false, true, true, false, true} {
		if (errs[i] == nil) != ok {
			t.Fatalf("change %d: %v", i, errs[i])
		}
	}
	errs, _ = s.UpdatePartsLeasing(t.Context(), []sms.PartChange{
		{Key: sms.PartKey{MsgID: "m-2", PartNum: 0}, Fn: setState(sms.StateRejected, 989, at(5))},
		{Key: sms.PartKey{MsgID: "m-2", PartNum: 0}, Fn: setState(sms.StateDelivered, 0, at(6))}, // a final state is changed all the same
	}, at(7), 10)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("leasing change %d: %v", i, err)
		}
	}
	want := [][]sms.PartEvent{
		{event(sms.StateSentToSMSC, 0, at(1)), event(sms.StateBuffered, sms.DLRAbsentSubscriber, at(2)),
			event(sms.StateBuffered, sms.DLRMemoryFull, at(3)), event(sms.StateDelivered, 0, at(4))},
		{event(sms.StateDelivered, 0, at(3))},
	}
	if diff := gocmp.Diff(want, histories(t, s, "m-1"), equate); diff != "" {
		t.Errorf("m-1's histories (-want +got):\n%s", diff)
	}
	want = [][]sms.PartEvent{{event(sms.StateRejected, 989, at(5)), event(sms.StateDelivered, 0, at(6))}, nil}
	if diff := gocmp.Diff(want, histories(t, s, "m-2"), equate); diff != "" {
		t.Errorf("m-2's histories (-want +got):\n%s", diff)
	}
}

// A part's history keeps its first event and the latest
// sms.MaxPartEvents-1, whether the events come one by one or in a batch.
func testTraceHistoryBound(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	var all []sms.PartEvent
	var batch []sms.PartChange
	key := sms.PartKey{MsgID: "m-1", PartNum: 0}
	for n := 1; n <= 3*sms.MaxPartEvents; n++ {
		all = append(all, event(sms.StateBuffered, sms.DLRError(n), at(n)))
		switch {
		case n <= 5 || n > 2*sms.MaxPartEvents:
			if err := s.UpdatePart(t.Context(), key, setState(sms.StateBuffered, sms.DLRError(n), at(n))); err != nil {
				t.Fatal(err)
			}
		default:
			batch = append(batch, sms.PartChange{Key: key, Fn: setState(sms.StateBuffered, sms.DLRError(n), at(n))})
			if n == 2*sms.MaxPartEvents { // one batch of more events than the bound
				for i, err := range s.UpdateParts(t.Context(), batch) {
					if err != nil {
						t.Fatalf("change %d: %v", i, err)
					}
				}
			}
		}
	}
	want := sms.AppendPartEvents(nil, all...)
	if len(want) != sms.MaxPartEvents || want[0] != all[0] || want[len(want)-1] != all[len(all)-1] {
		t.Fatalf("AppendPartEvents kept %+v", want)
	}
	if diff := gocmp.Diff(want, histories(t, s, "m-1")[0], equate); diff != "" {
		t.Errorf("bounded history (-want +got):\n%s", diff)
	}

	// A batch alone longer than the bound, on a fresh part.
	batch = nil
	for n := 1; n <= sms.MaxPartEvents+3; n++ {
		batch = append(batch, sms.PartChange{Key: sms.PartKey{MsgID: "m-1", PartNum: 1}, Fn: setState(sms.StateBuffered, sms.DLRError(n), at(n))})
	}
	for i, err := range s.UpdateParts(t.Context(), batch) {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	h := histories(t, s, "m-1")[1]
	if len(h) != sms.MaxPartEvents || h[0].ErrorCode != 1 || h[1].ErrorCode != 5 || h[len(h)-1].ErrorCode != sms.DLRError(sms.MaxPartEvents+3) {
		t.Errorf("a batch's bounded history %+v", h)
	}
}

// FinishReports appends an attempt where a report's attempts grew: its
// time and error, the error cut to sms.MaxAttemptError bytes; a report
// given back records none, and the attempts are bounded as a part's
// history is. Finished reports stay in the trace with their attempts.
func testTraceReportAttempts(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	at := t0.Add(time.Minute)
	queue(t, s, "m-1", 0, sms.StateSentToSMSC, report("m-1", 0, "a", at))
	queue(t, s, "m-1", 1, sms.StateSentToSMSC, report("m-1", 1, "b", at))
	claim := func(now time.Time) map[string]sms.Report {
		t.Helper()
		got, err := s.ClaimReports(t.Context(), now, time.Minute, 10)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]sms.Report{}
		for _, r := range got {
			out[string(r.Body)] = r
		}
		return out
	}
	finish := func(rs ...sms.Report) {
		t.Helper()
		for i, err := range s.FinishReports(t.Context(), rs) {
			if err != nil {
				t.Fatalf("report %d: %v", i, err)
			}
		}
	}
	long := strings.Repeat("é", sms.MaxAttemptError) // 2 bytes each
	c := claim(at)
	a, b := c["a"], c["b"]
	a.Attempts, a.AttemptedAt, a.NextAt, a.LastError = 1, at.Add(time.Second), at.Add(time.Minute), "the report URL answered 503"
	b.Attempts, b.AttemptedAt, b.NextAt, b.LastError = 1, at.Add(2*time.Second), at.Add(time.Minute), long
	finish(a, b)
	c = claim(at.Add(time.Minute))
	a = c["a"]
	a.NextAt = at.Add(2 * time.Minute) // given back: no attempt
	b = c["b"]
	b.State, b.Attempts, b.AttemptedAt, b.LastError = sms.ReportDelivered, 2, at.Add(time.Minute+time.Second), ""
	finish(a, b)
	for n := 2; n <= sms.MaxReportAttempts+4; n++ {
		a = claim(at.Add(time.Duration(n) * time.Minute))["a"]
		a.Attempts, a.AttemptedAt, a.NextAt, a.LastError = n, at.Add(time.Duration(n)*time.Minute), at.Add(time.Duration(n+1)*time.Minute), fmt.Sprintf("attempt %d", n)
		if n == sms.MaxReportAttempts+4 {
			a.State = sms.ReportGivenUp
		}
		finish(a)
	}

	tr, err := s.Trace(t.Context(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Reports) != 2 || string(tr.Reports[0].Body) != "a" || string(tr.Reports[1].Body) != "b" {
		t.Fatalf("reports %+v", tr.Reports)
	}
	ra, rb := tr.Reports[0], tr.Reports[1]
	us := func(d time.Time) time.Time { return d.Truncate(time.Microsecond).UTC() }
	wantB := []sms.ReportAttempt{{At: us(at.Add(2 * time.Second)), Error: long[:sms.MaxAttemptError]}, {At: us(at.Add(time.Minute + time.Second))}}
	if diff := gocmp.Diff(wantB, rb.Log, equate); diff != "" || rb.State != sms.ReportDelivered || rb.Attempts != 2 {
		t.Errorf("b: %+v; attempts (-want +got):\n%s", rb.Report, diff)
	}
	var all []sms.ReportAttempt
	all = append(all, sms.ReportAttempt{At: us(at.Add(time.Second)), Error: "the report URL answered 503"})
	for n := 2; n <= sms.MaxReportAttempts+4; n++ {
		all = append(all, sms.ReportAttempt{At: us(at.Add(time.Duration(n) * time.Minute)), Error: fmt.Sprintf("attempt %d", n)})
	}
	var wantA []sms.ReportAttempt
	for _, x := range all {
		wantA = sms.AppendReportAttempt(wantA, x)
	}
	if diff := gocmp.Diff(wantA, ra.Log, equate); diff != "" || len(ra.Log) != sms.MaxReportAttempts || ra.State != sms.ReportGivenUp {
		t.Errorf("a: %+v; attempts (-want +got):\n%s", ra.Report, diff)
	}
}

// The Tracer masks receivers unless the view shows numbers; filtering
// by receiver takes the full number either way, and a masked view
// searches receivers by the whole number only.
func testTraceMasking(t *testing.T, s Store) {
	traced(t, s, "m-1", "shop", "+38640123456", t0)
	tracer := sms.NewTracer(s, sms.TracerOptions{})
	q := msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), eq("receiver", "+38640123456")}}
	for _, tc := range []struct {
		view sms.TraceView
		want sms.MSISDN
	}{{sms.TraceView{}, "+38640****56"}, {sms.TraceView{Numbers: true}, "+38640123456"}} {
		page, err := tracer.Messages(t.Context(), q, tc.view)
		if err != nil || len(page.Items) != 1 || page.Items[0].Receiver != tc.want {
			t.Errorf("view %+v: %+v, %v; want receiver %s", tc.view, page, err, tc.want)
		}
		tr, err := tracer.Trace(t.Context(), "m-1", tc.view)
		if err != nil || tr.Message.Receiver != tc.want {
			t.Errorf("view %+v: trace receiver %s, %v; want %s", tc.view, tr.Message.Receiver, err, tc.want)
		}
		for _, p := range tr.Parts {
			if p.Text != "" || p.Data != nil {
				t.Errorf("the trace shows part %d's content", p.Num)
			}
		}
	}
	probe := msgkit.ListQuery{Filters: []msgkit.Filter{eq("account", "shop"), {Op: msgkit.OpStartsWith, Attr: "receiver", Values: []msgkit.Value{msgkit.StringValue("+3864012")}}}}
	_, err := tracer.Messages(t.Context(), probe, sms.TraceView{})
	requireKind(t, err, msgkit.Invalid)
	requireErrorCode(t, err, sms.CodeTraceReceiverMasked)
	if page, err := tracer.Messages(t.Context(), probe, sms.TraceView{Numbers: true}); err != nil || len(page.Items) != 1 {
		t.Errorf("a view with numbers searched by a prefix: %+v, %v", page, err)
	}
}
