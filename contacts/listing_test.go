package contacts_test

import (
	"testing"

	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// Queries that differ in any condition Selects holds have different
// selection keys, so a store never lists one with what it kept of
// another; queries with a segmentation query or a group have none.
func TestSelectionKey(t *testing.T) {
	member := func(uuid string, st contacts.MemberStatus) *contacts.MembershipFilter {
		return &contacts.MembershipFilter{UUIDs: []string{uuid}, Status: st}
	}
	qs := []contacts.ContactQuery{
		{},
		{ShowDeleted: true},
		{ListUUIDs: []string{"a"}},
		{ListUUIDs: []string{"a", "b"}},
		{UUIDs: []string{"a"}},
		{Required: []segmentation.Field{segmentation.Mobile}},
		{Options: member("o", "")},
		{Options: member("o", contacts.Subscribed)},
		{Options: member("p", contacts.Subscribed)},
		{Touchpoints: member("o", "")},
		{Interests: member("o", "")},
		{Channel: contacts.ChannelFilter{Name: "telegram"}},
		{Channel: contacts.ChannelFilter{Name: "telegram", Identifier: "x"}},
	}
	seen := map[string]int{}
	for i, q := range qs {
		key, ok := q.SelectionKey()
		if !ok {
			t.Fatalf("query %d %+v has no key", i, q)
		}
		if j, dup := seen[key]; dup {
			t.Errorf("queries %d and %d share the key %q", j, i, key)
		}
		seen[key] = i
	}
	for _, q := range []contacts.ContactQuery{{Segment: &segmentation.Query{}}, {Group: &contacts.GroupFilter{}}} {
		if key, ok := q.SelectionKey(); ok {
			t.Errorf("%+v: key %q, want none", q, key)
		}
	}
}
