package memstore

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/msgkit/msgkit/sms"
)

// sendQueue is the outbound queue, under the SMSStore's lock: the queued
// parts in a heap by SendAt, each found by its key too, so that a part
// leaving the queue leaves the heap at once and the heap holds only what
// is queued. The parts keep their own SendAt, SendAttempts and SendError;
// the heap mirrors SendAt. A claim moves SendAt to the end of its lease
// (and the part to that place in the heap), so a part whose claimer died
// is due again when the lease ends. Parts of expired messages are passed
// over (ExpireDue ends them). A claim costs the parts it takes, not the
// queue's length.
type sendQueue struct {
	heap  sendHeap
	entry map[sms.PartKey]*sendEntry
}

type sendEntry struct {
	at    time.Time
	key   sms.PartKey
	index int // in the heap
}

// set puts the part at at, in the queue or moved within it.
func (q *sendQueue) set(key sms.PartKey, at time.Time) {
	if e, ok := q.entry[key]; ok {
		e.at = at
		heap.Fix(&q.heap, e.index)
		return
	}
	e := &sendEntry{at: at, key: key}
	q.entry[key] = e
	heap.Push(&q.heap, e)
}

// remove takes the part out of the queue, if it is there.
func (q *sendQueue) remove(key sms.PartKey) {
	if e, ok := q.entry[key]; ok {
		heap.Remove(&q.heap, e.index)
		delete(q.entry, key)
	}
}

// sendHeap is a min-heap of entries by (at, message id, part number).
type sendHeap []*sendEntry

func (h sendHeap) Len() int { return len(h) }

func (h sendHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h sendHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.key.MsgID, b.key.MsgID), cmp.Compare(a.key.PartNum, b.key.PartNum)) < 0
}

