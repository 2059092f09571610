package memstore

import (
	"context"
	"sync"

	"github.com/msgkit/msgkit/sms/smpp"
)

// SMPPStore keeps which parts each SMSC took, under which id, for as
// long as receipts may come: the newest MaxSMPPSubmitted records, the
// oldest leaving first (a receipt after that finds no part, as one after
// a restart of the memory store does).
type SMPPStore struct {
	mu     sync.Mutex
	byPart map[smpp.PartKey]smpp.Submitted
	byID   map[smppID]smpp.PartKey
	order  []smpp.PartKey // insertion order, for eviction; a ring
	head   int
	max    int
}

// MaxSMPPSubmitted bounds the records of SMPPStore: about a day of
// traffic at 10 parts a second, some 300 MB at most.
const MaxSMPPSubmitted = 1_000_000

type smppID struct{ conn, id string }

var _ smpp.Store = (*SMPPStore)(nil)

func newSMPPStore(max int) *SMPPStore {
	return &SMPPStore{byPart: map[smpp.PartKey]smpp.Submitted{}, byID: map[smppID]smpp.PartKey{}, max: max}
}

// SaveSubmitted records parts the SMSC took; a part saved again keeps the
// newest id.
func (s *SMPPStore) SaveSubmitted(_ context.Context, subs []smpp.Submitted) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range subs {
		if old, ok := s.byPart[sub.PartKey]; ok {
			delete(s.byID, smppID{old.Conn, old.SMSCID})
		} else {
			s.evictFor()
			s.order = append(s.order, sub.PartKey)
		}
		s.byPart[sub.PartKey] = sub
		s.byID[smppID{sub.Conn, sub.SMSCID}] = sub.PartKey
	}
	return nil
}

// evictFor makes room for one more record.
func (s *SMPPStore) evictFor() {
	for len(s.byPart) >= s.max && s.head < len(s.order) {
		k := s.order[s.head]
		s.head++
		if old, ok := s.byPart[k]; ok {
			delete(s.byPart, k)
			delete(s.byID, smppID{old.Conn, old.SMSCID})
		}
	}
	if s.head > len(s.order)/2 && s.head > 1024 {
		s.order = append([]smpp.PartKey(nil), s.order[s.head:]...)
		s.head = 0
	}
}

// SubmittedParts returns the records of the keys the SMSCs took.
func (s *SMPPStore) SubmittedParts(_ context.Context, keys []smpp.PartKey) (map[smpp.PartKey]smpp.Submitted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[smpp.PartKey]smpp.Submitted{}
	for _, k := range keys {
		if sub, ok := s.byPart[k]; ok {
			out[k] = sub
		}
	}
	return out, nil
}

// PartsOf finds the parts conn's SMSC calls by ids.
func (s *SMPPStore) PartsOf(_ context.Context, conn string, ids []string) (map[string]smpp.Submitted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]smpp.Submitted{}
	for _, id := range ids {
		if k, ok := s.byID[smppID{conn, id}]; ok {
			out[id] = s.byPart[k]
		}
	}
	return out, nil
}
