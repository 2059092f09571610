package memstore

import (
	"context"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

var _ contacts.ImportStore = (*ContactsStore)(nil)

// Import imports a batch into a list in use of the tenant (else Invalid
// naming list_uuid). Under the store's lock it indexes the list's
// contacts in use by the identifier's key (those the batch's keys name),
// plans the batch (contacts.ImportBatch.Plan) and then applies the plan,
// which cannot fail: the import is whole or nothing.
func (s *ContactsStore) Import(_ context.Context, svc msgkit.ServiceUUID, b contacts.ImportBatch) (contacts.ImportResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t.liveList(b.Options.ListUUID) == nil {
		return contacts.ImportResult{}, invalidList(b.Options.ListUUID)
	}
	keys := make(map[string]bool)
	for _, k := range b.Keys() {
		keys[k] = true
	}
	matched := make([]contacts.Contact, 0, min(len(keys), len(t.contacts)))
	for _, c := range t.contacts {
		if c.ListUUID != b.Options.ListUUID || !c.Deleted.IsZero() {
			continue
		}
		if k := contacts.ImportKey(c, b.Options.Identifier); k != "" && keys[k] {
			matched = append(matched, *c) // Plan clones what it changes
		}
	}
	plan := b.Plan(matched)
	fresh := make(map[string]bool, len(plan.Created))
	for _, c := range plan.Created {
		if _, ok := t.contacts[c.UUID]; ok || fresh[c.UUID] {
			return contacts.ImportResult{}, msgkit.Errorf(msgkit.Conflict, "contact_exists", "contact %s exists", c.UUID)
		}
		fresh[c.UUID] = true
	}
	// The plan's contacts share nothing with the batch nor the store
	// (Plan copies what it changes), so they are stored as they are.
	for i := range plan.Created {
		c := &plan.Created[i]
		t.contacts[c.UUID] = c
		t.order = append(t.order, c)
	}
	if len(plan.Created) > 0 {
		t.dirty = true
	}
	for _, c := range plan.Changed {
		*t.contacts[c.UUID] = c // in place: order keeps pointing at it
	}
	return plan.Result, nil
}
