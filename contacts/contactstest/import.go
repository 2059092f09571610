package contactstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// ImportStore is a contacts.Store that imports.
type ImportStore interface {
	contacts.Store
	contacts.ImportStore
}

// runImportStoreTests runs the import contract against stores made by
// newStore, one fresh, empty store per subtest.
func runImportStoreTests(t *testing.T, newStore func(t *testing.T) ImportStore) {
	t.Helper()
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, s ImportStore)
	}{
		{"modes", testImportModes},
		{"duplicates in one body", testImportDuplicates},
		{"memberships", testImportMemberships},
		{"opt channels", testImportOptChannels},
		{"unset invalid fields", testImportUnsetInvalid},
		{"identifier", testImportIdentifier},
		{"tenants and lists apart", testImportTenants},
		{"deleted list", testImportDeletedList},
		{"counters", testImportCounters},
		{"whole or nothing", testImportAtomic},
		{"across chunks", testImportChunks},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newStore(t))
		})
	}
}

// Option, touchpoint and interest UUIDs of the import tests.
func OptionUUID(n int) string { return uuidN(0x44444444, n) }

// Importer runs imports from raw query strings and JSON bodies, making
// contact UUIDs from a counter (prefix apart from the suite's others).
type Importer struct {
	S      contacts.ImportStore
	Prefix int
	n      int
}

// Run parses query, reads body and imports it for svc at time sec.
func (im *Importer) Run(t testing.TB, svc msgkit.ServiceUUID, query, body string, sec int64) (contacts.ImportResult, error) {
	t.Helper()
	o, err := contacts.ParseImportQuery(mustValues(query))
	if err != nil {
		t.Fatalf("ParseImportQuery(%q): %v", query, err)
	}
	items, err := contacts.ReadImport(strings.NewReader(body), o)
	if err != nil {
		t.Fatalf("ReadImport: %v", err)
	}
	if im.Prefix == 0 {
		im.Prefix = 0x33333333
	}
	return im.S.Import(context.Background(), svc, contacts.ImportBatch{Options: o, Items: items, Now: at(sec),
		NewUUID: func() string { im.n++; return uuidN(im.Prefix, im.n) }})
}

// must is Run that fails t on an error.
func (im *Importer) must(t testing.TB, svc msgkit.ServiceUUID, query, body string, sec int64) contacts.ImportResult {
	t.Helper()
	r, err := im.Run(t, svc, query, body, sec)
	if err != nil {
		t.Fatalf("Import(%s): %v", query, err)
	}
	return r
}

// Snap is what the import tests compare of a contact.
type Snap struct {
	Mobile, FirstName, Email, Gender string
	Member                           contacts.MemberStatus
	Deleted                          bool
	Opt, WhatsApp                    contacts.OptStatus
	Options, Touchpoints, Interests  map[string]contacts.MemberStatus
	Webpush                          string // the web push subscription
}

// Snapshot is every contact of list (deleted too) of svc, sorted by
// mobile, then first name, then uuid.
func Snapshot(t testing.TB, s contacts.Store, svc msgkit.ServiceUUID, list string) []Snap {
	t.Helper()
	page, err := s.Contacts(context.Background(), svc, contacts.ContactQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 1_000_000},
		ListUUIDs: []string{list}, ShowDeleted: true})
	if err != nil {
		t.Fatalf("Contacts: %v", err)
	}
	cs := page.Items
	slices.SortFunc(cs, func(a, b contacts.Contact) int {
		return strings.Compare(a.Value(segmentation.Mobile)+"\x00"+a.Value(segmentation.FirstName)+"\x00"+a.UUID,
			b.Value(segmentation.Mobile)+"\x00"+b.Value(segmentation.FirstName)+"\x00"+b.UUID)
	})
	out := []Snap{}
	for _, c := range cs {
		out = append(out, snap(c))
	}
	return out
}

