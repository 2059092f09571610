package simnet

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms"
)

// The queue pops in (due, msgId, partNum, step, seq) order, pushes and
// pops interleaved, and after due times change in place (reorder).
func TestQueueOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	key := func(a, b *item) int {
		return cmp.Or(cmp.Compare(a.dueNs, b.dueNs), cmp.Compare(a.ev.MsgID, b.ev.MsgID), cmp.Compare(a.ev.PartNum, b.ev.PartNum),
			cmp.Compare(a.step, b.step), cmp.Compare(a.seq, b.seq))
	}
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		var in []*item
		var popped []*item
		for i := range rapid.IntRange(0, 200).Draw(t, "ops") {
			if len(q) > 0 && rapid.IntRange(0, 3).Draw(t, "op") == 0 {
				it := q.pop()
				for _, other := range in {
					if key(other, it) < 0 {
						t.Fatalf("popped %+v while %+v was queued", it, other)
					}
				}
				in = slices.DeleteFunc(in, func(x *item) bool { return x == it })
				popped = append(popped, it)
				continue
			}
			it := &item{ev: sms.StatusEvent{MsgID: sms.MessageID(rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "msg")),
				PartNum: rapid.IntRange(0, 2).Draw(t, "part")}, step: rapid.IntRange(0, 2).Draw(t, "step"), seq: uint64(i)}
			it.setDue(t0.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, "due")) * time.Second))
			q.push(it)
			in = append(in, it)
		}
		// Move some due times in place, as requeue does, then drain.
		for _, it := range in {
			if rapid.Bool().Draw(t, "move") {
				it.setDue(t0.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, "new due")) * time.Second))
			}
		}
		q.reorder()
		slices.SortFunc(in, key)
		for _, want := range in {
			if got := q.pop(); got != want {
				t.Fatalf("popped %+v, want %+v", got, want)
			}
		}
		if len(q) != 0 {
			t.Fatalf("%d left", len(q))
		}
	})
}
