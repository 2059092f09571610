package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/campaign/campaigntest"
	"github.com/msgkit/msgkit/contacts"
)

// The listing has exactly campaign.ListSpec()'s attributes, with its types.
func TestCampaignListSpec(t *testing.T) {
	t.Parallel()
	if err := campaignsTable.checkSpec(campaign.ListSpec()); err != nil {
		t.Error(err)
	}
	for name := range campaignsTable.Attrs {
		if _, ok := campaign.ListSpec().Filter[name]; !ok && !slices.Contains(campaign.ListSpec().Sort, name) {
			t.Errorf("the listing has %q, which campaign.ListSpec() neither filters nor sorts by", name)
		}
	}
}

const (
	campTenant  msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
	campTenant2 msgkit.ServiceUUID = "7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e"
)

// roundTripCampaigns are campaigns that set every field between them:
// a scheduled sms, a webpush with all five webpush fields, an email, a
// once and a now campaign with a last run, times with nanoseconds and in
// another zone, and the zero campaign (nil lists, no schedule, zero
// times).
func roundTripCampaigns(t *testing.T) []campaign.Campaign {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	sms := campaigntest.Sample(t, "c0000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)
	sms.Created = sms.Created.Add(1234567 * time.Nanosecond).In(berlin)
	sms.Last, sms.LastSeq = time.Date(2026, 11, 30, 8, 0, 0, 999, berlin), 3
	webpush := campaigntest.Sample(t, "c0000000-0000-4000-8000-000000000002", 1, campaign.Webpush, campaign.Active)
	webpush.Webpush.Icon, webpush.Webpush.Image = "https://example.com/icon.png", "https://example.com/image.png"
	email := campaigntest.Sample(t, "c0000000-0000-4000-8000-000000000003", 2, campaign.Email, campaign.Draft)
	once := campaigntest.Sample(t, "c0000000-0000-4000-8000-000000000004", 3, campaign.Email, campaign.Stopped)
	once.Channel = campaign.Telegram
	once.Schedule, err = campaign.ParseSchedule(campaign.Once, "2027-01-02 03:04:05", once.Created)
	if err != nil {
		t.Fatal(err)
	}
	once.Sender, once.QueryType, once.Query = "@shop_bot", campaign.All, ""
	once.Template = `{"messages":[{"body":{"textMessage":{"content":"Hi ü"}},"allowedChannels":["telegram"]}]}`
	now := campaigntest.Sample(t, "c0000000-0000-4000-8000-000000000005", 4, campaign.SMS, campaign.Finished)
	now.Schedule = campaign.Schedule{Type: campaign.Now}
	now.Template, now.Parts = "Grüße, {first_name} ✓", 1
	now.Next, now.NextSeq = time.Time{}, 0
	now.Last, now.LastSeq = now.Created.Add(time.Second+500*time.Nanosecond), 1
	now.Lists = []string{"9f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b99", "1f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90", "5f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b95"}
	empty := campaign.Campaign{UUID: "c0000000-0000-4000-8000-000000000006"}
	emptyLists := campaign.Campaign{UUID: "c0000000-0000-4000-8000-000000000007", Lists: []string{}}
	return []campaign.Campaign{sms, webpush, email, once, now, empty, emptyLists}
}

// stored is c as a store keeps it: times to the microsecond, in UTC.
func stored(c campaign.Campaign) campaign.Campaign {
	c.Created, c.Updated = dbTime(c.Created), dbTime(c.Updated)
	if !c.Next.IsZero() {
		c.Next = dbTime(c.Next)
	}
	if !c.Last.IsZero() {
		c.Last = dbTime(c.Last)
	}
	return c
}

// sameCampaign compares every field, the schedule by its type, rule,
// once time, start and occurrences, and the times' zone.
func sameCampaign(t *testing.T, what string, want, got campaign.Campaign) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(campaign.Schedule{})); diff != "" {
		t.Errorf("%s: %s differs (-want +got):\n%s", what, want.UUID, diff)
	}
	for _, tm := range []time.Time{got.Created, got.Updated, got.Next, got.Last} {
		if !tm.IsZero() && tm.Location() != time.UTC {
			t.Errorf("%s: %s has a time in %v, want UTC", what, want.UUID, tm.Location())
		}
	}
	if want.Schedule.Type != campaign.Scheduled {
		return
	}
	if !got.Schedule.Start().Equal(want.Schedule.Start()) || got.Schedule.Start().Location().String() != want.Schedule.Start().Location().String() {
		t.Errorf("%s: %s starts %v, want %v", what, want.UUID, got.Schedule.Start(), want.Schedule.Start())
	}
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 12 {
		w, wseq, wok := want.Schedule.Next(time.Time{}, 0, from, false)
		g, gseq, gok := got.Schedule.Next(time.Time{}, 0, from, false)
		if !g.Equal(w) || gseq != wseq || gok != wok {
			t.Fatalf("%s: %s occurrence %d after %v: %v #%d %v, want %v #%d %v", what, want.UUID, i, from, g, gseq, gok, w, wseq, wok)
		}
		if !wok {
			break
		}
		from = w
	}
}

