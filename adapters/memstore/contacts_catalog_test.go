package memstore_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsCatalogStore(t *testing.T) {
	contactstest.RunCatalogStoreTests(t, func(t *testing.T) contactstest.CatalogStore { return memstore.New().Contacts() })
}

// 10,000 contacts with three option memberships each: page 1 of the
// members of one option, and a membership set.
func BenchmarkMembers(b *testing.B) {
	ctx := context.Background()
	s := memstore.New().Contacts()
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
	const n = 10_000
	for i := range n {
		c := contactstest.NewContact(b, i, list, map[string]string{"first_name": "N"})
		c.Created = base.Add(time.Duration(i) * time.Millisecond)
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			b.Fatal(err)
		}
		for o := range 3 {
			m := contacts.Member{Kind: contacts.MemberOption, ContactUUID: c.UUID, TargetUUID: contactstest.RecordUUID(10 + o), Status: contacts.Subscribed, Updated: base}
			if _, err := s.SetMember(ctx, svc, m); err != nil {
				b.Fatal(err)
			}
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
		m := contacts.Member{Kind: contacts.MemberOption, ContactUUID: contactstest.ContactUUID(5000), TargetUUID: contactstest.RecordUUID(11), Status: contacts.Unsubscribed, Updated: base}
		for b.Loop() {
			if _, err := s.SetMember(ctx, svc, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
