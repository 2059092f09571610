package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsCatalogStore(t *testing.T) {
	t.Parallel()
	contactstest.RunCatalogStoreTests(t, func(t *testing.T) contactstest.CatalogStore { return newTestDB(t).Contacts() })
}

// Every attribute a kind's spec or the members' spec names is one the
// SQL listing has.
func TestCatalogListingCoversSpec(t *testing.T) {
	t.Parallel()
	for _, k := range contacts.RecordKinds() {
		if err := recordsTable.checkSpec(contacts.RecordSpec(k)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	for k := range memberColumns {
		if err := membersTable(k).checkSpec(contacts.MemberSpec(k)); err != nil {
			t.Errorf("%s members: %v", k, err)
		}
	}
}

// The law of the two stores: for any options and memberships, and any
// listing query the specs allow, memstore and pgstore answer the same
// page and total.
func TestCatalogLikeMemstore(t *testing.T) {
	t.Parallel()
	pg := newTestDB(t).Contacts()
	mem := memstore.New().Contacts()
	ctx := context.Background()
	round := 0
	names := []string{"a", "A", "b", "ß", "SS", "a_b", "a%b", ""}
	rapid.Check(t, func(rt *rapid.T) {
		round++
		svc := msgkit.ServiceUUID(fmt.Sprintf("%08x-1111-4000-8000-000000000000", round))
		stores := []contactstest.CatalogStore{mem, pg}
		base := time.Unix(1_767_225_600, 0).UTC()
		do := func(what string, f func(s contactstest.CatalogStore) error) {
			for _, s := range stores {
				if err := f(s); err != nil {
					rt.Fatalf("%s: %v", what, err)
				}
			}
		}
		list := contactstest.ListUUID(1)
		do("list", func(s contactstest.CatalogStore) error {
			_, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "l", Created: base, Updated: base})
			return err
		})
		sub := contacts.Record{Kind: contacts.KindSubscription, UUID: contactstest.RecordUUID(1), Name: "s", Status: "active", Created: base, Updated: base}
		do("subscription", func(s contactstest.CatalogStore) error { _, err := s.CreateRecord(ctx, svc, sub); return err })
		n := rapid.IntRange(0, 8).Draw(rt, "options")
		var opts []string
		for i := range n {
			o := contacts.Record{Kind: contacts.KindOption, UUID: contactstest.RecordUUID(10 + rapid.IntRange(0, 50).Draw(rt, "uuid")),
				Name: rapid.SampledFrom(names).Draw(rt, "name"), Parent: sub.UUID,
				Status:   rapid.SampledFrom([]string{"active", "inactive"}).Draw(rt, "status"),
				OrderNum: rapid.IntRange(0, 3).Draw(rt, "order"),
				Created:  base.Add(time.Duration(rapid.IntRange(0, 3).Draw(rt, "created")) * time.Second),
				Updated:  base.Add(time.Duration(i) * time.Second)}
			var errs []error
			for _, s := range stores {
				_, err := s.CreateRecord(ctx, svc, o)
				errs = append(errs, err)
			}
			if msgkit.KindOf(errs[0]) != msgkit.KindOf(errs[1]) || (errs[0] == nil) != (errs[1] == nil) {
				rt.Fatalf("create %+v: memstore %v, pgstore %v", o, errs[0], errs[1])
			}
			if errs[0] == nil {
				opts = append(opts, o.UUID)
			}
		}
		for i := range rapid.IntRange(0, 4).Draw(rt, "contacts") {
			c := contactstest.NewContact(t, i, list, nil)
			c.Created, c.Updated = base.Add(time.Duration(rapid.IntRange(0, 2).Draw(rt, "ccreated"))*time.Second), base
			do("contact", func(s contactstest.CatalogStore) error { _, err := s.CreateContact(ctx, svc, c); return err })
			for range rapid.IntRange(0, len(opts)).Draw(rt, "memberships") {
				m := contacts.Member{Kind: contacts.MemberOption, ContactUUID: c.UUID, TargetUUID: rapid.SampledFrom(opts).Draw(rt, "option"),
					Status:  rapid.SampledFrom([]contacts.MemberStatus{contacts.Subscribed, contacts.Unsubscribed}).Draw(rt, "mstatus"),
					Updated: base.Add(time.Duration(rapid.IntRange(0, 3).Draw(rt, "mupdated")) * time.Second)}
				do("member", func(s contactstest.CatalogStore) error { _, err := s.SetMember(ctx, svc, m); return err })
			}
		}
		spec := contacts.RecordSpec(contacts.KindOption)
		v := url.Values{"page_size": {strconv.Itoa(rapid.IntRange(1, 5).Draw(rt, "size"))}, "page_number": {strconv.Itoa(rapid.IntRange(1, 3).Draw(rt, "page"))}}
		if rapid.Bool().Draw(rt, "sorted") {
			key := rapid.SampledFrom(spec.Sort).Draw(rt, "sort")
			if rapid.Bool().Draw(rt, "desc") {
				key = "-" + key
			}
			v.Set("sort", key)
		}
		switch rapid.IntRange(0, 4).Draw(rt, "filter") {
		case 1:
			v.Set("status", rapid.SampledFrom([]string{"active", "inactive"}).Draw(rt, "fstatus"))
		case 2:
			v.Set("contains(name)", rapid.SampledFrom(names[:7]).Draw(rt, "fname"))
		case 3:
			v.Set("gt(order_num)", strconv.Itoa(rapid.IntRange(0, 3).Draw(rt, "forder")))
		case 4:
			v.Set("q", rapid.SampledFrom(names[:7]).Draw(rt, "q"))
		}
		lq, err := msgkit.ParseListQuery(v, spec)
		if err != nil {
			rt.Fatal(err)
		}
		show := rapid.Bool().Draw(rt, "show_deleted")
		var pages []msgkit.Page[contacts.Record]
		for _, s := range stores {
			p, err := s.Records(ctx, svc, contacts.RecordQuery{Kind: contacts.KindOption, List: lq, ShowDeleted: show})
			if err != nil {
				rt.Fatal(err)
			}
			pages = append(pages, p)
		}
		if diff := cmp.Diff(pages[0], pages[1]); diff != "" {
			rt.Fatalf("%v: options (-memstore +pgstore):\n%s", v, diff)
		}
		mv := url.Values{"page_size": {strconv.Itoa(rapid.IntRange(1, 5).Draw(rt, "msize"))}, "page_number": {strconv.Itoa(rapid.IntRange(1, 3).Draw(rt, "mpage"))}}
		if rapid.Bool().Draw(rt, "msorted") {
			mv.Set("sort", rapid.SampledFrom([]string{"updated_dt", "-updated_dt"}).Draw(rt, "msort"))
		}
		if rapid.Bool().Draw(rt, "mfilter") {
			mv.Set("status", "subscribed")
		}
		mq, err := msgkit.ParseListQuery(mv, contacts.MemberSpec(contacts.MemberOption))
		if err != nil {
			rt.Fatal(err)
		}
		var mpages []msgkit.Page[contacts.Member]
		for _, s := range stores {
			p, err := s.Members(ctx, svc, contacts.MemberQuery{Kind: contacts.MemberOption, List: mq})
			if err != nil {
				rt.Fatal(err)
			}
			mpages = append(mpages, p)
		}
		if diff := cmp.Diff(mpages[0], mpages[1]); diff != "" {
			rt.Fatalf("%v: members (-memstore +pgstore):\n%s", mv, diff)
		}
	})
}