func snap(c contacts.Contact) Snap {
	nilEmpty := func(m map[string]contacts.MemberStatus) map[string]contacts.MemberStatus {
		if len(m) == 0 {
			return nil
		}
		return m
	}
	return Snap{Mobile: c.Value(segmentation.Mobile), FirstName: c.Value(segmentation.FirstName), Email: c.Value(segmentation.Email),
		Gender: c.Value(segmentation.Gender), Member: c.Member, Deleted: !c.Deleted.IsZero(), Opt: c.OptStatus, WhatsApp: c.OptStatusWhatsApp,
		Options: nilEmpty(c.Options), Touchpoints: nilEmpty(c.Touchpoints), Interests: nilEmpty(c.Interests), Webpush: c.WebpushSubscription}
}

// seedAnn stores Ann (+38640111111) in list n of svc: subscribed to
// option 1, opted in.
func seedAnn(t *testing.T, s contacts.Store, svc msgkit.ServiceUUID, list string, n int) {
	t.Helper()
	c := NewContact(t, n, list, map[string]string{"mobile": "+38640111111", "first_name": "Ann", "email": "Ann@Example.com", "gender": "female"})
	c.OptStatus = contacts.OptIn
	c.Options = map[string]contacts.MemberStatus{OptionUUID(1): contacts.Subscribed}
	if _, err := s.CreateContact(context.Background(), svc, c); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
}

const (
	annMobile = "+38640111111"
	bobMobile = "+38640222222"
	annPush   = "https://push.example/s/ann"
)

// Every mode against the four kinds of item: matching and valid, new and
// valid, matching and invalid, new and invalid.
func testImportModes(t *testing.T, s ImportStore) {
	list := mustList(t, s, TenantA, 1, "l").UUID
	seedAnn(t, s, TenantA, list, 1)
	im := &Importer{S: s}
	// webpush_subscription is set by a status change only: an item's is
	// ignored, and an update keeps the contact's.
	body := `[{"mobile":"+386 40 111 111","first_name":"Anna","webpush_subscription":"https://push.example/s/other"},
		{"mobile":"+38640222222","first_name":"Bob","opt_status":"out"},
		{"mobile":"+38640111111","email":"not an address"},
		{"mobile":"+38640333333","gender":"x"}]`
	ann := Snap{Mobile: annMobile, FirstName: "Ann", Email: "Ann@Example.com", Gender: "female", Member: contacts.Subscribed,
		Opt: contacts.OptIn, Options: map[string]contacts.MemberStatus{OptionUUID(1): contacts.Subscribed}, Webpush: annPush}
	bob := Snap{Mobile: bobMobile, FirstName: "Bob", Member: contacts.Subscribed, Opt: contacts.OptOut}
	with := func(s Snap, f func(*Snap)) Snap { f(&s); return s }
	invalids := []contacts.ImportError{
		{Contact: []byte(`{"mobile":"+38640111111","email":"not an address"}`), Errors: []msgkit.FieldError{{Name: "email", Message: "email must be an e-mail address (local@domain)"}}},
		{Contact: []byte(`{"mobile":"+38640333333","gender":"x"}`), Errors: []msgkit.FieldError{{Name: "gender", Message: "gender is male or female"}}},
	}
	for _, tt := range []struct {
		mode   string
		result contacts.ImportResult
		want   []Snap
	}{
		{"update", contacts.ImportResult{Updated: 1, Created: 1}, []Snap{with(ann, func(s *Snap) { s.FirstName = "Anna" }), bob}},
		{"skip", contacts.ImportResult{Skipped: 1, Created: 1}, []Snap{ann, bob}},
		{"subscribe", contacts.ImportResult{Subscribed: 1, Created: 1}, []Snap{ann, bob}},
		{"unsubscribe", contacts.ImportResult{Unsubscribed: 1, Created: 1}, []Snap{with(ann, func(s *Snap) {
			s.Member = contacts.Unsubscribed
			s.Options = map[string]contacts.MemberStatus{OptionUUID(1): contacts.Unsubscribed, OptionUUID(2): contacts.Unsubscribed}
		}), bob}},
		{"delete", contacts.ImportResult{Deleted: 1, Skipped: 1}, []Snap{with(ann, func(s *Snap) { s.Deleted = true })}},
		{"optin", contacts.ImportResult{OptedIn: 1, Created: 1}, []Snap{ann, with(bob, func(s *Snap) { s.Opt = contacts.OptIn })}},
		{"optout", contacts.ImportResult{OptedOut: 1, Created: 1}, []Snap{with(ann, func(s *Snap) { s.Opt = contacts.OptOut }), bob}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			l := mustList(t, s, TenantA, 10+len(tt.mode)*10+int(tt.mode[0]), tt.mode).UUID
			n := 1000 + len(tt.mode)*10 + int(tt.mode[0])
			seedAnn(t, s, TenantA, l, n)
			if _, err := s.UpdateContact(context.Background(), TenantA, ContactUUID(n), func(c contacts.Contact) (contacts.Contact, error) {
				c.WebpushSubscription = annPush
				return c, nil
			}); err != nil {
				t.Fatal(err)
			}
			q := "list_uuid=" + l + "&resolve_duplicate=" + tt.mode
			if tt.mode == "unsubscribe" {
				q += "&update_option_uuids=" + OptionUUID(1) + "," + OptionUUID(2)
			}
			got := im.must(t, TenantA, q, body, 500)
			tt.result.Invalid = 2
			tt.result.Errors = invalids
			if diff := cmp.Diff(tt.result, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, Snapshot(t, s, TenantA, l)); diff != "" {
				t.Errorf("contacts (-want +got):\n%s", diff)
			}
		})
	}
	// The first list, never imported into, is as it was.
	if got := Snapshot(t, s, TenantA, list); len(got) != 1 || got[0].FirstName != "Ann" {
		t.Errorf("untouched list: %+v", got)
	}
}

