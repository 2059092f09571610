package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// outbox is the delivery reports queue, under the SMSStore's lock. Only pending
// reports are kept; finished ones are counted, so memory stays bounded by
// what is still to deliver.
type outbox struct {
	reports  map[int64]*queuedReport
	finished map[sms.ReportState]int
	lastID   int64
}

type queuedReport struct {
	sms.Report
	leaseUntil time.Time
}

func partNotFound(key sms.PartKey) error {
	return msgkit.Errorf(msgkit.NotFound, "part_not_found", "part %d of message %s not found", key.PartNum, key.MsgID)
}

// UpdatePart runs fn and applies its update under the store's lock; the
// part leaves the outbound queue.
func (s *SMSStore) UpdatePart(ctx context.Context, key sms.PartKey, fn func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updatePartLocked(key, fn)
}

// UpdateParts applies the changes in order under one lock, as UpdatePart
// applies each; a change after a failed one of the same part fails with
// sms.ErrEarlierChangeFailed.
func (s *SMSStore) UpdateParts(ctx context.Context, changes []sms.PartChange) []error {
	errs := make([]error, len(changes))
	s.mu.Lock()
	defer s.mu.Unlock()
	var failed map[sms.PartKey]error
	for i, c := range changes {
		if first, ok := failed[c.Key]; ok {
			errs[i] = fmt.Errorf("%w: %w", sms.ErrEarlierChangeFailed, first)
			continue
		}
		if errs[i] = s.updatePartLocked(c.Key, c.Fn); errs[i] != nil {
			if failed == nil {
				failed = map[sms.PartKey]error{}
			}
			failed[c.Key] = errs[i]
		}
	}
	return errs
}

// updatePartLocked is UpdatePart with the lock held.
func (s *SMSStore) updatePartLocked(key sms.PartKey, fn func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	m, p, ok := s.partLocked(key)
	if !ok {
		return partNotFound(key)
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
	s.dequeueLocked(key, p)
	if !wasFinal && allFinal(m) {
		defer s.finishedLocked(m.ID, p.UpdatedAt) // after the reports are queued
	}
	for _, r := range u.Reports {
		s.outbox.lastID++
		r.ID = s.outbox.lastID
		r.Body = slices.Clone(r.Body)
		r.NextAt = r.NextAt.Truncate(time.Microsecond).UTC()
		r.CreatedAt = r.CreatedAt.Truncate(time.Microsecond).UTC()
		s.outbox.reports[r.ID] = &queuedReport{Report: r}
	}
	return nil
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
	oldest := map[sms.PartKey]*queuedReport{}
	for _, r := range s.outbox.reports {
		k := sms.PartKey{MsgID: r.MsgID, PartNum: r.PartNum}
		if o, ok := oldest[k]; !ok || r.ID < o.ID {
			oldest[k] = r
		}
	}
	var due []*queuedReport
	for _, r := range oldest {
		if !r.NextAt.After(now) && !r.leaseUntil.After(now) {
			due = append(due, r)
		}
	}
	slices.SortFunc(due, func(a, b *queuedReport) int { return cmp.Or(a.NextAt.Compare(b.NextAt), cmp.Compare(a.ID, b.ID)) })
	due = due[:min(limit, len(due))]
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
		return msgkit.Errorf(msgkit.NotFound, "report_not_found", "report %d not found", r.ID)
	}
	q.State, q.Attempts, q.LastError = r.State, r.Attempts, r.LastError
	q.NextAt = r.NextAt.Truncate(time.Microsecond).UTC()
	q.leaseUntil = time.Time{}
	if q.State != sms.ReportPending {
		delete(s.outbox.reports, r.ID)
		s.outbox.finished[q.State]++
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
