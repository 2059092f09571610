package memstore

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// ContactsStore keeps every tenant's customer data, each tenant's apart.
type ContactsStore struct {
	mu      sync.RWMutex
	tenants map[msgkit.ServiceUUID]*tenantContacts
}

// tenantContacts is one tenant's data. order holds its contacts in store
// order (created, then uuid) once sorted; dirty says it needs sorting.
type tenantContacts struct {
	lists    map[string]*contacts.List
	contacts map[string]*contacts.Contact
	order    []*contacts.Contact
	dirty    bool
	cols     *contactColumns                // of order, for listings; nil after a write
	records  map[recordKey]*contacts.Record // the catalog (contacts_catalog.go)
}

var _ contacts.Store = (*ContactsStore)(nil)

func newContactsStore() *ContactsStore {
	return &ContactsStore{tenants: map[msgkit.ServiceUUID]*tenantContacts{}}
}

// tenant is svc's data, made when create says so; nil otherwise.
func (s *ContactsStore) tenant(svc msgkit.ServiceUUID, create bool) *tenantContacts {
	t := s.tenants[svc]
	if t == nil && create {
		t = &tenantContacts{lists: map[string]*contacts.List{}, contacts: map[string]*contacts.Contact{}}
		s.tenants[svc] = t
	}
	return t
}

// changed drops what listings keep of the tenant's contacts: a write
// made it stale.
func (t *tenantContacts) changed() { t.cols = nil }

// liveList is the tenant's list in use, or nil.
func (t *tenantContacts) liveList(uuid string) *contacts.List {
	if t == nil {
		return nil
	}
	if l := t.lists[uuid]; l != nil && l.Deleted.IsZero() {
		return l
	}
	return nil
}

// counted is l with its counts.
func (t *tenantContacts) counted(l contacts.List) contacts.List {
	return t.countAll(map[string]*contacts.List{l.UUID: &l})[l.UUID]
}

// countAll counts the contacts in use of every list of lists in one pass
// over the tenant's contacts, and returns the lists with their counts.
func (t *tenantContacts) countAll(lists map[string]*contacts.List) map[string]contacts.List {
	out := make(map[string]contacts.List, len(lists))
	for id, l := range lists {
		c := *l
		c.Subscribed, c.Unsubscribed, c.ContactsCount = 0, 0, 0
		out[id] = c
	}
	for _, c := range t.contacts {
		l, ok := out[c.ListUUID]
		if !ok || !c.Deleted.IsZero() {
			continue
		}
		l.ContactsCount++
		if c.Member == contacts.Unsubscribed {
			l.Unsubscribed++
		} else {
			l.Subscribed++
		}
		out[c.ListUUID] = l
	}
	return out
}

// CreateList stores a list.
func (s *ContactsStore) CreateList(_ context.Context, svc msgkit.ServiceUUID, l contacts.List) (contacts.List, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, true)
	if _, ok := t.lists[l.UUID]; ok {
		return contacts.List{}, contacts.ListExists(l.UUID)
	}
	l.Subscribed, l.Unsubscribed, l.ContactsCount = 0, 0, 0
	t.lists[l.UUID] = &l
	return l, nil
}

// List returns a list in use with its counts.
func (s *ContactsStore) List(_ context.Context, svc msgkit.ServiceUUID, uuid string) (contacts.List, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	l := t.liveList(uuid)
	if l == nil {
		return contacts.List{}, contacts.ListNotFound(uuid)
	}
	return t.counted(*l), nil
}

// UpdateList changes a list in use.
func (s *ContactsStore) UpdateList(_ context.Context, svc msgkit.ServiceUUID, uuid string, change func(contacts.List) (contacts.List, error)) (contacts.List, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	l := t.liveList(uuid)
	if l == nil {
		return contacts.List{}, contacts.ListNotFound(uuid)
	}
	next, err := change(t.counted(*l))
	if err != nil {
		return contacts.List{}, err
	}
	l.Name, l.Status, l.Updated = next.Name, next.Status, next.Updated
	return t.counted(*l), nil
}

