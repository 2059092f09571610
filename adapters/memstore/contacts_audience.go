package memstore

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ campaign.Audience = (*ContactsStore)(nil)

// Recipients walks the tenant's contacts in store order (created, then
// UUID) from after, the cursor of the last contact of the page before
// ("<created RFC 3339 nano>|<uuid>"), and returns the next limit that
// sel reaches (campaign.Address).
func (s *ContactsStore) Recipients(_ context.Context, svc msgkit.ServiceUUID, sel campaign.Selection, after string, limit int) ([]campaign.Recipient, string, error) {
	var from time.Time
	var fromUUID string
	if after != "" {
		at, id, ok := strings.Cut(after, "|")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil {
			return nil, "", contacts.BadCursor(after)
		}
		from, fromUUID = t, id
	}
	var match *segmentation.Matcher
	if sel.Query != nil {
		match = segmentation.Compile(sel.Query, sel.Today)
	}
	s.mu.Lock() // sorting the order may write
	defer s.mu.Unlock()
	t := s.tenant(svc, false)
	if t == nil || limit <= 0 {
		return nil, "", nil
	}
	if t.dirty {
		slices.SortFunc(t.order, func(a, b *contacts.Contact) int {
			if c := a.Created.Compare(b.Created); c != 0 {
				return c
			}
			return strings.Compare(a.UUID, b.UUID)
		})
		t.dirty = false
	}
	i := 0
	if after != "" {
		i = sort.Search(len(t.order), func(i int) bool {
			c := t.order[i]
			return c.Created.After(from) || c.Created.Equal(from) && c.UUID > fromUUID
		})
	}
	var out []campaign.Recipient
	next := ""
	for ; i < len(t.order) && len(out) < limit; i++ {
		c := t.order[i]
		if !slices.Contains(sel.Lists, c.ListUUID) {
			continue
		}
		addr, ok := campaign.Address(c, sel.Channel)
		if !ok || match != nil && !match.Match(c) {
			continue
		}
		out = append(out, campaign.Recipient{Contact: c.UUID, Address: addr})
		next = c.Created.UTC().Format(time.RFC3339Nano) + "|" + c.UUID
	}
	return out, next, nil
}
