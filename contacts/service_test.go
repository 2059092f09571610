package contacts_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/segmentation"
)

const tenant msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"

// countingStore counts the list reads of a contacts store.
type countingStore struct {
	*memstore.ContactsStore
	list, names int
}

func (s *countingStore) List(ctx context.Context, svc msgkit.ServiceUUID, uuid string) (contacts.List, error) {
	s.list++
	return s.ContactsStore.List(ctx, svc, uuid)
}

func (s *countingStore) ListNames(ctx context.Context, svc msgkit.ServiceUUID, uuids []string) (map[string]string, error) {
	s.names++
	return s.ContactsStore.ListNames(ctx, svc, uuids)
}

type serviceEnv struct {
	svc   *contacts.Service
	st    *countingStore
	clock *msgkittest.Clock
}

func newServiceEnv(catalog bool) *serviceEnv {
	mem := memstore.New().Contacts()
	st := &countingStore{ContactsStore: mem}
	stores := contacts.Stores{Contacts: st}
	if catalog {
		stores.Catalog, stores.Imports = mem, mem
	}
	clock := msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	n := 0
	return &serviceEnv{st: st, clock: clock, svc: contacts.NewService(stores, clock.Now, func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	})}
}

// must takes a call's value and error, and fails t on the error.
func must[T any](v T, err error) func(t testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantFields(t *testing.T, err error, kind msgkit.Kind, fields ...string) {
	t.Helper()
	if msgkit.KindOf(err) != kind {
		t.Fatalf("%v, want %v", err, kind)
	}
	var got []string
	if e, ok := err.(*msgkit.Error); ok {
		for _, f := range e.Fields {
			got = append(got, f.Name)
		}
	}
	if !cmp.Equal(got, fields) {
		t.Errorf("fields %v, want %v (%v)", got, fields, err)
	}
}

// A contact made through the Service with a custom field and read back
// with its list is what GET /cds/contacts/{id}?fields=lists shows: the
// service's UUID and time, the custom column, the list's uuid and name.
func TestServiceContactAsShown(t *testing.T) {
	ctx := context.Background()
	e := newServiceEnv(true)
	list := must(e.svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp("Newsletter")}))(t)
	tier := must(e.svc.CreateRecord(ctx, tenant, contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("Tier"),
		FieldType: sp("select"), Mandatory: sp("yes"), Config: []byte(`{"options":["gold","silver"]}`)}))(t)
	if tier.FieldName() != "column_1" || list.Status != contacts.ListActive {
		t.Fatalf("list %+v, field %+v", list, tier)
	}

	// The tenant's custom fields hold: column_1 is mandatory, column_2 none.
	_, err := e.svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &list.UUID, Values: map[string]*string{"first_name": sp("Ana"), "column_2": sp("x")}})
	wantFields(t, err, msgkit.Invalid, "column_1", "column_2")

	e.clock.Advance(time.Minute)
	created := must(e.svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &list.UUID,
		Values: map[string]*string{"first_name": sp("Ana"), "mobile": sp("+386 40 123 456"), "column_1": sp("gold")}}))(t)
	got := must(e.svc.Contact(ctx, tenant, created.UUID, false, contacts.Embed{Lists: true}))(t)
	at := time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC)
	if got.UUID != "00000000-0000-4000-8000-000000000003" || !got.Created.Equal(at) || !got.Updated.Equal(at) ||
		got.Custom[1] != "gold" || got.Value(segmentation.Mobile) != "+38640123456" || got.ListUUID != list.UUID {
		t.Errorf("read back %+v", got.Contact)
	}
	if want := []contacts.ListRef{{UUID: list.UUID, Name: "Newsletter"}}; !cmp.Equal(got.Lists, want) {
		t.Errorf("lists %v, want %v", got.Lists, want)
	}
	if plain := must(e.svc.Contact(ctx, tenant, created.UUID, false, contacts.Embed{}))(t); plain.Lists != nil {
		t.Errorf("lists without fields=lists: %v", plain.Lists)
	}

	// A replace without the mandatory field is refused before the store
	// is asked; a status change takes the service's time.
	_, err = e.svc.ReplaceContact(ctx, tenant, created.UUID, contacts.Input{Values: map[string]*string{"first_name": sp("Ana")}})
	wantFields(t, err, msgkit.Invalid, "column_1")
	e.clock.Advance(time.Minute)
	patched := must(e.svc.PatchContact(ctx, tenant, created.UUID, contacts.Patch{OptStatus: sp("in")}))(t)
	if patched.OptStatus != contacts.OptIn || !patched.Updated.Equal(at.Add(time.Minute)) {
		t.Errorf("patched %+v", patched)
	}

	// A deleted list is embedded by its uuid, without a name.
	if err := e.svc.DeleteList(ctx, tenant, list.UUID); err != nil {
		t.Fatal(err)
	}
	got = must(e.svc.Contact(ctx, tenant, created.UUID, false, contacts.Embed{Lists: true}))(t)
	if want := []contacts.ListRef{{UUID: list.UUID}}; !cmp.Equal(got.Lists, want) {
		t.Errorf("lists of a deleted list %v, want %v", got.Lists, want)
	}
}