// DeleteList deletes a list softly.
func (s *ContactsStore) DeleteList(_ context.Context, svc msgkit.ServiceUUID, uuid string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.tenant(svc, false).liveList(uuid)
	if l == nil {
		return contacts.ListNotFound(uuid)
	}
	l.Deleted = at
	return nil
}

// Lists lists the tenant's lists.
func (s *ContactsStore) Lists(_ context.Context, svc msgkit.ServiceUUID, q msgkit.ListQuery, showDeleted bool) (msgkit.Page[contacts.List], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	var ls []contacts.List
	if t != nil {
		shown := map[string]*contacts.List{}
		for id, l := range t.lists {
			if showDeleted || l.Deleted.IsZero() {
				shown[id] = l
			}
		}
		for _, l := range t.countAll(shown) {
			ls = append(ls, l)
		}
	}
	slices.SortFunc(ls, func(a, b contacts.List) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UUID, b.UUID)) })
	return msgkit.Apply(ls, q, contacts.ListValue)
}

// ListNames returns the names of the tenant's lists in use among uuids.
func (s *ContactsStore) ListNames(_ context.Context, svc msgkit.ServiceUUID, uuids []string) (map[string]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	names := make(map[string]string, len(uuids))
	for _, id := range uuids {
		if l := t.liveList(id); l != nil {
			names[id] = l.Name
		}
	}
	return names, nil
}

// CreateContact stores a contact of a list in use.
func (s *ContactsStore) CreateContact(_ context.Context, svc msgkit.ServiceUUID, c contacts.Contact) (contacts.Contact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t.liveList(c.ListUUID) == nil {
		return contacts.Contact{}, contacts.InvalidList(c.ListUUID)
	}
	if _, ok := t.contacts[c.UUID]; ok {
		return contacts.Contact{}, contacts.ContactExists(c.UUID)
	}
	stored := c.Clone()
	t.contacts[c.UUID] = &stored
	t.order = append(t.order, &stored)
	t.dirty = true
	t.changed()
	return stored.Clone(), nil
}

