package memstore

import (
	"context"
	"slices"
	"sync"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/audit"
)

var _ audit.Store = (*AuditStore)(nil)

// AuditStore keeps the audit trail in memory, in id order.
type AuditStore struct {
	mu      sync.RWMutex
	entries []audit.Entry
}

// Append stores e with the next id.
func (s *AuditStore) Append(ctx context.Context, e audit.Entry) (audit.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.ID = int64(len(s.entries)) + 1
	e.At = storedTime(e.At)
	e.Before, e.After = slices.Clone(e.Before), slices.Clone(e.After)
	s.entries = append(s.entries, e)
	return e, nil
}

// Entries lists the entries by q, by id unless q sorts them.
func (s *AuditStore) Entries(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[audit.Entry], error) {
	s.mu.RLock()
	page, err := msgkit.Apply(s.entries, q, audit.Attr)
	s.mu.RUnlock()
	for i, e := range page.Items {
		e.Before, e.After = slices.Clone(e.Before), slices.Clone(e.After)
		page.Items[i] = e
	}
	return page, err
}
