// Package campaigntest is the store contract of package campaign: the
// stores of every backend pass Run, its one entry point (the campaign
// store, the run store, the audience and the Runner end to end over
// them), so that memstore and pgstore behave alike.
package campaigntest

import (
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

// Stores are the stores of one database, as Run takes them.
type Stores struct {
	RunnerStores
	// Reopen opens another handle on the same database, for the runner's
	// crash and two-runner tests (a replica: a DB of its own over one
	// schema); nil means the same stores (memstore).
	Reopen func() RunnerStores
}

// Run runs every suite of the contract, each a subtest, over the stores
// of a new, empty database per test, from newStores: the campaign store,
// the run store, the audience, and the Runner end to end.
func Run(t *testing.T, newStores func(t *testing.T) Stores) {
	t.Run("store", func(t *testing.T) {
		runStoreTests(t, func(t *testing.T) campaign.Store { return newStores(t).Campaigns })
	})
	t.Run("runs", func(t *testing.T) {
		runRunStoreTests(t, func(t *testing.T) runStores {
			s := newStores(t).Campaigns
			return runStores{Campaigns: s, Runs: s}
		})
	})
	t.Run("audience", func(t *testing.T) {
		runAudienceTests(t, func(t *testing.T) audienceStores {
			s := newStores(t).Contacts
			return audienceStores{Contacts: s, Audience: s}
		})
	})
	t.Run("runner", func(t *testing.T) {
		runRunnerTests(t, func(t *testing.T) (RunnerStores, func() RunnerStores) {
			s := newStores(t)
			if s.Reopen == nil {
				return s.RunnerStores, func() RunnerStores { return s.RunnerStores }
			}
			return s.RunnerStores, s.Reopen
		})
	})
}

// runStoreTests runs the contract against stores newStore makes, each
// empty.
func runStoreTests(t *testing.T, newStore func(t *testing.T) campaign.Store) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, campaign.Store)
	}{
		{"create, read, tenants", testCRUD},
		{"list: filters, sort, paging", testList},
		{"update and delete", testUpdateDelete},
		{"list: times as shown", testTimesShown},
		{"payers", testPayers},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

const (
	tenantA = msgkit.ServiceUUID("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a")
	tenantB = msgkit.ServiceUUID("7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e")
)

var at = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

// Sample is a valid campaign of every kind of field, created n minutes
// after a fixed time.
func Sample(t testing.TB, id string, n int, channel campaign.Channel, status campaign.Status) campaign.Campaign {
	t.Helper()
	now := at.Add(time.Duration(n) * time.Minute)
	var c campaign.Campaign
	name, st, typ, rule := "campaign "+id, string(status), "scheduled", "DTSTART;TZID=Europe/Berlin:20261201T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10"
	ch, tmpl, sender, lists := string(channel), "Hello {first_name}", "Shop", "5f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90,6a1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b91"
	qt, q := "segmentation", `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`
	in := campaign.Input{Name: &name, Status: &st, SendingType: &ch, ScheduleType: &typ, ScheduleRRule: &rule, Template: &tmpl,
		Sender: &sender, Lists: &lists, QueryType: &qt, Query: &q}
	switch channel {
	case campaign.Email:
		sender = "news@example.com"
		tmpl = `{"messages":[{"body":{"textMessage":{"content":"Hello"}}}]}`
	case campaign.Webpush:
		title, body, url := "Title", "Body", "https://example.com/x"
		in.WebpushTitle, in.WebpushBody, in.WebpushTarget = &title, &body, &url
	}
	if err := campaign.Fill(&c, in, false, now); err != nil {
		t.Fatalf("Sample: %v", err)
	}
	c.UUID, c.Created, c.Updated = id, now, now
	if err := c.Plan(now); err != nil {
		t.Fatalf("Sample: %v", err)
	}
	return c
}

// equal compares campaigns as stored: times to the microsecond.
func equal(t *testing.T, want, got campaign.Campaign) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.EquateApproxTime(time.Microsecond), cmpopts.IgnoreUnexported(campaign.Schedule{})); diff != "" {
		t.Errorf("campaign differs (-want +got):\n%s", diff)
	}
	if got.Schedule.Rule != want.Schedule.Rule {
		t.Errorf("rule %q, want %q", got.Schedule.Rule, want.Schedule.Rule)
	}
	// The schedule read back still computes.
	if want.Schedule.Type == campaign.Scheduled {
		w, _, _ := want.Schedule.Next(time.Time{}, 0, at, true)
		g, _, ok := got.Schedule.Next(time.Time{}, 0, at, true)
		if !ok || !g.Equal(w) {
			t.Errorf("the stored rule's next occurrence %v, want %v", g, w)
		}
	}
}

func wantKind(t *testing.T, err error, kind msgkit.Kind, what string) {
	t.Helper()
	if msgkit.KindOf(err) != kind {
		t.Errorf("%s: %v, want %s", what, err, kind)
	}
}

func testCRUD(t *testing.T, s campaign.Store) {
	ctx := t.Context()
	a := Sample(t, "11111111-1111-4111-8111-111111111111", 0, campaign.SMS, campaign.Active)
	got, err := s.Create(ctx, tenantA, a)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, a, got)
	got, err = s.Campaign(ctx, tenantA, a.UUID)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, a, got)
	if got.Parts != 1 || got.Next.IsZero() || got.NextSeq != 1 || len(got.Lists) != 2 {
		t.Errorf("stored %+v", got)
	}
	_, err = s.Create(ctx, tenantA, a)
	wantKind(t, err, msgkit.Conflict, "a UUID twice")
	_, err = s.Campaign(ctx, tenantB, a.UUID)
	wantKind(t, err, msgkit.NotFound, "another tenant's campaign")
	if page, err := s.Campaigns(ctx, tenantB, msgkit.ListQuery{PageNumber: 1, PageSize: 10}); err != nil || page.Total != 0 {
		t.Errorf("another tenant's listing = %+v, %v", page, err)
	}
	for _, ch := range []campaign.Channel{campaign.Email, campaign.Webpush} {
		c := Sample(t, "2222222"+string(ch[0])+"-1111-4111-8111-111111111111", 1, ch, campaign.Draft)
		got, err := s.Create(ctx, tenantA, c)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, c, got)
	}
}

func testList(t *testing.T, s campaign.Store) {
	ctx := t.Context()
	ids := []string{
		"a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002",
		"a0000000-0000-4000-8000-000000000003", "a0000000-0000-4000-8000-000000000004",
	}
	cs := []campaign.Campaign{
		Sample(t, ids[0], 3, campaign.SMS, campaign.Active),
		Sample(t, ids[1], 1, campaign.Email, campaign.Draft),
		Sample(t, ids[2], 2, campaign.SMS, campaign.Draft),
		Sample(t, ids[3], 4, campaign.Webpush, campaign.Active),
	}
	for _, c := range cs {
		if _, err := s.Create(ctx, tenantA, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, tenantB, Sample(t, ids[0], 0, campaign.SMS, campaign.Active)); err != nil {
		t.Fatalf("the same UUID in another tenant: %v", err)
	}
	list := func(q msgkit.ListQuery) []string {
		t.Helper()
		page, err := s.Campaigns(ctx, tenantA, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range page.Items {
			out = append(out, c.UUID[len(c.UUID)-1:])
		}
		return out
	}
	eq := func(attr, v string) msgkit.Filter {
		return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
	}
	for _, tt := range []struct {
		name string
		q    msgkit.ListQuery
		want []string
	}{
		{"default order: created", msgkit.ListQuery{PageNumber: 1, PageSize: 10}, []string{"2", "3", "1", "4"}},
		{"newest first", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "created_dt", Desc: true}}}, []string{"4", "1", "3", "2"}},
		{"sms", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{eq("sending_type", "sms")}}, []string{"3", "1"}},
		{"active sms", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{eq("sending_type", "sms"), eq("status", "active")}}, []string{"1"}},
		{"page 2", msgkit.ListQuery{PageNumber: 2, PageSize: 3}, []string{"4"}},
		{"drafts have no next run", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Op: msgkit.OpIsNull, Attr: "next_dt"}}}, []string{"2", "3"}},
		{"by next run, nulls last", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "next_dt"}, {Attr: "name"}}}, []string{"1", "4", "2", "3"}},
	} {
		if got := list(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	page, err := s.Campaigns(ctx, tenantA, msgkit.ListQuery{PageNumber: 1, PageSize: 2})
	if err != nil || page.Total != 4 || len(page.Items) != 2 {
		t.Errorf("page of 2: %d of %d, %v", len(page.Items), page.Total, err)
	}
}

func testUpdateDelete(t *testing.T, s campaign.Store) {
	ctx := t.Context()
	a := Sample(t, "b0000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)
	if _, err := s.Create(ctx, tenantA, a); err != nil {
		t.Fatal(err)
	}
	later := at.Add(time.Hour)
	got, err := s.Update(ctx, tenantA, a.UUID, func(c *campaign.Campaign) error {
		if err := campaign.ChangeStatus(c, campaign.Stopped, later); err != nil {
			return err
		}
		c.Updated, c.Name, c.UUID = later, "renamed", "hijack"
		return nil
	})
	if err != nil || got.Status != campaign.Stopped || !got.Next.IsZero() || got.Name != "renamed" || got.UUID != a.UUID {
		t.Fatalf("Update = %+v, %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, tenantA, a.UUID, func(c *campaign.Campaign) error { c.Name = "lost"; return boom }); !errors.Is(err, boom) {
		t.Errorf("a failing update: %v", err)
	}
	if got, _ := s.Campaign(ctx, tenantA, a.UUID); got.Name != "renamed" || !got.Updated.Equal(later) {
		t.Errorf("after a failing update: %+v", got)
	}
	_, err = s.Update(ctx, tenantB, a.UUID, func(*campaign.Campaign) error { return nil })
	wantKind(t, err, msgkit.NotFound, "updating another tenant's campaign")
	wantKind(t, s.Delete(ctx, tenantB, a.UUID), msgkit.NotFound, "deleting another tenant's campaign")
	if err := s.Delete(ctx, tenantA, a.UUID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.Delete(ctx, tenantA, a.UUID), msgkit.NotFound, "deleting twice")
	_, err = s.Campaign(ctx, tenantA, a.UUID)
	wantKind(t, err, msgkit.NotFound, "a deleted campaign")
}

// testTimesShown: the listing's date-time filters compare the times as
// the family shows them, in whole seconds, not the fraction a campaign
// keeps.
func testTimesShown(t *testing.T, s campaign.Store) {
	ctx := t.Context()
	c := Sample(t, "b0000000-0000-4000-8000-000000000001", 0, campaign.SMS, campaign.Active)
	c.Created, c.Updated = at.Add(400*time.Millisecond), at.Add(400*time.Millisecond) // shown as at
	if _, err := s.Create(ctx, tenantA, c); err != nil {
		t.Fatal(err)
	}
	shown := at.Format(time.RFC3339)
	for query, total := range map[string]int{
		"gt(created_dt)=" + shown: 0, "eq(created_dt)=" + shown: 1, "lte(updated_dt)=" + shown: 1,
		"eq(created_dt)=" + c.Created.Format(time.RFC3339Nano): 0, "lt(updated_dt)=" + c.Created.Format(time.RFC3339Nano): 1,
	} {
		v, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := msgkit.ParseListQuery(v, campaign.ListSpec())
		if err != nil {
			t.Fatal(err)
		}
		if page, err := s.Campaigns(ctx, tenantA, q); err != nil || page.Total != total {
			t.Errorf("%s: %d, %v; want %d", query, page.Total, err, total)
		}
	}
}

// A tenant's payer is its own, replaced by a new one and removed by "".
func testPayers(t *testing.T, s campaign.Store) {
	ctx := t.Context()
	payer := func(tenant msgkit.ServiceUUID, want, what string) {
		t.Helper()
		if got, err := s.Payer(ctx, tenant); err != nil || got != want {
			t.Errorf("%s: Payer = %q, %v, want %q", what, got, err, want)
		}
	}
	set := func(tenant msgkit.ServiceUUID, account string) {
		t.Helper()
		if err := s.SetPayer(ctx, tenant, account); err != nil {
			t.Fatalf("SetPayer(%s, %q): %v", tenant, account, err)
		}
	}
	payer(tenantA, "", "a tenant never given one")
	set(tenantA, "campaigns")
	payer(tenantA, "campaigns", "set")
	payer(tenantB, "", "another tenant")
	set(tenantB, "other")
	set(tenantA, "bulk-2")
	payer(tenantA, "bulk-2", "replaced")
	payer(tenantB, "other", "the other tenant's, after A's was replaced")
	set(tenantA, "")
	payer(tenantA, "", "removed")
	payer(tenantB, "other", "the other tenant's, after A's was removed")
	set(tenantA, "") // removing none is no error
	payer(tenantA, "", "removed twice")
	set(tenantA, "campaigns")
	payer(tenantA, "campaigns", "set again")
}
