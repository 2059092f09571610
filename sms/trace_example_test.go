package sms_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

func ExampleMaskMSISDN() {
	fmt.Println(sms.MaskMSISDN("+38640123456"))
	fmt.Println(sms.MaskMSISDN("+4915112345678"))
	// Output:
	// +38640****56
	// +4915*******78
}

// A support desk finds a customer's message by account and receiver and
// sees where each part went.
func ExampleTracer() {
	ctx := context.Background()
	store := memstore.New().SMS()
	if err := store.CreateAccount(ctx, smstest.Account("shop", "10")); err != nil {
		panic(err)
	}
	m := smstest.Message("m-1", "shop", "0.01")
	if err := store.Accept(ctx, m); err != nil {
		panic(err)
	}
	delivered := func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: m.SubmittedAt.Add(3 * time.Second)}, true, nil
	}
	if err := store.UpdatePart(ctx, sms.PartKey{MsgID: "m-1", PartNum: 0}, delivered); err != nil {
		panic(err)
	}

	tracer := sms.NewTracer(store, sms.TracerOptions{})
	q := msgkit.ListQuery{Filters: []msgkit.Filter{
		{Op: msgkit.OpEq, Attr: "account", Values: []msgkit.Value{msgkit.StringValue("shop")}},
		{Op: msgkit.OpEq, Attr: "receiver", Values: []msgkit.Value{msgkit.StringValue("+38640123456")}},
	}}
	page, err := tracer.Messages(ctx, q, sms.TraceView{})
	if err != nil {
		panic(err)
	}
	for _, s := range page.Items {
		fmt.Println(s.ID, s.Receiver, s.States)
	}
	tr, err := tracer.Trace(ctx, "m-1", sms.TraceView{})
	if err != nil {
		panic(err)
	}
	for _, p := range tr.Parts {
		fmt.Println("part", p.Num, p.State, len(p.History), "event(s)")
	}
	_, err = tracer.Messages(ctx, msgkit.ListQuery{}, sms.TraceView{})
	fmt.Println(msgkit.CodeOf(err))
	// Output:
	// m-1 +38640****56 [delivered submitted]
	// part 0 delivered 1 event(s)
	// part 1 submitted 0 event(s)
	// trace_unbounded
}
