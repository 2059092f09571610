package memstore

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// sendQueue is the outbound queue, under the SMSStore's lock. The parts
// keep their own SendAt, SendAttempts and SendError; the queue holds what
// finds them fast: a heap of the queued parts by SendAt, and the leases of
// the claimed ones.
//
// The heap holds one entry per queued part, at its SendAt, and stale
// entries: an entry whose part is no longer queued at that time (handed
// over, ended, or moved to a later attempt) is dropped when it comes to
// the top. A claimed part keeps its entry, so that it can be claimed again
// if its claimer dies; while its lease runs, a claim passes over it, as
// over a part whose message has expired (ExpireDue ends those). So a claim
// costs the parts it takes plus those in flight, not the queue's length.
type sendQueue struct {
	heap   sendHeap
	leases map[sms.PartKey]time.Time
}

type sendEntry struct {
	at  time.Time
	key sms.PartKey
}

// sendHeap is a min-heap of entries by (at, message id, part number).
type sendHeap []sendEntry

func (h sendHeap) Len() int      { return len(h) }
func (h sendHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h sendHeap) Less(i, j int) bool {
	a, b := &h[i], &h[j]
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.key.MsgID, b.key.MsgID), cmp.Compare(a.key.PartNum, b.key.PartNum)) < 0
}

// push and pop are heap.Push and heap.Pop without boxing the entry in an
// interface value.
func (h *sendHeap) push(e sendEntry) {
	*h = append(*h, e)
	heap.Fix(h, len(*h)-1)
}

func (h *sendHeap) pop() sendEntry {
	last := len(*h) - 1
	h.Swap(0, last)
	e := (*h)[last]
	*h = (*h)[:last]
	if last > 0 {
		heap.Fix(h, 0)
	}
	return e
}

// Push and Pop complete heap.Interface; the code above uses push and pop.
func (h *sendHeap) Push(x any) { *h = append(*h, x.(sendEntry)) }

func (h *sendHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// queueLocked puts m's parts that have a SendAt in the queue; m is as
// stored. Called with the lock held.
func (s *SMSStore) queueLocked(m sms.MessageRecord) {
	for _, p := range m.Parts {
		if !p.SendAt.IsZero() {
			s.sendq.heap.push(sendEntry{at: p.SendAt, key: sms.PartKey{MsgID: m.ID, PartNum: p.Num}})
		}
	}
}

// partLocked finds a stored part: its message and a pointer into the
// stored parts, through which it may be changed. Called with the lock
// held.
func (s *SMSStore) partLocked(key sms.PartKey) (sms.MessageRecord, *sms.PartRecord, bool) {
	m, ok := s.messages.rows[key.MsgID]
	if !ok {
		return m, nil, false
	}
	i := slices.IndexFunc(m.Parts, func(p sms.PartRecord) bool { return p.Num == key.PartNum })
	if i < 0 {
		return m, nil, false
	}
	return m, &m.Parts[i], true // m.Parts is the store's own slice
}

// dequeueLocked takes a part off the queue: its entry goes stale and its
// claim is lost. Called with the lock held.
func (s *SMSStore) dequeueLocked(key sms.PartKey, p *sms.PartRecord) {
	p.SendAt = time.Time{}
	delete(s.sendq.leases, key)
}

// ClaimParts leases due parts, oldest SendAt first.
func (s *SMSStore) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	if limit <= 0 {
		return nil, nil
	}
	until := storeTime(now.Add(lease))
	s.mu.Lock()
	defer s.mu.Unlock()
	q := &s.sendq
	var (
		out   []sms.QueuedPart
		aside []sendEntry // entries of queued parts, pushed back after
	)
	for len(out) < limit && len(q.heap) > 0 {
		e := q.heap[0]
		m, p, ok := s.partLocked(e.key)
		if !ok || !p.SendAt.Equal(e.at) {
			q.heap.pop() // stale
			continue
		}
		if e.at.After(now) {
			break
		}
		aside = append(aside, q.heap.pop())
		if l, leased := q.leases[e.key]; leased && l.After(now) || !m.ExpiresAt.After(now) || p.State.Final() {
			continue
		}
		q.leases[e.key] = until
		out = append(out, sms.QueuedPart{
			OutboundPart: sms.OutboundPart{
				MsgID: m.ID, PartNum: p.Num, NumParts: len(m.Parts), Sender: m.Sender, Receiver: m.Receiver,
				DCS: m.DCS, Flash: m.Flash, Text: p.Text, Data: slices.Clone(p.Data), UDH: p.UDH, ExpiresAt: m.ExpiresAt,
			},
			Attempts: p.SendAttempts, LeaseUntil: until,
		})
	}
	for _, e := range aside {
		q.heap.push(e)
	}
	return out, nil
}

// FinishParts records the results whose claims hold.
func (s *SMSStore) FinishParts(ctx context.Context, results []sms.SendResult) (int, error) {
	if err := checkSendResults(results); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range results {
		_, p, ok := s.partLocked(r.Key)
		if l, leased := s.sendq.leases[r.Key]; !ok || p.SendAt.IsZero() || !leased || !l.Equal(storeTime(r.LeaseUntil)) {
			continue // the claim was lost
		}
		delete(s.sendq.leases, r.Key)
		p.SendAttempts, p.SendError = r.Attempts, r.LastError
		if r.Handed {
			p.SendAt = time.Time{}
		} else if next := storeTime(r.NextAt); !next.Equal(p.SendAt) {
			p.SendAt = next
			s.sendq.heap.push(sendEntry{at: next, key: r.Key})
		}
		n++
	}
	return n, nil
}

// checkSendResults refuses a retry without a time, before anything is
// recorded.
func checkSendResults(results []sms.SendResult) error {
	for i, r := range results {
		if !r.Handed && r.NextAt.IsZero() {
			return msgkit.Invalidf("send_result_invalid", "nextAt", "results[%d] is not handed over and has no nextAt", i)
		}
	}
	return nil
}

// storeTime is a time as the store keeps it: to the microsecond, in UTC,
// as pgstore keeps it.
func storeTime(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }
