package contacts_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/segmentation"
)

// A tenant's list and its contacts through the front door, as the CDS
// family makes them: the Service picks UUIDs and times, Fill's rules
// normalise the mobile number to E.164 and name every field refused, the
// store keeps the list's counts, and a listing with a segmentation query
// shows each contact with its list.
func ExampleService_CreateContact() {
	ctx := context.Background()
	db := memstore.New()
	n := 0
	svc := contacts.NewService(contacts.Stores{Contacts: db.Contacts(), Catalog: db.Contacts()},
		msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)).Now,
		func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) })
	tenant := msgkit.ServiceUUID("6f1c2a9e-8d4b-4c1e-9a57-3b2d0e4f5a61")
	s := func(v string) *string { return &v }

	l, err := svc.CreateList(ctx, tenant, contacts.ListInput{Name: s("Newsletter")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, values := range []map[string]*string{
		{"first_name": s("Anna"), "mobile": s("+49 151 1234 5678")},
		{"first_name": s("Boris"), "mobile": s("0033 6 12 34 56 78")},
		{"first_name": s("Clara"), "mobile": s("12345"), "email": s("clara@")},
	} {
		c, err := svc.CreateContact(ctx, tenant, contacts.Input{ListUUID: &l.UUID, Values: values})
		if e, ok := errors.AsType[*msgkit.Error](err); ok {
			fmt.Println(e.Code, e.Fields[0].Name, e.Fields[1].Name)
			continue
		}
		fmt.Println(c.Text(segmentation.FirstName), c.Text(segmentation.Mobile), c.Member, c.Created.Format(time.DateTime))
	}
	l, err = svc.List(ctx, tenant, l.UUID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Name, l.Status, l.ContactsCount, "contacts")

	q, embed, err := svc.ParseContactQuery(url.Values{
		"query":  {`{"segmentation":[{"rules":[{"field":"mobile","condition":"startswith","value":"+49"}]}]}`},
		"fields": {"lists"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := svc.Contacts(ctx, tenant, q, embed)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range page.Items {
		fmt.Println("+49:", c.Text(segmentation.FirstName), "in", c.Lists[0].Name)
	}
	// Output:
	// Anna +4915112345678 subscribed 2026-03-01 12:00:00
	// Boris +33612345678 subscribed 2026-03-01 12:00:00
	// invalid_contact email mobile
	// Newsletter active 2 contacts
	// +49: Anna in Newsletter
}

// Phone numbers as people write them, to E.164: international forms
// always, a national form only in a region.
func ExampleE164In() {
	for _, n := range []struct{ in, region string }{
		{"+386 (40) 123-456", ""}, {"00386 40 123 456", ""}, {"040 123 456", "SI"}, {"040 123 456", ""},
	} {
		e, ok := contacts.E164In(n.in, n.region)
		fmt.Printf("%q in %q: %q %v\n", n.in, n.region, e, ok)
	}
	// Output:
	// "+386 (40) 123-456" in "": "+38640123456" true
	// "00386 40 123 456" in "": "+38640123456" true
	// "040 123 456" in "SI": "+38640123456" true
	// "040 123 456" in "": "" false
}