// Items apply in body order: a later item matches the contact an earlier
// one created, and not one an earlier one deleted.
func testImportDuplicates(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l1 := mustList(t, s, TenantA, 1, "update").UUID
	r := im.must(t, TenantA, "list_uuid="+l1, `[{"mobile":"+38640222222","first_name":"Bob"},{"mobile":"+38640222222","first_name":"Robert","email":"r@example.com"}]`, 10)
	if diff := cmp.Diff(contacts.ImportResult{Created: 1, Updated: 1}, r); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	want := []Snap{{Mobile: bobMobile, FirstName: "Robert", Email: "r@example.com", Member: contacts.Subscribed}}
	if diff := cmp.Diff(want, Snapshot(t, s, TenantA, l1)); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}

	l2 := mustList(t, s, TenantA, 2, "delete").UUID
	seedAnn(t, s, TenantA, l2, 2)
	r = im.must(t, TenantA, "resolve_duplicate=delete&list_uuid="+l2, `[{"mobile":"+38640111111"},{"mobile":"+38640111111"}]`, 20)
	if diff := cmp.Diff(contacts.ImportResult{Deleted: 1, Skipped: 1}, r); diff != "" {
		t.Errorf("delete (-want +got):\n%s", diff)
	}

	l3 := mustList(t, s, TenantA, 3, "skip").UUID
	r = im.must(t, TenantA, "resolve_duplicate=skip&list_uuid="+l3, `[{"mobile":"+38640222222","first_name":"Bob"},{"mobile":"0038640222222","first_name":"Robert"}]`, 30)
	if diff := cmp.Diff(contacts.ImportResult{Created: 1, Skipped: 1}, r); diff != "" {
		t.Errorf("skip (-want +got):\n%s", diff)
	}
	if got := Snapshot(t, s, TenantA, l3); len(got) != 1 || got[0].FirstName != "Bob" {
		t.Errorf("skip: %+v", got)
	}

	// Two contacts of the list share a number: the first in store order
	// (created, then uuid) is matched.
	l4 := mustList(t, s, TenantA, 4, "shared").UUID
	for i, name := range []string{"Second", "First"} {
		c := NewContact(t, 40+i, l4, map[string]string{"mobile": annMobile, "first_name": name})
		c.Created = at(int64(10 - i))
		if _, err := s.CreateContact(context.Background(), TenantA, c); err != nil {
			t.Fatal(err)
		}
	}
	im.must(t, TenantA, "list_uuid="+l4, `[{"mobile":"+38640111111","email":"first@example.com"}]`, 40)
	for _, c := range Snapshot(t, s, TenantA, l4) {
		if (c.Email != "") != (c.FirstName == "First") {
			t.Errorf("shared number: %+v", c)
		}
	}
}

