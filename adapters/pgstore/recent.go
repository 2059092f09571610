package pgstore

import (
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit/sms"
)

// defaultRecentMessages is Options.RecentMessages' default: at about 1 KB
// a message (its parts' text included), some 32 MB, the messages of
// several seconds of a busy gateway, which is as long as most networks
// take to report them.
const defaultRecentMessages = 32 << 10

// recentMessages remembers the messages this store accepted or updated
// lately, as UpdateParts would read them, so that the network's reports
// of a message, which follow its acceptance within seconds, cost no read
// of its rows: UpdateParts takes a remembered message as it is, and
// writes each part only where the row still holds the state, error code
// and time remembered (compare and set). A message whose parts changed
// elsewhere (another replica, UpdatePart) is therefore never written from
// a stale memory: the write misses, and the batch runs again from the
// rows. What is remembered besides the parts' delivery never changes once
// accepted.
//
// A message leaves when all its parts are final (no report of the
// network changes it after that) or when max newer ones came after it.
// Safe for concurrent use.
type recentMessages struct {
	mu    sync.Mutex
	byID  map[sms.MessageID]*sms.MessageRecord
	order []sms.MessageID // a ring: the oldest remembered at next, once full
	next  int
}

func newRecentMessages(max int) *recentMessages {
	if max <= 0 {
		return nil // remembering nothing: every update reads
	}
	return &recentMessages{byID: make(map[sms.MessageID]*sms.MessageRecord, max), order: make([]sms.MessageID, 0, max)}
}

// get returns a copy of the message remembered under id that shares
// nothing with the memory, as a read of the rows would: what the changes'
// functions do with it cannot change what is remembered.
func (c *recentMessages) get(id sms.MessageID) (sms.MessageRecord, bool) {
	if c == nil {
		return sms.MessageRecord{}, false
	}
	c.mu.Lock()
	m, ok := c.byID[id]
	c.mu.Unlock()
	if !ok {
		return sms.MessageRecord{}, false
	}
	return deepCopy(*m), true // *m is never changed, only replaced
}

// put remembers m as a read returns it (see remembered) unless every part
// is final, in which case it forgets m's id. m is not kept: put copies.
func (c *recentMessages) put(m sms.MessageRecord) {
	if c == nil {
		return
	}
	if !slices.ContainsFunc(m.Parts, func(p sms.PartRecord) bool { return !p.State.Final() }) {
		c.forget(m.ID)
		return
	}
	r := remembered(m)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[m.ID]; ok {
		c.byID[m.ID] = &r
		return
	}
	if len(c.order) < cap(c.order) {
		c.order = append(c.order, m.ID)
	} else {
		delete(c.byID, c.order[c.next]) // gone already when it finished: no harm
		c.order[c.next] = m.ID
		c.next = (c.next + 1) % len(c.order)
	}
	c.byID[m.ID] = &r
}

// forget drops id, if remembered.
func (c *recentMessages) forget(id sms.MessageID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.byID, id)
	c.mu.Unlock()
}

// remembered is m as UpdatePart's read returns it: times in UTC to the
// microsecond, the parts ordered by number with their queue fields zero
// (partDeliveryColumns), and nothing shared with the caller's m.
func remembered(m sms.MessageRecord) sms.MessageRecord {
	m = deepCopy(m)
	m.SubmittedAt, m.ExpiresAt = dbTime(m.SubmittedAt), dbTime(m.ExpiresAt)
	slices.SortFunc(m.Parts, func(a, b sms.PartRecord) int { return a.Num - b.Num })
	for i := range m.Parts {
		p := &m.Parts[i]
		p.UpdatedAt = dbTime(p.UpdatedAt)
		p.SendAt, p.SendAttempts, p.SendError = time.Time{}, 0, ""
	}
	return m
}

// deepCopy is m sharing no slice with it.
func deepCopy(m sms.MessageRecord) sms.MessageRecord {
	m.Custom = slices.Clone(m.Custom)
	m.Parts = slices.Clone(m.Parts)
	for i := range m.Parts {
		m.Parts[i].Data = slices.Clone(m.Parts[i].Data)
	}
	return m
}
