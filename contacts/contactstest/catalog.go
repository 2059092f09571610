package contactstest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// CatalogStore is what the catalog suite needs: the catalog, and the
// lists and contacts it refers to.
type CatalogStore interface {
	contacts.Store
	contacts.CatalogStore
}

// runCatalogStoreTests runs the catalog contract against stores made by
// newStore, one fresh, empty store per subtest.
func runCatalogStoreTests(t *testing.T, newStore func(t *testing.T) CatalogStore) {
	t.Helper()
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, s CatalogStore)
	}{
		{"records of every kind", testRecordKinds},
		{"custom field columns", testColumns},
		{"subscriptions and options", testOptions},
		{"groups", testGroups},
		{"members", testMembers},
		{"catalog tenants apart", testCatalogTenants},
		{"catalog listing", testCatalogListing},
		{"catalog alike", testCatalogAlike},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newStore(t))
		})
	}
}

// RecordUUID is the suite's uuid of catalog record n.
func RecordUUID(n int) string { return uuidN(0x33333333, n) }

const segData = `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`

// sample is a valid record of kind k, number n, whose relations name
// subscription, group and list.
func sample(t *testing.T, k contacts.RecordKind, n int, parent, list string) contacts.Record {
	t.Helper()
	s := func(v string) *string { return &v }
	in := contacts.RecordInput{}
	switch k {
	case contacts.KindCustomField:
		in = contacts.RecordInput{DisplayName: s("Loyalty"), FieldType: s("select"), Config: json.RawMessage(`{"options": ["gold","silver"]}`), OrderNum: s("3"), Identifier: s("yes")}
	case contacts.KindSegmentationSet, contacts.KindSegmentationGroup:
		in = contacts.RecordInput{Name: s("Capital"), Data: s(segData)}
	case contacts.KindOption:
		in = contacts.RecordInput{Name: s("Weekly"), SubscriptionUUID: &parent, OrderNum: s("2")}
	case contacts.KindGroupList:
		in = contacts.RecordInput{GroupUUID: &parent, ListUUID: &list}
	case contacts.KindGroupSegmentation:
		in = contacts.RecordInput{GroupUUID: &parent, Data: s(segData)}
	default:
		in = contacts.RecordInput{Name: s("Name"), Description: s("About it")}
	}
	r := contacts.Record{Kind: k, UUID: RecordUUID(n), Created: at(int64(300 + n)), Updated: at(int64(400 + n))}
	if err := contacts.FillRecord(&r, in); err != nil {
		t.Fatalf("FillRecord %s: %v", k, err)
	}
	return r
}

func mustRecord(t *testing.T, s contacts.CatalogStore, svc msgkit.ServiceUUID, r contacts.Record) contacts.Record {
	t.Helper()
	got, err := s.CreateRecord(context.Background(), svc, r)
	if err != nil {
		t.Fatalf("CreateRecord %s: %v", r.Kind, err)
	}
	return got
}

// parents makes the subscription, group and list every kind's sample
// needs, and returns their uuids.
func parents(t *testing.T, s CatalogStore, svc msgkit.ServiceUUID) (sub, group, list string) {
	t.Helper()
	mustList(t, s, svc, 1, "L")
	mustRecord(t, s, svc, sample(t, contacts.KindSubscription, 1, "", ""))
	mustRecord(t, s, svc, sample(t, contacts.KindGroup, 2, "", ""))
	return RecordUUID(1), RecordUUID(2), ListUUID(1)
}

var cmpRecord = cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })

// Every kind: create, read back, conflict, update, delete (soft) or no
// delete, show_deleted.
func testRecordKinds(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	sub, group, list := parents(t, s, TenantA)
	for i, k := range contacts.RecordKinds() {
		n := 10 + i
		r := sample(t, k, n, map[bool]string{true: sub, false: group}[k == contacts.KindOption], list)
		got := mustRecord(t, s, TenantA, r)
		if k == contacts.KindCustomField {
			r.Column = 1
		}
		if diff := cmp.Diff(r, got, cmpRecord); diff != "" {
			t.Errorf("%s: CreateRecord returned (-want +got):\n%s", k, diff)
		}
		read, err := s.Record(ctx, TenantA, k, r.UUID, false)
		if err != nil {
			t.Fatalf("%s: Record: %v", k, err)
		}
		if diff := cmp.Diff(r, read, cmpRecord); diff != "" {
			t.Errorf("%s: Record (-want +got):\n%s", k, diff)
		}
		if _, err := s.CreateRecord(ctx, TenantA, r); msgkit.KindOf(err) != msgkit.Conflict {
			t.Errorf("%s: a uuid twice: %v", k, err)
		}
		_, err = s.Record(ctx, TenantA, k, RecordUUID(999), false)
		wantKind(t, err, msgkit.NotFound, string(k)+": unknown uuid")
		upd, err := s.UpdateRecord(ctx, TenantA, k, r.UUID, func(c contacts.Record) (contacts.Record, error) {
			c.Name, c.Updated, c.Created, c.Column = "Renamed", at(900), at(1), 77
			return c, nil
		})
		if err != nil || !upd.Updated.Equal(at(900)) || !upd.Created.Equal(r.Created) || upd.Column != r.Column {
			t.Errorf("%s: UpdateRecord = %+v, %v", k, upd, err)
		}
		if read, _ := s.Record(ctx, TenantA, k, r.UUID, false); read.Name != upd.Name || !read.Updated.Equal(at(900)) {
			t.Errorf("%s: after update read %+v", k, read)
		}
		if !k.Deletable() {
			wantKind(t, s.DeleteRecord(ctx, TenantA, k, r.UUID, at(950)), msgkit.Invalid, string(k)+": delete")
			continue
		}
		if err := s.DeleteRecord(ctx, TenantA, k, r.UUID, at(950)); err != nil {
			t.Fatalf("%s: DeleteRecord: %v", k, err)
		}
		_, err = s.Record(ctx, TenantA, k, r.UUID, false)
		wantKind(t, err, msgkit.NotFound, string(k)+": a deleted record")
		wantKind(t, s.DeleteRecord(ctx, TenantA, k, r.UUID, at(951)), msgkit.NotFound, string(k)+": deleting twice")
		_, err = s.UpdateRecord(ctx, TenantA, k, r.UUID, func(c contacts.Record) (contacts.Record, error) { return c, nil })
		wantKind(t, err, msgkit.NotFound, string(k)+": updating a deleted record")
		if d, err := s.Record(ctx, TenantA, k, r.UUID, true); err != nil || !d.Deleted.Equal(at(950)) {
			t.Errorf("%s: Record withDeleted = %+v, %v", k, d, err)
		}
		page, err := s.Records(ctx, TenantA, contacts.RecordQuery{Kind: k})
		if err != nil || slices.ContainsFunc(page.Items, func(x contacts.Record) bool { return x.UUID == r.UUID }) {
			t.Errorf("%s: Records lists a deleted record: %+v, %v", k, page, err)
		}
		page, err = s.Records(ctx, TenantA, contacts.RecordQuery{Kind: k, ShowDeleted: true})
		if err != nil || !slices.ContainsFunc(page.Items, func(x contacts.Record) bool { return x.UUID == r.UUID }) {
			t.Errorf("%s: Records with ShowDeleted misses it: %+v, %v", k, page, err)
		}
	}
	// An error from change stores nothing.
	sentinel := msgkit.New(msgkit.Invalid, "x", "no")
	_, err := s.UpdateRecord(ctx, TenantA, contacts.KindGroup, group, func(c contacts.Record) (contacts.Record, error) {
		c.Name = "changed"
		return c, sentinel
	})
	if err != sentinel {
		t.Errorf("UpdateRecord returned %v, want change's error", err)
	}
	if g, _ := s.Record(ctx, TenantA, contacts.KindGroup, group, false); g.Name == "changed" {
		t.Error("a failed change was stored")
	}
}

