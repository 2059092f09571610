package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// audienceStore is what the audience tests need of a contacts store.
type audienceStore interface {
	campaign.Audience
	CreateList(ctx context.Context, svc msgkit.ServiceUUID, l contacts.List) (contacts.List, error)
	CreateContact(ctx context.Context, svc msgkit.ServiceUUID, c contacts.Contact) (contacts.Contact, error)
}

var (
	_ audienceStore = (*ContactsStore)(nil)
	_ audienceStore = (*memstore.ContactsStore)(nil)
)

// audienceLists are the lists of the property test's tenants.
var audienceLists = []string{
	"a1000000-0000-4000-8000-000000000001", "a1000000-0000-4000-8000-000000000002", "a1000000-0000-4000-8000-000000000003",
}

var audienceBase = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// genAudienceContact draws the i-th contact of a tenant: its list, list
// membership, deletion, mobile number (written in several ways, so that
// contacts share numbers), e-mail, city, the opt statuses of every
// channel and a Telegram identifier. Created times collide often, so
// that the UUID breaks ties; they are whole microseconds, as both stores
// then order them alike.
func genAudienceContact(t *rapid.T, i int) contacts.Contact {
	l := fmt.Sprintf("contact %d ", i)
	opt := func(name string) *string {
		s := rapid.SampledFrom([]string{"in", "", "out", "IN", "in"}).Draw(t, l+name)
		return &s
	}
	str := func(name string, vs ...string) *string {
		s := rapid.SampledFrom(vs).Draw(t, l+name)
		return &s
	}
	list := rapid.SampledFrom(audienceLists).Draw(t, l+"list")
	c := contacts.Contact{
		UUID:    fmt.Sprintf("%02x%06x-0000-4000-8000-000000000000", rapid.IntRange(0, 255).Draw(t, l+"uuid"), i),
		Created: audienceBase.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, l+"created")) * time.Microsecond),
	}
	c.Updated = c.Created
	in := contacts.Input{
		ListUUID: &list,
		Values: map[string]*string{
			"mobile": str("mobile", "", "+38640000001", "00386 40 000 001", "+38640000002", "+4915100000003"),
			"email":  str("email", "", "anna@example.com", "bor@example.com"),
			"city":   str("city", "", "Ljubljana", "LJUBLJANA", "Maribor", "Koper"),
		},
		OptStatus: opt("opt_status"), OptStatusWebpush: opt("opt_status_webpush"),
		TelegramIdentifier: str("telegram", "", "@anna", "4242"), TelegramOptStatus: opt("telegram opt"),
	}
	if err := contacts.Fill(&c, in, true); err != nil {
		t.Fatal(err)
	}
	c.OptStatusWhatsApp = contacts.OptStatus(rapid.SampledFrom([]string{"", "in", "out"}).Draw(t, l+"whatsapp opt"))
	if rapid.IntRange(0, 4).Draw(t, l+"unsubscribed") == 0 {
		c.Member = contacts.Unsubscribed
	}
	if rapid.IntRange(0, 4).Draw(t, l+"deleted") == 0 {
		c.Deleted = audienceBase.Add(time.Hour)
	}
	return c
}