// Created contacts join the import's options, touchpoints and interests;
// updated contacts join them too, keeping their other memberships;
// subscribe sets update_option_uuids only.
func testImportMemberships(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l := mustList(t, s, TenantA, 1, "l").UUID
	seedAnn(t, s, TenantA, l, 1)
	q := "list_uuid=" + l + "&option_uuids=" + OptionUUID(2) + "&touchpoint_uuids=" + OptionUUID(3) + "&interest_uuids=" + OptionUUID(4)
	im.must(t, TenantA, q, `[{"mobile":"+38640111111"},{"mobile":"+38640222222"}]`, 10)
	sub := contacts.Subscribed
	got := Snapshot(t, s, TenantA, l)
	want := []Snap{
		{Mobile: annMobile, FirstName: "Ann", Email: "Ann@Example.com", Gender: "female", Member: sub, Opt: contacts.OptIn,
			Options:     map[string]contacts.MemberStatus{OptionUUID(1): sub, OptionUUID(2): sub},
			Touchpoints: map[string]contacts.MemberStatus{OptionUUID(3): sub}, Interests: map[string]contacts.MemberStatus{OptionUUID(4): sub}},
		{Mobile: bobMobile, Member: sub, Options: map[string]contacts.MemberStatus{OptionUUID(2): sub},
			Touchpoints: map[string]contacts.MemberStatus{OptionUUID(3): sub}, Interests: map[string]contacts.MemberStatus{OptionUUID(4): sub}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	// unsubscribe, then subscribe again through update_option_uuids only.
	im.must(t, TenantA, "resolve_duplicate=unsubscribe&list_uuid="+l, `[{"mobile":"+38640222222"}]`, 20)
	r := im.must(t, TenantA, "resolve_duplicate=subscribe&update_option_uuids="+OptionUUID(5)+"&option_uuids="+OptionUUID(6)+"&list_uuid="+l, `[{"mobile":"+38640222222"}]`, 30)
	if r.Subscribed != 1 {
		t.Errorf("subscribe: %+v", r)
	}
	bob := Snapshot(t, s, TenantA, l)[1]
	wantOpts := map[string]contacts.MemberStatus{OptionUUID(2): sub, OptionUUID(5): sub}
	if bob.Member != sub || !cmp.Equal(bob.Options, wantOpts) {
		t.Errorf("subscribe: %+v", bob)
	}
	if page, err := s.List(context.Background(), TenantA, l); err != nil || page.Subscribed != 2 {
		t.Errorf("list counts %+v, %v", page, err)
	}
}

// The item's opt_status goes to insert_opt_channels when created and to
// update_opt_channels when updated; optin and optout set those channels.
func testImportOptChannels(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l := mustList(t, s, TenantA, 1, "l").UUID
	im.must(t, TenantA, "insert_opt_channels=whatsapp&list_uuid="+l, `[{"mobile":"+38640222222","opt_status":"in"}]`, 10)
	got := Snapshot(t, s, TenantA, l)
	if len(got) != 1 || got[0].Opt != "" || got[0].WhatsApp != contacts.OptIn {
		t.Fatalf("insert whatsapp: %+v", got)
	}
	c, err := s.Contacts(context.Background(), TenantA, contacts.ContactQuery{ListUUIDs: []string{l}, List: msgkit.ListQuery{PageNumber: 1, PageSize: 10}})
	if err != nil || len(c.Items) != 1 {
		t.Fatalf("Contacts: %v", err)
	}
	wantCh := []contacts.Channel{{Name: contacts.ChannelWhatsApp, Identifier: bobMobile, OptStatus: contacts.OptIn}}
	if diff := cmp.Diff(wantCh, c.Items[0].Channels()); diff != "" {
		t.Errorf("channels (-want +got):\n%s", diff)
	}
	im.must(t, TenantA, "update_opt_channels=sms,whatsapp&list_uuid="+l, `[{"mobile":"+38640222222","opt_status":"out"}]`, 20)
	if got := Snapshot(t, s, TenantA, l); got[0].Opt != contacts.OptOut || got[0].WhatsApp != contacts.OptOut {
		t.Errorf("update both: %+v", got)
	}
	r := im.must(t, TenantA, "resolve_duplicate=optin&update_opt_channels=whatsapp&insert_opt_channels=sms,whatsapp&list_uuid="+l,
		`[{"mobile":"+38640222222","opt_status":"out"},{"mobile":"+38640333333","opt_status":"out"}]`, 30)
	if diff := cmp.Diff(contacts.ImportResult{OptedIn: 1, Created: 1}, r); diff != "" {
		t.Errorf("optin (-want +got):\n%s", diff)
	}
	got = Snapshot(t, s, TenantA, l)
	if got[0].Opt != contacts.OptOut || got[0].WhatsApp != contacts.OptIn || got[1].Opt != contacts.OptIn || got[1].WhatsApp != contacts.OptIn {
		t.Errorf("optin: %+v", got)
	}
}

// A failing field of unset_invalid_fields is set to null and the item
// goes on; any other failing field makes the item invalid.
func testImportUnsetInvalid(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l := mustList(t, s, TenantA, 1, "l").UUID
	seedAnn(t, s, TenantA, l, 1)
	q := "unset_invalid_fields=email&unset_invalid_fields=first_name&list_uuid=" + l
	r := im.must(t, TenantA, q, `[{"mobile":"+38640111111","email":"bad","first_name":"Anna"},
		{"mobile":"+38640222222","email":"bad","first_name":"Bob"},
		{"mobile":"+38640333333","email":"bad","gender":"x"}]`, 10)
	if r.Updated != 1 || r.Created != 1 || r.Invalid != 1 || len(r.Errors) != 1 {
		t.Fatalf("result %+v", r)
	}
	wantErrs := []msgkit.FieldError{{Name: "email", Message: "email must be an e-mail address (local@domain)"}, {Name: "gender", Message: "gender is male or female"}}
	if diff := cmp.Diff(wantErrs, r.Errors[0].Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	got := Snapshot(t, s, TenantA, l)
	if got[0].FirstName != "Anna" || got[0].Email != "" || got[1].FirstName != "Bob" || got[1].Email != "" || len(got) != 2 {
		t.Errorf("contacts: %+v", got)
	}
}

// Matching by email compares as segmentation does (case aside); an item
// without the identifier's value creates a contact without matching.
func testImportIdentifier(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l := mustList(t, s, TenantA, 1, "l").UUID
	seedAnn(t, s, TenantA, l, 1)
	r := im.must(t, TenantA, "identifier=email&list_uuid="+l, `[{"email":"ann@EXAMPLE.com","first_name":"Anna"},{"first_name":"X"},{"first_name":"Y"}]`, 10)
	if diff := cmp.Diff(contacts.ImportResult{Updated: 1, Created: 2}, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got := Snapshot(t, s, TenantA, l)
	if len(got) != 3 || got[2].FirstName != "Anna" || got[2].Email != "ann@EXAMPLE.com" {
		t.Errorf("contacts: %+v", got)
	}
	// A custom column identifies too.
	r = im.must(t, TenantA, "identifier=column_3&list_uuid="+l, `[{"column_3":"K-1","first_name":"P"},{"column_3":"k-1","first_name":"Q"}]`, 20)
	if diff := cmp.Diff(contacts.ImportResult{Updated: 1, Created: 1}, r); diff != "" {
		t.Errorf("column (-want +got):\n%s", diff)
	}
}

// An import reads and writes the tenant's list only: another tenant's
// list is refused, and contacts of other lists or tenants are not
// matched.
func testImportTenants(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	la := mustList(t, s, TenantA, 1, "a").UUID
	seedAnn(t, s, TenantA, la, 1)
	other := mustList(t, s, TenantA, 2, "other").UUID
	lb := mustList(t, s, TenantB, 3, "b").UUID

	_, err := im.Run(t, TenantB, "list_uuid="+la, `[{"mobile":"+38640111111"}]`, 10)
	wantInvalidList(t, err)

	for _, tc := range []struct {
		svc  msgkit.ServiceUUID
		list string
	}{{TenantB, lb}, {TenantA, other}} {
		r := im.must(t, tc.svc, "resolve_duplicate=delete&list_uuid="+tc.list, `[{"mobile":"+38640111111"}]`, 20)
		if diff := cmp.Diff(contacts.ImportResult{Skipped: 1}, r); diff != "" {
			t.Errorf("%s delete (-want +got):\n%s", tc.svc, diff)
		}
		r = im.must(t, tc.svc, "list_uuid="+tc.list, `[{"mobile":"+38640111111","first_name":"B"}]`, 30)
		if diff := cmp.Diff(contacts.ImportResult{Created: 1}, r); diff != "" {
			t.Errorf("%s update (-want +got):\n%s", tc.svc, diff)
		}
	}
	if got := Snapshot(t, s, TenantA, la); len(got) != 1 || got[0].FirstName != "Ann" || got[0].Deleted {
		t.Errorf("tenant A: %+v", got)
	}
	if got := Snapshot(t, s, TenantB, la); len(got) != 0 {
		t.Errorf("tenant B sees A's list: %+v", got)
	}
}

func wantInvalidList(t *testing.T, err error) {
	t.Helper()
	var e *msgkit.Error
	if !errors.As(err, &e) || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != "list_uuid" {
		t.Errorf("err = %v, want Invalid naming list_uuid", err)
	}
}

// A deleted list, or none, takes no import, and nothing is written.
func testImportDeletedList(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	l := mustList(t, s, TenantA, 1, "l").UUID
	if err := s.DeleteList(context.Background(), TenantA, l, at(5)); err != nil {
		t.Fatal(err)
	}
	_, err := im.Run(t, TenantA, "list_uuid="+l, `[{"mobile":"+38640111111"}]`, 10)
	wantInvalidList(t, err)
	_, err = im.Run(t, TenantA, "list_uuid="+ListUUID(99), `[{"mobile":"+38640111111"}]`, 10)
	wantInvalidList(t, err)
	if page, err := s.Contacts(context.Background(), TenantA, contacts.ContactQuery{ShowDeleted: true}); err != nil || page.Total != 0 {
		t.Errorf("contacts after refused imports: %d, %v", page.Total, err)
	}
}

// Random batches: every item counts in exactly one counter, and the
// store holds what contacts.ImportBatch.Plan says against its own model.
func testImportCounters(t *testing.T, s ImportStore) {
	list := 0
	rapid.Check(t, func(rt *rapid.T) {
		list++
		l := mustList(t, s, TenantA, 100+list, "p").UUID
		im := &Importer{S: s, Prefix: 0x55550000 + list}
		mobiles := []string{"+38640111111", "+38640222222", "+38640333333", "+38640444444", "not a number", ""}
		modes := []string{"update", "skip", "subscribe", "unsubscribe", "delete", "optin", "optout"}
		for round := range 3 {
			n := rapid.IntRange(0, 12).Draw(rt, "n")
			var items []string
			for i := range n {
				m := rapid.SampledFrom(mobiles).Draw(rt, "mobile")
				item := fmt.Sprintf(`{"first_name":"N%d"`, i)
				if m != "" {
					item += fmt.Sprintf(`,"mobile":%q`, m)
				}
				if rapid.Bool().Draw(rt, "opt") {
					item += `,"opt_status":"in"`
				}
				items = append(items, item+"}")
			}
			mode := rapid.SampledFrom(modes).Draw(rt, "mode")
			before := Snapshot(t, s, TenantA, l)
			r := im.must(t, TenantA, "resolve_duplicate="+mode+"&list_uuid="+l, "["+strings.Join(items, ",")+"]", int64(round))
			if r.Total() != n {
				rt.Fatalf("counters %+v sum to %d, want %d", r, r.Total(), n)
			}
			after := Snapshot(t, s, TenantA, l)
			if len(after)-len(before) != r.Created {
				rt.Fatalf("%d contacts before, %d after, %d created", len(before), len(after), r.Created)
			}
			deleted := 0
			for _, c := range after {
				if c.Deleted {
					deleted++
				}
			}
			for _, c := range before {
				if c.Deleted {
					deleted--
				}
			}
			if deleted != r.Deleted {
				rt.Fatalf("%d deleted, counted %d", deleted, r.Deleted)
			}
		}
	})
}

// ImportBody is a JSON import body of n contacts, the i-th (from first)
// with mobile +38640 and i in six digits, names and an e-mail address.
func ImportBody(first, n int) []byte {
	var b strings.Builder
	b.Grow(n * 110)
	b.WriteString("[")
	for i := first; i < first+n; i++ {
		if i > first {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"mobile":"+386 40 %06d","first_name":"Name%d","last_name":"Surname%d","email":"user%d@example.com","opt_status":"in"}`, i, i%5000, i%7919, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// ImportEvery is ImportBody of the given items only (each i of idx).
func ImportEvery(idx []int) []byte {
	parts := make([]string, len(idx))
	for k, i := range idx {
		body := ImportBody(i, 1)
		parts[k] = string(body[1 : len(body)-1])
	}
	return []byte("[" + strings.Join(parts, ",\n") + "]")
}

// Stores plan and write an import a chunk at a time
// (contacts.ImportChunk): a duplicate in a later chunk updates the contact
// an earlier chunk created, a deleted contact's number matches nothing in
// a later chunk though another contact of the list has it, and a failure
// in a later chunk leaves nothing of the earlier ones.
func testImportChunks(t *testing.T, s ImportStore) {
	im := &Importer{S: s}
	n := contacts.ImportChunk + contacts.ImportChunk/2
	items := make([]string, 0, 2*n)
	for round, name := range []string{"A", "B"} {
		for i := range n {
			items = append(items, fmt.Sprintf(`{"mobile":"+386 40 %06d","first_name":"%s%d","email":"u%d.%d@example.com"}`, i, name, i, round, i))
		}
	}
	l := mustList(t, s, TenantA, 1, "update").UUID
	r := im.must(t, TenantA, "list_uuid="+l, "["+strings.Join(items, ",")+"]", 10)
	if diff := cmp.Diff(contacts.ImportResult{Created: n, Updated: n}, r); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	got := Snapshot(t, s, TenantA, l)
	if len(got) != n {
		t.Fatalf("%d contacts, want %d", len(got), n)
	}
	for i, c := range got {
		if want := fmt.Sprintf("B%d", i); c.FirstName != want || c.Email != fmt.Sprintf("u1.%d@example.com", i) {
			t.Fatalf("contact %d: %+v, want %s", i, c, want)
		}
	}

	// Two contacts of the list share Ann's number: the first in store
	// order is deleted by the first item, and the last item, chunks later,
	// matches nothing.
	l2 := mustList(t, s, TenantA, 2, "delete").UUID
	seedAnn(t, s, TenantA, l2, 2)
	twin := NewContact(t, 3, l2, map[string]string{"mobile": annMobile, "first_name": "Twin"})
	twin.Created = at(500) // after Ann

	if _, err := s.CreateContact(context.Background(), TenantA, twin); err != nil {
		t.Fatal(err)
	}
	items = []string{`{"mobile":"+38640111111"}`}
	for i := range n {
		items = append(items, fmt.Sprintf(`{"mobile":"+386 41 %06d"}`, i))
	}
	items = append(items, `{"mobile":"+38640111111"}`)
	r = im.must(t, TenantA, "resolve_duplicate=delete&list_uuid="+l2, "["+strings.Join(items, ",")+"]", 20)
	if diff := cmp.Diff(contacts.ImportResult{Deleted: 1, Skipped: n + 1}, r); diff != "" {
		t.Errorf("delete (-want +got):\n%s", diff)
	}
	got = Snapshot(t, s, TenantA, l2)
	if len(got) != 2 || !slices.ContainsFunc(got, func(c Snap) bool { return c.FirstName == "Ann" && c.Deleted }) ||
		!slices.ContainsFunc(got, func(c Snap) bool { return c.FirstName == "Twin" && !c.Deleted }) {
		t.Errorf("after delete, want Ann deleted and Twin in use: %+v", got)
	}

	// The last item's UUID is taken: nothing of the chunks before stays.
	l3 := mustList(t, s, TenantA, 3, "atomic").UUID
	seedAnn(t, s, TenantA, l3, 4)
	before := Snapshot(t, s, TenantA, l3)
	items = []string{`{"mobile":"+38640111111","first_name":"Changed"}`}
	for i := range n {
		items = append(items, fmt.Sprintf(`{"mobile":"+386 41 %06d"}`, i))
	}
	o, err := contacts.ParseImportQuery(mustValues("list_uuid=" + l3))
	if err != nil {
		t.Fatal(err)
	}
	read, err := contacts.ReadImport(strings.NewReader("["+strings.Join(items, ",")+"]"), o)
	if err != nil {
		t.Fatal(err)
	}
	seq := 0
	_, err = s.Import(context.Background(), TenantA, contacts.ImportBatch{Options: o, Items: read, Now: at(30), NewUUID: func() string {
		if seq++; seq == n {
			return ContactUUID(4) // Ann's
		}
		return uuidN(0x78787878, seq)
	}})
	var e *msgkit.Error
	if !errors.As(err, &e) || e.Kind != msgkit.Conflict {
		t.Fatalf("err = %v, want Conflict", err)
	}
	if diff := cmp.Diff(before, Snapshot(t, s, TenantA, l3)); diff != "" {
		t.Errorf("a failed import wrote (-before +after):\n%s", diff)
	}
}

// An import that fails on its last write (a created contact's UUID is
// taken) leaves nothing of itself: no created contact, no update.
func testImportAtomic(t *testing.T, s ImportStore) {
	ctx := context.Background()
	l := mustList(t, s, TenantA, 1, "l").UUID
	seedAnn(t, s, TenantA, l, 1)
	before := Snapshot(t, s, TenantA, l)
	o, err := contacts.ParseImportQuery(mustValues("resolve_duplicate=update&list_uuid=" + l))
	if err != nil {
		t.Fatal(err)
	}
	items, err := contacts.ReadImport(strings.NewReader(`[{"mobile":"+38640111111","first_name":"Changed"},
		{"mobile":"+38640222222"},{"mobile":"+38640333333"}]`), o)
	if err != nil {
		t.Fatal(err)
	}
	uuids := []string{uuidN(0x77777777, 1), ContactUUID(1)} // the second is Ann's
	_, err = s.Import(ctx, TenantA, contacts.ImportBatch{Options: o, Items: items, Now: at(50),
		NewUUID: func() string { u := uuids[0]; uuids = uuids[1:]; return u }})
	var e *msgkit.Error
	if !errors.As(err, &e) || e.Kind != msgkit.Conflict {
		t.Fatalf("err = %v, want Conflict", err)
	}
	if diff := cmp.Diff(before, Snapshot(t, s, TenantA, l)); diff != "" {
		t.Errorf("a failed import wrote (-before +after):\n%s", diff)
	}
}
