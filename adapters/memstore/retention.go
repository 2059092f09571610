package memstore

import (
	"time"

	"github.com/msgkit/msgkit/sms"
)

// finishedMessages are the finished messages in the order they finished,
// under the SMSStore's lock, so that the oldest leave first (see
// Options): a queue in a slice, taken from the front.
type finishedMessages struct {
	keep    int
	keepFor time.Duration
	queue   []finishedMessage
	head    int
	latest  time.Time // the latest finish seen: the store's idea of now
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
			delete(s.messages.rows, e.id)
		}
		f.queue[f.head] = finishedMessage{}
		f.head++
	}
	if f.head > len(f.queue)/2 { // reuse the slice's front
		f.queue = f.queue[:copy(f.queue, f.queue[f.head:])]
		f.head = 0
	}
}

func allFinal(m sms.MessageRecord) bool {
	for _, p := range m.Parts {
		if !p.State.Final() {
			return false
		}
	}
	return true
}
