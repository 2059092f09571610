package financetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// Bench runs the benchmarks every finance store shares, each a
// sub-benchmark over a store from newStores: Balances (benchBalances) and
// Invoices (benchInvoices).
func Bench(b *testing.B, newStores func(testing.TB) Stores) {
	b.Run("Balances", func(b *testing.B) { benchBalances(b, newStores(b)) })
	b.Run("Invoices", func(b *testing.B) { benchInvoices(b, newStores(b)) })
}

// BenchInvoice is invoice i of the benchmarks: an approved customer
// invoice of partner i%1000, data source prepaid, postpaid or finance by
// i%3, due on the first of month 1+i%12 of 2026, of total
// (100 + i%997*13)/100, all of it unpaid; in CHF and of domain BulkMNP
// when i%7 is 0, otherwise in EUR and of domain Bulk; its UID is a UUID
// ending in i.
func BenchInvoice(i int) finance.Invoice {
	eur, _ := finance.CurrencyByCode("EUR")
	chf, _ := finance.CurrencyByCode("CHF")
	sources := []finance.DataSource{finance.Prepaid, finance.Postpaid, finance.FinanceSource}
	total := decimal.New(int64(100+i%997*13), -2)
	inv := finance.Invoice{UID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Class: finance.CustomerInvoice, Status: finance.Approved, Customer: finance.Partner{ID: int64(i % 1000), Name: "p"},
		Currency: eur, Domain: finance.Bulk, DataSource: sources[i%3], Amounts: finance.Amounts{AmountNoVat: total, AmountVat: total, Total: total, TotalUnpaid: total},
		InvDueDate: msgkit.Date{Year: 2026, Month: time.Month(1 + i%12), Day: 1}}
	if i%7 == 0 {
		inv.Currency, inv.Domain = chf, finance.BulkMNP
	}
	return inv
}

// benchBalances sums the customer balances of 1,000,000 invoices
// (BenchInvoice: 1,000 partners, two currencies, both domains and three
// data sources), grouped by domain and data source and then by each
// grouping attribute alone (a sub-benchmark each), and lists page 1 (10
// balances, fewer where the grouping makes fewer) by -total. It reports
// the median time of a page.
func benchBalances(b *testing.B, st Stores) {
	s := st.Finance
	ctx := b.Context()
	const n, chunk = 1_000_000, 10_000
	invs := make([]finance.Invoice, 0, chunk)
	for i := range n {
		invs = append(invs, BenchInvoice(i))
		if len(invs) < chunk && i < n-1 {
			continue
		}
		if st.Seed != nil {
			st.Seed(b, invs)
		} else {
			for _, inv := range invs {
				if _, err := s.CreateInvoice(ctx, inv); err != nil {
					b.Fatal(err)
				}
			}
		}
		invs = invs[:0]
	}
	if st.Settle != nil {
		st.Settle(b)
	}
	groups := [][]string{{"domainCodeName", "dataSourceCodeName"}}
	for _, g := range Groupings() {
		groups = append(groups, []string{g.Attr})
	}
	for _, group := range groups {
		b.Run("group="+strings.Join(group, ","), func(b *testing.B) { benchBalancePage(b, s, group) })
	}
}

// benchBalancePage times page 1 of the customer balances grouped by group.
func benchBalancePage(b *testing.B, s BalanceStore, group []string) {
	ctx := b.Context()
	o := finance.BalanceOptions{Side: finance.Customers, Group: group}
	q := msgkit.ListQuery{PageNumber: 1, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "total", Desc: true}}}
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		page, err := s.Balances(ctx, finance.Scope{All: true}, o, q)
		times = append(times, time.Since(start))
		if err != nil || page.Total == 0 || len(page.Items) != min(10, page.Total) {
			b.Fatalf("got %d balances of %d, %v", len(page.Items), page.Total, err)
		}
		for i, bal := range page.Items {
			if i > 0 && bal.Total.GreaterThan(page.Items[i-1].Total) {
				b.Fatalf("balance %d of the page is over the one before: %+v", i, bal)
			}
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}
