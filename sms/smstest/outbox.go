package smstest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func outboxTests() []storeTest {
	return []storeTest{
		{"UpdatePartQueuesReports", testUpdatePart},
		{"UpdatePartWithoutChange", testUpdatePartWithoutChange},
		{"UpdateParts", testUpdateParts},
		{"ExpiredParts", testExpiredParts},
		{"ClaimKeepsOrderPerPart", testClaimOrder},
		{"ClaimLeases", testClaimLeases},
		{"UpdatePartsLeasing", testUpdatePartsLeasing},
		{"FinishReports", testFinishReports},
		{"ConcurrentClaims", testConcurrentClaims},
	}
}

// accepted stores an account and the message id with two parts.
func accepted(t *testing.T, s sms.Store, ids ...string) {
	t.Helper()
	if _, err := s.Account(t.Context(), "shop"); errors.Is(err, msgkit.NotFound) {
		if err := s.CreateAccount(t.Context(), Account("shop", "1000")); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if err := s.Accept(t.Context(), Message(id, "shop", "0.01")); err != nil {
			t.Fatal(err)
		}
	}
}

func report(id string, part int, body string, at time.Time) sms.Report {
	return sms.Report{MsgID: sms.MessageID(id), PartNum: part, URL: "https://example.com/dlr", Body: []byte(body), State: sms.ReportPending, NextAt: at, CreatedAt: at}
}