// A page of contacts embeds its lists with one store call, whatever the
// number of lists; without fields=lists there is none.
func TestServiceEmbedsListsInOneCall(t *testing.T) {
	ctx := context.Background()
	e := newServiceEnv(false)
	var lists []contacts.List
	for i := range 5 {
		lists = append(lists, must(e.svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp(fmt.Sprintf("L%d", i))}))(t))
	}
	for i := range 20 {
		e.clock.Advance(time.Second)
		must(e.svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &lists[i%5].UUID, Values: map[string]*string{"first_name": sp("N")}}))(t)
	}
	page := must(e.svc.Contacts(ctx, tenant, contacts.ContactQuery{}, contacts.Embed{Lists: true}))(t)
	if page.Total != 20 || len(page.Items) != 20 || e.st.names != 1 || e.st.list != 0 {
		t.Fatalf("%d of %d contacts, %d ListNames and %d List calls", len(page.Items), page.Total, e.st.names, e.st.list)
	}
	for i, c := range page.Items {
		if want := []contacts.ListRef{{UUID: lists[i%5].UUID, Name: fmt.Sprintf("L%d", i%5)}}; !cmp.Equal(c.Lists, want) {
			t.Errorf("contact %d: lists %v, want %v", i, c.Lists, want)
		}
	}
	page = must(e.svc.Contacts(ctx, tenant, contacts.ContactQuery{}, contacts.Embed{}))(t)
	if e.st.names != 1 || page.Items[0].Lists != nil {
		t.Errorf("without fields=lists: %d ListNames calls, lists %v", e.st.names, page.Items[0].Lists)
	}
	q := parsed(t)(e.svc.ParseContactQuery(url.Values{"fields": {"count_only,lists"}}))
	page = must(e.svc.Contacts(ctx, tenant, q, contacts.Embed{Lists: true}))(t)
	if page.Total != 20 || len(page.Items) != 0 {
		t.Errorf("count_only: %d items of %d", len(page.Items), page.Total)
	}
}

