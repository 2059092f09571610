package smpp

import (
	"hash/maphash"
	"sync"

	"github.com/msgkit/msgkit/sms"
)

// A handset joins a long message's parts by sender and reference, so two
// messages to one number must not share a reference while either may
// still be joined. refTable numbers the messages of each destination:
// refSlots slots, a destination in the one its number hashes to, each
// holding the destination's counter and its last refRecent messages with
// their references. The parts of one message, and its later attempts,
// find its reference there while it is among them.
//
// The memory is fixed (refSlots × refRecent entries). A destination that
// loses its slot to another (they hash alike), or a message retried after
// refRecent newer ones to its number, starts afresh: the counter starts
// from the message id's hash, the reference the client used to give
// every message. Replicas sending to one number count apart.
const (
	refSlots  = 4096
	refRecent = 4
)

type refTable struct {
	seed  maphash.Seed
	mu    sync.Mutex
	slots [refSlots]refSlot
}

type refSlot struct {
	dest string
	next uint16 // the destination's next reference
	last int    // the newest of msgs
	msgs [refRecent]struct {
		id  sms.MessageID
		ref uint16
	}
}

func newRefTable() *refTable { return &refTable{seed: maphash.MakeSeed()} }

// ref is the 16-bit concatenation reference of message id to dest; an
// 8-bit reference is its low octet, so consecutive messages to a number
// differ in both.
func (t *refTable) ref(dest string, id sms.MessageID) uint16 {
	s := &t.slots[maphash.String(t.seed, dest)%refSlots]
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.dest != dest {
		*s = refSlot{dest: dest, next: ref16(id)}
	}
	for _, m := range s.msgs {
		if m.id == id {
			return m.ref
		}
	}
	r := s.next
	s.next++
	s.last = (s.last + 1) % refRecent
	s.msgs[s.last].id, s.msgs[s.last].ref = id, r
	return r
}