// 2,000 contacts with three option memberships each: page 1 of the
// members of one option (jsonb_each_text over the tenant's contacts),
// and a membership set (one jsonb update).
func BenchmarkCatalogMembers(b *testing.B) {
	ctx := context.Background()
	s := newTestDB(b).Contacts()
	svc := contactstest.TenantA
	list := contactstest.ListUUID(1)
	base := time.Unix(1_767_225_600, 0).UTC()
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all", Created: base, Updated: base}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRecord(ctx, svc, contacts.Record{Kind: contacts.KindSubscription, UUID: contactstest.RecordUUID(1), Name: "s", Status: "active", Created: base}); err != nil {
		b.Fatal(err)
	}
	for o := range 3 {
		if _, err := s.CreateRecord(ctx, svc, contacts.Record{Kind: contacts.KindOption, UUID: contactstest.RecordUUID(10 + o), Parent: contactstest.RecordUUID(1), Name: "o", Status: "active", Created: base}); err != nil {
			b.Fatal(err)
		}
	}
	const n = 2_000
	for i := range n {
		c := contactstest.NewContact(b, i, list, map[string]string{"first_name": "N"})
		c.Created = base.Add(time.Duration(i) * time.Millisecond)
		c.Options = map[string]contacts.MemberStatus{contactstest.RecordUUID(10): contacts.Subscribed,
			contactstest.RecordUUID(11): contacts.Subscribed, contactstest.RecordUUID(12): contacts.Unsubscribed}
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			b.Fatal(err)
		}
	}
	q, err := msgkit.ParseListQuery(url.Values{"option_uuid": {contactstest.RecordUUID(11)}}, contacts.MemberSpec(contacts.MemberOption))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			page, err := s.Members(ctx, svc, contacts.MemberQuery{Kind: contacts.MemberOption, List: q})
			if err != nil || page.Total != n || len(page.Items) != 10 {
				b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
			}
		}
	})
	b.Run("set", func(b *testing.B) {
		b.ReportAllocs()
		m := contacts.Member{Kind: contacts.MemberOption, ContactUUID: contactstest.ContactUUID(1000), TargetUUID: contactstest.RecordUUID(11), Status: contacts.Unsubscribed, Updated: base}
		for b.Loop() {
			if _, err := s.SetMember(ctx, svc, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
