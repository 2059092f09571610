package memstore

import (
	"cmp"
	"context"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

var _ contacts.ImportStore = (*ContactsStore)(nil)

// Import imports a batch into a list in use of the tenant (else Invalid
// naming list_uuid), whole or nothing, under the store's lock (the body
// was read before: no lock waits on a client). It finds the list's
// contacts in use by the items' keys (the first of each key in store
// order) and decides every item (contacts.ImportRun.Decide), adding the
// created contacts as it goes; a created contact's UUID that is taken
// takes them out again, before anything else has changed. Then it makes
// the changes (Apply), which cannot fail. The items are read a chunk at
// a time, three times; what it holds beside them is an entry per key and
// one per change.
func (s *ContactsStore) Import(_ context.Context, svc msgkit.ServiceUUID, b contacts.ImportBatch) (contacts.ImportResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	list := b.Options.ListUUID
	if t.liveList(list) == nil {
		return contacts.ImportResult{}, contacts.InvalidList(list)
	}
	run := b.Start()
	byKey := map[string]*contacts.Contact{} // the contact each key matches; nil: none
	for k := range b.Keys() {
		byKey[k] = nil
	}
	for _, c := range t.contacts {
		if c.ListUUID != list || !c.Deleted.IsZero() {
			continue
		}
		k := contacts.ImportKey(c, b.Options.Identifier)
		if cur, ok := byKey[k]; ok && (cur == nil || cmp.Or(c.Created.Compare(cur.Created), cmp.Compare(c.UUID, cur.UUID)) < 0) {
			byKey[k] = c
		}
	}
	type change struct {
		item int // in body order
		c    *contacts.Contact
	}
	var created []*contacts.Contact
	var changes []change
	n := 0
	for items := range b.Items.Chunks(contacts.ImportChunk) {
		for i := range items {
			it := &items[i]
			k := run.Key(it)
			cur := byKey[k] // k is "" for no match: never a key
			c, changed := run.Decide(it, cur)
			if c != nil {
				if _, ok := t.contacts[c.UUID]; ok {
					for _, c := range created {
						delete(t.contacts, c.UUID)
					}
					return contacts.ImportResult{}, contacts.ContactExists(c.UUID)
				}
				t.contacts[c.UUID] = c
				created = append(created, c)
				if k != "" {
					byKey[k] = c
				}
			}
			if changed {
				changes = append(changes, change{n, cur})
			}
			n++
		}
	}
	// Nothing can fail from here: the changes are made in item order, on
	// the stored contacts (in place: order keeps pointing at them) and on
	// the created ones.
	n = 0
	for items := range b.Items.Chunks(contacts.ImportChunk) {
		for ; len(changes) > 0 && changes[0].item < n+len(items); changes = changes[1:] {
			run.Apply(changes[0].c, &items[changes[0].item-n])
		}
		n += len(items)
	}
	t.order = append(t.order, created...)
	t.changed()
	if len(created) > 0 {
		t.dirty = true
	}
	return run.Result(), nil
}
