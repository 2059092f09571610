package smpp

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// TestFinishedParts: the oldest finished part is forgotten first, a
// forgotten part noted again keeps its place, and a part not final is
// not remembered.
func TestFinishedParts(t *testing.T) {
	f := newFinishedParts(3)
	k := func(i int) PartKey { return PartKey{MsgID: sms.MessageID(fmt.Sprint("m", i))} }
	if repeat, kept := f.note(k(0), false); repeat || kept {
		t.Fatalf("a part not final: repeat %v, remembered %v", repeat, kept)
	}
	for i := range 3 {
		if repeat, kept := f.note(k(i), true); repeat || !kept {
			t.Fatalf("part %d: repeat %v, remembered %v", i, repeat, kept)
		}
	}
	if repeat, _ := f.note(k(1), false); !repeat {
		t.Error("a receipt of a finished part is no repeat")
	}
	f.forget(k(1))
	f.note(k(1), true) // now in slot 0, m0's
	f.note(k(3), true) // slot 1, once m1's: m1 stays
	for i, want := range []bool{false, true, true, true} {
		if repeat, _ := f.note(k(i), false); repeat != want {
			t.Errorf("m%d remembered %v, want %v", i, repeat, want)
		}
	}
}

// BenchmarkMetricsPerPart is what metrics add to one part's way, out of
// the tens of microseconds BenchmarkSubmit takes a part: its window
// token, its answer and its receipt counted.
func BenchmarkMetricsPerPart(b *testing.B) {
	m := newMetrics(prometheus.NewRegistry(), "bench")
	keys := make([]PartKey, 1<<14)
	for i := range keys {
		keys[i] = PartKey{MsgID: sms.MessageID(fmt.Sprint("m", i))}
	}
	ev := sms.StatusEvent{Status: sms.StatusDelivered}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			m.window.Inc()
			sent := time.Now()
			m.window.Dec()
			m.submitAnswered(sent, pdu.ESME_ROK)
			m.matchedReceipt(keys[i%len(keys)], ev)
			i++
		}
	})
}
