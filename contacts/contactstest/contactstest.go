// Package contactstest is the contract every contacts store meets:
// contacts and lists, the catalog, imports and their memory. Run is its
// one entry point: memstore and pgstore both call it, and a behaviour
// that differs between them is a bug. Bench holds the benchmarks both
// stores share.
package contactstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// The tenants of the suite.
const (
	TenantA msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
	TenantB msgkit.ServiceUUID = "7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e"
)

// runStoreTests runs the contract against stores made by newStore, one
// fresh, empty store per subtest.
func runStoreTests(t *testing.T, newStore func(t *testing.T) contacts.Store) {
	t.Helper()
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, s contacts.Store)
	}{
		{"lists", testLists},
		{"list names", testListNames},
		{"errors alike", testErrorsAlike},
		{"empty alike", testEmptyAlike},
		{"contact round trip", testRoundTrip},
		{"tenants apart", testTenants},
		{"list rule", testListRule},
		{"update is atomic", testUpdate},
		{"delete and erase", testDelete},
		{"list counts", testCounts},
		{"listing", testListing},
		{"listing filters", testFilters},
		{"listing filters law", testFiltersLaw},
		{"listing at the shown second", testShownTimes},
		{"listing time filters law", testTimeFiltersLaw},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newStore(t))
		})
	}
}

// at is a time as stores keep it: UTC, to the microsecond.
func at(sec int64) time.Time { return time.Unix(1_767_225_600+sec, 123_456_000).UTC() }

func uuidN(prefix, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", prefix, n) }

// ListUUID and ContactUUID are the suite's uuids.
func ListUUID(n int) string    { return uuidN(0x11111111, n) }
func ContactUUID(n int) string { return uuidN(0x22222222, n) }

func mustList(t *testing.T, s contacts.Store, svc msgkit.ServiceUUID, n int, name string) contacts.List {
	t.Helper()
	l, err := s.CreateList(context.Background(), svc, contacts.List{UUID: ListUUID(n), Name: name, Status: "active", Created: at(int64(n)), Updated: at(int64(n))})
	if err != nil {
		t.Fatalf("CreateList: %v", err)
	}
	return l
}

// NewContact is a contact of list, made from field values by Fill.
func NewContact(t testing.TB, n int, list string, values map[string]string) contacts.Contact {
	t.Helper()
	in := contacts.Input{ListUUID: &list, Values: map[string]*string{}}
	for k, v := range values {
		in.Values[k] = &v
	}
	c := contacts.Contact{UUID: ContactUUID(n), Created: at(int64(100 + n)), Updated: at(int64(200 + n))}
	if err := contacts.Fill(&c, in, true); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	return c
}

func mustContact(t *testing.T, s contacts.Store, svc msgkit.ServiceUUID, c contacts.Contact) contacts.Contact {
	t.Helper()
	got, err := s.CreateContact(context.Background(), svc, c)
	if err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	return got
}

func wantKind(t *testing.T, err error, kind msgkit.Kind, what string) {
	t.Helper()
	if msgkit.KindOf(err) != kind {
		t.Errorf("%s: %v, want %s", what, err, kind)
	}
}

var cmpContact = cmp.AllowUnexported(contacts.Contact{})

func testLists(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	a := mustList(t, s, TenantA, 1, "Newsletter")
	mustList(t, s, TenantA, 2, "VIP")
	if a.ContactsCount != 0 || a.Name != "Newsletter" {
		t.Errorf("created %+v", a)
	}
	if _, err := s.CreateList(ctx, TenantA, contacts.List{UUID: ListUUID(1), Name: "again"}); msgkit.KindOf(err) != msgkit.Conflict {
		t.Errorf("a list uuid twice: %v", err)
	}
	got, err := s.UpdateList(ctx, TenantA, ListUUID(1), func(l contacts.List) (contacts.List, error) {
		l.Name, l.Updated = "News", at(50)
		return l, nil
	})
	if err != nil || got.Name != "News" || !got.Updated.Equal(at(50)) || !got.Created.Equal(at(1)) {
		t.Errorf("UpdateList = %+v, %v", got, err)
	}
	if got, err := s.List(ctx, TenantA, ListUUID(1)); err != nil || got.Name != "News" {
		t.Errorf("List = %+v, %v", got, err)
	}
	if err := s.DeleteList(ctx, TenantA, ListUUID(2), at(60)); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(ctx, TenantA, ListUUID(2))
	wantKind(t, err, msgkit.NotFound, "a deleted list")
	wantKind(t, s.DeleteList(ctx, TenantA, ListUUID(2), at(61)), msgkit.NotFound, "deleting a deleted list")
	page, err := s.Lists(ctx, TenantA, msgkit.ListQuery{}, false)
	if err != nil || page.Total != 1 || page.Items[0].UUID != ListUUID(1) {
		t.Errorf("Lists = %+v, %v", page, err)
	}
	page, err = s.Lists(ctx, TenantA, msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "name", Desc: true}}}, true)
	if err != nil || page.Total != 2 || page.Items[0].Name != "VIP" || page.Items[1].Deleted.IsZero() == page.Items[0].Deleted.IsZero() {
		t.Errorf("Lists with deleted = %+v, %v", page, err)
	}
}