func testColumns(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	field := func(n, col int) contacts.Record {
		r := sample(t, contacts.KindCustomField, n, "", "")
		r.Column = col
		return r
	}
	if got := mustRecord(t, s, TenantA, field(1, 0)); got.Column != 1 || got.FieldName() != "column_1" {
		t.Errorf("first column %d", got.Column)
	}
	mustRecord(t, s, TenantA, field(2, 3))
	_, err := s.CreateRecord(ctx, TenantA, field(3, 3))
	if msgkit.KindOf(err) != msgkit.Conflict || !namesField(err, "field_name") {
		t.Errorf("a taken column: %v", err)
	}
	if got := mustRecord(t, s, TenantA, field(4, 0)); got.Column != 2 {
		t.Errorf("lowest free column %d, want 2", got.Column)
	}
	if err := s.DeleteRecord(ctx, TenantA, contacts.KindCustomField, RecordUUID(1), at(10)); err != nil {
		t.Fatal(err)
	}
	// A deleted field keeps its column: contacts still hold values in it.
	if got := mustRecord(t, s, TenantA, field(5, 0)); got.Column != 4 {
		t.Errorf("column after a delete %d, want 4 (column_1 stays taken)", got.Column)
	}
	_, err = s.CreateRecord(ctx, TenantA, field(6, 1))
	wantKind(t, err, msgkit.Conflict, "the column of a deleted field")
	// Another tenant has its own columns.
	if got := mustRecord(t, s, TenantB, field(7, 0)); got.Column != 1 {
		t.Errorf("tenant B's first column %d", got.Column)
	}
	fs, err := s.CustomFields(ctx, TenantA)
	var cols []int
	for _, f := range fs {
		cols = append(cols, f.Column)
	}
	if err != nil || !slices.Equal(cols, []int{2, 3, 4}) {
		t.Errorf("CustomFields columns %v, %v; want [2 3 4]", cols, err)
	}
	for n := 6; n <= 101; n++ { // columns 5 to 100
		mustRecord(t, s, TenantA, field(100+n, 0))
	}
	_, err = s.CreateRecord(ctx, TenantA, field(300, 0))
	if msgkit.KindOf(err) != msgkit.Conflict || !namesField(err, "field_name") {
		t.Errorf("no column left: %v", err)
	}
}

func namesField(err error, field string) bool {
	e, ok := err.(*msgkit.Error)
	return ok && slices.ContainsFunc(e.Fields, func(f msgkit.FieldError) bool { return f.Name == field })
}

func testOptions(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	sub, group, _ := parents(t, s, TenantA)
	mustRecord(t, s, TenantA, sample(t, contacts.KindSubscription, 3, "", ""))
	o := mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 10, sub, ""))
	mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 11, sub, ""))
	mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 12, RecordUUID(3), ""))
	for _, bad := range []string{RecordUUID(999), group} {
		_, err := s.CreateRecord(ctx, TenantA, sample(t, contacts.KindOption, 20, bad, ""))
		if msgkit.KindOf(err) != msgkit.Invalid || !namesField(err, "subscription_uuid") {
			t.Errorf("an option of %s (no subscription): %v", bad, err)
		}
	}
	_, err := s.UpdateRecord(ctx, TenantA, contacts.KindOption, o.UUID, func(c contacts.Record) (contacts.Record, error) {
		c.Parent = RecordUUID(999)
		return c, nil
	})
	if msgkit.KindOf(err) != msgkit.Invalid || !namesField(err, "subscription_uuid") {
		t.Errorf("moving an option to no subscription: %v", err)
	}
	uuids, err := s.OptionUUIDs(ctx, TenantA, []string{sub, RecordUUID(999)})
	if err != nil || !slices.Equal(uuids, []string{RecordUUID(10), RecordUUID(11)}) {
		t.Errorf("OptionUUIDs = %v, %v", uuids, err)
	}
	// Filtered by subscription_uuid and status.
	q := msgkit.ListQuery{Filters: []msgkit.Filter{{Op: msgkit.OpEq, Attr: "subscription_uuid", Values: []msgkit.Value{msgkit.StringValue(sub)}}}}
	page, err := s.Records(ctx, TenantA, contacts.RecordQuery{Kind: contacts.KindOption, List: q})
	if err != nil || page.Total != 2 {
		t.Errorf("options of a subscription: %+v, %v", page, err)
	}
	// A subscription with options in use is not deleted.
	err = s.DeleteRecord(ctx, TenantA, contacts.KindSubscription, sub, at(10))
	if msgkit.KindOf(err) != msgkit.Conflict || msgkit.CodeOf(err) != "subscription_in_use" {
		t.Errorf("deleting a subscription with options: %v", err)
	}
	for _, n := range []int{10, 11} {
		if err := s.DeleteRecord(ctx, TenantA, contacts.KindOption, RecordUUID(n), at(11)); err != nil {
			t.Fatal(err)
		}
	}
	if uuids, err := s.OptionUUIDs(ctx, TenantA, []string{sub}); err != nil || len(uuids) != 0 {
		t.Errorf("OptionUUIDs of deleted options = %v, %v", uuids, err)
	}
	if err := s.DeleteRecord(ctx, TenantA, contacts.KindSubscription, sub, at(12)); err != nil {
		t.Errorf("deleting a subscription without options in use: %v", err)
	}
	_, err = s.CreateRecord(ctx, TenantA, sample(t, contacts.KindOption, 21, sub, ""))
	wantKind(t, err, msgkit.Invalid, "an option of a deleted subscription")
}

