package sms_test

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
)

func ExampleCredit() {
	ctx := context.Background()
	store := memstore.New().SMS()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	// A postpaid account: its balance may go down to -50.
	acct := sms.Account{Username: "shop", PasswordHash: "x", Enabled: true, Currency: "EUR",
		Balance: decimal.RequireFromString("10"), CreditLimit: decimal.RequireFromString("50"), CreatedAt: at}
	if err := store.CreateAccount(ctx, acct); err != nil {
		fmt.Println(err)
		return
	}
	credit := sms.NewCredit(store, sms.CreditOptions{Clock: func() time.Time { return at }})
	e, err := credit.TopUp(ctx, sms.Change{Account: "shop", Amount: decimal.RequireFromString("25.50"), Currency: "EUR",
		Actor: "client:crm", Note: "invoice 2026-118"})
	fmt.Println(e.Kind, e.Amount, e.BalanceAfter.Decimal, err)
	_, err = credit.Adjust(ctx, sms.Change{Account: "shop", Amount: decimal.RequireFromString("-90"), Currency: "EUR", Actor: "operator:ana"})
	fmt.Println(sms.CodeOf(err).Name())
	_, err = credit.TopUp(ctx, sms.Change{Account: "shop", Amount: decimal.RequireFromString("1"), Currency: "USD", Actor: "client:crm"})
	fmt.Println(msgkit.CodeOf(err), msgkit.MessageOf(err))
	for e, err := range credit.Export(ctx, "shop", at, at.Add(time.Hour)) {
		fmt.Println(e.ID, e.Kind, e.Amount, e.Actor, err)
	}
	gaps, err := credit.Reconcile(ctx, "")
	fmt.Println(len(gaps), err)
	// Output:
	// top_up 25.5 35.5 <nil>
	// RC_NO_CREDIT
	// ledger_entry_invalid the account's currency is EUR, not USD
	// 1 carried 10 opening <nil>
	// 2 top_up 25.5 client:crm <nil>
	// 0 <nil>
}
