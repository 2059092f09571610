package contactstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// The subscription options, touchpoints and interests of the filter
// tests.
var (
	optionUUID     = func(n int) string { return uuidN(0x33333333, n) }
	touchpointUUID = func(n int) string { return uuidN(0x44444444, n) }
	interestUUID   = func(n int) string { return uuidN(0x55555555, n) }
)

func members(kv ...any) map[string]contacts.MemberStatus {
	m := map[string]contacts.MemberStatus{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(contacts.MemberStatus)
	}
	return m
}

func mustSegment(t testing.TB, raw string) *segmentation.Query {
	t.Helper()
	q, err := segmentation.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// filterContacts stores the contacts of the filter tests in TenantA, and
// in TenantB a contact that every filter of the tests would select,
// which TenantA's listings never show.
func filterContacts(t *testing.T, s contacts.Store) []contacts.Contact {
	t.Helper()
	ctx := context.Background()
	for _, svc := range []msgkit.ServiceUUID{TenantA, TenantB} {
		mustList(t, s, svc, 1, "L1")
		mustList(t, s, svc, 2, "L2")
	}
	sub, unsub := contacts.Subscribed, contacts.Unsubscribed
	type spec struct {
		list        int
		name        string
		options     map[string]contacts.MemberStatus
		touchpoints map[string]contacts.MemberStatus
		interests   map[string]contacts.MemberStatus
		telegram    contacts.Channel
		webpush     contacts.Channel // Identifier: the subscription
	}
	push := func(id string, opt contacts.OptStatus) contacts.Channel {
		return contacts.Channel{Identifier: "https://push.example/s/" + id, OptStatus: opt}
	}
	specs := []spec{
		{1, "Ana", members(optionUUID(1), sub), nil, nil, contacts.Channel{Identifier: "@ana", OptStatus: contacts.OptIn}, contacts.Channel{}},
		{2, "Bojan", members(optionUUID(1), unsub, optionUUID(2), sub), members(touchpointUUID(1), sub), nil, contacts.Channel{}, push("2", contacts.OptIn)},
		{1, "Cene", members(optionUUID(2), unsub), nil, members(interestUUID(1), unsub), contacts.Channel{Identifier: "@bo", OptStatus: contacts.OptOut},
			contacts.Channel{OptStatus: contacts.OptIn}}, // a webpush opt status without a subscription is no channel
		{2, "Ada", map[string]contacts.MemberStatus{}, nil, nil, contacts.Channel{Data: json.RawMessage(`{"chat":1}`)}, contacts.Channel{}},
		{1, "Alja", nil, members(touchpointUUID(2), unsub), members(interestUUID(1), sub, interestUUID(2), sub), contacts.Channel{}, push("5", contacts.OptOut)},
		{1, "Ana", members(optionUUID(1), sub), nil, nil, contacts.Channel{Identifier: "@ana", OptStatus: contacts.OptIn}, push("2", contacts.OptIn)}, // deleted below
	}
	var all []contacts.Contact
	for i, sp := range specs {
		values := map[string]string{"first_name": sp.name}
		if i == 3 || i == 4 {
			values["mobile"] = fmt.Sprintf("+3864012345%d", i)
		}
		c := NewContact(t, i+1, ListUUID(sp.list), values)
		c.Options, c.Touchpoints, c.Interests, c.Telegram = sp.options, sp.touchpoints, sp.interests, sp.telegram
		c.WebpushSubscription, c.OptStatusWebpush = sp.webpush.Identifier, sp.webpush.OptStatus
		if i == 3 {
			c.OptStatusWhatsApp = contacts.OptOut // a WhatsApp channel; 5 has a mobile number only
		}
		all = append(all, mustContact(t, s, TenantA, c))
	}
	if err := s.DeleteContact(ctx, TenantA, ContactUUID(6), false, at(600)); err != nil {
		t.Fatal(err)
	}
	all[5].Deleted = at(600)
	other := NewContact(t, 11, ListUUID(1), map[string]string{"first_name": "Ana"})
	other.Options = members(optionUUID(1), sub, optionUUID(2), unsub)
	other.Touchpoints = members(touchpointUUID(1), sub, touchpointUUID(2), unsub)
	other.Interests = members(interestUUID(1), sub, interestUUID(2), unsub)
	other.Telegram = contacts.Channel{Identifier: "@ana", OptStatus: contacts.OptOut}
	other.OptStatusWhatsApp = contacts.OptIn
	other.WebpushSubscription, other.OptStatusWebpush = "https://push.example/s/2", contacts.OptOut
	mustContact(t, s, TenantB, other)
	return all
}

// testFilters: subscription options, touchpoints, interests, channels
// and groups select what the contract says, on their own and together,
// and a query with unresolved subscriptions or group is refused by name.
func testFilters(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	all := filterContacts(t, s)
	sub, unsub := contacts.Subscribed, contacts.Unsubscribed
	startsA := mustSegment(t, `{"segmentation":[{"rules":[{"field":"first_name","condition":"startswith","value":"a","operator":"AND"}]}]}`)
	inO1 := mustSegment(t, `{"segmentation":[{"rules":[{"field":"subscription_options_in","condition":"in","value":["`+optionUUID(1)+`"],"operator":"AND"}]}]}`)
	mf := func(status contacts.MemberStatus, ids ...string) *contacts.MembershipFilter {
		return &contacts.MembershipFilter{UUIDs: ids, Status: status}
	}
	for _, tt := range []struct {
		name string
		q    contacts.ContactQuery
		want []int // contact numbers, store order
	}{
		{"option", contacts.ContactQuery{Options: mf("", optionUUID(1))}, []int{1, 2}},
		{"option subscribed", contacts.ContactQuery{Options: mf(sub, optionUUID(1))}, []int{1}},
		{"options unsubscribed", contacts.ContactQuery{Options: mf(unsub, optionUUID(1), optionUUID(2))}, []int{2, 3}},
		{"no options", contacts.ContactQuery{Options: mf("")}, nil},
		{"unknown option", contacts.ContactQuery{Options: mf("", optionUUID(9))}, nil},
		{"option with deleted", contacts.ContactQuery{Options: mf("", optionUUID(1)), ShowDeleted: true}, []int{1, 2, 6}},
		{"touchpoints", contacts.ContactQuery{Touchpoints: mf("", touchpointUUID(1), touchpointUUID(2))}, []int{2, 5}},
		{"interest", contacts.ContactQuery{Interests: mf("", interestUUID(1))}, []int{3, 5}},
		{"interest and touchpoint", contacts.ContactQuery{Interests: mf("", interestUUID(2)), Touchpoints: mf("", touchpointUUID(2))}, []int{5}},
		{"interest and option", contacts.ContactQuery{Interests: mf("", interestUUID(1)), Options: mf("", optionUUID(2))}, []int{3}},
		{"telegram", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelTelegram}}, []int{1, 3, 4}},
		{"channel identifier", contacts.ContactQuery{Channel: contacts.ChannelFilter{Identifier: "@ana"}}, []int{1}},
		{"channel opt out", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelTelegram, OptStatus: contacts.OptOut}}, []int{3}},
		{"channel identifier and opt", contacts.ContactQuery{Channel: contacts.ChannelFilter{Identifier: "@ana", OptStatus: contacts.OptOut}}, nil},
		{"any channel opt out", contacts.ContactQuery{Channel: contacts.ChannelFilter{OptStatus: contacts.OptOut}}, []int{3, 4, 5}},
		{"whatsapp", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelWhatsApp}}, []int{4}},
		{"whatsapp identifier and opt", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelWhatsApp,
			Identifier: "+38640123453", OptStatus: contacts.OptOut}}, []int{4}},
		{"whatsapp opt in", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelWhatsApp, OptStatus: contacts.OptIn}}, nil},
		{"mobile is no telegram identifier", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelTelegram, Identifier: "+38640123453"}}, nil},
		{"mobile without whatsapp", contacts.ContactQuery{Channel: contacts.ChannelFilter{Identifier: "+38640123454"}}, nil},
		{"a channel contacts do not keep", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: "facebook"}}, nil},
		{"webpush", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelWebpush}}, []int{2, 5}},
		{"webpush identifier", contacts.ContactQuery{Channel: contacts.ChannelFilter{Identifier: "https://push.example/s/5"}}, []int{5}},
		{"webpush opt in", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: contacts.ChannelWebpush, OptStatus: contacts.OptIn}}, []int{2}},
		{"webpush with deleted", contacts.ContactQuery{Channel: contacts.ChannelFilter{Identifier: "https://push.example/s/2"}, ShowDeleted: true}, []int{2, 6}},
		{"group lists and segment", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(1)}, Segments: []*segmentation.Query{startsA}}}, []int{1, 5}},
		{"group with two segmentations", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(1), ListUUID(2)},
			Segments: []*segmentation.Query{startsA, inO1}}}, []int{1}},
		{"group lists", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(2)}}}, []int{2, 4}},
		{"group without lists", contacts.ContactQuery{Group: &contacts.GroupFilter{Segments: []*segmentation.Query{startsA}}}, nil},
		{"group and list_uuids", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(1), ListUUID(2)}},
			ListUUIDs: []string{ListUUID(2)}}, []int{2, 4}},
		{"group segment and query", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(1)}, Segments: []*segmentation.Query{startsA}},
			Segment: inO1}, []int{1}},
		{"group and channel", contacts.ContactQuery{Group: &contacts.GroupFilter{ListUUIDs: []string{ListUUID(2)}},
			Channel: contacts.ChannelFilter{Name: contacts.ChannelTelegram}}, []int{4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Today = msgkit.Date{Year: 2026, Month: 3, Day: 1}
			lq, err := msgkit.ParseListQuery(mustValues(""), contacts.ContactSpec())
			if err != nil {
				t.Fatal(err)
			}
			tt.q.List = lq
			got, err := s.Contacts(ctx, TenantA, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, n := range tt.want {
				want = append(want, ContactUUID(n))
			}
			gotIDs := make([]string, 0, len(got.Items))
			for _, c := range got.Items {
				gotIDs = append(gotIDs, c.UUID)
			}
			if got.Total != len(want) || !slices.Equal(gotIDs, want) {
				t.Errorf("got %d %v, want %v", got.Total, uuids(got.Items), tt.want)
			}
			if m := model(t, all, tt.q); !cmp.Equal(m.Items, got.Items, cmpContact) && len(m.Items)+len(got.Items) > 0 {
				t.Errorf("the model lists %v", uuids(m.Items))
			}
			tt.q.CountOnly = true
			count, err := s.Contacts(ctx, TenantA, tt.q)
			if err != nil || count.Total != len(want) || len(count.Items) != 0 {
				t.Errorf("count only: %d %d, %v; want %d", count.Total, len(count.Items), err, len(want))
			}
		})
	}
	// webpush_subscription, an equality filter of the listing, read by
	// ParseContactQuery.
	for _, tt := range []struct {
		query string
		want  []int
	}{
		{"webpush_subscription=https://push.example/s/2", []int{2}},
		{"webpush_subscription=https://push.example/s/2&fields=show_deleted", []int{2, 6}},
		{"webpush_subscription=https://push.example/S/2", nil}, // compared exactly
		{"isnotnull(webpush_subscription)", []int{2, 5}},
		{"webpush_subscription=https://push.example/s/2&channel_name=telegram", nil},
		{"webpush_subscription=https://push.example/s/5&channel_opt_status=out", []int{5}},
	} {
		q, _, err := contacts.ParseContactQuery(mustValues(tt.query), msgkit.Date{Year: 2026, Month: 3, Day: 1})
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		got, err := s.Contacts(ctx, TenantA, q)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		var want []string
		for _, n := range tt.want {
			want = append(want, ContactUUID(n))
		}
		var gotIDs []string
		for _, c := range got.Items {
			gotIDs = append(gotIDs, c.UUID)
		}
		if got.Total != len(want) || !slices.Equal(gotIDs, want) {
			t.Errorf("%s: got %d %v, want %v", tt.query, got.Total, uuids(got.Items), tt.want)
		}
	}
	for _, tt := range []struct {
		q     contacts.ContactQuery
		field string
	}{
		{contacts.ContactQuery{SubscriptionUUIDs: []string{optionUUID(1)}, Options: mf("", optionUUID(1))}, "subscription_uuids"},
		{contacts.ContactQuery{GroupUUID: ListUUID(1)}, "group_uuid"},
	} {
		_, err := s.Contacts(ctx, TenantA, tt.q)
		var e *msgkit.Error
		if !errors.As(err, &e) || e.Kind != msgkit.Invalid || e.Code != contacts.CodeUnresolvedQuery || len(e.Fields) != 1 || e.Fields[0].Name != tt.field {
			t.Errorf("unresolved %s: %v", tt.field, err)
		}
	}
}

