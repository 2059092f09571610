package testsystem_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// A test request sends one message through each gate asked to the test
// handset of each operator asked. Gate 1 delivers; gate 2 reports
// DELIVERED for a message that never arrives, which the system tells by
// the handset's silence until the time limit: a fake delivery report.
// The service centre that delivered tells whether the route is direct.
func ExampleSystem_Send() {
	ctx := context.Background()
	clock := msgkittest.NewClock(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db := memstore.New()
	if err := db.TestSystem().Load(ctx, testsystem.Fixture()); err != nil {
		fmt.Println(err)
		return
	}
	// The test handset on O2 UK (23410), served by O2's own SMSC.
	handsets := simnet.NewHandsets(clock.Now)
	if err := handsets.Add("+447700900010", "23410", "+447802000332"); err != nil {
		fmt.Println(err)
		return
	}
	deliver := simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 2 * time.Second}
	gates := map[int64]*simnet.Network{
		1: simnet.New(simnet.Options{Clock: clock.Now, Handsets: handsets, Default: deliver}),
		2: simnet.New(simnet.Options{Clock: clock.Now, Handsets: handsets, Default: deliver, Route: simnet.Route{FakeDLR: true}}),
	}
	sys := testsystem.New(db.TestSystem(), db.TestSystem(), handsets, func(gate int64) (sms.Upstream, bool) {
		n, ok := gates[gate]
		return n, ok
	}, testsystem.Options{Clock: clock.Now, TimeLimit: time.Minute})

	sess, quota, err := sys.Send(ctx, "qa", testsystem.Request{
		Username: "qa", Test: "route check", Gates: []int64{1, 2}, MCCMNC: []string{"23410"},
		Owner: testsystem.OwnerPlatform, Lang: "en", TextType: testtext.GSM, Callback: "https://customer.example/testsystem",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sess.Messages, "messages;", quota.Remaining, "requests left today")

	// The gates' reports and the handset's receipts, a second at a time.
	for sess.Status != testsystem.SessionComplete {
		clock.Advance(time.Second)
		for _, n := range gates {
			if _, err := n.RunDue(ctx, sys, clock.Now()); err != nil {
				fmt.Println(err)
				return
			}
		}
		if _, err := sys.Step(ctx); err != nil {
			fmt.Println(err)
			return
		}
		if sess, err = db.TestSystem().Session(ctx, "qa", sess.ID); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("complete after", sess.CompletedAt.Sub(sess.CreatedAt))
	page, err := db.TestSystem().Results(ctx, "qa", sess.ID, msgkit.ListQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range page.Items {
		rec := r.Record()
		fmt.Printf("%s to %s: %s, dlr %s, fake_dlr %s, direct_route %s\n", rec.Gate, rec.Operator, rec.Status, rec.DLRStatus, rec.FakeDLR, rec.DirectRoute)
	}
	// Output:
	// 2 messages; 99 requests left today
	// complete after 1m0s
	// alpha-direct to O2 UK: delivered, dlr DELIVERED, fake_dlr false, direct_route true
	// beta-wholesale to O2 UK: not_received, dlr DELIVERED, fake_dlr true, direct_route unknown
}