// queue queues reports for a part by moving it to the given state.
func queue(t *testing.T, s sms.Store, id string, part int, state sms.PartState, reports ...sms.Report) {
	t.Helper()
	err := s.UpdatePart(t.Context(), sms.PartKey{MsgID: sms.MessageID(id), PartNum: part}, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: state, UpdatedAt: t0.Add(time.Minute), Reports: reports}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testUpdatePart(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	key := sms.PartKey{MsgID: "m-1", PartNum: 1}
	at := t0.Add(time.Minute)
	err := s.UpdatePart(t.Context(), key, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		if m.ID != "m-1" || len(m.Parts) != 2 || p.Num != 1 || p.State != sms.StateSubmitted || string(m.Custom) == "" || m.DLRURL == "" {
			return sms.PartUpdate{}, false, fmt.Errorf("fn got message %+v, part %+v", m, p)
		}
		return sms.PartUpdate{
			State: sms.StateUndelivered, ErrorCode: 1, UpdatedAt: at,
			Reports: []sms.Report{report("m-1", 1, `{"event":"UNDELIVERED"}`, at)},
		}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Message(t.Context(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Parts[1]; p.State != sms.StateUndelivered || p.ErrorCode != 1 || !p.UpdatedAt.Equal(at.Truncate(time.Microsecond)) {
		t.Errorf("part after update %+v", p)
	}
	if m.Parts[0].State != sms.StateSubmitted {
		t.Errorf("the other part changed: %+v", m.Parts[0])
	}
	got, err := s.ClaimReports(t.Context(), at, time.Minute, 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("ClaimReports = %+v, %v", got, err)
	}
	want := report("m-1", 1, `{"event":"UNDELIVERED"}`, at.Truncate(time.Microsecond).UTC())
	want.ID = got[0].ID
	if got[0].ID <= 0 {
		t.Errorf("report id %d", got[0].ID)
	}
	if diff := gocmp.Diff(want, got[0], equate); diff != "" {
		t.Errorf("claimed report (-want +got):\n%s", diff)
	}
	done := got[0]
	done.State, done.Attempts = sms.ReportDelivered, 1
	if err := s.FinishReport(t.Context(), done); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.ClaimReports(t.Context(), at.Add(time.Hour), time.Minute, 10); len(again) != 0 {
		t.Errorf("a delivered report is claimed again: %+v", again)
	}
	counts, err := s.ReportCounts(t.Context())
	if err != nil || counts[sms.ReportDelivered] != 1 || counts[sms.ReportPending] != 0 {
		t.Errorf("counts %v, %v", counts, err)
	}
	missing := done
	missing.ID = done.ID + 1000
	err = s.FinishReport(t.Context(), missing)
	requireKind(t, err, msgkit.NotFound)
	requireErrorCode(t, err, sms.CodeReportNotFound)
}

func testUpdateParts(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2")
	at := t0.Add(time.Minute)
	move := func(to sms.PartState, body string, from sms.PartState) func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
			if p.State != from || len(m.Parts) != 2 {
				return sms.PartUpdate{}, false, fmt.Errorf("part %s/%d is %v of %d, want %v", m.ID, p.Num, p.State, len(m.Parts), from)
			}
			return sms.PartUpdate{State: to, UpdatedAt: at, Reports: []sms.Report{report(string(m.ID), p.Num, body, at)}}, true, nil
		}
	}
	boom := errors.New("boom")
	key := func(id string, num int) sms.PartKey { return sms.PartKey{MsgID: sms.MessageID(id), PartNum: num} }
	errs := s.UpdateParts(t.Context(), []sms.PartChange{
		{Key: key("m-1", 0), Fn: move(sms.StateSentToSMSC, `{"n":1}`, sms.StateSubmitted)},
		{Key: key("m-2", 1), Fn: move(sms.StateDelivered, `{"n":2}`, sms.StateSubmitted)},
		{Key: key("m-1", 0), Fn: move(sms.StateDelivered, `{"n":3}`, sms.StateSentToSMSC)}, // sees the first change
		{Key: key("nope", 0), Fn: move(sms.StateDelivered, `{}`, sms.StateSubmitted)},
		{Key: key("m-1", 1), Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{}, false, boom
		}},
		{Key: key("m-1", 1), Fn: move(sms.StateDelivered, `{"n":4}`, sms.StateSubmitted)}, // after a failed change of its part
		{Key: key("m-2", 0), Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{}, false, nil
		}},
	})
	if len(errs) != 7 {
		t.Fatalf("%d errors for 7 changes", len(errs))
	}
	for i, ok := range []bool{true, true, true, false, false, false, true} {
		if (errs[i] == nil) != ok {
			t.Errorf("change %d: %v", i, errs[i])
		}
	}
	if !errors.Is(errs[3], msgkit.NotFound) || !errors.Is(errs[4], boom) ||
		!errors.Is(errs[5], sms.ErrEarlierChangeFailed) || !errors.Is(errs[5], boom) {
		t.Errorf("errors %v", errs)
	}
	for _, want := range []struct {
		id     string
		num    int
		state  sms.PartState
		queued bool
	}{{"m-1", 0, sms.StateDelivered, false}, {"m-1", 1, sms.StateSubmitted, true}, {"m-2", 0, sms.StateSubmitted, true}, {"m-2", 1, sms.StateDelivered, false}} {
		if p := part(t, s, want.id, want.num); p.State != want.state || p.SendAt.IsZero() == want.queued {
			t.Errorf("part %s/%d is %v, queued at %v; want %v, queued %v", want.id, want.num, p.State, p.SendAt, want.state, want.queued)
		}
	}
	// The reports follow the changes' order: of each part the oldest is
	// claimed first.
	var bodies []string
	for range 3 {
		got, err := s.ClaimReports(t.Context(), at, time.Minute, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			bodies = append(bodies, fmt.Sprintf("%s/%d %s", r.MsgID, r.PartNum, r.Body))
			r.State, r.Attempts = sms.ReportDelivered, 1
			if err := s.FinishReport(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(bodies[:min(2, len(bodies))])
	if want := []string{`m-1/0 {"n":1}`, `m-2/1 {"n":2}`, `m-1/0 {"n":3}`}; !slices.Equal(bodies, want) {
		t.Errorf("reports claimed %q, want %q", bodies, want)
	}
}

func testUpdatePartWithoutChange(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	key := sms.PartKey{MsgID: "m-1", PartNum: 0}
	unchanged := func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateDelivered, Reports: []sms.Report{report("m-1", 0, "{}", t0)}}, false, nil
	}
	if err := s.UpdatePart(t.Context(), key, unchanged); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	failing := func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateDelivered, Reports: []sms.Report{report("m-1", 0, "{}", t0)}}, true, boom
	}
	if err := s.UpdatePart(t.Context(), key, failing); !errors.Is(err, boom) {
		t.Fatalf("fn's error is not returned: %v", err)
	}
	m, _ := s.Message(t.Context(), "m-1")
	if m.Parts[0].State != sms.StateSubmitted {
		t.Errorf("an update without change or with an error was saved: %+v", m.Parts[0])
	}
	if got, _ := s.ClaimReports(t.Context(), t0.Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Errorf("reports of an update without change were queued: %+v", got)
	}
	for _, k := range []sms.PartKey{{MsgID: "m-1", PartNum: 2}, {MsgID: "nope", PartNum: 0}} {
		err := s.UpdatePart(t.Context(), k, unchanged)
		requireKind(t, err, msgkit.NotFound)
		requireErrorCode(t, err, sms.CodePartNotFound)
	}
}