// testFiltersLaw: for any query mixing the filters with lists, sort and
// paging, the store lists the page the model does.
func testFiltersLaw(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	all := filterContacts(t, s)
	// More contacts, their memberships and channels by their number.
	sts := []contacts.MemberStatus{contacts.Subscribed, contacts.Unsubscribed}
	for n := 20; n < 44; n++ {
		values := map[string]string{"first_name": fmt.Sprintf("N%c", 'a'+n%5), "last_name": fmt.Sprint(n % 7)}
		if n%3 != 2 {
			values["mobile"] = fmt.Sprintf("+386401234%02d", n)
		}
		c := NewContact(t, n, ListUUID(1+n%2), values)
		if n%4 != 3 {
			c.OptStatusWhatsApp = []contacts.OptStatus{contacts.OptIn, contacts.OptOut, ""}[n%3]
		}
		if n%3 > 0 {
			c.Options = members(optionUUID(n%3), sts[n%2])
		}
		if n%4 == 1 {
			c.Touchpoints = members(touchpointUUID(1+n%2), sts[n/4%2])
		}
		if n%5 < 2 {
			c.Interests = members(interestUUID(1+n%5), sts[n%2], interestUUID(3), sts[(n+1)%2])
		}
		if n%3 != 1 {
			c.Telegram = contacts.Channel{Identifier: fmt.Sprintf("@u%d", n%4), OptStatus: []contacts.OptStatus{contacts.OptIn, contacts.OptOut, ""}[n%3]}
		}
		if n%5 != 4 {
			c.OptStatusWebpush = []contacts.OptStatus{contacts.OptIn, contacts.OptOut, ""}[n%3]
			if n%2 == 0 {
				c.WebpushSubscription = fmt.Sprintf("https://push.example/s/%d", n%3)
			}
		}
		all = append(all, mustContact(t, s, TenantA, c))
	}
	segs := []*segmentation.Query{
		mustSegment(t, `{"segmentation":[{"rules":[{"field":"first_name","condition":"startswith","value":"n","operator":"AND"}]}]}`),
		mustSegment(t, `{"segmentation":[{"rules":[{"field":"subscription_options_out","condition":"in","value":["`+optionUUID(2)+`"],"operator":"AND"}]}]}`),
	}
	ids := func(t *rapid.T, label string, uuid func(int) string) []string {
		ns := rapid.SliceOfNDistinct(rapid.IntRange(1, 4), 0, 3, rapid.ID).Draw(t, label)
		out := []string{}
		for _, n := range ns {
			out = append(out, uuid(n))
		}
		return out
	}
	membership := func(t *rapid.T, label string, uuid func(int) string) *contacts.MembershipFilter {
		if !rapid.Bool().Draw(t, label) {
			return nil
		}
		return &contacts.MembershipFilter{UUIDs: ids(t, label+" uuids", uuid),
			Status: rapid.SampledFrom([]contacts.MemberStatus{"", contacts.Subscribed, contacts.Unsubscribed}).Draw(t, label+" status")}
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := mustValues("")
		v.Set("page_size", fmt.Sprint(rapid.IntRange(1, 20).Draw(rt, "size")))
		v.Set("page_number", fmt.Sprint(rapid.IntRange(1, 3).Draw(rt, "page")))
		if sort := rapid.SampledFrom([]string{"", "first_name", "-last_name,first_name", "-created_dt", "updated_dt"}).Draw(rt, "sort"); sort != "" {
			v.Set("sort", sort)
		}
		if rapid.Bool().Draw(rt, "time filter") {
			drawTimeFilter(rt, v)
		}
		if sub := rapid.SampledFrom([]string{"", "", "https://push.example/s/0", "https://push.example/s/2"}).Draw(rt, "webpush subscription"); sub != "" {
			v.Set("webpush_subscription", sub)
		}
		lq, err := msgkit.ParseListQuery(v, contacts.ContactSpec())
		if err != nil {
			rt.Fatal(err)
		}
		q := contacts.ContactQuery{List: lq, Today: msgkit.Date{Year: 2026, Month: 3, Day: 1},
			ShowDeleted: rapid.Bool().Draw(rt, "deleted"), CountOnly: rapid.IntRange(0, 9).Draw(rt, "count") == 0,
			Options:     membership(rt, "options", optionUUID),
			Touchpoints: membership(rt, "touchpoints", touchpointUUID),
			Interests:   membership(rt, "interests", interestUUID),
			Channel: contacts.ChannelFilter{
				Name: rapid.SampledFrom([]string{"", "", contacts.ChannelTelegram, contacts.ChannelWhatsApp, contacts.ChannelWebpush, "facebook"}).Draw(rt, "channel"),
				Identifier: rapid.SampledFrom([]string{"", "", "@ana", "@u1", "@u2", "+38640123420", "+38640123424", "+38640123422",
					"https://push.example/s/1", "https://push.example/s/2"}).Draw(rt, "identifier"),
				OptStatus: rapid.SampledFrom([]contacts.OptStatus{"", contacts.OptIn, contacts.OptOut}).Draw(rt, "opt"),
			},
		}
		if rapid.Bool().Draw(rt, "lists") {
			q.ListUUIDs = ids(rt, "list uuids", ListUUID)
			if len(q.ListUUIDs) == 0 {
				q.ListUUIDs = nil
			}
		}
		if rapid.IntRange(0, 2).Draw(rt, "group") == 0 {
			q.Group = &contacts.GroupFilter{ListUUIDs: ids(rt, "group lists", ListUUID)}
			if i := rapid.IntRange(-1, len(segs)-1).Draw(rt, "group segment"); i >= 0 {
				q.Group.Segments = []*segmentation.Query{segs[i]}
			}
		}
		if i := rapid.IntRange(-1, len(segs)-1).Draw(rt, "segment"); i >= 0 {
			q.Segment = segs[i]
		}
		got, err := s.Contacts(ctx, TenantA, q)
		if err != nil {
			rt.Fatal(err)
		}
		want := model(t, all, q)
		if got.Total != want.Total || !slices.EqualFunc(got.Items, want.Items, func(a, b contacts.Contact) bool { return cmp.Equal(a, b, cmpContact) }) {
			rt.Fatalf("got %d %v\nwant %d %v", got.Total, uuids(got.Items), want.Total, uuids(want.Items))
		}
	})
}

