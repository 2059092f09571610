package smppsim_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// events passes a client's status events on.
type events chan sms.StatusEvent

func (e events) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	e <- ev
	return nil
}

// An SMSC that binds one account and whose receipts say UNDELIVRD (err 1,
// an unknown subscriber) for a number range: the client under test, here
// msgkit's own, meets it over TCP and turns each receipt into the part's
// status event with its error code.
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unknown := func(s smppsim.Submit) bool { return strings.HasPrefix(s.Dest().Addr, "4916") }
	smsc := smppsim.New(smppsim.Options{
		Accounts: map[string]string{"shop": "secret"},
		Stat: func(s smppsim.Submit) string {
			if unknown(s) {
				return "UNDELIVRD"
			}
			return "DELIVRD"
		},
		Err: func(s smppsim.Submit) int {
			if unknown(s) {
				return 1
			}
			return 0
		},
	})
	addr, err := smsc.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer smsc.Close()

	sink := make(events, 10)
	client := smpp.New(smpp.Config{Addr: addr, SystemID: "shop", Password: "secret"}, smpp.Options{Store: memstore.New().SMPP()})
	go client.Run(ctx, sink)
	expires := time.Now().Add(time.Hour)
	errs := client.Send(ctx, []sms.OutboundPart{
		{MsgID: "known", NumParts: 1, Receiver: "+4915112345678", DCS: gsm.DCSGSM, Text: "Hello", ExpiresAt: expires},
		{MsgID: "unknown", NumParts: 1, Receiver: "+4916012345678", DCS: gsm.DCSGSM, Text: "Hello", ExpiresAt: expires},
	})
	if errs != nil {
		fmt.Println(errs)
		return
	}
	got := map[sms.MessageID]sms.StatusEvent{}
	for len(got) < 2 {
		select {
		case ev := <-sink:
			if ev.Status != sms.StatusAccepted { // the receipts, not the acceptances
				got[ev.MsgID] = ev
			}
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	fmt.Println(len(smsc.Submits()), "submits,", smsc.ReceiptsSent(), "receipts")
	for _, id := range []sms.MessageID{"known", "unknown"} {
		fmt.Println(id, got[id].Status, "errorCode", got[id].ErrorCode)
	}
	// Output:
	// 2 submits, 2 receipts
	// known delivered errorCode 0
	// unknown permanent failure errorCode 1
}
