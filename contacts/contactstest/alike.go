package contactstest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// wantError holds err to want (a constructor of package contacts): the
// same kind, code, message and fields, so that the stores cannot word a
// refusal differently.
func wantError(t *testing.T, what string, err, want error) {
	t.Helper()
	got, ok := err.(*msgkit.Error)
	if !ok {
		t.Errorf("%s: %v, want %v", what, err, want)
		return
	}
	w := want.(*msgkit.Error)
	if got.Kind != w.Kind || got.Code != w.Code || got.Message != w.Message || !cmp.Equal(got.Fields, w.Fields) {
		t.Errorf("%s: %v %+v, want %v %+v", what, got, got.Fields, w, w.Fields)
	}
}

// The refusals of lists and contacts are the domain's (package contacts'
// constructors), worded alike by every store.
func testErrorsAlike(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L")
	mustContact(t, s, TenantA, NewContact(t, 1, ListUUID(1), nil))
	const unknown = "ffffffff-0000-4000-8000-000000000000"
	_, err := s.List(ctx, TenantA, unknown)
	wantError(t, "an unknown list", err, contacts.ListNotFound(unknown))
	wantError(t, "deleting an unknown list", s.DeleteList(ctx, TenantA, unknown, at(1)), contacts.ListNotFound(unknown))
	_, err = s.UpdateList(ctx, TenantB, ListUUID(1), func(l contacts.List) (contacts.List, error) { return l, nil })
	wantError(t, "another tenant's list", err, contacts.ListNotFound(ListUUID(1)))
	_, err = s.CreateList(ctx, TenantA, contacts.List{UUID: ListUUID(1), Name: "again", Status: "active", Created: at(2), Updated: at(2)})
	wantError(t, "a list uuid twice", err, contacts.ListExists(ListUUID(1)))

	_, err = s.Contact(ctx, TenantA, unknown, true)
	wantError(t, "an unknown contact", err, contacts.ContactNotFound(unknown))
	_, err = s.UpdateContact(ctx, TenantA, unknown, func(c contacts.Contact) (contacts.Contact, error) { return c, nil })
	wantError(t, "changing an unknown contact", err, contacts.ContactNotFound(unknown))
	wantError(t, "erasing an unknown contact", s.DeleteContact(ctx, TenantA, unknown, true, at(3)), contacts.ContactNotFound(unknown))
	_, err = s.CreateContact(ctx, TenantA, NewContact(t, 1, ListUUID(1), nil))
	wantError(t, "a contact uuid twice", err, contacts.ContactExists(ContactUUID(1)))
	_, err = s.CreateContact(ctx, TenantA, NewContact(t, 2, unknown, nil))
	wantError(t, "a contact of an unknown list", err, contacts.InvalidList(unknown))
	_, err = s.UpdateContact(ctx, TenantA, ContactUUID(1), func(c contacts.Contact) (contacts.Contact, error) {
		c.ListUUID = unknown
		return c, nil
	})
	wantError(t, "a contact moved to an unknown list", err, contacts.InvalidList(unknown))
}

// Both stores answer nothing alike: an empty listing has an empty page,
// never nil items, and a contact's empty maps read back empty, nil ones
// nil.
func testEmptyAlike(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	emptyListings := func(what string, svc msgkit.ServiceUUID) {
		t.Helper()
		cs, err := s.Contacts(ctx, svc, contacts.ContactQuery{})
		if err != nil || cs.Items == nil || len(cs.Items) != 0 || cs.Total != 0 {
			t.Errorf("%s: contacts %#v, %v", what, cs, err)
		}
		ls, err := s.Lists(ctx, svc, msgkit.ListQuery{}, true)
		if err != nil || ls.Items == nil || len(ls.Items) != 0 || ls.Total != 0 {
			t.Errorf("%s: lists %#v, %v", what, ls, err)
		}
	}
	emptyListings("an empty store", TenantA)
	mustList(t, s, TenantA, 1, "L")
	emptyListings("a tenant without records beside one with", TenantB)
	mustList(t, s, TenantB, 2, "B")
	empty := NewContact(t, 1, ListUUID(2), nil)
	empty.Custom, empty.Options = map[int]string{}, map[string]contacts.MemberStatus{}
	empty.Touchpoints, empty.Interests = map[string]contacts.MemberStatus{}, map[string]contacts.MemberStatus{}
	bare := NewContact(t, 2, ListUUID(2), nil)
	for _, c := range []contacts.Contact{empty, bare} {
		mustContact(t, s, TenantB, c)
		got, err := s.Contact(ctx, TenantB, c.UUID, false)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c, got, cmpContact); diff != "" {
			t.Errorf("contact %s read back (-stored +got):\n%s", c.UUID, diff)
		}
	}
	page, err := s.Contacts(ctx, TenantB, contacts.ContactQuery{})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("contacts %+v, %v", page, err)
	}
	for i, want := range []contacts.Contact{empty, bare} {
		if diff := cmp.Diff(want, page.Items[i], cmpContact); diff != "" {
			t.Errorf("listed contact %d (-stored +got):\n%s", i, diff)
		}
	}
}

// The refusals of the catalog are the domain's, worded alike by every
// store, and its empty answers are empty, never nil.
func testCatalogAlike(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	const unknown = "ffffffff-0000-4000-8000-000000000000"
	for _, k := range contacts.RecordKinds() {
		_, err := s.Record(ctx, TenantA, k, unknown, true)
		wantError(t, string(k)+" unknown", err, contacts.RecordNotFound(k, unknown))
		_, err = s.UpdateRecord(ctx, TenantA, k, unknown, func(r contacts.Record) (contacts.Record, error) { return r, nil })
		wantError(t, string(k)+" unknown changed", err, contacts.RecordNotFound(k, unknown))
		page, err := s.Records(ctx, TenantA, contacts.RecordQuery{Kind: k, ShowDeleted: true})
		if err != nil || page.Items == nil || len(page.Items) != 0 {
			t.Errorf("%s: records %#v, %v", k, page, err)
		}
	}
	_, err := s.GroupTarget(ctx, TenantA, unknown)
	wantError(t, "an unknown group's target", err, contacts.RecordNotFound(contacts.KindGroup, unknown))
	for _, k := range []contacts.MemberKind{contacts.MemberOption, contacts.MemberTouchpoint, contacts.MemberInterest} {
		page, err := s.Members(ctx, TenantA, contacts.MemberQuery{Kind: k})
		if err != nil || page.Items == nil || len(page.Items) != 0 {
			t.Errorf("%s members: %#v, %v", k, page, err)
		}
	}
	_, err = s.Members(ctx, TenantA, contacts.MemberQuery{Kind: "list"})
	wantError(t, "members of an unknown kind", err, contacts.UnknownMemberKind("list"))

	fields, err := s.CustomFields(ctx, TenantA)
	if err != nil || fields == nil || len(fields) != 0 {
		t.Errorf("custom fields of none: %#v, %v", fields, err)
	}
	for _, subs := range [][]string{nil, {unknown}} {
		opts, err := s.OptionUUIDs(ctx, TenantA, subs)
		if err != nil || opts == nil || len(opts) != 0 {
			t.Errorf("options of %v: %#v, %v", subs, opts, err)
		}
	}
	g := mustRecord(t, s, TenantA, sample(t, contacts.KindGroup, 1, "", ""))
	target, err := s.GroupTarget(ctx, TenantA, g.UUID)
	if want := (contacts.GroupTarget{ListUUIDs: []string{}, Segmentation: []string{}}); err != nil || !cmp.Equal(target, want) {
		t.Errorf("a bare group's target: %#v, %v", target, err)
	}
}