// drawTimeFilter adds to v a filter of created_dt or updated_dt around the
// times of the contacts of testFiltersLaw, which keep a fraction of a
// second the listing does not show: at a shown second, within it, or just
// before it.
func drawTimeFilter(rt *rapid.T, v url.Values) {
	attr, base := "created_dt", int64(100)
	if rapid.Bool().Draw(rt, "updated") {
		attr, base = "updated_dt", 200
	}
	value := func() time.Time {
		tm := at(base + int64(rapid.IntRange(0, 45).Draw(rt, "contact")))
		switch rapid.IntRange(0, 3).Draw(rt, "shown") {
		case 0:
			tm = tm.Truncate(time.Second)
		case 1:
			tm = tm.Truncate(time.Second).Add(time.Second / 2)
		case 2:
			tm = tm.Truncate(time.Second).Add(-time.Microsecond)
		}
		return tm
	}
	op := rapid.SampledFrom([]string{"eq", "neq", "lt", "lte", "gt", "gte", "in", "notin", "between", "notbetween"}).Draw(rt, "time op")
	lo := value()
	raw := lo.Format(time.RFC3339Nano)
	switch op {
	case "in", "notin", "between", "notbetween":
		hi := value()
		if hi.Before(lo) {
			lo, hi = hi, lo
		}
		raw = lo.Format(time.RFC3339Nano) + "," + hi.Format(time.RFC3339Nano)
	}
	v.Add(op+"("+attr+")", raw)
}

