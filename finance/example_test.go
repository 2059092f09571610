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
