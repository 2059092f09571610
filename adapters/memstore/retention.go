package memstore

import (
	"context"
	"time"

	"github.com/msgkit/msgkit/sms"
)

var _ sms.RetentionStore = (*SMSStore)(nil)

// finishedMessages are the finished messages in the order they finished,
// under the SMSStore's lock, so that the oldest leave first (see
// Options): a queue in a slice, taken from the front. held are those the
// trimming passed over because a report of theirs was still pending:
// ForgetFinished removes them once it is not.
type finishedMessages struct {
	keep    int
	keepFor time.Duration
	queue   []finishedMessage
	head    int
	latest  time.Time // the latest finish seen: the store's idea of now
	held    map[sms.MessageID]struct{}
}

type finishedMessage struct {
	id sms.MessageID
	at time.Time
}

func (f *finishedMessages) len() int { return len(f.queue) - f.head }

// finishedLocked records that message id finished at at, and lets the
// messages go that are beyond the store's keeping. Called with the lock
// held.
func (s *SMSStore) finishedLocked(id sms.MessageID, at time.Time) {
	f := &s.finished
	f.queue = append(f.queue, finishedMessage{id: id, at: at})
	if at.After(f.latest) {
		f.latest = at
	}
	for f.len() > 0 {
		e := f.queue[f.head]
		if f.len() <= f.keep && e.at.After(f.latest.Add(-f.keepFor)) {
			break
		}
		if m, ok := s.messages.rows[e.id]; ok && allFinal(m) { // an update may have reopened it
			if s.pendingLocked(m) {
				f.held[e.id] = struct{}{}
			} else {
				s.removeMessageLocked(m)
			}
		}
		f.queue[f.head] = finishedMessage{}
		f.head++
	}
	if f.head > len(f.queue)/2 { // reuse the slice's front
		f.queue = f.queue[:copy(f.queue, f.queue[f.head:])]
		f.head = 0
	}
}

// ForgetFinished removes up to limit finished messages whose parts were
// all last updated before before and that have no pending report: those
// the trimming of Options has not removed yet. It reads the finished
// messages only (at most KeepFinished, and those held for their
// reports), never the messages in flight. Reports leave the outbox once
// finished and the SMPP records have their own bound, so the message and
// its trace are all there is to remove.
func (s *SMSStore) ForgetFinished(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	before = storeTime(before) // the parts' times are kept to the microsecond
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &s.finished
	n := 0
	// forget says whether the message of id leaves the queue or the held
	// set: it is gone, reopened (its next finish queues it again), or
	// removed now.
	forget := func(id sms.MessageID) bool {
		m, ok := s.messages.rows[id]
		if !ok || !allFinal(m) {
			return true
		}
		// SubmittedAt as pgstore's pre-filter: no part is updated before
		// its message's submission.
		if n >= limit || !lastUpdate(m).Before(before) || !m.SubmittedAt.Before(before) || s.pendingLocked(m) {
			return false
		}
		s.removeMessageLocked(m)
		n++
		return true
	}
	kept := f.queue[:0]
	for _, e := range f.queue[f.head:] {
		if !forget(e.id) {
			kept = append(kept, e)
		}
	}
	clear(f.queue[len(kept):])
	f.queue, f.head = kept, 0
	for id := range f.held {
		if forget(id) {
			delete(f.held, id)
		}
	}
	return n, nil
}

// pendingLocked says whether a report of m is still to deliver.
func (s *SMSStore) pendingLocked(m sms.MessageRecord) bool {
	for _, p := range m.Parts {
		if len(s.outbox.parts[sms.PartKey{MsgID: m.ID, PartNum: p.Num}]) > 0 {
			return true
		}
	}
	return false
}

// lastUpdate is when the last of m's parts was updated: when it finished,
// for a finished message.
func lastUpdate(m sms.MessageRecord) time.Time {
	var t time.Time
	for _, p := range m.Parts {
		if p.UpdatedAt.After(t) {
			t = p.UpdatedAt
		}
	}
	return t
}

func allFinal(m sms.MessageRecord) bool {
	for _, p := range m.Parts {
		if !p.State.Final() {
			return false
		}
	}
	return true
}
