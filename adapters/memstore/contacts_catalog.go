package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ contacts.CatalogStore = (*ContactsStore)(nil)

// recordKey is a catalog record's key within its tenant.
type recordKey struct {
	kind contacts.RecordKind
	uuid string
}

// liveRecord is the tenant's record in use, or nil.
func (t *tenantContacts) liveRecord(kind contacts.RecordKind, uuid string) *contacts.Record {
	if t == nil {
		return nil
	}
	if r := t.records[recordKey{kind, uuid}]; r != nil && r.Deleted.IsZero() {
		return r
	}
	return nil
}

// checkRelations applies the relation rules to r, to be stored under
// its key (self, for an update, is the stored record).
func (t *tenantContacts) checkRelations(r *contacts.Record, self *contacts.Record) error {
	switch r.Kind {
	case contacts.KindOption:
		if t.liveRecord(contacts.KindSubscription, r.Parent) == nil {
			return contacts.InvalidReference(r.Kind, "subscription_uuid", r.Parent)
		}
	case contacts.KindGroupSegmentation:
		if t.liveRecord(contacts.KindGroup, r.Parent) == nil {
			return contacts.InvalidReference(r.Kind, "group_uuid", r.Parent)
		}
	case contacts.KindGroupList:
		if t.liveRecord(contacts.KindGroup, r.Parent) == nil {
			return contacts.InvalidReference(r.Kind, "group_uuid", r.Parent)
		}
		if t.liveList(r.ListUUID) == nil {
			return contacts.InvalidReference(r.Kind, "list_uuid", r.ListUUID)
		}
		for _, o := range t.records {
			if o != self && o.Kind == contacts.KindGroupList && o.Parent == r.Parent && o.ListUUID == r.ListUUID {
				return contacts.GroupListTaken(r.Parent, r.ListUUID)
			}
		}
	}
	return nil
}

// CreateRecord stores a catalog record.
func (s *ContactsStore) CreateRecord(_ context.Context, svc msgkit.ServiceUUID, r contacts.Record) (contacts.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, true)
	if t.records == nil {
		t.records = map[recordKey]*contacts.Record{}
	}
	key := recordKey{r.Kind, r.UUID}
	if _, ok := t.records[key]; ok {
		return contacts.Record{}, contacts.RecordExists(r.Kind, r.UUID)
	}
	if err := t.checkRelations(&r, nil); err != nil {
		return contacts.Record{}, err
	}
	if r.Kind == contacts.KindCustomField {
		taken := map[int]bool{}
		for _, o := range t.records {
			if o.Kind == contacts.KindCustomField {
				taken[o.Column] = true
			}
		}
		if r.Column != 0 && taken[r.Column] {
			return contacts.Record{}, contacts.ColumnTaken(r.Column)
		}
		for n := 1; r.Column == 0 && n <= segmentation.MaxColumn; n++ {
			if !taken[n] {
				r.Column = n
			}
		}
		if r.Column == 0 {
			return contacts.Record{}, contacts.ColumnTaken(0)
		}
	}
	stored := r.Clone()
	t.records[key] = &stored
	return stored.Clone(), nil
}