// genAudienceQuery draws a small segmentation query over city, e-mail
// and mobile, or none.
func genAudienceQuery(t *rapid.T) *segmentation.Query {
	if rapid.IntRange(0, 2).Draw(t, "no query") == 0 {
		return nil
	}
	var rules []segRule
	for i, n := 0, rapid.IntRange(1, 2).Draw(t, "rules"); i < n; i++ {
		l := fmt.Sprintf("rule %d ", i)
		switch rapid.IntRange(0, 2).Draw(t, l+"field") {
		case 0:
			cond := rapid.SampledFrom([]string{"eq", "neq", "startswith", "contains", "isnull", "isnotnull", "in", "notin"}).Draw(t, l+"condition")
			var v any = rapid.SampledFrom([]string{"ljubljana", "Maribor", "lj", "o"}).Draw(t, l+"value")
			switch cond {
			case "isnull", "isnotnull":
				v = nil
			case "in", "notin":
				v = []string{"Koper", "ljubljana"}
			}
			rules = append(rules, sr("city", cond, v))
		case 1:
			rules = append(rules, sr("email", rapid.SampledFrom([]string{"isnull", "isnotnull"}).Draw(t, l+"condition"), nil))
		default:
			rules = append(rules, sr("mobile", "startswith", rapid.SampledFrom([]string{"+386", "+49"}).Draw(t, l+"value")))
		}
	}
	q, err := segmentation.Parse([]byte(segQueryJSON(segGroup{any: rapid.Bool().Draw(t, "any"), rules: rules})))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// walkRecipients reads every page of sel, page by page, as the runner
// does, and fails when a walk does not end.
func walkRecipients(t *rapid.T, a campaign.Audience, tenant msgkit.ServiceUUID, sel campaign.Selection, page, most int) []campaign.Recipient {
	var all []campaign.Recipient
	cursor := ""
	for range most/page + 2 {
		rs, next, err := a.Recipients(context.Background(), tenant, sel, cursor, page)
		if err != nil {
			t.Fatalf("%T Recipients: %v", a, err)
		}
		if len(rs) > page {
			t.Fatalf("%T gave %d recipients for a page of %d", a, len(rs), page)
		}
		if (len(rs) == 0) != (next == "") {
			t.Fatalf("%T: %d recipients with cursor %q", a, len(rs), next)
		}
		all = append(all, rs...)
		if len(rs) < page {
			return all
		}
		cursor = next
	}
	t.Fatalf("%T: the walk of %d contacts by %d did not end", a, most, page)
	return nil
}

// pgstore's Recipients reaches exactly the recipients memstore's does,
// contacts and addresses, walked page by page with pages of any size:
// each once, in the same order, and the walk ends. Every check has a
// tenant of its own in one database, so the other checks' contacts are
// the other tenants' beside it.
func TestRecipientsMatchesMemstore(t *testing.T) {
	t.Parallel()
	pg := newTestDB(t).Contacts()
	ctx := context.Background()
	checks, reached, paged := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		checks++
		tenant := msgkit.ServiceUUID(fmt.Sprintf("%08x-0000-4000-8000-000000000000", checks))
		mem := memstore.New().Contacts()
		for _, s := range []audienceStore{pg, mem} {
			for _, l := range audienceLists {
				if _, err := s.CreateList(ctx, tenant, contacts.List{UUID: l, Name: "L", Status: contacts.ListActive, Created: audienceBase, Updated: audienceBase}); err != nil {
					t.Fatal(err)
				}
			}
		}
		n := rapid.IntRange(0, 60).Draw(t, "contacts")
		for i := range n {
			c := genAudienceContact(t, i)
			for _, s := range []audienceStore{pg, mem} {
				if _, err := s.CreateContact(ctx, tenant, c); err != nil {
					t.Fatal(err)
				}
			}
		}
		sel := campaign.Selection{
			Channel: rapid.SampledFrom(append(campaign.Channels(), "fax")).Draw(t, "channel"),
			Lists: rapid.SliceOfNDistinct(rapid.SampledFrom(slices.Concat(audienceLists, []string{"b1000000-0000-4000-8000-000000000009"})),
				rapid.IntRange(0, 2).Draw(t, "lists at least"), -1, rapid.ID).Draw(t, "lists"),
			Query: genAudienceQuery(t),
			Today: msgkit.DateOf(audienceBase),
		}
		want := walkRecipients(t, mem, tenant, sel, rapid.IntRange(1, 7).Draw(t, "memstore page"), n)
		page := rapid.IntRange(1, 7).Draw(t, "pgstore page")
		got := walkRecipients(t, pg, tenant, sel, page, n)
		reached += len(got)
		if len(got) > page {
			paged++
		}
		key := func(r campaign.Recipient) string { return r.Contact + " " + r.Address }
		seen := map[string]bool{}
		for _, r := range got {
			if seen[r.Contact] {
				t.Fatalf("contact %s reached twice: %v", r.Contact, got)
			}
			seen[r.Contact] = true
		}
		gotSet, wantSet := mapKeys(got, key), mapKeys(want, key)
		if !slices.Equal(gotSet, wantSet) {
			t.Fatalf("pgstore reached %v\nmemstore reached %v", gotSet, wantSet)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("the same recipients in another order:\npgstore  %v\nmemstore %v", got, want)
		}
	})
	t.Logf("%d checks, %d recipients reached, %d walks of several pages", checks, reached, paged)
}

// mapKeys is the sorted keys of rs.
func mapKeys(rs []campaign.Recipient, key func(campaign.Recipient) string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = key(r)
	}
	slices.Sort(out)
	return out
}

