package smstest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func retentionTests() []storeTest {
	return []storeTest{
		{"ForgetFinished", testForgetFinished},
		{"ForgetFinishedAfterItsReports", testForgetAfterReports},
	}
}

// FinishMessage moves every part of message id to state at at, in one
// UpdateParts call, each part queueing a pending report when reported
// is true. The store's tests and benchmarks of retention use it.
func FinishMessage(tb testing.TB, s sms.Store, id string, parts int, state sms.PartState, at time.Time, reported bool) {
	tb.Helper()
	changes := make([]sms.PartChange, parts)
	for num := range parts {
		changes[num] = sms.PartChange{Key: sms.PartKey{MsgID: sms.MessageID(id), PartNum: num}, Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			u := sms.PartUpdate{State: state, UpdatedAt: at}
			if reported {
				u.Reports = []sms.Report{report(id, num, state.String(), at)}
			}
			return u, true, nil
		}}
	}
	for i, err := range s.UpdateParts(tb.Context(), changes) {
		if err != nil {
			tb.Fatalf("finishing part %d of %s: %v", i, id, err)
		}
	}
}

// present lists the ids that are stored, in their order.
func present(t *testing.T, s sms.Store, ids ...string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		switch _, err := s.Message(t.Context(), sms.MessageID(id)); {
		case err == nil:
			out = append(out, id)
		case !errors.Is(err, msgkit.NotFound):
			t.Fatal(err)
		}
	}
	return out
}

func forget(t *testing.T, s Store, before time.Time, limit int) int {
	t.Helper()
	n, err := s.ForgetFinished(t.Context(), before, limit)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The rule: a message leaves once every part is final, its last update
// is before the cutoff and no report of it is pending; the limit bounds
// a call; a repeat finds nothing more. (The times stay within memstore's
// default KeepFinishedFor, so that its own trimming removes nothing
// here.)
func testForgetFinished(t *testing.T, s Store) {
	accepted(t, s, "old-1", "old-2", "old-3", "open", "buffered", "pending", "new", "edge")
	cutoff := t0.Add(30 * time.Minute)
	early := t0.Add(time.Minute)
	FinishMessage(t, s, "old-1", 2, sms.StateDelivered, early, false)
	FinishMessage(t, s, "old-2", 2, sms.StateUndelivered, early.Add(time.Second), false)
	FinishMessage(t, s, "old-3", 2, sms.StateRejected, early.Add(2*time.Second), false)
	queue(t, s, "open", 0, sms.StateDelivered) // part 1 still submitted
	FinishMessage(t, s, "buffered", 2, sms.StateBuffered, early, false)
	FinishMessage(t, s, "pending", 2, sms.StateDelivered, early, true)
	FinishMessage(t, s, "new", 2, sms.StateDelivered, cutoff.Add(time.Minute), false)
	FinishMessage(t, s, "edge", 2, sms.StateDelivered, cutoff, false) // not before the cutoff
	all := []string{"old-1", "old-2", "old-3", "open", "buffered", "pending", "new", "edge"}

	if n := forget(t, s, cutoff, 0); n != 0 {
		t.Errorf("limit 0 removed %d", n)
	}
	if n := forget(t, s, cutoff, 2); n != 2 {
		t.Errorf("limit 2 removed %d", n)
	}
	if got := present(t, s, all...); len(got) != len(all)-2 {
		t.Errorf("after a call of limit 2: %v", got)
	}
	if n := forget(t, s, cutoff, 10); n != 1 {
		t.Errorf("the second call removed %d, want the last old one", n)
	}
	if n := forget(t, s, cutoff, 10); n != 0 {
		t.Errorf("a repeat removed %d", n)
	}
	if got, want := fmt.Sprint(present(t, s, all...)), "[open buffered pending new edge]"; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
	// The parts went with their message: a late report finds none.
	for _, id := range []string{"old-1", "old-2", "old-3"} {
		err := s.UpdatePart(t.Context(), sms.PartKey{MsgID: sms.MessageID(id), PartNum: 1}, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: cutoff}, true, nil
		})
		requireKind(t, err, msgkit.NotFound)
	}
	// The pending reports stay to be delivered.
	got, err := s.ClaimReports(t.Context(), cutoff, time.Minute, 10)
	if err != nil || len(got) != 2 || got[0].MsgID != "pending" || got[1].MsgID != "pending" {
		t.Errorf("claimed %+v, %v; want the two reports of pending", got, err)
	}
	// A later cutoff takes the newer messages too, never the open ones.
	if n := forget(t, s, cutoff.Add(time.Hour), 10); n != 2 {
		t.Errorf("a later cutoff removed %d, want new and edge", n)
	}
	if got, want := fmt.Sprint(present(t, s, all...)), "[open buffered pending]"; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
}

// A message whose reports were pending leaves once they are delivered or
// given up, and a retried report keeps it.
func testForgetAfterReports(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2")
	at := t0.Add(time.Minute)
	FinishMessage(t, s, "m-1", 2, sms.StateDelivered, at, true)
	FinishMessage(t, s, "m-2", 2, sms.StateUndelivered, at, true)
	cutoff := at.Add(time.Minute)
	claimed, err := s.ClaimReports(t.Context(), at, time.Minute, 10)
	if err != nil || len(claimed) != 4 {
		t.Fatalf("claimed %+v, %v", claimed, err)
	}
	var done []sms.Report
	for _, r := range claimed {
		switch {
		case r.MsgID == "m-2" && r.PartNum == 1:
			r.Attempts, r.NextAt, r.LastError = 1, cutoff, "503" // to try again
		case r.PartNum == 0:
			r.State, r.Attempts = sms.ReportDelivered, 1
		default:
			r.State, r.Attempts, r.LastError = sms.ReportGivenUp, 1, "404"
		}
		done = append(done, r)
	}
	for i, err := range s.FinishReports(t.Context(), done) {
		if err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
	}
	if n := forget(t, s, cutoff, 10); n != 1 {
		t.Errorf("removed %d, want m-1 (m-2 has a report to try again)", n)
	}
	if got, want := fmt.Sprint(present(t, s, "m-1", "m-2")), "[m-2]"; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
	again, err := s.ClaimReports(t.Context(), cutoff, time.Minute, 10)
	if err != nil || len(again) != 1 || again[0].MsgID != "m-2" {
		t.Fatalf("claimed %+v, %v", again, err)
	}
	again[0].State, again[0].Attempts = sms.ReportDelivered, 2
	if errs := s.FinishReports(t.Context(), again); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if n := forget(t, s, cutoff, 10); n != 1 {
		t.Errorf("removed %d once m-2's report was delivered, want 1", n)
	}
	if got := present(t, s, "m-1", "m-2"); len(got) != 0 {
		t.Errorf("stored %v", got)
	}
}