func testGroups(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	_, group, list := parents(t, s, TenantA)
	mustList(t, s, TenantA, 2, "L2")
	mustList(t, s, TenantA, 3, "L3")
	mustRecord(t, s, TenantA, sample(t, contacts.KindGroupList, 10, group, ListUUID(2)))
	gl := mustRecord(t, s, TenantA, sample(t, contacts.KindGroupList, 11, group, list))
	_, err := s.CreateRecord(ctx, TenantA, sample(t, contacts.KindGroupList, 12, group, list))
	if msgkit.KindOf(err) != msgkit.Conflict || !namesField(err, "list_uuid") {
		t.Errorf("a pair twice: %v", err)
	}
	_, err = s.UpdateRecord(ctx, TenantA, contacts.KindGroupList, gl.UUID, func(c contacts.Record) (contacts.Record, error) {
		c.ListUUID = ListUUID(2)
		return c, nil
	})
	wantKind(t, err, msgkit.Conflict, "updating to a pair taken")
	if _, err := s.UpdateRecord(ctx, TenantA, contacts.KindGroupList, gl.UUID, func(c contacts.Record) (contacts.Record, error) {
		c.Updated = at(30)
		return c, nil
	}); err != nil {
		t.Errorf("updating a group list to its own pair: %v", err)
	}
	for _, tc := range []struct{ group, list, field string }{
		{RecordUUID(999), list, "group_uuid"}, {group, ListUUID(999), "list_uuid"}, {RecordUUID(1), list, "group_uuid"}} {
		_, err := s.CreateRecord(ctx, TenantA, sample(t, contacts.KindGroupList, 13, tc.group, tc.list))
		if msgkit.KindOf(err) != msgkit.Invalid || !namesField(err, tc.field) {
			t.Errorf("group list %s/%s: %v, want Invalid naming %s", tc.group, tc.list, err, tc.field)
		}
	}
	_, err = s.CreateRecord(ctx, TenantA, sample(t, contacts.KindGroupSegmentation, 14, RecordUUID(999), ""))
	if msgkit.KindOf(err) != msgkit.Invalid || !namesField(err, "group_uuid") {
		t.Errorf("segmentation of no group: %v", err)
	}
	mustRecord(t, s, TenantA, sample(t, contacts.KindGroupSegmentation, 15, group, ""))
	if err := s.DeleteList(ctx, TenantA, ListUUID(2), at(40)); err != nil {
		t.Fatal(err)
	}
	got, err := s.GroupTarget(ctx, TenantA, group)
	want := contacts.GroupTarget{ListUUIDs: []string{list}, Segmentation: []string{segData}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("GroupTarget = %+v, %v; want %+v (a deleted list left out)", got, err, want)
	}
	if err := s.DeleteRecord(ctx, TenantA, contacts.KindGroup, group, at(50)); err != nil {
		t.Fatal(err)
	}
	_, err = s.GroupTarget(ctx, TenantA, group)
	wantKind(t, err, msgkit.NotFound, "GroupTarget of a deleted group")
}