// Record returns a catalog record.
func (s *ContactsStore) Record(_ context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, withDeleted bool) (contacts.Record, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	if t == nil {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	r := t.records[recordKey{kind, uuid}]
	if r == nil || (!withDeleted && !r.Deleted.IsZero()) {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	return r.Clone(), nil
}

// UpdateRecord changes a catalog record in use.
func (s *ContactsStore) UpdateRecord(_ context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, change func(contacts.Record) (contacts.Record, error)) (contacts.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	r := t.liveRecord(kind, uuid)
	if r == nil {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	next, err := change(r.Clone())
	if err != nil {
		return contacts.Record{}, err
	}
	next = next.Clone()
	next.Kind, next.UUID, next.Column, next.Created, next.Deleted = r.Kind, r.UUID, r.Column, r.Created, r.Deleted
	if err := t.checkRelations(&next, r); err != nil {
		return contacts.Record{}, err
	}
	*r = next
	return r.Clone(), nil
}

// DeleteRecord deletes a catalog record softly.
func (s *ContactsStore) DeleteRecord(_ context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, at time.Time) error {
	if !kind.Deletable() {
		return contacts.NotDeletable(kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	r := t.liveRecord(kind, uuid)
	if r == nil {
		return contacts.RecordNotFound(kind, uuid)
	}
	if kind == contacts.KindSubscription {
		for _, o := range t.records {
			if o.Kind == contacts.KindOption && o.Parent == uuid && o.Deleted.IsZero() {
				return contacts.SubscriptionInUse(uuid)
			}
		}
	}
	r.Deleted = at
	return nil
}

// sortedRecords are the tenant's records of kind that keep says, in store
// order.
func (t *tenantContacts) sortedRecords(kind contacts.RecordKind, keep func(*contacts.Record) bool) []contacts.Record {
	out := []contacts.Record{} // none is empty, as PostgreSQL's rows are
	if t == nil {
		return out
	}
	for k, r := range t.records {
		if k.kind == kind && keep(r) {
			out = append(out, r.Clone())
		}
	}
	slices.SortFunc(out, func(a, b contacts.Record) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UUID, b.UUID))
	})
	return out
}

// Records lists catalog records of one kind.
func (s *ContactsStore) Records(_ context.Context, svc msgkit.ServiceUUID, q contacts.RecordQuery) (msgkit.Page[contacts.Record], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rs := s.tenant(svc, false).sortedRecords(q.Kind, func(r *contacts.Record) bool { return q.ShowDeleted || r.Deleted.IsZero() })
	return msgkit.Apply(rs, q.List, contacts.RecordValue)
}

// CustomFields are the tenant's custom fields in use, by column.
func (s *ContactsStore) CustomFields(_ context.Context, svc msgkit.ServiceUUID) ([]contacts.Record, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rs := s.tenant(svc, false).sortedRecords(contacts.KindCustomField, func(r *contacts.Record) bool { return r.Deleted.IsZero() })
	slices.SortFunc(rs, func(a, b contacts.Record) int { return cmp.Compare(a.Column, b.Column) })
	return rs, nil
}

// OptionUUIDs are the options in use of the subscriptions in use.
func (s *ContactsStore) OptionUUIDs(_ context.Context, svc msgkit.ServiceUUID, subscriptions []string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	out := []string{}
	for _, r := range t.sortedRecords(contacts.KindOption, func(r *contacts.Record) bool {
		return r.Deleted.IsZero() && slices.Contains(subscriptions, r.Parent) && t.liveRecord(contacts.KindSubscription, r.Parent) != nil
	}) {
		out = append(out, r.UUID)
	}
	slices.Sort(out)
	return out, nil
}

// GroupTarget is a group's lists and segmentation.
func (s *ContactsStore) GroupTarget(_ context.Context, svc msgkit.ServiceUUID, group string) (contacts.GroupTarget, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tenant(svc, false)
	if t.liveRecord(contacts.KindGroup, group) == nil {
		return contacts.GroupTarget{}, contacts.RecordNotFound(contacts.KindGroup, group)
	}
	g := contacts.GroupTarget{ListUUIDs: []string{}, Segmentation: []string{}}
	for _, r := range t.sortedRecords(contacts.KindGroupList, func(r *contacts.Record) bool { return r.Parent == group }) {
		if t.liveList(r.ListUUID) != nil {
			g.ListUUIDs = append(g.ListUUIDs, r.ListUUID)
		}
	}
	slices.Sort(g.ListUUIDs)
	for _, r := range t.sortedRecords(contacts.KindGroupSegmentation, func(r *contacts.Record) bool { return r.Parent == group }) {
		g.Segmentation = append(g.Segmentation, r.Data)
	}
	return g, nil
}

// memberships is the map of c that kind keeps, made when create says so.
func memberships(c *contacts.Contact, kind contacts.MemberKind, create bool) map[string]contacts.MemberStatus {
	var m *map[string]contacts.MemberStatus
	switch kind {
	case contacts.MemberOption:
		m = &c.Options
	case contacts.MemberTouchpoint:
		m = &c.Touchpoints
	case contacts.MemberInterest:
		m = &c.Interests
	default:
		return nil
	}
	if *m == nil && create {
		*m = map[string]contacts.MemberStatus{}
	}
	return *m
}

// SetMember sets a contact's membership.
func (s *ContactsStore) SetMember(_ context.Context, svc msgkit.ServiceUUID, m contacts.Member) (contacts.Member, error) {
	if m.Kind.RecordKind() == "" {
		return contacts.Member{}, contacts.UnknownMemberKind(m.Kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	var c *contacts.Contact
	if t != nil {
		c = t.contacts[m.ContactUUID]
	}
	if c == nil || !c.Deleted.IsZero() {
		return contacts.Member{}, contacts.InvalidMember("contact_uuid", "contact", m.ContactUUID)
	}
	if t.liveRecord(m.Kind.RecordKind(), m.TargetUUID) == nil {
		return contacts.Member{}, contacts.InvalidMember(m.Kind.Field(), string(m.Kind), m.TargetUUID)
	}
	memberships(c, m.Kind, true)[m.TargetUUID] = m.Status
	c.Updated = m.Updated
	t.changed()
	return m, nil
}

// Members lists memberships of the tenant's contacts in use.
func (s *ContactsStore) Members(_ context.Context, svc msgkit.ServiceUUID, q contacts.MemberQuery) (msgkit.Page[contacts.Member], error) {
	if q.Kind.RecordKind() == "" {
		return msgkit.Page[contacts.Member]{}, contacts.UnknownMemberKind(q.Kind)
	}
	s.mu.Lock() // sorting the order may write
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	ms := []contacts.Member{}
	if t != nil {
		if t.dirty {
			slices.SortFunc(t.order, func(a, b *contacts.Contact) int {
				return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UUID, b.UUID))
			})
			t.dirty = false
		}
		n := 0
		for _, c := range t.order {
			if c.Deleted.IsZero() {
				n += len(memberships(c, q.Kind, false))
			}
		}
		ms = make([]contacts.Member, 0, n) // sized once: growing it by appends doubled the bytes of a listing
		var targets []string               // reused: a listing reads every contact
		for _, c := range t.order {
			of := memberships(c, q.Kind, false)
			if !c.Deleted.IsZero() || len(of) == 0 {
				continue
			}
			targets = slices.AppendSeq(targets[:0], maps.Keys(of))
			slices.Sort(targets)
			for _, target := range targets {
				ms = append(ms, contacts.Member{Kind: q.Kind, ContactUUID: c.UUID, TargetUUID: target, Status: of[target], Updated: c.Updated})
			}
		}
	}
	return msgkit.Apply(ms, q.List, contacts.MemberValue)
}
