package simnet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/simnet"
)

// printer is a sink that runs the delivery state machine and prints the
// reports a customer with every dlrMask bit would get.
type printer struct {
	start  time.Time
	states map[sms.MessageID]sms.PartState
}

func (p *printer) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	state, ok := p.states[ev.MsgID]
	if !ok {
		state = sms.StateSubmitted
	}
	next, report, changed := sms.Step(state, ev.Status)
	if changed {
		p.states[ev.MsgID] = next
		fmt.Printf("%-8v %-7s %-12v errorCode %d\n", ev.At.Sub(p.start), ev.MsgID, report, sms.ErrorCodeFor(ev))
	}
	return nil
}

func Example() {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start
	sink := &printer{start: start, states: map[sms.MessageID]sms.PartState{}}
	network := simnet.New(simnet.Options{
		Seed:  42,
		Clock: func() time.Time { return now },
		Rules: []simnet.Rule{
			{Prefix: "4915", Outcome: simnet.Outcome{Kind: simnet.Absent, AcceptDelay: time.Second, Delay: time.Minute, Attempts: 2, RetryEvery: time.Hour}},
			{Prefix: "4916", Outcome: simnet.Outcome{Kind: simnet.Unknown, AcceptDelay: time.Second, Delay: 2 * time.Second}},
			{Prefix: "49", Outcome: simnet.Outcome{Kind: simnet.Reject, AcceptDelay: 3 * time.Second}},
		},
		Default: simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 4 * time.Second},
	})
	expires := start.Add(24 * time.Hour)
	errs := network.Send(context.Background(), []sms.OutboundPart{
		{MsgID: "absent", Receiver: "+4915112345678", ExpiresAt: expires},
		{MsgID: "known", Receiver: "+38640123456", ExpiresAt: expires},
		{MsgID: "reject", Receiver: "+4930123456", ExpiresAt: expires},
		{MsgID: "unknown", Receiver: "+4916012345678", ExpiresAt: expires},
	})
	if errs != nil {
		panic(errs)
	}
	// Advance time from event to event: nothing sleeps.
	for {
		due, ok := network.NextDue()
		if !ok {
			break
		}
		now = due
		if _, err := network.RunDue(context.Background(), sink, now); err != nil {
			panic(err)
		}
	}
	// Output:
	// 1s       absent  SENT_TO_SMSC errorCode 0
	// 1s       known   SENT_TO_SMSC errorCode 0
	// 1s       unknown SENT_TO_SMSC errorCode 0
	// 3s       reject  REJECTED     errorCode 989
	// 3s       unknown UNDELIVERED  errorCode 1
	// 5s       known   DELIVERED    errorCode 0
	// 1m1s     absent  BUFFERED     errorCode 29
	// 1h1m1s   absent  BUFFERED     errorCode 29
	// 2h1m1s   absent  DELIVERED    errorCode 0
}

// A route that delivers through a foreign service centre and overwrites
// the sender: the test handset shows both, once the clock reaches the
// delivery.
func ExampleHandsets() {
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	handsets := simnet.NewHandsets(clock)
	if err := handsets.Add("+38640111111", "29340", "+38640990000"); err != nil {
		panic(err)
	}
	network := simnet.New(simnet.Options{
		Clock:    clock,
		Handsets: handsets,
		Route:    simnet.Route{SMSC: "+447785016005", Sender: "INFO"},
		Default:  simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 4 * time.Second},
	})
	number, _, _ := handsets.Handset(ctx, "29340")
	sender, _ := sms.ParseSender("MyShop")
	errs := network.Send(ctx, []sms.OutboundPart{
		{MsgID: "m1", Sender: sender, Receiver: number, DCS: gsm.DCSGSM, Text: "Your code is 1234"},
	})
	if errs != nil {
		panic(errs)
	}
	got, _ := handsets.Received(ctx, number, now)
	fmt.Println("at once:", len(got), "parts")

	now = now.Add(5 * time.Second)
	got, _ = handsets.Received(ctx, number, now.Add(-time.Minute))
	for _, r := range got {
		d, err := gsm.DecodeDeliver(r.PDU)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s on %s via %s from %s: %q\n", r.At.Format(time.TimeOnly), r.Network, d.SMSC, d.Sender.Value, d.Text)
	}
	// Output:
	// at once: 0 parts
	// 12:00:05 on 29340 via +447785016005 from INFO: "Your code is 1234"
}