func testMembers(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	sub, _, list := parents(t, s, TenantA)
	opt := mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 10, sub, ""))
	opt2 := mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 11, sub, ""))
	tp := mustRecord(t, s, TenantA, sample(t, contacts.KindTouchpoint, 12, "", ""))
	in := mustRecord(t, s, TenantA, sample(t, contacts.KindInterest, 13, "", ""))
	mustContact(t, s, TenantA, NewContact(t, 1, list, map[string]string{"first_name": "Ana"}))
	mustContact(t, s, TenantA, NewContact(t, 2, list, map[string]string{"first_name": "Bor"}))
	set := func(k contacts.MemberKind, contact, target string, st contacts.MemberStatus, sec int64) error {
		_, err := s.SetMember(ctx, TenantA, contacts.Member{Kind: k, ContactUUID: contact, TargetUUID: target, Status: st, Updated: at(sec)})
		return err
	}
	for _, m := range []struct {
		k      contacts.MemberKind
		c, tgt string
		st     contacts.MemberStatus
	}{
		{contacts.MemberOption, ContactUUID(2), opt2.UUID, contacts.Subscribed},
		{contacts.MemberOption, ContactUUID(1), opt2.UUID, contacts.Subscribed},
		{contacts.MemberOption, ContactUUID(1), opt.UUID, contacts.Subscribed},
		{contacts.MemberOption, ContactUUID(1), opt.UUID, contacts.Unsubscribed}, // an update
		{contacts.MemberTouchpoint, ContactUUID(1), tp.UUID, contacts.Subscribed},
		{contacts.MemberInterest, ContactUUID(2), in.UUID, contacts.Unsubscribed},
	} {
		if err := set(m.k, m.c, m.tgt, m.st, 500); err != nil {
			t.Fatalf("SetMember %+v: %v", m, err)
		}
	}
	c, err := s.Contact(ctx, TenantA, ContactUUID(1), false)
	if err != nil || c.Options[opt.UUID] != contacts.Unsubscribed || c.Touchpoints[tp.UUID] != contacts.Subscribed || !c.Updated.Equal(at(500)) {
		t.Errorf("the contact after SetMember: %+v, %v", c, err)
	}
	page, err := s.Members(ctx, TenantA, contacts.MemberQuery{Kind: contacts.MemberOption})
	want := []contacts.Member{
		{Kind: contacts.MemberOption, ContactUUID: ContactUUID(1), TargetUUID: opt.UUID, Status: contacts.Unsubscribed, Updated: at(500)},
		{Kind: contacts.MemberOption, ContactUUID: ContactUUID(1), TargetUUID: opt2.UUID, Status: contacts.Subscribed, Updated: at(500)},
		{Kind: contacts.MemberOption, ContactUUID: ContactUUID(2), TargetUUID: opt2.UUID, Status: contacts.Subscribed, Updated: at(500)},
	}
	if err != nil || page.Total != 3 || !cmp.Equal(page.Items, want) {
		t.Errorf("Members = %+v, %v; want %+v", page, err, want)
	}
	q := msgkit.ListQuery{PageNumber: 1, PageSize: 1, Filters: []msgkit.Filter{
		{Op: msgkit.OpEq, Attr: "option_uuid", Values: []msgkit.Value{msgkit.StringValue(opt2.UUID)}},
		{Op: msgkit.OpEq, Attr: "status", Values: []msgkit.Value{msgkit.StringValue("subscribed")}}}}
	page, err = s.Members(ctx, TenantA, contacts.MemberQuery{Kind: contacts.MemberOption, List: q})
	if err != nil || page.Total != 2 || len(page.Items) != 1 || page.Items[0] != want[1] {
		t.Errorf("Members filtered = %+v, %v", page, err)
	}
	// updated_dt compares as shown, in whole seconds.
	for query, total := range map[string]int{"gt(updated_dt)=" + shown(500): 0, "updated_dt=" + shown(500): 3} {
		q, err := msgkit.ParseListQuery(mustValues(query), contacts.MemberSpec(contacts.MemberOption))
		if err != nil {
			t.Fatal(err)
		}
		if page, err := s.Members(ctx, TenantA, contacts.MemberQuery{Kind: contacts.MemberOption, List: q}); err != nil || page.Total != total {
			t.Errorf("Members %s: %d, %v; want %d", query, page.Total, err, total)
		}
	}
	page, err = s.Members(ctx, TenantA, contacts.MemberQuery{Kind: contacts.MemberInterest})
	if err != nil || page.Total != 1 || page.Items[0].Status != contacts.Unsubscribed || page.Items[0].TargetUUID != in.UUID {
		t.Errorf("interest members = %+v, %v", page, err)
	}
	// The contact and the target must exist and be in use.
	for _, tc := range []struct {
		k          contacts.MemberKind
		c, tgt, fd string
	}{
		{contacts.MemberOption, ContactUUID(99), opt.UUID, "contact_uuid"},
		{contacts.MemberOption, ContactUUID(1), RecordUUID(99), "option_uuid"},
		{contacts.MemberOption, ContactUUID(1), tp.UUID, "option_uuid"},
		{contacts.MemberTouchpoint, ContactUUID(1), in.UUID, "touchpoint_uuid"},
		{contacts.MemberInterest, ContactUUID(1), opt.UUID, "interest_uuid"},
	} {
		err := set(tc.k, tc.c, tc.tgt, contacts.Subscribed, 600)
		if msgkit.KindOf(err) != msgkit.Invalid || !namesField(err, tc.fd) {
			t.Errorf("SetMember %s %s/%s: %v, want Invalid naming %s", tc.k, tc.c, tc.tgt, err, tc.fd)
		}
	}
	if err := s.DeleteRecord(ctx, TenantA, contacts.KindTouchpoint, tp.UUID, at(700)); err != nil {
		t.Fatal(err)
	}
	wantKind(t, set(contacts.MemberTouchpoint, ContactUUID(1), tp.UUID, contacts.Subscribed, 701), msgkit.Invalid, "a deleted touchpoint")
	if err := s.DeleteContact(ctx, TenantA, ContactUUID(2), false, at(702)); err != nil {
		t.Fatal(err)
	}
	wantKind(t, set(contacts.MemberOption, ContactUUID(2), opt.UUID, contacts.Subscribed, 703), msgkit.Invalid, "a deleted contact")
	page, err = s.Members(ctx, TenantA, contacts.MemberQuery{Kind: contacts.MemberOption})
	if err != nil || page.Total != 2 {
		t.Errorf("members of contacts in use: %+v, %v", page, err)
	}
	if c, _ := s.Contact(ctx, TenantA, ContactUUID(1), false); !c.Updated.Equal(at(500)) {
		t.Errorf("a refused SetMember changed the contact's updated time: %v", c.Updated)
	}
}