// Contact returns a contact.
func (s *ContactsStore) Contact(_ context.Context, svc msgkit.ServiceUUID, uuid string, withDeleted bool) (contacts.Contact, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	if t == nil {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	c := t.contacts[uuid]
	if c == nil || (!withDeleted && !c.Deleted.IsZero()) {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	return c.Clone(), nil
}

// UpdateContact changes a contact in use.
func (s *ContactsStore) UpdateContact(_ context.Context, svc msgkit.ServiceUUID, uuid string, change func(contacts.Contact) (contacts.Contact, error)) (contacts.Contact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t == nil || t.contacts[uuid] == nil || !t.contacts[uuid].Deleted.IsZero() {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	c := t.contacts[uuid]
	next, err := change(c.Clone())
	if err != nil {
		return contacts.Contact{}, err
	}
	if next.ListUUID != c.ListUUID && t.liveList(next.ListUUID) == nil {
		return contacts.Contact{}, contacts.InvalidList(next.ListUUID)
	}
	next = next.Clone()
	next.UUID, next.Created, next.Deleted = c.UUID, c.Created, c.Deleted
	*c = next // in place: order keeps pointing at it; created is unchanged
	t.changed()
	return c.Clone(), nil
}

// DeleteContact deletes a contact softly, or erases it.
func (s *ContactsStore) DeleteContact(_ context.Context, svc msgkit.ServiceUUID, uuid string, erase bool, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t == nil || t.contacts[uuid] == nil {
		return contacts.ContactNotFound(uuid)
	}
	c := t.contacts[uuid]
	t.changed()
	if !erase {
		if !c.Deleted.IsZero() {
			return contacts.ContactNotFound(uuid)
		}
		c.Deleted = at
		return nil
	}
	delete(t.contacts, uuid)
	t.order = slices.DeleteFunc(t.order, func(o *contacts.Contact) bool { return o == c })
	*c = contacts.Contact{} // nothing of the person stays reachable
	return nil
}

// Contacts lists the contacts q selects.
func (s *ContactsStore) Contacts(_ context.Context, svc msgkit.ServiceUUID, q contacts.ContactQuery) (msgkit.Page[contacts.Contact], error) {
	if err := q.Resolved(); err != nil {
		return msgkit.Page[contacts.Contact]{}, err
	}
	s.mu.Lock() // sorting the order may write
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t == nil {
		return msgkit.Page[contacts.Contact]{Items: []contacts.Contact{}}, nil
	}
	if t.dirty {
		slices.SortFunc(t.order, func(a, b *contacts.Contact) int {
			return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UUID, b.UUID))
		})
		t.dirty = false
	}
	if t.cols == nil {
		t.cols = newContactColumns(t.order)
	}
	page, err := listContacts(t.cols, q, parallelFrom)
	if err != nil {
		return msgkit.Page[contacts.Contact]{}, err
	}
	out := msgkit.Page[contacts.Contact]{Total: page.Total, Items: []contacts.Contact{}}
	if !q.CountOnly {
		for _, c := range page.Items {
			out.Items = append(out.Items, c.Clone())
		}
	}
	return out, nil
}

// parallelFrom is the number of contacts from which a listing is split
// across the cores.
const parallelFrom = 100_000

// listContacts runs q over the contacts of cs (store order). A page near
// the start of a listing of from contacts or more is found in parts, one
// per core, each part's first offset+size matches in order, which the
// page is then taken from: the scan is bound by reading memory, and each
// core reads its own part.
func listContacts(cs *contactColumns, q contacts.ContactQuery, from int) (msgkit.Page[*contacts.Contact], error) {
	cs.prepare(q.List)
	keep, lq := cs.selection(&q)
	parts := runtime.GOMAXPROCS(0)
	end := lq.Offset() + lq.PageSize
	n := len(cs.pos)
	if parts < 2 || n < from || lq.PageSize == 0 || end > 10_000 || end < 0 {
		page, err := msgkit.ApplyAttrs(cs.pos, keep(), lq, cs.attr)
		return cs.contactsOf(page), err
	}
	head := lq
	head.PageNumber, head.PageSize = 1, end
	pages := make([]msgkit.Page[int32], parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := n*i/parts, n*(i+1)/parts
		wg.Go(func() { pages[i], errs[i] = msgkit.ApplyAttrs(cs.pos[lo:hi], keep(), head, cs.attr) })
	}
	wg.Wait()
	var tops []int32
	total := 0
	for i, p := range pages {
		if errs[i] != nil {
			return msgkit.Page[*contacts.Contact]{}, errs[i]
		}
		tops = append(tops, p.Items...) // in part order: store order among equals
		total += p.Total
	}
	page, err := msgkit.ApplyAttrs(tops, nil, lq, cs.attr)
	page.Total = total
	return cs.contactsOf(page), err
}

// contactsOf is p with the contacts at its positions.
func (cs *contactColumns) contactsOf(p msgkit.Page[int32]) msgkit.Page[*contacts.Contact] {
	out := msgkit.Page[*contacts.Contact]{Total: p.Total, Items: make([]*contacts.Contact, len(p.Items))}
	for i, at := range p.Items {
		out.Items[i] = cs.order[at]
	}
	return out
}

// MissingLists returns the ids of ids that are no list in use of the
// tenant, in the order given (campaign.ListChecker).
func (s *ContactsStore) MissingLists(_ context.Context, svc msgkit.ServiceUUID, ids []string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	var missing []string
	for _, id := range ids {
		if t.liveList(id) == nil {
			missing = append(missing, id)
		}
	}
	return missing, nil
}
