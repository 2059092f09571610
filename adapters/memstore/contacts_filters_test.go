package memstore_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// A million contacts, 1% subscribed to an option and a third members of
// an interest: page 1 by last_name of the option's subscribed members,
// and of the interest's members.
func BenchmarkContactsMillionFilters(b *testing.B) {
	ctx := context.Background()
	s := memstore.New().Contacts()
	const (
		svc      msgkit.ServiceUUID = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
		option                      = "33333333-0000-4000-8000-000000000001"
		interest                    = "55555555-0000-4000-8000-000000000001"
		n                           = 1_000_000
	)
	list := contactstest.ListUUID(1)
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all"}); err != nil {
		b.Fatal(err)
	}
	base := time.Unix(1_767_225_600, 0).UTC()
	sts := []contacts.MemberStatus{contacts.Subscribed, contacts.Unsubscribed}
	for i := range n {
		c := contactstest.NewContact(b, i, list, map[string]string{"first_name": fmt.Sprintf("Name%d", i%5000),
			"last_name": fmt.Sprintf("Surname%d", i%7919), "gender": []string{"male", "female"}[i%2]})
		c.UUID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		c.Created, c.Updated = base.Add(time.Duration(i)*time.Millisecond), base
		if i%100 < 2 {
			c.Options = map[string]contacts.MemberStatus{option: sts[i%100]}
		}
		if i%3 == 0 {
			c.Interests = map[string]contacts.MemberStatus{interest: sts[i%2]}
		}
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			b.Fatal(err)
		}
	}
	lq, err := msgkit.ParseListQuery(url.Values{"sort": {"last_name"}}, contacts.ContactSpec())
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name  string
		q     contacts.ContactQuery
		total int
	}{
		{"option subscribed 1%", contacts.ContactQuery{List: lq, Options: &contacts.MembershipFilter{UUIDs: []string{option}, Status: contacts.Subscribed}}, n / 100},
		{"interest 33%", contacts.ContactQuery{List: lq, Interests: &contacts.MembershipFilter{UUIDs: []string{interest}}}, (n + 2) / 3},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				page, err := s.Contacts(ctx, svc, bb.q)
				if err != nil || page.Total != bb.total || len(page.Items) != 10 {
					b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
				}
			}
		})
	}
}
