package memstore

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/msgkit/msgkit/sms"
)

// outbox is the delivery reports queue, under the SMSStore's lock. Only pending
// reports are kept; finished ones are counted, so memory stays bounded by
// what is still to deliver. Each part's pending reports are listed in id
// order, and the oldest of each (the only one a claim may take) is in a
// heap by NextAt and id, so that a claim costs the reports it passes, not
// the outbox's length: claims come many times a second while reports
// pile up by the ten thousand, under the lock submissions need too.
type outbox struct {
	reports  map[int64]*queuedReport
	parts    map[sms.PartKey][]*queuedReport // pending, by id
	heads    reportHeap                      // each part's first pending report
	finished map[sms.ReportState]int
	lastID   int64
}

type queuedReport struct {
	sms.Report
	leaseUntil time.Time
	index      int                 // in heads; -1 when not a part's first
	log        []sms.ReportAttempt // its attempts, for the trace
}

// add queues r, which has its id, and returns it as queued.
func (o *outbox) add(r sms.Report) *queuedReport {
	q := &queuedReport{Report: r, index: -1}
	o.reports[r.ID] = q
	k := sms.PartKey{MsgID: r.MsgID, PartNum: r.PartNum}
	o.parts[k] = append(o.parts[k], q)
	if len(o.parts[k]) == 1 {
		heap.Push(&o.heads, q)
	}
	return q
}

// remove takes q out of the outbox; the next report of its part, if any,
// becomes the part's first.
func (o *outbox) remove(q *queuedReport) {
	delete(o.reports, q.ID)
	k := sms.PartKey{MsgID: q.MsgID, PartNum: q.PartNum}
	list := o.parts[k]
	i := slices.Index(list, q)
	list = slices.Delete(list, i, i+1)
	if q.index >= 0 {
		heap.Remove(&o.heads, q.index)
	}
	if len(list) == 0 {
		delete(o.parts, k)
		return
	}
	o.parts[k] = list
	if i == 0 {
		heap.Push(&o.heads, list[0])
	}
}

// reportHeap is a min-heap of reports by (NextAt, ID).
type reportHeap []*queuedReport

func (h reportHeap) Len() int { return len(h) }

func (h reportHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h reportHeap) Less(i, j int) bool {
	return cmp.Or(h[i].NextAt.Compare(h[j].NextAt), cmp.Compare(h[i].ID, h[j].ID)) < 0
}

func (h *reportHeap) Push(x any) {
	q := x.(*queuedReport)
	q.index = len(*h)
	*h = append(*h, q)
}

func (h *reportHeap) Pop() any {
	old := *h
	q := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	q.index = -1
	return q
}

// UpdatePart runs fn and applies its update under the store's lock; the
// part leaves the outbound queue.
func (s *SMSStore) UpdatePart(ctx context.Context, key sms.PartKey, fn func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updatePartLocked(key, fn, nil)
}

// UpdateParts applies the changes in order under one lock, as UpdatePart
// applies each; a change after a failed one of the same part fails with
// sms.ErrEarlierChangeFailed.
func (s *SMSStore) UpdateParts(ctx context.Context, changes []sms.PartChange) []error {
	errs, _ := s.UpdatePartsLeasing(ctx, changes, time.Time{}, 0)
	return errs
}

// UpdatePartsLeasing is UpdateParts that leases, until until, up to limit
// of the reports queued that are their part's first pending one (see
// sms.ReportLeasingStore).
func (s *SMSStore) UpdatePartsLeasing(ctx context.Context, changes []sms.PartChange, until time.Time, limit int) ([]error, []sms.Report) {
	errs := make([]error, len(changes))
	s.mu.Lock()
	defer s.mu.Unlock()
	l := &reportLease{until: until, limit: limit}
	var failed map[sms.PartKey]error
	for i, c := range changes {
		if first, ok := failed[c.Key]; ok {
			errs[i] = fmt.Errorf("%w: %w", sms.ErrEarlierChangeFailed, first)
			continue
		}
		if errs[i] = s.updatePartLocked(c.Key, c.Fn, l); errs[i] != nil {
			if failed == nil {
				failed = map[sms.PartKey]error{}
			}
			failed[c.Key] = errs[i]
		}
	}
	return errs, l.leased
}

// reportLease is what UpdatePartsLeasing leases: until when, how many
// more, and the reports leased so far.
type reportLease struct {
	until  time.Time
	limit  int
	leased []sms.Report
}

// updatePartLocked is UpdatePart with the lock held; l, when not nil,
// leases the reports queued as UpdatePartsLeasing does.
func (s *SMSStore) updatePartLocked(key sms.PartKey, fn func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error), l *reportLease) error {
	m, p, ok := s.partLocked(key)
	if !ok {
		return sms.PartNotFound(key)
	}
	// fn sees a copy of the stored message (sorted and at the store's
	// precision already) with the parts' delivery, not their queue fields.
	view := m
	view.Custom = slices.Clone(m.Custom)
	view.Parts = slices.Clone(m.Parts)
	for i := range view.Parts {
		q := &view.Parts[i]
		q.Data, q.SendAt, q.SendAttempts, q.SendError = slices.Clone(q.Data), time.Time{}, 0, ""
	}
	u, changed, err := fn(view, view.Parts[slices.IndexFunc(view.Parts, func(q sms.PartRecord) bool { return q.Num == key.PartNum })])
	if err != nil || !changed {
		return err
	}
	if err := u.Check(); err != nil {
		return err
	}
	wasFinal := allFinal(m)
	p.State, p.ErrorCode, p.UpdatedAt = u.State, u.ErrorCode, storeTime(u.UpdatedAt)
	s.recordEventLocked(m, p)
	s.dequeueLocked(key, p)
	if !wasFinal && allFinal(m) {
		defer s.finishedLocked(m.ID, p.UpdatedAt) // after the reports are queued
	}
	for _, r := range u.Reports {
		q := s.queueReportLocked(r)
		if l != nil && len(l.leased) < l.limit && q.index >= 0 { // its part's first pending report
			q.leaseUntil = l.until
			leased := q.Report
			leased.Body = slices.Clone(q.Body)
			l.leased = append(l.leased, leased)
		}
	}
	return nil
}