// A cursor that is not the store's is Invalid, as in memstore; no
// channel, no room or a tenant no row can have reach nobody.
func TestRecipientsEdges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg := newTestDB(t).Contacts()
	sel := campaign.Selection{Channel: campaign.SMS, Lists: audienceLists}
	for _, a := range []campaign.Audience{pg, memstore.New().Contacts()} {
		for _, cursor := range []string{"x", "2026-03-20T12:00:00Z", "yesterday|c1"} {
			_, _, err := a.Recipients(ctx, campTenant, sel, cursor, 10)
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != "bad_cursor" {
				t.Errorf("%T cursor %q: %v", a, cursor, err)
			}
		}
		for _, c := range []struct {
			tenant msgkit.ServiceUUID
			sel    campaign.Selection
			limit  int
		}{{campTenant, sel, 0}, {campTenant, campaign.Selection{Channel: "fax", Lists: audienceLists}, 10}, {"\xff", sel, 10}} {
			if rs, next, err := a.Recipients(ctx, c.tenant, c.sel, "", c.limit); rs != nil || next != "" || err != nil {
				t.Errorf("%T %+v: %v, %q, %v", a, c, rs, next, err)
			}
		}
	}
}

// recipientsSeed gives a tenant n contacts created a millisecond apart,
// alternately in two lists, every one of them opted in with a mobile
// number, two in three with an e-mail address, half of them in Ljubljana: $1 the tenant, $2 and $3 the lists,
// $4 n. Every tenth is unsubscribed, every seventeenth deleted.
const recipientsSeed = `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated, deleted,
		mobile, mobile_raw, email, email_fold, opt_status, city, city_fold)
	SELECT $1, lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'),
		CASE WHEN i % 2 = 0 THEN $2 ELSE $3 END,
		CASE WHEN i % 10 = 0 THEN 'unsubscribed' ELSE 'subscribed' END,
		timestamptz '2026-01-01' + i * interval '1 ms', timestamptz '2026-01-01',
		CASE WHEN i % 17 = 0 THEN timestamptz '2026-02-01' END,
		'+3864' || lpad(i::text, 7, '0'), '+3864' || lpad(i::text, 7, '0'),
		CASE WHEN i % 3 <> 0 THEN 'user' || i || '@example.com' END, CASE WHEN i % 3 <> 0 THEN 'user' || i || '@example.com' END, 'in',
		CASE WHEN i % 4 < 2 THEN 'Ljubljana' ELSE 'Maribor' END, CASE WHEN i % 4 < 2 THEN 'ljubljana' ELSE 'maribor' END
	FROM generate_series(1, $4::int) AS i`

// A page of recipients of a tenant of 100,000 contacts (another's
// 20,000 beside them) walks the store order's index from the cursor and
// stops at the page: no plan sorts the tenant's contacts, with one list
// or two, with a segmentation query or without, at the start and in the
// middle.
func TestRecipientsPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("fills tens of thousands of contacts to read plans; the full suite runs it")
	}
	t.Parallel()
	db := newTestDB(t)
	ctx := t.Context()
	const other msgkit.ServiceUUID = "7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e"
	lists := []string{"11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002"}
	for _, x := range []struct {
		tenant msgkit.ServiceUUID
		n      int
	}{{campTenant, 100_000}, {other, 20_000}} {
		if _, err := db.pool.Exec(ctx, recipientsSeed, string(x.tenant), lists[0], lists[1], x.n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) contacts"); err != nil {
		t.Fatal(err)
	}
	city, err := segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		sel   campaign.Selection
		after string
	}{
		{"one list", campaign.Selection{Channel: campaign.SMS, Lists: lists[:1]}, ""},
		{"two lists", campaign.Selection{Channel: campaign.SMS, Lists: lists}, ""},
		{"two lists, middle", campaign.Selection{Channel: campaign.SMS, Lists: lists}, "2026-01-01T00:00:50Z|0000c350-0000-4000-8000-00000000c350"},
		{"city", campaign.Selection{Channel: campaign.SMS, Lists: lists, Query: city}, ""},
		{"city, middle", campaign.Selection{Channel: campaign.SMS, Lists: lists[:1], Query: city}, "2026-01-01T00:00:50Z|0000c350-0000-4000-8000-00000000c350"},
		{"email", campaign.Selection{Channel: campaign.Email, Lists: lists}, ""},
	} {
		q, args, err := recipientsQuery(campTenant, c.sel, c.after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		plan := planOf(t, db.pool, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)", q, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
		t.Logf("%s:\n%s", c.name, plan)
		if strings.Contains(plan, "Sort") || !strings.Contains(plan, "contacts_order") {
			t.Errorf("%s: the page does not walk contacts_order:\n%s", c.name, plan)
		}
	}
}