// No call for one tenant reads or changes another's records.
func testCatalogTenants(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	sub, group, list := parents(t, s, TenantA)
	opt := mustRecord(t, s, TenantA, sample(t, contacts.KindOption, 10, sub, ""))
	mustContact(t, s, TenantA, NewContact(t, 1, list, nil))
	mustRecord(t, s, TenantA, sample(t, contacts.KindCustomField, 11, "", ""))
	if _, err := s.SetMember(ctx, TenantA, contacts.Member{Kind: contacts.MemberOption, ContactUUID: ContactUUID(1), TargetUUID: opt.UUID, Status: contacts.Subscribed, Updated: at(9)}); err != nil {
		t.Fatal(err)
	}
	mustList(t, s, TenantB, 5, "B's")
	mustContact(t, s, TenantB, NewContact(t, 5, ListUUID(5), nil))
	for _, k := range contacts.RecordKinds() {
		parent := group
		if k == contacts.KindOption {
			parent = sub
		}
		uuid := RecordUUID(20 + len(k)) // every kind its own uuid
		r := sample(t, k, 20+len(k), parent, list)
		if k == contacts.KindGroupList {
			r.ListUUID = ListUUID(2)
			mustList(t, s, TenantA, 2, "L2")
		}
		mustRecord(t, s, TenantA, r)
		_, err := s.Record(ctx, TenantB, k, uuid, true)
		wantKind(t, err, msgkit.NotFound, string(k)+": another tenant's record")
		_, err = s.UpdateRecord(ctx, TenantB, k, uuid, func(r contacts.Record) (contacts.Record, error) { return r, nil })
		wantKind(t, err, msgkit.NotFound, string(k)+": updating another tenant's record")
		if k.Deletable() {
			wantKind(t, s.DeleteRecord(ctx, TenantB, k, uuid, at(1)), msgkit.NotFound, string(k)+": deleting another tenant's record")
		}
		page, err := s.Records(ctx, TenantB, contacts.RecordQuery{Kind: k, ShowDeleted: true})
		if err != nil || page.Total != 0 || len(page.Items) != 0 {
			t.Errorf("%s: tenant B lists %+v, %v", k, page, err)
		}
	}
	_, err := s.CreateRecord(ctx, TenantB, sample(t, contacts.KindOption, 40, sub, ""))
	wantKind(t, err, msgkit.Invalid, "an option of another tenant's subscription")
	_, err = s.CreateRecord(ctx, TenantB, sample(t, contacts.KindGroupList, 41, group, list))
	wantKind(t, err, msgkit.Invalid, "a group list of another tenant's group")
	_, err = s.SetMember(ctx, TenantB, contacts.Member{Kind: contacts.MemberOption, ContactUUID: ContactUUID(5), TargetUUID: opt.UUID, Status: contacts.Subscribed, Updated: at(9)})
	wantKind(t, err, msgkit.Invalid, "a membership of another tenant's option")
	_, err = s.SetMember(ctx, TenantB, contacts.Member{Kind: contacts.MemberOption, ContactUUID: ContactUUID(1), TargetUUID: opt.UUID, Status: contacts.Subscribed, Updated: at(9)})
	wantKind(t, err, msgkit.Invalid, "a membership of another tenant's contact")
	if page, err := s.Members(ctx, TenantB, contacts.MemberQuery{Kind: contacts.MemberOption}); err != nil || page.Total != 0 {
		t.Errorf("tenant B's members: %+v, %v", page, err)
	}
	if uuids, err := s.OptionUUIDs(ctx, TenantB, []string{sub}); err != nil || len(uuids) != 0 {
		t.Errorf("tenant B's OptionUUIDs of A's subscription: %v, %v", uuids, err)
	}
	_, err = s.GroupTarget(ctx, TenantB, group)
	wantKind(t, err, msgkit.NotFound, "GroupTarget of another tenant's group")
	if fs, err := s.CustomFields(ctx, TenantB); err != nil || len(fs) != 0 {
		t.Errorf("tenant B's custom fields: %+v, %v", fs, err)
	}
}

