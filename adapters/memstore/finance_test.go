package memstore_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
)

// BenchmarkFinanceBalances sums the customer balances of 1,000,000
// invoices (1,000 partners, two currencies, both domains and three data
// sources), grouped by domain and data source.
func BenchmarkFinanceBalances(b *testing.B) {
	s := memstore.New().Finance()
	ctx := b.Context()
	eur, _ := finance.CurrencyByCode("EUR")
	chf, _ := finance.CurrencyByCode("CHF")
	sources := []finance.DataSource{finance.Prepaid, finance.Postpaid, finance.FinanceSource}
	for i := range 1_000_000 {
		total := decimal.New(int64(100+i%997*13), -2)
		inv := finance.Invoice{Class: finance.CustomerInvoice, Status: finance.Approved, Customer: finance.Partner{ID: int64(i % 1000), Name: "p"},
			Currency: eur, Domain: finance.Bulk, DataSource: sources[i%3], Amounts: finance.Amounts{AmountNoVat: total, AmountVat: total, Total: total, TotalUnpaid: total},
			InvDueDate: msgkit.Date{Year: 2026, Month: 1 + msgkitMonth(i), Day: 1}}
		if i%7 == 0 {
			inv.Currency, inv.Domain = chf, finance.BulkMNP
		}
		if _, err := s.CreateInvoice(ctx, inv); err != nil {
			b.Fatal(err)
		}
	}
	o := finance.BalanceOptions{Side: finance.Customers, Group: []string{"domainCodeName", "dataSourceCodeName"}}
	q := msgkit.ListQuery{PageNumber: 1, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "total", Desc: true}}}
	b.ReportAllocs()
	for b.Loop() {
		page, err := s.Balances(ctx, finance.Scope{All: true}, o, q)
		if err != nil || page.Total == 0 {
			b.Fatal(page.Total, err)
		}
	}
}

func msgkitMonth(i int) time.Month { return time.Month(i % 12) }
