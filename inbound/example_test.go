package inbound_test

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
)

// A message from a phone on the simulated network is routed by the
// record of that connection to an account's inbound URL; one on a
// connection no record names is kept as unroutable.
func Example() {
	ctx := context.Background()
	db := memstore.New()
	routes := routing.New(db.Routing())
	if _, err := routes.Create(ctx, routing.InputOf(routing.Route{Sigtran: "simnet", SMPP: "shop", ESME: routing.Unused})); err != nil {
		panic(err)
	}
	accounts := sms.NewAccounts(db.SMS(), sms.AccountsOptions{BcryptCost: 4})
	if _, err := accounts.Create(ctx, sms.AccountSpec{Password: "secret", Account: sms.Account{
		Username: "shop", Enabled: true, Currency: "EUR", InboundURL: "https://shop.example/mo"}}); err != nil {
		panic(err)
	}
	router := inbound.NewRouter(db.Inbound(), inbound.RouterOptions{Routes: routes, Accounts: accounts})

	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, in := range []sms.Inbound{
		{Conn: "simnet", Source: "+41790000001", Dest: "4560", Text: "STOP", At: at},
		{Conn: "smsc-b", Source: "41790000002", Dest: "4560", Text: "hello", At: at.Add(time.Second)},
	} {
		if err := router.HandleInbound(ctx, in); err != nil {
			panic(err)
		}
	}
	page, err := router.Messages(ctx, msgkit.ListQuery{PageNumber: 1, PageSize: 10})
	if err != nil {
		panic(err)
	}
	for _, m := range page.Items {
		fmt.Printf("%s from %s: %s%s%s\n", m.Conn, m.Source, m.State, " "+m.URL, m.Reason)
	}
	reports, _ := db.SMS().ClaimReports(ctx, at.Add(time.Minute), time.Minute, 10)
	fmt.Println(len(reports), "delivery queued to", reports[0].URL)
	// Output:
	// simnet from 41790000001: routed https://shop.example/mo
	// smsc-b from 41790000002: unroutable no inbound route has sigtran_connect_id "smsc-b"
	// 1 delivery queued to https://shop.example/mo
}