func (h *sendHeap) Push(x any) {
	e := x.(*sendEntry)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *sendHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// queueLocked puts the parts of m, as stored, that are submitted and have
// a SendAt in the queue, and clears the queue fields of the others.
// Called with the lock held.
func (s *SMSStore) queueLocked(m sms.MessageRecord) {
	for i := range m.Parts {
		p := &m.Parts[i] // the store's own slice
		if p.SendAt.IsZero() || p.State != sms.StateSubmitted {
			p.SendAt, p.SendAttempts, p.SendError = time.Time{}, 0, ""
			continue
		}
		s.sendq.set(sms.PartKey{MsgID: m.ID, PartNum: p.Num}, p.SendAt)
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

// dequeueLocked takes a part off the queue (a claim on it is lost) and
// clears its queue fields. Called with the lock held.
func (s *SMSStore) dequeueLocked(key sms.PartKey, p *sms.PartRecord) {
	s.sendq.remove(key)
	p.SendAt, p.SendAttempts, p.SendError = time.Time{}, 0, ""
}

// ClaimParts leases due parts, oldest SendAt first, by moving their
// SendAt to the lease's end; it returns them by message id and part
// number.
func (s *SMSStore) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	if limit <= 0 {
		return nil, nil
	}
	until := storeTime(now.Add(lease))
	s.mu.Lock()
	defer s.mu.Unlock()
	q := &s.sendq
	var (
		out     []sms.QueuedPart
		expired []*sendEntry // passed over, put back after
	)
	for len(out) < limit && len(q.heap) > 0 && !q.heap[0].at.After(now) {
		e := q.heap[0]
		m, p, _ := s.partLocked(e.key) // queued parts are stored
		if !m.ExpiresAt.After(now) {
			expired = append(expired, heap.Pop(&q.heap).(*sendEntry))
			continue
		}
		p.SendAt, e.at = until, until
		heap.Fix(&q.heap, 0)
		out = append(out, sms.QueuedPart{OutboundPart: outboundPart(m, *p), Attempts: p.SendAttempts, LeaseUntil: until})
	}
	for _, e := range expired {
		heap.Push(&q.heap, e)
	}
	slices.SortFunc(out, func(a, b sms.QueuedPart) int {
		return cmp.Or(cmp.Compare(a.MsgID, b.MsgID), cmp.Compare(a.PartNum, b.PartNum))
	})
	return out, nil
}

// FinishParts records the results whose claims hold: the part is queued
// and its SendAt is the lease's end the result quotes.
func (s *SMSStore) FinishParts(ctx context.Context, results []sms.SendResult) (int, error) {
	if err := sms.CheckSendResults(results); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range results {
		_, p, ok := s.partLocked(r.Key)
		if !ok || p.SendAt.IsZero() || !p.SendAt.Equal(storeTime(r.LeaseUntil)) {
			continue // the claim was lost
		}
		n++
		if r.Handed {
			s.dequeueLocked(r.Key, p)
			continue
		}
		p.SendAt, p.SendAttempts, p.SendError = storeTime(r.NextAt), r.Attempts, r.LastError
		s.sendq.set(r.Key, p.SendAt)
	}
	return n, nil
}

// storeTime is a time as the store keeps it: to the microsecond, in UTC,
// as pgstore keeps it.
func storeTime(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

// outboundPart is what the network needs of part p of m, copied out.
func outboundPart(m sms.MessageRecord, p sms.PartRecord) sms.OutboundPart {
	return sms.OutboundPart{
		MsgID: m.ID, PartNum: p.Num, NumParts: len(m.Parts), Sender: m.Sender, Receiver: m.Receiver,
		DCS: m.DCS, Flash: m.Flash, Text: p.Text, Data: slices.Clone(p.Data), UDH: p.UDH, ExpiresAt: m.ExpiresAt,
	}
}

// HandedParts lists up to limit parts the network holds (handed over,
// so off the queue, and not final) of messages not expired at now, after
// the key after in (message id, part number) order. It reads every
// message, which memory keeps bounded (see Options); a simulated network
// calls it when it starts.
func (s *SMSStore) HandedParts(ctx context.Context, now time.Time, after sms.PartKey, limit int) ([]sms.OutboundPart, error) {
	if limit <= 0 {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []sms.OutboundPart
	for _, m := range s.messages.rows {
		if !m.ExpiresAt.After(now) {
			continue
		}
		for _, p := range m.Parts {
			if !p.State.Final() && p.SendAt.IsZero() && comparePartKeys(sms.PartKey{MsgID: m.ID, PartNum: p.Num}, after) > 0 {
				out = append(out, outboundPart(m, p))
			}
		}
	}
	slices.SortFunc(out, func(a, b sms.OutboundPart) int {
		return comparePartKeys(sms.PartKey{MsgID: a.MsgID, PartNum: a.PartNum}, sms.PartKey{MsgID: b.MsgID, PartNum: b.PartNum})
	})
	return out[:min(limit, len(out))], nil
}

// comparePartKeys orders parts by message id (byte order) and number.
func comparePartKeys(a, b sms.PartKey) int {
	return cmp.Or(cmp.Compare(a.MsgID, b.MsgID), cmp.Compare(a.PartNum, b.PartNum))
}

// OutboundBacklog counts the queued parts and finds the earliest SendAt
// of those a claim at now would take, walking the heap in order past the
// parts of expired messages only.
func (s *SMSStore) OutboundBacklog(ctx context.Context, now time.Time) (sms.Backlog, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := s.sendq.heap
	b := sms.Backlog{Len: len(h)}
	i := firstInHeap(len(h), h.Less, func(i int) (found, pass bool) {
		if h[i].at.After(now) {
			return false, false
		}
		m := s.messages.rows[h[i].key.MsgID]
		return m.ExpiresAt.After(now), true
	})
	if i >= 0 {
		b.OldestDue = h[i].at
	}
	return b, nil
}

// firstInHeap walks a binary min-heap of n elements (as container/heap
// keeps one; less compares two by their indexes) in ascending order and
// returns the index of the first element visit finds, or -1: visit says
// found, or pass (look further), or neither, and then the walk stops, as
// the elements after it come later still. It costs the elements passed,
// not the heap's length.
func firstInHeap(n int, less func(i, j int) bool, visit func(i int) (found, pass bool)) int {
	if n == 0 {
		return -1
	}
	next := &indexHeap{less: less, idx: []int{0}}
	for next.Len() > 0 {
		i := heap.Pop(next).(int)
		found, pass := visit(i)
		switch {
		case found:
			return i
		case !pass:
			return -1
		}
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < n {
				heap.Push(next, c)
			}
		}
	}
	return -1
}

// indexHeap is a min-heap of indexes into another heap, by its order.
type indexHeap struct {
	less func(i, j int) bool
	idx  []int
}

func (h *indexHeap) Len() int           { return len(h.idx) }
func (h *indexHeap) Less(i, j int) bool { return h.less(h.idx[i], h.idx[j]) }
func (h *indexHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *indexHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *indexHeap) Pop() any {
	i := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return i
}
