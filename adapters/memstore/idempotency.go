package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
)

// IdempotencyStore keeps the records of idempotency keys.
type IdempotencyStore struct {
	mu   sync.Mutex
	recs map[idemKey]idempotency.Record
}

type idemKey struct {
	scope string
	key   idempotency.Key
}

var _ idempotency.Store = (*IdempotencyStore)(nil)

func newIdempotencyStore() *IdempotencyStore {
	return &IdempotencyStore{recs: map[idemKey]idempotency.Record{}}
}

// Create saves rec unless a record of its scope and key is live at
// rec.Created, which it returns instead.
func (s *IdempotencyStore) Create(_ context.Context, rec idempotency.Record) (idempotency.Record, bool, error) {
	if err := rec.Check(); err != nil {
		return idempotency.Record{}, false, err
	}
	k := idemKey{rec.Scope, rec.Key}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.recs[k]; ok && got.Live(rec.Created) {
		return got.Clone(), false, nil
	}
	s.recs[k] = rec.Clone()
	return rec, true, nil
}

// Replace saves next in place of the pending record held names.
func (s *IdempotencyStore) Replace(_ context.Context, held, next idempotency.Record) (bool, error) {
	if err := next.Check(); err != nil {
		return false, err
	}
	if next.Scope != held.Scope || next.Key != held.Key {
		return false, msgkit.Invalidf(idempotency.CodeInvalid, "key", "a record keeps its scope and key")
	}
	k := idemKey{held.Scope, held.Key}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.holds(k, held) {
		return false, nil
	}
	s.recs[k] = next.Clone()
	return true, nil
}

// Release deletes the pending record held names.
func (s *IdempotencyStore) Release(_ context.Context, held idempotency.Record) (bool, error) {
	k := idemKey{held.Scope, held.Key}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.holds(k, held) {
		return false, nil
	}
	delete(s.recs, k)
	return true, nil
}

// holds reports whether the record at k is pending with held's Ref and
// Attempt.
func (s *IdempotencyStore) holds(k idemKey, held idempotency.Record) bool {
	got, ok := s.recs[k]
	return ok && got.State == idempotency.Pending && got.Ref == held.Ref && got.Attempt == held.Attempt
}

// Purge deletes the records expired at or before now.
func (s *IdempotencyStore) Purge(_ context.Context, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for k, r := range s.recs {
		if !r.Live(now) {
			delete(s.recs, k)
			n++
		}
	}
	return n, nil
}

// Record returns the record of a scope and key, expired or not, for
// inspection; NotFound when there is none.
func (s *IdempotencyStore) Record(_ context.Context, scope string, key idempotency.Key) (idempotency.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[idemKey{scope, key}]
	if !ok {
		return idempotency.Record{}, idempotency.NotFound(scope, key)
	}
	return r.Clone(), nil
}