// Every field comes back from Create, Campaign, the listing and Update
// as it was stored; zero times and nil lists are NULL.
func TestCampaignRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := newTestDB(t)
	s := db.Campaigns()
	cs := roundTripCampaigns(t)
	for _, c := range cs {
		got, err := s.Create(ctx, campTenant, c)
		if err != nil {
			t.Fatalf("Create %s: %v", c.UUID, err)
		}
		sameCampaign(t, "Create", stored(c), got)
		got, err = s.Campaign(ctx, campTenant, c.UUID)
		if err != nil {
			t.Fatal(err)
		}
		sameCampaign(t, "Campaign", stored(c), got)
		got, err = s.Update(ctx, campTenant, c.UUID, func(*campaign.Campaign) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		sameCampaign(t, "Update", stored(c), got)
	}
	page, err := s.Campaigns(ctx, campTenant, msgkit.ListQuery{PageNumber: 1, PageSize: 100, Sort: []msgkit.SortKey{{Attr: "name"}}})
	if err != nil || page.Total != len(cs) {
		t.Fatalf("listing: %d of %d, %v", len(page.Items), page.Total, err)
	}
	for _, got := range page.Items {
		i := slices.IndexFunc(cs, func(c campaign.Campaign) bool { return c.UUID == got.UUID })
		sameCampaign(t, "Campaigns", stored(cs[i]), got)
	}

	// The columns themselves: NULL for a zero Next or Last and a nil list
	// of lists, {} for an empty one, the lists in order.
	var next, last, listsNull, listsEmpty int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE next_dt IS NULL), count(*) FILTER (WHERE last_dt IS NULL),
		count(*) FILTER (WHERE lists IS NULL), count(*) FILTER (WHERE lists = '{}') FROM campaigns`).Scan(&next, &last, &listsNull, &listsEmpty); err != nil {
		t.Fatal(err)
	}
	if next != 5 || last != 5 || listsNull != 1 || listsEmpty != 1 {
		t.Errorf("NULL next_dt %d, last_dt %d, lists %d, empty lists %d; want 5, 5, 1, 1", next, last, listsNull, listsEmpty)
	}
	var lists []string
	var rule string
	if err := db.pool.QueryRow(ctx, `SELECT lists, schedule_rrule FROM campaigns WHERE uuid = $1`, cs[4].UUID).Scan(&lists, &rule); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lists, cs[4].Lists) || rule != "" {
		t.Errorf("lists %v, rule %q; want %v and no rule", lists, rule, cs[4].Lists)
	}
	if err := db.pool.QueryRow(ctx, `SELECT schedule_rrule FROM campaigns WHERE uuid = $1`, cs[3].UUID).Scan(&rule); err != nil || rule != "2027-01-02 03:04:05" {
		t.Errorf("once rule %q, %v", rule, err)
	}
}

// The listing gives what memstore gives for the same campaigns and
// queries, as the HTTP layer parses them.
func TestCampaignListingMatchesMemstore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Campaigns(), memstore.New().Campaigns()
	channels := []campaign.Channel{campaign.SMS, campaign.Email, campaign.Webpush}
	statuses := []campaign.Status{campaign.Active, campaign.Draft, campaign.Active, campaign.Stopped}
	for i := range 24 {
		c := campaigntest.Sample(t, fmt.Sprintf("d0000000-0000-4000-8000-%012d", (i*7)%24), i%5, channels[i%3], statuses[i%4])
		c.Name = []string{"Spring sale", "spring", "Ärger", "autumn", "Zebra", "zebra"}[i%6]
		c.Updated = c.Created.Add(time.Duration(i%4) * time.Hour)
		if i%3 == 0 {
			c.Last, c.LastSeq = c.Created.Add(-time.Duration(i)*time.Minute), 1
		}
		for _, s := range []campaign.Store{pg, mem} {
			if _, err := s.Create(ctx, campTenant, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pg.Create(ctx, campTenant2, campaigntest.Sample(t, "d0000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		"", "page_size=5&page_number=2", "page_size=5&page_number=9", "sort=-created_dt", "sort=name,-updated_dt",
		"sort=-next_dt,status", "sort=last_dt", "sort=sending_type,schedule_type,-name",
		"q=SPRING", "q=är", "sending_type=email", "in(status)=active,stopped", "neq(status)=draft",
		"isnull(next_dt)=", "isnotnull(last_dt)=&sort=-last_dt", "gt(created_dt)=2026-11-24T09:02:00Z",
		"between(updated_dt)=2026-11-24T10:00:00Z,2026-11-24T12:00:00Z", "startswith(name)=z&sort=name",
		"lt(last_dt)=2026-11-24T09:00:00Z", "contains(name)=ing&page_size=3",
	} {
		v, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatal(err)
		}
		q, err := msgkit.ParseListQuery(v, campaign.ListSpec())
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		want, err := mem.Campaigns(ctx, campTenant, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.Campaigns(ctx, campTenant, q)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		ids := func(p msgkit.Page[campaign.Campaign]) []string {
			var out []string
			for _, c := range p.Items {
				out = append(out, c.UUID)
			}
			return out
		}
		if got.Total != want.Total || !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%q: %d %v, memstore %d %v", raw, got.Total, ids(got), want.Total, ids(want))
		}
	}
}

// Text PostgreSQL cannot hold is Invalid when written and NotFound when
// looked up; a schedule that would not read back is Invalid.
func TestCampaignUnstorable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).Campaigns()
	c := campaigntest.Sample(t, "e0000000-0000-4000-8000-000000000001", 0, campaign.Webpush, campaign.Active)
	if _, err := s.Create(ctx, campTenant, c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, field string
		tenant      msgkit.ServiceUUID
		change      func(*campaign.Campaign)
	}{
		{"NUL in the template", "template", campTenant, func(c *campaign.Campaign) { c.Template = "a\x00b" }},
		{"invalid UTF-8 in a list", "recipient_lists", campTenant, func(c *campaign.Campaign) { c.Lists = append(c.Lists, "\xff") }},
		{"invalid UTF-8 in the tenant", "serviceUuid", "\xfe", func(*campaign.Campaign) {}},
		{"an unknown schedule type", "schedule_rrule", campTenant, func(c *campaign.Campaign) { c.Schedule.Type = "weekly" }},
	} {
		bad := c
		bad.UUID = "e0000000-0000-4000-8000-000000000002"
		bad.Lists = slices.Clone(c.Lists)
		tc.change(&bad)
		_, err := s.Create(ctx, tc.tenant, bad)
		if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != tc.field {
			t.Errorf("Create with %s = %v, want Invalid naming %s", tc.name, err, tc.field)
		}
		_, err = s.Update(ctx, campTenant, c.UUID, func(u *campaign.Campaign) error { tc.change(u); return nil })
		if tc.tenant == campTenant && msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("Update with %s = %v, want Invalid", tc.name, err)
		}
	}
	if got, err := s.Campaign(ctx, campTenant, c.UUID); err != nil || got.Template != c.Template || len(got.Lists) != 2 {
		t.Errorf("after refused updates: %+v, %v", got, err)
	}
	for _, k := range []struct {
		tenant msgkit.ServiceUUID
		id     string
	}{{campTenant, "e\x00"}, {campTenant, "\xff"}, {"\xff", c.UUID}} {
		_, err := s.Campaign(ctx, k.tenant, k.id)
		wantCode(t, err, campaign.CodeNotFound, "Campaign")
		_, err = s.Update(ctx, k.tenant, k.id, func(*campaign.Campaign) error { return nil })
		wantCode(t, err, campaign.CodeNotFound, "Update")
		wantCode(t, s.Delete(ctx, k.tenant, k.id), campaign.CodeNotFound, "Delete")
		_, err = s.Tasks(ctx, k.tenant, k.id)
		wantCode(t, err, campaign.CodeNotFound, "Tasks")
	}
	page, err := s.Campaigns(ctx, "\xff", msgkit.ListQuery{PageNumber: 1, PageSize: 10})
	if err != nil || page.Total != 0 || page.Items == nil {
		t.Errorf("listing of an unstorable tenant = %+v, %v", page, err)
	}
	_, err = s.Campaigns(ctx, "\xff", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "uuid"}}})
	wantCode(t, err, msgkit.CodeInvalidListSpec, "an unknown sort")
}

func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if msgkit.CodeOf(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// Runs: none yet, for a campaign of the tenant; NotFound for another's,
// as memstore answers.
func TestCampaignRuns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Campaigns(), memstore.New().Campaigns()
	c := campaigntest.Sample(t, "f0000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)
	for _, s := range []interface {
		campaign.Store
		campaign.Runs
	}{pg, mem} {
		if _, err := s.Create(ctx, campTenant, c); err != nil {
			t.Fatal(err)
		}
		tasks, err := s.Tasks(ctx, campTenant, c.UUID)
		if err != nil || tasks == nil || len(tasks) != 0 {
			t.Errorf("%T Tasks = %#v, %v; want an empty list", s, tasks, err)
		}
		msgs, err := s.Messages(ctx, campTenant, c.UUID, 10)
		if err != nil || msgs == nil || len(msgs) != 0 {
			t.Errorf("%T Messages = %#v, %v; want an empty list", s, msgs, err)
		}
		_, err = s.Tasks(ctx, campTenant2, c.UUID)
		wantCode(t, err, campaign.CodeNotFound, "another tenant's tasks")
		_, err = s.Messages(ctx, campTenant2, c.UUID, 10)
		wantCode(t, err, campaign.CodeNotFound, "another tenant's messages")
		_, err = s.Messages(ctx, campTenant, "f0000000-0000-4000-8000-000000000002", 10)
		wantCode(t, err, campaign.CodeNotFound, "an unknown campaign's messages")
	}
}

// MissingLists names the ids that are no list in use of the tenant, in
// the order given, repeats included, as memstore does.
func TestContactsMissingLists(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Contacts(), memstore.New().Contacts()
	const (
		a, b, c = "a1000000-0000-4000-8000-000000000000", "b1000000-0000-4000-8000-000000000000", "c1000000-0000-4000-8000-000000000000"
		other   = "d1000000-0000-4000-8000-000000000000"
		unknown = "e1000000-0000-4000-8000-000000000000"
	)
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for _, s := range []interface {
		CreateList(ctx context.Context, svc msgkit.ServiceUUID, l contacts.List) (contacts.List, error)
		DeleteList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, at time.Time) error
		MissingLists(ctx context.Context, svc msgkit.ServiceUUID, ids []string) ([]string, error)
	}{pg, mem} {
		for _, l := range []struct {
			tenant msgkit.ServiceUUID
			id     string
		}{{campTenant, a}, {campTenant, b}, {campTenant, c}, {campTenant2, other}} {
			if _, err := s.CreateList(ctx, l.tenant, contacts.List{UUID: l.id, Name: "L", Status: "active", Created: at, Updated: at}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteList(ctx, campTenant, b, at); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			tenant   msgkit.ServiceUUID
			ids      []string
			want     []string
			wantNone bool
		}{
			{campTenant, []string{other, a, "x\x00", b, c, unknown, other, "\xff"}, []string{other, "x\x00", b, unknown, other, "\xff"}, false},
			{campTenant, []string{c, a, c}, nil, true},
			{campTenant, nil, nil, true},
			{campTenant2, []string{a, other}, []string{a}, false},
			{"\xff", []string{a, other}, []string{a, other}, false},
		} {
			got, err := s.MissingLists(ctx, tc.tenant, tc.ids)
			if err != nil || !slices.Equal(got, tc.want) || tc.wantNone && got != nil {
				t.Errorf("%T MissingLists(%q, %q) = %q, %v; want %q", s, tc.tenant, tc.ids, got, err, tc.want)
			}
		}
	}
}

// Concurrent updates of one campaign lose none: each sees the other's
// last write, under the row lock.
func TestCampaignConcurrentUpdates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).Campaigns()
	c := campaigntest.Sample(t, "f1000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)
	c.NextSeq = 0
	if _, err := s.Create(ctx, campTenant, c); err != nil {
		t.Fatal(err)
	}
	const workers, each = 2, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				_, err := s.Update(ctx, campTenant, c.UUID, func(c *campaign.Campaign) error {
					c.NextSeq++
					c.Name = fmt.Sprintf("worker %d, update %d", w, i)
					return nil
				})
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := s.Campaign(ctx, campTenant, c.UUID)
	if err != nil || got.NextSeq != workers*each {
		t.Errorf("after %d updates: NextSeq %d, %v", workers*each, got.NextSeq, err)
	}
}
