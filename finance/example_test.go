package finance_test

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
)

// A customer invoice's amounts come from its items: each item's amount is
// rounded, then VAT is computed once per rate from their sum (1.24 here),
// not per item (which would give 1.26). The due date counts from the
// invoice date, today by the service's clock.
func ExampleService_Create() {
	ctx := context.Background()
	store := memstore.New().Finance()
	if err := store.PutPartner(ctx, finance.Partner{ID: 7, Name: "ACME", City: "Bern"}); err != nil {
		fmt.Println(err)
		return
	}
	clock := func() time.Time { return time.Date(2025, 1, 31, 9, 0, 0, 0, time.UTC) }
	svc := finance.NewService(store, finance.Options{Clock: clock})

	custID, currency, dueDays, number := int64(7), 978, 30, "C-1"
	vat := decimal.RequireFromString("10")
	in := finance.Input{CustID: &custID, Currency: &currency, InvDueDateDays: &dueDays, InvNumberFix: &number, VatPercent: &vat}
	for _, price := range []string{"1.99", "0.38", "5.68", "0.45", "1.05", "2.87"} {
		in.Items = append(in.Items, finance.ItemInput{Name: "sms", Quantity: decimal.NewFromInt(1), Price: decimal.RequireFromString(price)})
	}
	inv, err := svc.Create(ctx, finance.Scope{All: true}, finance.CustomerInvoice, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(inv.Customer.Name, inv.Status, inv.Currency)
	fmt.Println("net", inv.AmountNoVat.StringFixed(inv.Currency.Decimals), "vat", inv.Vat.StringFixed(inv.Currency.Decimals), "total", inv.Total.StringFixed(inv.Currency.Decimals))
	fmt.Println("dated", inv.InvDate, "due", inv.InvDueDate)
	// Output:
	// ACME draft EUR
	// net 12.42 vat 1.24 total 13.66
	// dated 2025-01-31 due 2025-03-02
}

// A netting statement sums its members: a customer invoice and a credit
// note count as they are (supplier documents would count negated).
func ExampleService_SetGroup() {
	ctx := context.Background()
	store := memstore.New().Finance()
	if err := store.PutPartner(ctx, finance.Partner{ID: 7, Name: "ACME"}); err != nil {
		fmt.Println(err)
		return
	}
	svc := finance.NewService(store, finance.Options{})
	all := finance.Scope{All: true}
	create := func(class finance.Class, total string) finance.Invoice {
		custID, currency, dueDays, number := int64(7), 978, 30, "N-1"
		in := finance.Input{CustID: &custID, Currency: &currency, InvDueDateDays: &dueDays, InvNumberFix: &number}
		if total != "" {
			a := decimal.RequireFromString(total)
			in.AmountNoVat, in.AmountVat, in.Total = &a, &a, &a
		}
		inv, err := svc.Create(ctx, all, class, in)
		if err != nil {
			panic(err)
		}
		return inv
	}
	stmt := create(finance.NettingInvoice, "")
	for _, m := range []finance.Invoice{create(finance.CustomerInvoice, "100.00"), create(finance.CreditDebitNote, "-5.00")} {
		if _, err := svc.SetGroup(ctx, all, finance.Netting, m.ID, stmt.ID); err != nil {
			fmt.Println(err)
			return
		}
	}
	stmt, _ = svc.Get(ctx, all, stmt.ID)
	fmt.Println("statement total", stmt.Total.StringFixed(2))
	// Output:
	// statement total 95.00
}
