package smpp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// events is a status sink that passes the client's events on; a program
// passes its sms.Gateway, which steps each part's delivery state.
type events chan sms.StatusEvent

func (e events) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	e <- ev
	return nil
}

// A Client is an sms.Upstream over an SMSC (here the simulator): Send
// returns once the SMSC took each part, the SMSC's id kept in the store,
// and the SMSC's delivery receipt comes back as a status event of the part.
func ExampleClient() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	smsc := smppsim.New(smppsim.Options{Accounts: map[string]string{"shop": "secret"}})
	addr, err := smsc.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer smsc.Close()

	sink := make(events, 10)
	client := smpp.New(smpp.Config{Addr: addr, SystemID: "shop", Password: "secret"}, smpp.Options{Store: memstore.New().SMPP()})
	go client.Run(ctx, sink)

	sender, _ := sms.ParseSender("MyShop")
	errs := client.Send(ctx, []sms.OutboundPart{{
		MsgID: "m1", NumParts: 1, Sender: sender, Receiver: "+38640123456", DCS: gsm.DCSGSM,
		Text: "Your order has shipped", ExpiresAt: time.Now().Add(time.Hour),
	}})
	if errs != nil {
		fmt.Println(errs)
		return
	}
	sub := smsc.Submits()[0]
	fmt.Printf("the SMSC took %q to %s as id %s\n", sub.Message(), sub.Dest().Addr, sub.MessageID)
	// The acceptance (StatusAccepted) reaches the sink in a batch soon
	// after Send returns, so the receipt's event may come before it.
	for {
		select {
		case ev := <-sink:
			if ev.Status == sms.StatusAccepted {
				continue
			}
			fmt.Println("receipt:", ev.MsgID, "part", ev.PartNum, ev.Status)
		case <-ctx.Done():
			fmt.Println(ctx.Err())
		}
		break
	}
	// Output:
	// the SMSC took "Your order has shipped" to 38640123456 as id 40960
	// receipt: m1 part 0 delivered
}