// ListNames reads the names of many lists in one call: those in use of
// the tenant only, each once, an empty map for none.
func testListNames(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "Newsletter")
	mustList(t, s, TenantA, 2, "VIP")
	mustList(t, s, TenantA, 3, "Gone")
	mustList(t, s, TenantB, 4, "B's")
	if err := s.DeleteList(ctx, TenantA, ListUUID(3), at(9)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		uuids []string
		want  map[string]string
	}{
		{"nil", nil, map[string]string{}},
		{"none", []string{}, map[string]string{}},
		{"in use, deleted, another tenant's, unknown and unstorable",
			[]string{ListUUID(2), ListUUID(1), ListUUID(3), ListUUID(4), ListUUID(5), "bad\x00\xff", ListUUID(1)},
			map[string]string{ListUUID(1): "Newsletter", ListUUID(2): "VIP"}},
		{"only missing ones", []string{ListUUID(3), ListUUID(4)}, map[string]string{}},
	} {
		got, err := s.ListNames(ctx, TenantA, tt.uuids)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got == nil {
			t.Errorf("%s: nil, want an empty map", tt.name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got, err := s.ListNames(ctx, TenantB, []string{ListUUID(1), ListUUID(4)}); err != nil || !cmp.Equal(got, map[string]string{ListUUID(4): "B's"}) {
		t.Errorf("B's names: %v, %v", got, err)
	}
}

// Every field of a contact reads back as stored.
func testRoundTrip(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L")
	values := map[string]string{}
	for _, name := range contacts.FieldNames() {
		values[name] = "v " + name + " ßΣ%_'\\"
	}
	values["mobile"], values["b_mobile"], values["gender"], values["birthday"] = "+386 40 123 456", "0038631234567", "female", "2000-02-29"
	values["email"], values["b_email"], values["column_1"], values["column_100"] = "a@b.si", "c@d.si", "Gold", "100"
	c := NewContact(t, 1, ListUUID(1), values)
	c.OptStatus, c.OptStatusWebpush, c.Member = contacts.OptIn, contacts.OptOut, contacts.Unsubscribed
	c.Telegram = contacts.Channel{Identifier: "@ana", OptStatus: contacts.OptIn, Data: []byte(`{"chat_id":42}`)}
	c.OptStatusWhatsApp = contacts.OptOut
	c.WebpushSubscription = "https://push.example/s/" + strings.Repeat("AbC-_%'", 280) // longer than a field may be
	c.Options = map[string]contacts.MemberStatus{"3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Subscribed, "4f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Unsubscribed}
	c.Touchpoints = map[string]contacts.MemberStatus{"5f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Subscribed}
	c.Interests = map[string]contacts.MemberStatus{"6f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Unsubscribed}
	created := mustContact(t, s, TenantA, c)
	got, err := s.Contact(ctx, TenantA, c.UUID, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []contacts.Contact{created, got} {
		if diff := cmp.Diff(c, g, cmpContact); diff != "" {
			t.Errorf("read back (-stored +got):\n%s", diff)
		}
	}
	// A contact with nothing but its list reads back empty, not with "".
	bare := mustContact(t, s, TenantA, NewContact(t, 2, ListUUID(1), nil))
	if got, _ := s.Contact(ctx, TenantA, bare.UUID, false); !cmp.Equal(bare, got, cmpContact) {
		t.Errorf("bare contact: %+v", got)
	}
	_, err = s.CreateContact(ctx, TenantA, c)
	wantKind(t, err, msgkit.Conflict, "a contact uuid twice")
}

// Tenant B sees, changes and deletes nothing of tenant A's.
func testTenants(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "A's")
	mustContact(t, s, TenantA, NewContact(t, 1, ListUUID(1), map[string]string{"first_name": "Ana"}))
	_, err := s.List(ctx, TenantB, ListUUID(1))
	wantKind(t, err, msgkit.NotFound, "B reads A's list")
	_, err = s.Contact(ctx, TenantB, ContactUUID(1), true)
	wantKind(t, err, msgkit.NotFound, "B reads A's contact")
	_, err = s.UpdateContact(ctx, TenantB, ContactUUID(1), func(c contacts.Contact) (contacts.Contact, error) { return c, nil })
	wantKind(t, err, msgkit.NotFound, "B changes A's contact")
	_, err = s.UpdateList(ctx, TenantB, ListUUID(1), func(l contacts.List) (contacts.List, error) { return l, nil })
	wantKind(t, err, msgkit.NotFound, "B changes A's list")
	wantKind(t, s.DeleteContact(ctx, TenantB, ContactUUID(1), true, at(9)), msgkit.NotFound, "B erases A's contact")
	wantKind(t, s.DeleteList(ctx, TenantB, ListUUID(1), at(9)), msgkit.NotFound, "B deletes A's list")
	_, err = s.CreateContact(ctx, TenantB, NewContact(t, 2, ListUUID(1), nil))
	wantKind(t, err, msgkit.Invalid, "B puts a contact into A's list")
	// B may use the same uuids for records of its own.
	mustList(t, s, TenantB, 1, "B's")
	mustContact(t, s, TenantB, NewContact(t, 1, ListUUID(1), map[string]string{"first_name": "Bo"}))
	for svc, want := range map[msgkit.ServiceUUID]string{TenantA: "Ana", TenantB: "Bo"} {
		page, err := s.Contacts(ctx, svc, contacts.ContactQuery{})
		if err != nil || page.Total != 1 || page.Items[0].Value(segmentation.FirstName) != want {
			t.Errorf("%s's contacts: %+v, %v", svc, page, err)
		}
		lists, err := s.Lists(ctx, svc, msgkit.ListQuery{}, true)
		if err != nil || lists.Total != 1 {
			t.Errorf("%s's lists: %+v, %v", svc, lists, err)
		}
	}
}

// A contact's list is one of its tenant's lists in use.
func testListRule(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L1")
	mustList(t, s, TenantA, 2, "L2")
	mustContact(t, s, TenantA, NewContact(t, 1, ListUUID(1), nil))
	_, err := s.CreateContact(ctx, TenantA, NewContact(t, 2, ListUUID(9), nil))
	checkListField(t, err, "an unknown list")
	if err := s.DeleteList(ctx, TenantA, ListUUID(2), at(5)); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateContact(ctx, TenantA, NewContact(t, 3, ListUUID(2), nil))
	checkListField(t, err, "a deleted list")
	_, err = s.UpdateContact(ctx, TenantA, ContactUUID(1), func(c contacts.Contact) (contacts.Contact, error) {
		c.ListUUID = ListUUID(2)
		return c, nil
	})
	checkListField(t, err, "moving to a deleted list")
}

func checkListField(t *testing.T, err error, what string) {
	t.Helper()
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Kind != msgkit.Invalid || len(e.Fields) == 0 || e.Fields[0].Name != "list_uuid" {
		t.Errorf("%s: %v, want Invalid naming list_uuid", what, err)
	}
}

func testUpdate(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L")
	c := mustContact(t, s, TenantA, NewContact(t, 1, ListUUID(1), map[string]string{"first_name": "Ana", "column_3": "x"}))
	refused := errors.New("refused")
	if _, err := s.UpdateContact(ctx, TenantA, c.UUID, func(c contacts.Contact) (contacts.Contact, error) {
		c.OptStatus = contacts.OptOut
		return c, refused
	}); !errors.Is(err, refused) {
		t.Errorf("a refused change: %v", err)
	}
	if got, _ := s.Contact(ctx, TenantA, c.UUID, false); got.OptStatus != "" {
		t.Errorf("a refused change was stored: %+v", got)
	}
	next := NewContact(t, 1, ListUUID(1), map[string]string{"last_name": "Novak", "mobile": "+38640111222"})
	next.Created, next.Updated, next.OptStatus = c.Created, at(400), contacts.OptIn
	got, err := s.UpdateContact(ctx, TenantA, c.UUID, func(contacts.Contact) (contacts.Contact, error) { return next, nil })
	if err != nil || !cmp.Equal(next, got, cmpContact) {
		t.Errorf("UpdateContact = %+v, %v", got, err)
	}
	if got, _ := s.Contact(ctx, TenantA, c.UUID, false); !cmp.Equal(next, got, cmpContact) {
		t.Errorf("after update (-want +got):\n%s", cmp.Diff(next, got, cmpContact))
	}
	_, err = s.UpdateContact(ctx, TenantA, ContactUUID(99), func(c contacts.Contact) (contacts.Contact, error) { return c, nil })
	wantKind(t, err, msgkit.NotFound, "updating an unknown contact")
}

func testDelete(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L")
	mustContact(t, s, TenantA, NewContact(t, 1, ListUUID(1), map[string]string{"email": "a@b.si"}))
	mustContact(t, s, TenantA, NewContact(t, 2, ListUUID(1), map[string]string{"email": "c@d.si"}))
	if err := s.DeleteContact(ctx, TenantA, ContactUUID(1), false, at(500)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Contact(ctx, TenantA, ContactUUID(1), false)
	wantKind(t, err, msgkit.NotFound, "a deleted contact")
	got, err := s.Contact(ctx, TenantA, ContactUUID(1), true)
	if err != nil || !got.Deleted.Equal(at(500)) || got.Value(segmentation.Email) != "a@b.si" {
		t.Errorf("a deleted contact, with deleted: %+v, %v", got, err)
	}
	_, err = s.UpdateContact(ctx, TenantA, ContactUUID(1), func(c contacts.Contact) (contacts.Contact, error) { return c, nil })
	wantKind(t, err, msgkit.NotFound, "updating a deleted contact")
	page, _ := s.Contacts(ctx, TenantA, contacts.ContactQuery{})
	withDeleted, _ := s.Contacts(ctx, TenantA, contacts.ContactQuery{ShowDeleted: true})
	if page.Total != 1 || withDeleted.Total != 2 {
		t.Errorf("listing: %d in use, %d with deleted", page.Total, withDeleted.Total)
	}
	// Erase: nothing of the contact is left, deleted or not.
	for _, n := range []int{1, 2} {
		if err := s.DeleteContact(ctx, TenantA, ContactUUID(n), true, at(600)); err != nil {
			t.Fatal(err)
		}
		_, err = s.Contact(ctx, TenantA, ContactUUID(n), true)
		wantKind(t, err, msgkit.NotFound, "an erased contact")
	}
	if page, _ := s.Contacts(ctx, TenantA, contacts.ContactQuery{ShowDeleted: true}); page.Total != 0 {
		t.Errorf("erased contacts listed: %+v", page)
	}
	wantKind(t, s.DeleteContact(ctx, TenantA, ContactUUID(1), true, at(700)), msgkit.NotFound, "erasing twice")
}

func testCounts(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L1")
	mustList(t, s, TenantA, 2, "L2")
	for i, member := range []contacts.MemberStatus{contacts.Subscribed, contacts.Subscribed, contacts.Unsubscribed, contacts.Subscribed} {
		c := NewContact(t, i+1, ListUUID(1), nil)
		c.Member = member
		mustContact(t, s, TenantA, c)
	}
	mustContact(t, s, TenantA, NewContact(t, 9, ListUUID(2), nil))
	if err := s.DeleteContact(ctx, TenantA, ContactUUID(4), false, at(9)); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx, TenantA, ListUUID(1))
	if err != nil || l.Subscribed != 2 || l.Unsubscribed != 1 || l.ContactsCount != 3 {
		t.Errorf("counts of L1: %+v, %v", l, err)
	}
	page, _ := s.Lists(ctx, TenantA, msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "name"}}}, false)
	if len(page.Items) != 2 || page.Items[0].ContactsCount != 3 || page.Items[1].ContactsCount != 1 {
		t.Errorf("counts in the listing: %+v", page.Items)
	}
}

// The listing agrees with the model: msgkit.Apply over ContactValue of
// the contacts Selects keeps, in store order.
func testListing(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	mustList(t, s, TenantA, 1, "L1")
	mustList(t, s, TenantA, 2, "L2")
	names := []string{"Ana", "bojan", "Ćiril", "", "Ana", "Eva", "zala", "Žan"}
	var all []contacts.Contact
	for i, name := range names {
		values := map[string]string{"first_name": name, "last_name": fmt.Sprintf("N%d", i%3)}
		if i%2 == 0 {
			values["mobile"] = fmt.Sprintf("+3864012345%d", i)
			values["gender"] = "female"
		} else {
			values["email"] = fmt.Sprintf("p%d@example.com", i)
			values["gender"] = "male"
		}
		if i%3 == 0 {
			values["birthday"] = fmt.Sprintf("19%02d-03-0%d", 80+i, 1+i%7)
		}
		list := ListUUID(1 + i%2)
		c := NewContact(t, i+1, list, values)
		if i == 5 {
			c.Options = map[string]contacts.MemberStatus{"3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Subscribed}
		}
		all = append(all, mustContact(t, s, TenantA, c))
	}
	if err := s.DeleteContact(ctx, TenantA, ContactUUID(8), false, at(800)); err != nil {
		t.Fatal(err)
	}
	all[7].Deleted = at(800)
	seg, err := segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"first_name","condition":"startswith","value":"a","operator":"OR"},{"field":"subscription_options_in","condition":"in","value":["3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"],"operator":"OR"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	parse := func(raw string) msgkit.ListQuery {
		q, err := msgkit.ParseListQuery(mustValues(raw), contacts.ContactSpec())
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	today := msgkit.Date{Year: 2026, Month: 2, Day: 28}
	for _, q := range []contacts.ContactQuery{
		{List: parse("")},
		{List: parse("sort=first_name&page_size=3&page_number=2")},
		{List: parse("sort=-birthday,last_name")},
		{List: parse("gender=female&sort=-mobile")},
		{List: parse("gt(updated_dt)=" + at(203).Format(time.RFC3339Nano))},
		{List: parse("first_name=Ana"), ListUUIDs: []string{ListUUID(1)}},
		{List: parse(""), UUIDs: []string{ContactUUID(2), ContactUUID(3), ContactUUID(8)}, ShowDeleted: true},
		{List: parse(""), Required: []segmentation.Field{segmentation.Mobile, segmentation.Birthday}},
		{List: parse("sort=last_name"), Segment: seg, Today: today},
		{List: parse("page_size=2"), CountOnly: true},
		{List: parse("email=p1@example.com")},
	} {
		got, err := s.Contacts(ctx, TenantA, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		want := model(t, all, q)
		if got.Total != want.Total || !slices.EqualFunc(got.Items, want.Items, func(a, b contacts.Contact) bool { return cmp.Equal(a, b, cmpContact) }) {
			t.Errorf("%+v:\ngot  %d %v\nwant %d %v", q, got.Total, uuids(got.Items), want.Total, uuids(want.Items))
		}
	}
}

// model is the listing as the contract defines it.
func model(t *testing.T, all []contacts.Contact, q contacts.ContactQuery) msgkit.Page[contacts.Contact] {
	t.Helper()
	m := q.Matcher()
	var kept []*contacts.Contact
	for i := range all {
		if q.Selects(&all[i], m) {
			kept = append(kept, &all[i])
		}
	}
	page, err := msgkit.Apply(kept, q.List, contacts.ContactValue)
	if err != nil {
		t.Fatal(err)
	}
	out := msgkit.Page[contacts.Contact]{Total: page.Total}
	if !q.CountOnly {
		for _, c := range page.Items {
			out.Items = append(out.Items, *c)
		}
	}
	return out
}

func uuids(cs []contacts.Contact) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.UUID[len(c.UUID)-2:]
	}
	return out
}