// Listings: store order created then uuid, sort, filter, paging.
func testCatalogListing(t *testing.T, s CatalogStore) {
	ctx := context.Background()
	names := []string{"b", "a", "c", "a"}
	for i, name := range names {
		r := sample(t, contacts.KindInterest, 10+i, "", "")
		r.Name = name
		r.Created = at(int64(100 - i/2)) // 10 and 11 share a time: uuid decides
		if i == 3 {
			r.Status = contacts.StatusInactive
		}
		mustRecord(t, s, TenantA, r)
	}
	uuids := func(p msgkit.Page[contacts.Record]) []string {
		var out []string
		for _, r := range p.Items {
			out = append(out, r.UUID)
		}
		return out
	}
	page, err := s.Records(ctx, TenantA, contacts.RecordQuery{Kind: contacts.KindInterest})
	if want := []string{RecordUUID(12), RecordUUID(13), RecordUUID(10), RecordUUID(11)}; err != nil || !slices.Equal(uuids(page), want) {
		t.Errorf("store order %v, %v; want %v", uuids(page), err, want)
	}
	q := msgkit.ListQuery{PageNumber: 1, PageSize: 2, Sort: []msgkit.SortKey{{Attr: "name"}}}
	page, err = s.Records(ctx, TenantA, contacts.RecordQuery{Kind: contacts.KindInterest, List: q})
	if want := []string{RecordUUID(13), RecordUUID(11)}; err != nil || page.Total != 4 || !slices.Equal(uuids(page), want) {
		t.Errorf("sorted by name %v (%d), %v; want %v", uuids(page), page.Total, err, want)
	}
	q = msgkit.ListQuery{Filters: []msgkit.Filter{{Op: msgkit.OpEq, Attr: "status", Values: []msgkit.Value{msgkit.StringValue("inactive")}}}}
	page, err = s.Records(ctx, TenantA, contacts.RecordQuery{Kind: contacts.KindInterest, List: q})
	if err != nil || !slices.Equal(uuids(page), []string{RecordUUID(13)}) {
		t.Errorf("status filter %v, %v", uuids(page), err)
	}
	// Times compare as shown, in whole seconds.
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"gt(created_dt)=" + shown(99), []string{RecordUUID(10), RecordUUID(11)}},
		{"eq(created_dt)=" + shown(99), []string{RecordUUID(12), RecordUUID(13)}},
		{"lte(created_dt)=" + shown(99), []string{RecordUUID(12), RecordUUID(13)}},
	} {
		q, err := msgkit.ParseListQuery(mustValues(tt.query), contacts.RecordSpec(contacts.KindInterest))
		if err != nil {
			t.Fatal(err)
		}
		page, err = s.Records(ctx, TenantA, contacts.RecordQuery{Kind: contacts.KindInterest, List: q})
		if err != nil || !slices.Equal(uuids(page), tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.query, uuids(page), err, tt.want)
		}
	}
}