// testTimeFiltersLaw: for any created_dt and updated_dt filters, compared
// at the second the listing shows, with sort and paging, the store lists
// the page the model does.
func testTimeFiltersLaw(t *testing.T, s contacts.Store) {
	ctx := context.Background()
	all := filterContacts(t, s)
	for n := 20; n < 44; n++ {
		all = append(all, mustContact(t, s, TenantA, NewContact(t, n, ListUUID(1+n%2), map[string]string{"first_name": fmt.Sprintf("N%c", 'a'+n%5)})))
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := mustValues("")
		v.Set("page_size", fmt.Sprint(rapid.IntRange(1, 40).Draw(rt, "size")))
		v.Set("page_number", fmt.Sprint(rapid.IntRange(1, 2).Draw(rt, "page")))
		if sort := rapid.SampledFrom([]string{"", "-updated_dt", "created_dt", "first_name"}).Draw(rt, "sort"); sort != "" {
			v.Set("sort", sort)
		}
		for range rapid.IntRange(1, 2).Draw(rt, "time filters") {
			drawTimeFilter(rt, v)
		}
		lq, err := msgkit.ParseListQuery(v, contacts.ContactSpec())
		if err != nil {
			rt.Fatal(err)
		}
		q := contacts.ContactQuery{List: lq, ShowDeleted: rapid.Bool().Draw(rt, "deleted")}
		got, err := s.Contacts(ctx, TenantA, q)
		if err != nil {
			rt.Fatal(err)
		}
		want := model(t, all, q)
		if got.Total != want.Total || !slices.EqualFunc(got.Items, want.Items, func(a, b contacts.Contact) bool { return cmp.Equal(a, b, cmpContact) }) {
			rt.Fatalf("%s: got %d %v\nwant %d %v", v.Encode(), got.Total, uuids(got.Items), want.Total, uuids(want.Items))
		}
	})
}