func testExpiredParts(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2") // both expire at t0 + 24 h
	queue(t, s, "m-1", 0, sms.StateDelivered)
	queue(t, s, "m-2", 1, sms.StateBuffered)
	if got, err := s.ExpiredParts(t.Context(), t0.Add(24*time.Hour-time.Microsecond), 10); err != nil || len(got) != 0 {
		t.Fatalf("before expiry: %v, %v", got, err)
	}
	got, err := s.ExpiredParts(t.Context(), t0.Add(24*time.Hour), 10)
	want := []sms.PartKey{{MsgID: "m-1", PartNum: 1}, {MsgID: "m-2", PartNum: 0}, {MsgID: "m-2", PartNum: 1}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ExpiredParts = %v, %v; want %v (final parts excluded)", got, err, want)
	}
	if got, _ := s.ExpiredParts(t.Context(), t0.Add(48*time.Hour), 2); len(got) != 2 {
		t.Errorf("limit 2 gave %d", len(got))
	}
}

func testClaimOrder(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	at := t0.Add(time.Minute)
	queue(t, s, "m-1", 0, sms.StateSentToSMSC, report("m-1", 0, "first", at))
	queue(t, s, "m-1", 0, sms.StateDelivered, report("m-1", 0, "second", at))
	queue(t, s, "m-1", 1, sms.StateSentToSMSC, report("m-1", 1, "other part", at))
	got, err := s.ClaimReports(t.Context(), at, time.Hour, 10)
	if err != nil {
		t.Fatal(err)
	}
	bodies := func(rs []sms.Report) []string {
		var out []string
		for _, r := range rs {
			out = append(out, string(r.Body))
		}
		slices.Sort(out)
		return out
	}
	if b := bodies(got); !slices.Equal(b, []string{"first", "other part"}) {
		t.Fatalf("claimed %v; a part's second report must wait for its first", b)
	}
	// A retry of the first still holds the second back.
	first := got[slices.IndexFunc(got, func(r sms.Report) bool { return string(r.Body) == "first" })]
	first.Attempts, first.NextAt, first.LastError = 1, at.Add(time.Minute), "503"
	if err := s.FinishReport(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimReports(t.Context(), at.Add(30*time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed %v while the first report waits for its retry", bodies(got))
	}
	got, _ = s.ClaimReports(t.Context(), at.Add(time.Minute), time.Minute, 10)
	if b := bodies(got); !slices.Equal(b, []string{"first"}) || got[0].Attempts != 1 || got[0].LastError != "503" {
		t.Fatalf("retry claimed %v %+v", b, got)
	}
	got[0].State = sms.ReportGivenUp
	if err := s.FinishReport(t.Context(), got[0]); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ClaimReports(t.Context(), at.Add(time.Minute), time.Minute, 10)
	if b := bodies(got); !slices.Equal(b, []string{"second"}) {
		t.Fatalf("after the first was given up, claimed %v", b)
	}
	counts, _ := s.ReportCounts(t.Context())
	if counts[sms.ReportGivenUp] != 1 || counts[sms.ReportPending] != 2 {
		t.Errorf("counts %v", counts)
	}
}

func testClaimLeases(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	at := t0.Add(time.Minute)
	queue(t, s, "m-1", 0, sms.StateSentToSMSC, report("m-1", 0, "r", at))
	if got, _ := s.ClaimReports(t.Context(), at.Add(-time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatal("a report was claimed before it was due")
	}
	if got, _ := s.ClaimReports(t.Context(), at, time.Minute, 10); len(got) != 1 {
		t.Fatal("a due report was not claimed")
	}
	if got, _ := s.ClaimReports(t.Context(), at.Add(59*time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatal("a leased report was claimed again")
	}
	if got, _ := s.ClaimReports(t.Context(), at.Add(time.Minute), time.Minute, 10); len(got) != 1 {
		t.Fatal("a report whose lease ended (its claimer died) was not claimed again")
	}
}

// UpdatePartsLeasing leases, in queueing order and up to its limit, the
// reports that are their part's oldest pending one: not a part's second
// report of the call, nor one behind a report stored before. Leased
// reports come back with their ids, no claim takes them until the lease
// ends, and FinishReports ends the lease as it does a claim's.
func testUpdatePartsLeasing(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2", "m-3")
	at := t0.Add(time.Minute)
	until := at.Add(time.Minute)
	queue(t, s, "m-3", 0, sms.StateSentToSMSC, report("m-3", 0, "stored before", at))
	change := func(id string, part int, to sms.PartState, bodies ...string) sms.PartChange {
		return sms.PartChange{Key: sms.PartKey{MsgID: sms.MessageID(id), PartNum: part}, Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			u := sms.PartUpdate{State: to, UpdatedAt: at}
			for _, b := range bodies {
				u.Reports = append(u.Reports, report(id, part, b, at))
			}
			return u, true, nil
		}}
	}
	errs, leased := s.UpdatePartsLeasing(t.Context(), []sms.PartChange{
		change("m-1", 0, sms.StateSentToSMSC, "m-1/0 a", "m-1/0 b"), // b: the part's second
		change("m-3", 0, sms.StateDelivered, "m-3/0"),               // behind the report stored before
		change("m-1", 1, sms.StateDelivered, "m-1/1"),
		change("m-2", 0, sms.StateDelivered, "m-2/0"),
		change("m-2", 1, sms.StateDelivered, "m-2/1"), // past the limit
	}, until, 3)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	var bodies []string
	for i, r := range leased {
		bodies = append(bodies, string(r.Body))
		want := report(string(r.MsgID), r.PartNum, string(r.Body), at.Truncate(time.Microsecond).UTC())
		want.ID = r.ID
		if diff := gocmp.Diff(want, r, equate); diff != "" || r.ID <= 0 || i > 0 && r.ID <= leased[i-1].ID {
			t.Errorf("leased report %d (-want +got):\n%s (id %d)", i, diff, r.ID)
		}
	}
	if want := []string{"m-1/0 a", "m-1/1", "m-2/0"}; !slices.Equal(bodies, want) {
		t.Fatalf("leased %q, want %q", bodies, want)
	}

	claimed := func(now time.Time) []string {
		got, err := s.ClaimReports(t.Context(), now, time.Hour, 20)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, string(r.Body))
		}
		slices.Sort(out)
		return out
	}
	// While the leases run, a claim gets the others: the first report of
	// m-3/0 and m-2/1, whose parts have nothing older pending.
	if got, want := claimed(at), []string{"m-2/1", "stored before"}; !slices.Equal(got, want) {
		t.Fatalf("claimed %q while the leases run, want %q", got, want)
	}
	// Finishing a leased report lets its part's next one go.
	done := leased[0]
	done.State, done.Attempts = sms.ReportDelivered, 1
	if err := s.FinishReports(t.Context(), []sms.Report{done, leased[1]})[0]; err != nil {
		t.Fatal(err)
	}
	if got, want := claimed(at), []string{"m-1/0 b", "m-1/1"}; !slices.Equal(got, want) {
		t.Fatalf("claimed %q after finishing m-1/0 a and giving m-1/1 back, want %q", got, want)
	}
	// A lease that runs out is taken over, as a claim's.
	if got, want := claimed(until), []string{"m-2/0"}; !slices.Equal(got, want) {
		t.Fatalf("claimed %q at the leases' end, want %q", got, want)
	}
	if _, leased := s.UpdatePartsLeasing(t.Context(), []sms.PartChange{change("m-3", 1, sms.StateDelivered, "m-3/1")}, until, 0); len(leased) != 0 {
		t.Errorf("a limit of zero leased %d reports", len(leased))
	}
}

func testConcurrentClaims(t *testing.T, s Store) {
	const msgs = 20
	at := t0.Add(time.Minute)
	for i := range msgs {
		id := fmt.Sprintf("m-%d", i)
		accepted(t, s, id)
		queue(t, s, id, 0, sms.StateSentToSMSC, report(id, 0, id+"/0", at))
		queue(t, s, id, 1, sms.StateSentToSMSC, report(id, 1, id+"/1", at))
	}
	seen := claimConcurrently(t, func() ([]string, error) {
		got, err := s.ClaimReports(t.Context(), at, time.Hour, 3)
		ids := make([]string, len(got))
		for i, r := range got {
			ids[i] = fmt.Sprint(r.ID)
		}
		return ids, err
	})
	if len(seen) != 2*msgs {
		t.Errorf("%d reports claimed, want %d", len(seen), 2*msgs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("report %s claimed %d times", id, n)
		}
	}
}

// claimConcurrently runs claim from four goroutines until it finds
// nothing, and counts how often each thing was claimed.
func claimConcurrently(t *testing.T, claim func() ([]string, error)) map[string]int {
	var (
		mu   sync.Mutex
		seen = map[string]int{}
		wg   sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for {
				got, err := claim()
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, k := range got {
					seen[k]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return seen
}

// FinishReports records each report as if finished on its own, in order:
// the same report twice, unknown and already finished ones included.
func testFinishReports(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2")
	at := t0.Add(time.Minute)
	queue(t, s, "m-1", 0, sms.StateSentToSMSC, report("m-1", 0, "a", at))
	queue(t, s, "m-1", 1, sms.StateSentToSMSC, report("m-1", 1, "b", at))
	queue(t, s, "m-2", 0, sms.StateSentToSMSC, report("m-2", 0, "c", at))
	got, err := s.ClaimReports(t.Context(), at, time.Hour, 10)
	if err != nil || len(got) != 3 {
		t.Fatalf("claimed %+v, %v", got, err)
	}
	byBody := map[string]sms.Report{}
	for _, r := range got {
		byBody[string(r.Body)] = r
	}
	a, b, c := byBody["a"], byBody["b"], byBody["c"]
	a.State, a.Attempts = sms.ReportDelivered, 1
	retry := b
	retry.Attempts, retry.NextAt, retry.LastError = 1, at.Add(time.Minute), "503"
	b.State, b.Attempts = sms.ReportDelivered, 2
	c.State, c.Attempts, c.LastError = sms.ReportGivenUp, 1, "404"
	missing := a
	missing.ID = a.ID + c.ID + b.ID + 1000
	errs := s.FinishReports(t.Context(), []sms.Report{a, retry, missing, b, c, a})
	if len(errs) != 6 {
		t.Fatalf("%d errors for 6 reports", len(errs))
	}
	for i, notFound := range []bool{false, false, true, false, false, true} {
		if notFound {
			requireKind(t, errs[i], msgkit.NotFound)
		} else if errs[i] != nil {
			t.Errorf("report %d: %v", i, errs[i])
		}
	}
	counts, err := s.ReportCounts(t.Context())
	if err != nil || counts[sms.ReportDelivered] != 2 || counts[sms.ReportGivenUp] != 1 || counts[sms.ReportPending] != 0 {
		t.Errorf("counts %v, %v; the retry then the delivery of b leave it delivered", counts, err)
	}

	// A retry ends the lease: the report is due again at its NextAt.
	queue(t, s, "m-2", 1, sms.StateSentToSMSC, report("m-2", 1, "d", at))
	got, _ = s.ClaimReports(t.Context(), at, time.Hour, 10)
	if len(got) != 1 {
		t.Fatalf("claimed %+v", got)
	}
	d := got[0]
	d.Attempts, d.NextAt, d.LastError = 1, at.Add(time.Minute), "timeout"
	if errs := s.FinishReports(t.Context(), []sms.Report{d}); len(errs) != 1 || errs[0] != nil {
		t.Fatalf("errors %v", errs)
	}
	if got, _ := s.ClaimReports(t.Context(), at.Add(30*time.Second), time.Hour, 10); len(got) != 0 {
		t.Fatalf("claimed %+v before its retry", got)
	}
	got, _ = s.ClaimReports(t.Context(), at.Add(time.Minute), time.Hour, 10)
	if len(got) != 1 || got[0].Attempts != 1 || got[0].LastError != "timeout" || string(got[0].Body) != "d" {
		t.Fatalf("the retry claimed %+v", got)
	}
	if errs := s.FinishReports(t.Context(), nil); len(errs) != 0 {
		t.Errorf("errors %v for no reports", errs)
	}
}