// queueReportLocked queues r under the next id, its times as stored, and
// returns it as queued. Called with mu held.
func (s *SMSStore) queueReportLocked(r sms.Report) *queuedReport {
	s.outbox.lastID++
	r.ID = s.outbox.lastID
	r.Body = slices.Clone(r.Body)
	r.NextAt, r.CreatedAt = storeTime(r.NextAt), storeTime(r.CreatedAt)
	return s.outbox.add(r)
}

// ExpiredParts lists open parts of expired messages, oldest first.
func (s *SMSStore) ExpiredParts(ctx context.Context, now time.Time, limit int) ([]sms.PartKey, error) {
	if limit <= 0 {
		return nil, nil
	}
	s.mu.RLock()
	type expired struct {
		at  time.Time
		key sms.PartKey
	}
	var all []expired
	for _, m := range s.messages.rows {
		if m.ExpiresAt.After(now) {
			continue
		}
		for _, p := range m.Parts {
			if !p.State.Final() {
				all = append(all, expired{m.ExpiresAt, sms.PartKey{MsgID: m.ID, PartNum: p.Num}})
			}
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(all, func(a, b expired) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.key.MsgID, b.key.MsgID), cmp.Compare(a.key.PartNum, b.key.PartNum))
	})
	keys := make([]sms.PartKey, 0, min(limit, len(all)))
	for _, e := range all[:min(limit, len(all))] {
		keys = append(keys, e.key)
	}
	return keys, nil
}

// ClaimReports leases due reports, the oldest pending one of each part.
func (s *SMSStore) ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.Report, error) {
	if limit <= 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Each part's first report, by NextAt and id: the leased ones among
	// them (in flight) are passed over and put back with those claimed.
	var passed, due []*queuedReport
	for len(due) < limit && s.outbox.heads.Len() > 0 && !s.outbox.heads[0].NextAt.After(now) {
		q := heap.Pop(&s.outbox.heads).(*queuedReport)
		passed = append(passed, q)
		if !q.leaseUntil.After(now) {
			due = append(due, q)
		}
	}
	for _, q := range passed {
		heap.Push(&s.outbox.heads, q)
	}
	out := make([]sms.Report, len(due))
	for i, r := range due {
		r.leaseUntil = now.Add(lease)
		out[i] = r.Report
		out[i].Body = slices.Clone(r.Body)
	}
	return out, nil
}

// FinishReport records an attempt and ends the lease.
func (s *SMSStore) FinishReport(ctx context.Context, r sms.Report) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finishLocked(r)
}

// FinishReports records attempts in order, as FinishReport records each,
// under one lock.
func (s *SMSStore) FinishReports(ctx context.Context, rs []sms.Report) []error {
	errs := make([]error, len(rs))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range rs {
		errs[i] = s.finishLocked(r)
	}
	return errs
}

// finishLocked is FinishReport with s.mu held.
func (s *SMSStore) finishLocked(r sms.Report) error {
	q, ok := s.outbox.reports[r.ID] // only pending reports are kept
	if !ok {
		return sms.ReportNotFound(r.ID)
	}
	recordAttemptLocked(q, r)
	q.State, q.Attempts, q.LastError = r.State, r.Attempts, r.LastError
	q.NextAt = r.NextAt.Truncate(time.Microsecond).UTC()
	q.leaseUntil = time.Time{}
	switch {
	case q.State != sms.ReportPending:
		s.outbox.remove(q)
		s.outbox.finished[q.State]++
		s.finishedReportLocked(q)
	case q.index >= 0:
		heap.Fix(&s.outbox.heads, q.index) // NextAt moved
	}
	return nil
}

// ReportCounts counts reports by state, for operators and tests.
func (s *SMSStore) ReportCounts(ctx context.Context) (map[sms.ReportState]int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	counts := maps.Clone(s.outbox.finished)
	for _, r := range s.outbox.reports {
		counts[r.State]++
	}
	return counts, nil
}

// enqueueReport queues a report that no part update caused (a test
// session's callback), giving it the next id.
func (s *SMSStore) enqueueReport(r sms.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queueReportLocked(r)
}

// OutboxBacklog counts the pending reports and finds the earliest NextAt
// of those a claim at now would take: each part's first pending report,
// due, with its lease free; the heap is walked in order past the leased
// ones only.
func (s *SMSStore) OutboxBacklog(ctx context.Context, now time.Time) (sms.Backlog, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := s.outbox.heads
	b := sms.Backlog{Len: len(s.outbox.reports)}
	i := firstInHeap(len(h), h.Less, func(i int) (found, pass bool) {
		if h[i].NextAt.After(now) {
			return false, false
		}
		return !h[i].leaseUntil.After(now), true
	})
	if i >= 0 {
		b.OldestDue = h[i].NextAt
	}
	return b, nil
}