// parsed takes the results of ParseContactQuery and returns its query.
func parsed(t *testing.T) func(contacts.ContactQuery, contacts.Embed, error) contacts.ContactQuery {
	return func(q contacts.ContactQuery, _ contacts.Embed, err error) contacts.ContactQuery {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
}

// The service resolves subscription_uuids and group_uuid through the
// catalog; without one they are refused, as the catalog's calls are.
func TestServiceResolvesFilters(t *testing.T) {
	ctx := context.Background()
	e := newServiceEnv(true)
	list := must(e.svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp("L")}))(t)
	ana := must(e.svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &list.UUID, Values: map[string]*string{"first_name": sp("Ana")}}))(t)
	must(e.svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &list.UUID, Values: map[string]*string{"first_name": sp("Bo")}}))(t)
	sub := must(e.svc.CreateRecord(ctx, tenant, contacts.KindSubscription, contacts.RecordInput{Name: sp("News")}))(t)
	opt := must(e.svc.CreateRecord(ctx, tenant, contacts.KindOption, contacts.RecordInput{Name: sp("Weekly"), SubscriptionUUID: &sub.UUID}))(t)
	must(e.svc.SetMember(ctx, tenant, contacts.MemberOption, contacts.MemberInput{ContactUUID: &ana.UUID, TargetUUID: &opt.UUID, Status: sp("subscribed")}))(t)
	group := must(e.svc.CreateRecord(ctx, tenant, contacts.KindGroup, contacts.RecordInput{Name: sp("G")}))(t)
	must(e.svc.CreateRecord(ctx, tenant, contacts.KindGroupList, contacts.RecordInput{GroupUUID: &group.UUID, ListUUID: &list.UUID}))(t)
	must(e.svc.CreateRecord(ctx, tenant, contacts.KindGroupSegmentation, contacts.RecordInput{GroupUUID: &group.UUID,
		Data: sp(`{"segmentation":[{"rules":[{"field":"first_name","condition":"eq","value":"Bo"}]}]}`)}))(t)

	for _, tt := range []struct {
		query string
		want  string
	}{
		{"subscription_uuids=" + sub.UUID, "Ana"},
		{"subscription_uuids=" + sub.UUID + "&subscription_status=unsubscribed", ""},
		{"group_uuid=" + group.UUID, "Bo"},
	} {
		v, _ := url.ParseQuery(tt.query)
		q := parsed(t)(e.svc.ParseContactQuery(v))
		page := must(e.svc.Contacts(ctx, tenant, q, contacts.Embed{}))(t)
		var names []string
		for _, c := range page.Items {
			names = append(names, c.Value(segmentation.FirstName))
		}
		if got := strings.Join(names, ","); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.query, got, tt.want)
		}
	}
	v, _ := url.ParseQuery("group_uuid=" + sub.UUID)
	_, err := e.svc.Contacts(ctx, tenant, parsed(t)(e.svc.ParseContactQuery(v)), contacts.Embed{})
	wantFields(t, err, msgkit.Invalid, "group_uuid")

	bare := newServiceEnv(false)
	if bare.svc.HasCatalog() || bare.svc.HasImports() || !e.svc.HasCatalog() || !e.svc.HasImports() {
		t.Error("HasCatalog and HasImports")
	}
	v, _ = url.ParseQuery("subscription_uuids=" + sub.UUID)
	_, err = bare.svc.Contacts(ctx, tenant, parsed(t)(bare.svc.ParseContactQuery(v)), contacts.Embed{})
	wantFields(t, err, msgkit.Invalid, "subscription_uuids")
	_, err = bare.svc.CreateRecord(ctx, tenant, contacts.KindGroup, contacts.RecordInput{Name: sp("G")})
	if msgkit.KindOf(err) != msgkit.Unavailable || msgkit.CodeOf(err) != contacts.CodeNotKept {
		t.Errorf("a catalog record without a catalog: %v", err)
	}
	_, err = bare.svc.Import(ctx, tenant, contacts.ImportOptions{ListUUID: list.UUID}, strings.NewReader(`[]`))
	if msgkit.KindOf(err) != msgkit.Unavailable || msgkit.CodeOf(err) != contacts.CodeNotKept {
		t.Errorf("an import without an import store: %v", err)
	}
}

// The import checks its parameters against the catalog before it reads
// the body, holds items to the custom fields, and stamps what it makes
// with the service's UUIDs and time.
func TestServiceImport(t *testing.T) {
	ctx := context.Background()
	e := newServiceEnv(true)
	list := must(e.svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp("L")}))(t)
	must(e.svc.CreateRecord(ctx, tenant, contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("Code")}))(t)
	o, err := contacts.ParseImportQuery(url.Values{"list_uuid": {list.UUID}, "identifier": {"column_1"},
		"option_uuids": {"3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Import(ctx, tenant, o, strings.NewReader(`not read`))
	wantFields(t, err, msgkit.Invalid, "option_uuids", "identifier")

	o, err = contacts.ParseImportQuery(url.Values{"list_uuid": {list.UUID}})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Hour)
	res := must(e.svc.Import(ctx, tenant, o, strings.NewReader(`[{"mobile":"+38640123456","column_1":"A1"},{"mobile":"+38640123457","column_2":"x"}]`)))(t)
	if res.Created != 1 || res.Invalid != 1 || len(res.Errors) != 1 || res.Errors[0].Errors[0].Name != "column_2" {
		t.Fatalf("result %+v", res)
	}
	page := must(e.svc.Contacts(ctx, tenant, contacts.ContactQuery{}, contacts.Embed{}))(t)
	if len(page.Items) != 1 || page.Items[0].UUID != "00000000-0000-4000-8000-000000000003" ||
		!page.Items[0].Created.Equal(time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)) || page.Items[0].Custom[1] != "A1" {
		t.Errorf("imported %+v", page.Items)
	}
}
