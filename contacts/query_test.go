package contacts_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var today = msgkit.Date{Year: 2026, Month: 3, Day: 1}

func parseQuery(t *testing.T, raw string) (contacts.ContactQuery, contacts.Embed) {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	q, embed, err := contacts.ParseContactQuery(v, today)
	if err != nil {
		t.Fatalf("ParseContactQuery(%s): %v", raw, err)
	}
	return q, embed
}

func filter(op msgkit.Op, attr string, vals ...msgkit.Value) msgkit.Filter {
	return msgkit.Filter{Op: op, Attr: attr, Values: vals}
}

func str(s string) msgkit.Value { return msgkit.StringValue(s) }

// Every parameter of the list-contacts table the platform keeps reads into
// the query: filters as the listing engine compares them, normalised.
func TestParseContactQuery(t *testing.T) {
	q, embed := parseQuery(t, "fields=lists,channels&fields=show_deleted,count_only&list_uuids=5F0C6B0E-7D5E-4F4B-9E39-1D9F3C1F6A11,"+list+
		"&uuids="+list+"&member_status=unsubscribed&opt_status=in&opt_status_webpush=out&gender=Female&mobile=%2B386%2040%20123%20456"+
		"&email=a@b.si&first_name=Ana&last_name=Novak&required=mobile,email&required=mobile&sort=-updated_dt&page_size=5&page_number=2"+
		"&gt(updated_dt)=2026-01-01T00:00:00Z")
	if !embed.Lists || !embed.Channels || !q.ShowDeleted || !q.CountOnly {
		t.Errorf("fields: %+v %+v", embed, q)
	}
	if !slices.Equal(q.ListUUIDs, []string{list}) || !slices.Equal(q.UUIDs, []string{list}) {
		t.Errorf("uuids: %v %v", q.ListUUIDs, q.UUIDs)
	}
	if !slices.Equal(q.Required, []segmentation.Field{segmentation.Mobile, segmentation.Email}) {
		t.Errorf("required: %v", q.Required)
	}
	if q.List.PageSize != 5 || q.List.PageNumber != 2 || !cmp.Equal(q.List.Sort, []msgkit.SortKey{{Attr: "updated_dt", Desc: true}}) {
		t.Errorf("paging and sort: %+v", q.List)
	}
	want := map[string]msgkit.Filter{
		"member_status": filter(msgkit.OpEq, "member_status", str("unsubscribed")), "opt_status": filter(msgkit.OpEq, "opt_status", str("in")),
		"opt_status_webpush": filter(msgkit.OpEq, "opt_status_webpush", str("out")), "gender": filter(msgkit.OpEq, "gender", str("female")),
		"mobile": filter(msgkit.OpEq, "mobile", str("+38640123456")), "email": filter(msgkit.OpEq, "email", str("a@b.si")),
		"first_name": filter(msgkit.OpEq, "first_name", str("Ana")), "last_name": filter(msgkit.OpEq, "last_name", str("Novak")),
	}
	got := map[string]msgkit.Filter{}
	for _, f := range q.List.Filters {
		if f.Attr != "updated_dt" {
			got[f.Attr] = f
		} else if f.Op != msgkit.OpGt {
			t.Errorf("updated_dt filter %+v", f)
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(msgkit.Value{})); diff != "" {
		t.Errorf("filters (-want +got):\n%s", diff)
	}
}

// age is whole years on today: born after today minus age+1 years, on or
// before today minus age years.
func TestParseContactQueryAge(t *testing.T) {
	for _, tt := range []struct {
		today  msgkit.Date
		age    string
		lo, hi string
	}{
		{today, "30", "1995-03-02", "1996-03-01"},
		{msgkit.Date{Year: 2028, Month: 2, Day: 29}, "1", "2026-03-01", "2027-02-28"},
		{today, "0", "2025-03-02", "2026-03-01"},
	} {
		q, _, err := contacts.ParseContactQuery(url.Values{"age": {tt.age}}, tt.today)
		if err != nil {
			t.Fatal(err)
		}
		f := q.List.Filters[0]
		if f.Op != msgkit.OpBetween || f.Values[0].Date().String() != tt.lo || f.Values[1].Date().String() != tt.hi {
			t.Errorf("age %s on %s: %+v, want %s..%s", tt.age, tt.today, f, tt.lo, tt.hi)
		}
	}
}

// Every bad parameter is named at once.
func TestParseContactQueryProblems(t *testing.T) {
	v, _ := url.ParseQuery("fields=lists,totals&list_uuids=x&member_status=in&opt_status=yes&gender=x&mobile=040123456&age=-1" +
		"&query={}&required=phone&subscription_uuids=" + list + ",nope&shoe_size=42&page_size=500&email=a&email=b")
	_, _, err := contacts.ParseContactQuery(v, today)
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid || e.Code != msgkit.CodeInvalidQuery {
		t.Fatalf("error %v", err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	want := []string{"age", "email", "fields", "gender", "list_uuids", "member_status", "mobile", "opt_status", "page_size", "query", "required", "shoe_size", "subscription_uuids"}
	if !slices.Equal(names, want) {
		t.Errorf("problems with %v, want %v", names, want)
	}
}

// A segmentation query's problems are each one item under query, said
// once: the second is not lost behind the first.
func TestParseContactQuerySegmentationProblems(t *testing.T) {
	v := url.Values{"query": {`{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x","operator":"AND"},{"field":"city","condition":"bogus","value":"x","operator":"AND"}]}]}`}}
	_, _, err := contacts.ParseContactQuery(v, today)
	e, ok := err.(*msgkit.Error)
	if !ok {
		t.Fatalf("error %v", err)
	}
	var got []msgkit.FieldError
	for _, f := range e.Fields {
		got = append(got, msgkit.FieldError{Name: f.Name, Message: f.Message})
	}
	want := []msgkit.FieldError{
		{Name: "query", Message: `segmentation[0].rules[0].field: unknown field "nope"`},
		{Name: "query", Message: `segmentation[0].rules[1].condition: unknown condition "bogus"`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}

func FuzzParseContactQuery(f *testing.F) {
	for _, s := range []string{"gender=male&sort=-mobile", "age=7&mobile=%2B38640123456", "query=%7B%7D", "fields=count_only&gt(updated_dt)=2026-01-01T00:00:00Z",
		"subscription_uuids=0a0a0a0a-0000-4000-8000-000000000001&subscription_status=subscribed", "channel_name=telegram&channel_opt_status=in",
		"touchpoint_uuids=0a0a0a0a-0000-4000-8000-000000000001,x&group_uuid=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		_, _, err = contacts.ParseContactQuery(v, today)
		if err != nil {
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid || len(e.Fields) == 0 {
				t.Fatalf("ParseContactQuery(%q): %v", raw, err)
			}
		}
	})
}

// The membership, group and channel parameters read into the query; the
// uuid lists are canonical, each once, comma-separated or repeated.
func TestParseContactQueryFilters(t *testing.T) {
	const (
		sub1 = "0a0a0a0a-0000-4000-8000-000000000001"
		sub2 = "0a0a0a0a-0000-4000-8000-000000000002"
		tp   = "0b0b0b0b-0000-4000-8000-000000000001"
		in1  = "0c0c0c0c-0000-4000-8000-000000000001"
		grp  = "0d0d0d0d-0000-4000-8000-000000000001"
	)
	for _, tt := range []struct {
		raw  string
		want contacts.ContactQuery
	}{
		{"subscription_uuids=" + sub1 + "," + strings.ToUpper(sub2) + "&subscription_uuids=" + sub1 + "&subscription_status=unsubscribed",
			contacts.ContactQuery{SubscriptionUUIDs: []string{sub1, sub2}, SubscriptionStatus: contacts.Unsubscribed}},
		{"touchpoint_uuids=" + tp + "&interest_uuids=" + in1 + "&interest_uuids=" + tp,
			contacts.ContactQuery{Touchpoints: &contacts.MembershipFilter{UUIDs: []string{tp}}, Interests: &contacts.MembershipFilter{UUIDs: []string{in1, tp}}}},
		{"touchpoint_uuids=&list_uuids=", contacts.ContactQuery{}},
		{"group_uuid=" + strings.ToUpper(grp), contacts.ContactQuery{GroupUUID: grp}},
		{"channel_name=telegram&channel_identifier=%20@ana%20&channel_opt_status=out",
			contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: "telegram", Identifier: "@ana", OptStatus: contacts.OptOut}}},
		{"channel_name=webpush&channel_opt_status=in", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: "webpush", OptStatus: contacts.OptIn}}},
		{"channel_name=whatsapp&channel_identifier=%2B38640123456", contacts.ContactQuery{Channel: contacts.ChannelFilter{Name: "whatsapp", Identifier: "+38640123456"}}},
		{"channel_opt_status=in", contacts.ContactQuery{Channel: contacts.ChannelFilter{OptStatus: contacts.OptIn}}},
	} {
		q, _ := parseQuery(t, tt.raw)
		tt.want.Today, tt.want.List = today, q.List
		if diff := cmp.Diff(tt.want, q, cmp.AllowUnexported(msgkit.Value{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.raw, diff)
		}
	}
}

// webpush_subscription is an equality filter on the contact's web push
// subscription, as given (trimmed).
func TestParseContactQueryWebpush(t *testing.T) {
	q, _ := parseQuery(t, "webpush_subscription=%20https://push.example/s/1%20&channel_name=telegram")
	want := []msgkit.Filter{filter(msgkit.OpEq, "webpush_subscription", str("https://push.example/s/1"))}
	if diff := cmp.Diff(want, q.List.Filters, cmp.AllowUnexported(msgkit.Value{})); diff != "" || q.Channel.Name != "telegram" {
		t.Errorf("filters (-want +got):\n%s%+v", diff, q.Channel)
	}
	q, _ = parseQuery(t, "isnotnull(webpush_subscription)")
	if len(q.List.Filters) != 1 || q.List.Filters[0].Op != msgkit.OpIsNotNull {
		t.Errorf("the operator form: %+v", q.List.Filters)
	}
}

// Every bad value of the filter parameters is named, each by its
// parameter, with what it takes.
func TestParseContactQueryFilterProblems(t *testing.T) {
	const sub = "0a0a0a0a-0000-4000-8000-000000000001"
	for _, tt := range []struct{ raw, param, says string }{
		{"subscription_uuids=" + sub + ",x", "subscription_uuids", `"x", which is not a UUID`},
		{"touchpoint_uuids=12", "touchpoint_uuids", `"12", which is not a UUID`},
		{"interest_uuids=" + sub + "&interest_uuids=%7B", "interest_uuids", `"{", which is not a UUID`},
		{"subscription_uuids=" + sub + "&subscription_status=in", "subscription_status", "subscribed or unsubscribed"},
		{"subscription_status=subscribed", "subscription_status", "subscription_uuids, which are not given"},
		{"subscription_uuids=%20,&subscription_status=subscribed", "subscription_status", "subscription_uuids, which are not given"},
		{"subscription_uuids=" + sub + "&subscription_status=subscribed&subscription_status=unsubscribed", "subscription_status", "more than once"},
		{"group_uuid=g1", "group_uuid", "a UUID"},
		{"group_uuid=" + sub + "&group_uuid=" + sub, "group_uuid", "more than once"},
		{"channel_name=viber", "channel_name", `telegram, whatsapp or webpush, not "viber"`},
		{"channel_name=Telegram", "channel_name", `not "Telegram"`},
		// Named by the interface, but no contact can have them: refused
		// rather than selecting nobody.
		{"channel_name=facebook", "channel_name", `contacts keep no "facebook" channel`},
		{"channel_name=instagram&channel_identifier=@ana", "channel_name", `contacts keep no "instagram" channel`},
		{"channel_identifier=%20", "channel_identifier", "empty"},
		{"channel_opt_status=yes", "channel_opt_status", "in or out"},
		{"webpush_subscription=%20", "webpush_subscription", "empty"},
		{"fields=webpush", "fields", `not "webpush"`},
	} {
		v, err := url.ParseQuery(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = contacts.ParseContactQuery(v, today)
		e, ok := err.(*msgkit.Error)
		if !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != tt.param || !strings.Contains(e.Fields[0].Message, tt.says) {
			t.Errorf("%s: %v %+v, want %s saying %q", tt.raw, err, e, tt.param, tt.says)
		}
	}
}

// Resolving replaces what a store cannot know by what it can, and a
// query left unresolved is refused by name.
func TestContactQueryResolve(t *testing.T) {
	const sub, opt = "0a0a0a0a-0000-4000-8000-000000000001", "0e0e0e0e-0000-4000-8000-000000000001"
	q, _ := parseQuery(t, "subscription_uuids="+sub+"&subscription_status=subscribed&group_uuid="+sub)
	for _, want := range []string{"subscription_uuids", "group_uuid"} {
		e, ok := q.Resolved().(*msgkit.Error)
		if !ok || e.Kind != msgkit.Invalid || e.Code != contacts.CodeUnresolvedQuery || e.Fields[0].Name != want {
			t.Fatalf("Resolved: %v, want %s named", e, want)
		}
		if want == "subscription_uuids" {
			q.ResolveSubscriptions([]string{opt})
		} else {
			q.ResolveGroup([]string{list}, nil)
		}
	}
	if err := q.Resolved(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&contacts.MembershipFilter{UUIDs: []string{opt}, Status: contacts.Subscribed}, q.Options); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&contacts.GroupFilter{ListUUIDs: []string{list}}, q.Group); diff != "" {
		t.Errorf("group (-want +got):\n%s", diff)
	}
}
