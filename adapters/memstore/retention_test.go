package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// accept stores a two-part message of shop, submitted at t0.
func accept(tb testing.TB, s *memstore.SMSStore, id string) {
	tb.Helper()
	m := smstest.Message(id, "shop", "0.0001")
	m.SubmittedAt, m.ExpiresAt = t0, t0.Add(24*time.Hour)
	if err := s.Accept(context.Background(), m); err != nil {
		tb.Fatal(err)
	}
}

// finish delivers both parts of message id at at.
func finish(tb testing.TB, s *memstore.SMSStore, id string, at time.Time) {
	tb.Helper()
	for num := range 2 {
		err := s.UpdatePart(context.Background(), sms.PartKey{MsgID: sms.MessageID(id), PartNum: num}, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: at}, true, nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

func newShop(tb testing.TB, o memstore.Options) *memstore.SMSStore {
	tb.Helper()
	s := memstore.NewWith(o).SMS()
	if err := s.CreateAccount(context.Background(), smstest.Account("shop", "1000000000")); err != nil {
		tb.Fatal(err)
	}
	return s
}

func stored(t *testing.T, s *memstore.SMSStore, ids ...string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		_, err := s.Message(t.Context(), sms.MessageID(id))
		switch {
		case err == nil:
			out = append(out, id)
		case !errors.Is(err, msgkit.NotFound):
			t.Fatal(err)
		}
	}
	return out
}

// Beyond KeepFinished, the messages that finished first leave; messages
// in flight stay however old, and a late update of a message gone is
// NotFound.
func TestKeepFinished(t *testing.T) {
	s := newShop(t, memstore.Options{KeepFinished: 2})
	for _, id := range []string{"open", "m1", "m2", "m3", "m4"} {
		accept(t, s, id)
	}
	for i, id := range []string{"m2", "m1", "m3", "m4"} { // finishing order, not acceptance order, decides
		finish(t, s, id, t0.Add(time.Duration(i)*time.Second))
	}
	if got, want := fmt.Sprint(stored(t, s, "open", "m1", "m2", "m3", "m4")), "[open m3 m4]"; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
	err := s.UpdatePart(t.Context(), sms.PartKey{MsgID: "m1"}, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t0}, true, nil
	})
	if !errors.Is(err, msgkit.NotFound) {
		t.Errorf("late update of a message gone: %v, want NotFound", err)
	}
}

// A finished message leaves once a message finished KeepFinishedFor after
// it, on the updates' times.
func TestKeepFinishedFor(t *testing.T) {
	s := newShop(t, memstore.Options{KeepFinishedFor: time.Hour})
	for _, id := range []string{"m1", "m2", "m3"} {
		accept(t, s, id)
	}
	finish(t, s, "m1", t0)
	finish(t, s, "m2", t0.Add(30*time.Minute))
	if got := stored(t, s, "m1", "m2"); len(got) != 2 {
		t.Fatalf("stored %v within the hour, want both", got)
	}
	finish(t, s, "m3", t0.Add(time.Hour+time.Second))
	if got, want := fmt.Sprint(stored(t, s, "m1", "m2", "m3")), "[m2 m3]"; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
}

// BenchmarkMillionMessages runs a million two-part messages through the
// SMS store (accepted, both parts delivered, one message finishing every
// millisecond of report time) and reports the heap in use afterwards:
// with the default Options memory stays bounded however long the traffic
// lasts; keep-all keeps every message, to compare. Run each once:
// -benchtime=1x.
func BenchmarkMillionMessages(b *testing.B) {
	const n = 1_000_000
	for _, c := range []struct {
		name string
		o    memstore.Options
	}{
		{"default", memstore.Options{}},
		{"keep-all", memstore.Options{KeepFinished: 1 << 40, KeepFinishedFor: 1 << 62}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s := newShop(b, c.o)
				for i := range n {
					id := fmt.Sprintf("m-%07d", i)
					accept(b, s, id)
					finish(b, s, id, t0.Add(time.Duration(i)*time.Millisecond))
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
				runtime.KeepAlive(s)
			}
		})
	}
}

// The trimming passes over a finished message whose report is pending,
// however many messages finish after it; ForgetFinished removes it once
// the report is delivered.
func TestKeepFinishedHoldsPendingReports(t *testing.T) {
	s := newShop(t, memstore.Options{KeepFinished: 1})
	for _, id := range []string{"reported", "m1", "m2"} {
		accept(t, s, id)
	}
	smstest.FinishMessage(t, s, "reported", 2, sms.StateDelivered, t0, true)
	finish(t, s, "m1", t0.Add(time.Second))
	finish(t, s, "m2", t0.Add(2*time.Second))
	if got, want := fmt.Sprint(stored(t, s, "reported", "m1", "m2")), "[reported m2]"; got != want {
		t.Fatalf("stored %s, want %s", got, want)
	}
	before := t0.Add(time.Hour)
	if n, err := s.ForgetFinished(t.Context(), before, 10); err != nil || n != 1 {
		t.Fatalf("ForgetFinished = %d, %v; want m2, not reported with its reports pending", n, err)
	}
	claimed, err := s.ClaimReports(t.Context(), t0, time.Minute, 10)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %v, %v", claimed, err)
	}
	for i := range claimed {
		claimed[i].State = sms.ReportDelivered
	}
	for _, err := range s.FinishReports(t.Context(), claimed) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.ForgetFinished(t.Context(), before, 10); err != nil || n != 1 {
		t.Fatalf("ForgetFinished = %d, %v; want reported", n, err)
	}
	if got := stored(t, s, "reported", "m1", "m2"); len(got) != 0 {
		t.Errorf("stored %v", got)
	}
}
