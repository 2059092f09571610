package memstore

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/sms"
)

var _ inbound.Store = (*InboundStore)(nil)

// KeepInbound is how many inbound messages the memory store keeps at
// least; the oldest leave once a quarter more have come, so that memory
// stays bounded.
const KeepInbound = 20_000

// InboundStore keeps inbound messages in memory, in id order (the order
// they were received in), and queues their deliveries in the SMS store's
// outbox.
type InboundStore struct {
	sms *SMSStore

	mu   sync.RWMutex
	msgs []inbound.Message // by id
}

func newInboundStore(s *SMSStore) *InboundStore { return &InboundStore{sms: s} }

// Inbound is the store of inbound (mobile-originated) messages.
func (db *DB) Inbound() *InboundStore { return db.inbound }

// Keep saves m and queues r, when not nil, in the outbox, atomically.
func (s *InboundStore) Keep(ctx context.Context, m inbound.Message, r *sms.Report) error {
	if err := inbound.Check(m); err != nil {
		return err
	}
	m.ReceivedAt = storeTime(m.ReceivedAt)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := slices.BinarySearchFunc(s.msgs, m.ID, func(x inbound.Message, id sms.MessageID) int { return cmp.Compare(x.ID, id) })
	if found {
		return msgkit.Errorf(msgkit.Conflict, sms.CodeMessageExists, "inbound message %s exists", m.ID)
	}
	if r != nil {
		q := *r
		q.Body = slices.Clone(r.Body)
		q.NextAt, q.CreatedAt = storeTime(q.NextAt), storeTime(q.CreatedAt)
		s.sms.enqueueReport(q)
	}
	s.msgs = slices.Insert(s.msgs, i, m)
	if len(s.msgs) > KeepInbound+KeepInbound/4 {
		// The oldest leave by the quarter, so that the shift is paid
		// once per many messages, not per message.
		s.msgs = slices.Delete(s.msgs, 0, len(s.msgs)-KeepInbound)
	}
	return nil
}

// Messages lists the messages by q, by id unless q sorts them.
func (s *InboundStore) Messages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[inbound.Message], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return msgkit.Apply(s.msgs, q, inbound.Attr)
}
