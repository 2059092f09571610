package contacts_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// A tenant's list and its contacts, as the CDS family creates them: Fill
// checks a body, normalising the mobile number to E.164 and naming every
// field it refuses; the store keeps the records and the list's counts; a
// segmentation query selects contacts.
func ExampleFill() {
	ctx := context.Background()
	store := memstore.New().Contacts()
	tenant := msgkit.ServiceUUID("6f1c2a9e-8d4b-4c1e-9a57-3b2d0e4f5a61")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }

	l := contacts.List{UUID: "0b6c7a52-3f1e-4d8a-9c2b-5e4f6a7b8c9d", Created: now, Updated: now}
	if err := contacts.FillList(&l, contacts.ListInput{Name: s("Newsletter")}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := store.CreateList(ctx, tenant, l); err != nil {
		fmt.Println(err)
		return
	}
	for i, values := range []map[string]*string{
		{"first_name": s("Anna"), "mobile": s("+49 151 1234 5678")},
		{"first_name": s("Boris"), "mobile": s("0033 6 12 34 56 78")},
		{"first_name": s("Clara"), "mobile": s("12345"), "email": s("clara@")},
	} {
		c := contacts.Contact{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), Created: now, Updated: now}
		err := contacts.Fill(&c, contacts.Input{ListUUID: &l.UUID, Values: values}, true)
		var e *msgkit.Error
		if errors.As(err, &e) {
			fmt.Println(e.Code, e.Fields[0].Name, e.Fields[1].Name)
			continue
		}
		if c, err = store.CreateContact(ctx, tenant, c); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(c.Text(segmentation.FirstName), c.Text(segmentation.Mobile), c.Member)
	}
	l, err := store.List(ctx, tenant, l.UUID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Name, l.Status, l.ContactsCount, "contacts")

	germans, err := segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"mobile","condition":"startswith","value":"+49"}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := store.Contacts(ctx, tenant, contacts.ContactQuery{ListUUIDs: []string{l.UUID}, Segment: germans, Today: msgkit.DateOf(now)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range page.Items {
		fmt.Println("+49:", c.Text(segmentation.FirstName))
	}
	// Output:
	// Anna +4915112345678 subscribed
	// Boris +33612345678 subscribed
	// invalid_contact email mobile
	// Newsletter active 2 contacts
	// +49: Anna
}
