package campaign_test

import (
	"context"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // the zones of the rules, on any machine

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
)

// A weekly SMS campaign on Mondays at 09:00 Berlin time: next_dt is the
// rule's next occurrence from the request on, and keeps its wall-clock
// time when the clocks change (08:00 UTC in winter, 07:00 UTC in summer).
// The campaign's lists must be the tenant's.
func ExampleService_Create() {
	ctx := context.Background()
	clock := msgkittest.NewClock(time.Date(2026, 3, 17, 12, 0, 0, 0, time.UTC)) // a Tuesday
	db := memstore.New()
	tenant := msgkit.ServiceUUID("6f1c2a9e-8d4b-4c1e-9a57-3b2d0e4f5a61")
	const list = "0b6c7a52-3f1e-4d8a-9c2b-5e4f6a7b8c9d"
	now := clock.Now()
	if _, err := db.Contacts().CreateList(ctx, tenant, contacts.List{UUID: list, Name: "Newsletter", Status: contacts.ListActive, Created: now, Updated: now}); err != nil {
		fmt.Println(err)
		return
	}
	svc := campaign.NewService(db.Campaigns(), db.Contacts(), clock.Now, func() string { return "5d2e8f10-7a3b-4c6d-8e9f-0a1b2c3d4e5f" })

	s := func(v string) *string { return &v }
	in := campaign.Input{
		Name: s("Spring sale"), Status: s("active"), SendingType: s("sms"),
		ScheduleType: s("scheduled"), ScheduleRRule: s("DTSTART;TZID=Europe/Berlin:20260302T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO"),
		Template: s("Spring sale: 20 % off all helmets until Sunday!"), Sender: s("Shop"), Lists: s(list),
	}
	c, err := svc.Create(ctx, tenant, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.UUID, c.Status, c.Parts, "part")
	fmt.Println("next_dt", c.Next.Format(time.RFC3339))
	next, _, _ := c.Schedule.Next(c.Next, c.NextSeq, c.Next, false)
	fmt.Println("then   ", next.Format(time.RFC3339))

	in.Lists = s("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a")
	_, err = svc.Create(ctx, tenant, in)
	var e *msgkit.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Fields[0].Name)
	}
	// Output:
	// 5d2e8f10-7a3b-4c6d-8e9f-0a1b2c3d4e5f active 1 part
	// next_dt 2026-03-23T08:00:00Z
	// then    2026-03-30T07:00:00Z
	// invalid_campaign recipient_lists
}
