package sms_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
)

// A submission is split, charged per part at the price of the receiver's
// longest prefix and queued; a Transmitter hands the parts to the network
// (here the simulated one) and the network's reports move them to
// DELIVERED. A submission the balance cannot pay is refused with 113.
func ExampleGateway_Submit() {
	ctx := context.Background()
	clock := msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	store := memstore.New().SMS()
	var n atomic.Int64
	gw := sms.NewGateway(store, sms.GatewayOptions{
		Clock:      clock.Now,
		BcryptCost: bcrypt.MinCost,
		NewID: func() sms.MessageID { // a random UUID by default
			return sms.MessageID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n.Add(1)))
		},
	})
	_, err := gw.CreateAccount(ctx, sms.AccountSpec{Password: "secret", Account: sms.Account{
		Username: "shop", Enabled: true, Currency: "EUR", Balance: decimal.RequireFromString("0.10"),
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices: []sms.Price{
			{Prefix: "386", Price: decimal.RequireFromString("0.05")},
			{Prefix: "38640", Price: decimal.RequireFromString("0.04")},
		},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	sub := sms.Submission{
		Type: "text", Username: "shop", Password: "secret", Sender: "MyShop", Receiver: "38640123456",
		DCS: "gsm", Text: strings.Repeat("a", 200), ClientIP: netip.MustParseAddr("192.0.2.10"),
	}
	acc, err := gw.Submit(ctx, sub)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := store.Account(ctx, "shop")
	fmt.Println("accepted", acc.MsgID, acc.NumParts, "parts; balance", a.Balance)

	network := simnet.New(simnet.Options{
		Clock:   clock.Now,
		Default: simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: time.Second, Delay: 4 * time.Second},
	})
	tx := sms.NewTransmitter(store, network, sms.TransmitterOptions{Clock: clock.Now})
	if _, err := tx.RunOnce(ctx); err != nil {
		fmt.Println(err)
		return
	}
	// Move the clock from one event of the network to the next; the
	// gateway takes the network's reports.
	for {
		due, ok := network.NextDue()
		if !ok {
			break
		}
		clock.Set(due)
		if _, err := network.RunDue(ctx, gw, due); err != nil {
			fmt.Println(err)
			return
		}
	}
	m, _ := store.Message(ctx, acc.MsgID)
	for _, p := range m.Parts {
		fmt.Println("part", p.Num, p.Units, "septets", p.State)
	}

	_, err = gw.Submit(ctx, sub)
	fmt.Println(sms.CodeOf(err), sms.CodeOf(err).Name())
	// Output:
	// accepted 00000000-0000-4000-8000-000000000001 2 parts; balance 0.02
	// part 0 153 septets delivered
	// part 1 47 septets delivered
	// 113 RC_NO_CREDIT
}
