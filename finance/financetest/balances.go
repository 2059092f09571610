package financetest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// BalanceStore is a finance store that sums balances and lists sheets.
type BalanceStore interface {
	finance.Store
	finance.BalanceStore
	finance.SheetStore
}

// runBalanceStoreTests checks a store's balances against finance.Balances
// over the same invoices: scope, side, grouping, aging, filters and sorts.
func runBalanceStoreTests(t *testing.T, newStore func(t *testing.T) BalanceStore) {
	t.Helper()
	t.Run("Balances", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := t.Context()
		var invs []finance.Invoice
		for i, r := range []struct {
			partner  int64
			class    finance.Class
			status   finance.Status
			currency string
			domain   finance.Domain
			total    string
			paid     string
			due      string
		}{
			{1, finance.CustomerInvoice, finance.Approved, "EUR", finance.Bulk, "100.00", "0.00", "2026-11-01"},
			{1, finance.CustomerInvoice, finance.Approved, "EUR", finance.BulkMNP, "50.50", "50.50", "2026-09-01"},
			{1, finance.CreditDebitNote, finance.Archived, "EUR", finance.Bulk, "-20.00", "0.00", "2026-07-01"},
			{1, finance.CustomerInvoice, finance.Draft, "EUR", finance.Bulk, "999.00", "0.00", "2026-11-01"},
			{1, finance.CustomerInvoice, finance.Approved, "CHF", finance.Bulk, "10.05", "0.00", "2026-10-01"},
			{2, finance.CustomerInvoice, finance.Imported, "EUR", finance.Bulk, "7.00", "1.00", "2026-11-20"},
			{2, finance.SupplierInvoice, finance.Approved, "EUR", finance.Bulk, "300.00", "0.00", "2026-11-20"},
			{3, finance.CustomerInvoice, finance.Deleted, "EUR", finance.Bulk, "5.00", "0.00", "2026-11-20"},
		} {
			inv := sample(r.partner)
			inv.UID = fmt.Sprintf("uid-balance-%d", i)
			inv.Class, inv.Status, inv.Domain = r.class, r.status, r.domain
			inv.Currency, _ = finance.CurrencyByCode(r.currency)
			inv.Total, inv.AmountVat, inv.AmountNoVat, inv.Vat, inv.Rounding = d(r.total), d(r.total), d(r.total), d("0.00"), d("0.00")
			inv.TotalPaid, inv.TotalUnpaid, inv.InvDueDate = d(r.paid), d(r.total).Sub(d(r.paid)), day(r.due)
			inv.InvDate = day(r.due).AddDays(-30)
			inv.Customer.Name = "partner " + string(rune('A'+i))
			got, err := s.CreateInvoice(ctx, inv)
			if err != nil {
				t.Fatal(err)
			}
			invs = append(invs, got)
		}
		testSheets(t, s, invs)
		asOf := day("2026-11-22")
		sortTotal := msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "total", Desc: true}}}
		gt, _ := msgkit.NumberValue("8")
		for _, tc := range []struct {
			name  string
			scope finance.Scope
			o     finance.BalanceOptions
			q     msgkit.ListQuery
		}{
			{"customers", finance.Scope{All: true}, finance.BalanceOptions{Side: finance.Customers}, msgkit.ListQuery{}},
			{"suppliers", finance.Scope{All: true}, finance.BalanceOptions{Side: finance.Suppliers}, msgkit.ListQuery{}},
			{"own", finance.Scope{Partners: []int64{2}}, finance.BalanceOptions{Side: finance.Customers}, msgkit.ListQuery{}},
			{"aging", finance.Scope{All: true}, finance.BalanceOptions{Side: finance.Customers, AsOf: &asOf}, msgkit.ListQuery{}},
			{"grouped and sorted", finance.Scope{All: true}, finance.BalanceOptions{Side: finance.Customers, Group: []string{"domainCodeName", "docClassId"}}, sortTotal},
			{"filtered", finance.Scope{All: true}, finance.BalanceOptions{Side: finance.Customers},
				msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "totalUnpaid", Op: msgkit.OpGt, Values: []msgkit.Value{gt}}}}},
		} {
			var inScope []finance.Invoice
			for _, inv := range invs {
				if tc.scope.Sees(inv.Customer.ID) {
					inScope = append(inScope, inv)
				}
			}
			all, err := finance.Balances(inScope, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			want, err := msgkit.Apply(all, tc.q, finance.BalanceValue)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Balances(ctx, tc.scope, tc.o, tc.q)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(want, got, same, cmp.Comparer(func(a, b msgkit.Value) bool { return a.Equal(b) || a.IsNull() && b.IsNull() })); diff != "" {
				t.Errorf("%s (-finance.Balances +store):\n%s", tc.name, diff)
			}
		}
	})
}

// testSheets checks a store's sheets against the rows finance selects
// from the same invoices.
func testSheets(t *testing.T, s BalanceStore, invs []finance.Invoice) {
	t.Helper()
	start, end := day("2026-08-01"), day("2026-10-31")
	gt, _ := msgkit.NumberValue("0")
	for _, tc := range []struct {
		name  string
		scope finance.Scope
		o     finance.SheetOptions
		q     msgkit.ListQuery
	}{
		{"all of a partner", finance.Scope{All: true}, finance.SheetOptions{Side: finance.Customers, Partner: 1}, msgkit.ListQuery{}},
		{"descending", finance.Scope{All: true}, finance.SheetOptions{Side: finance.Customers, Partner: 1, Desc: true}, msgkit.ListQuery{}},
		{"dates", finance.Scope{All: true}, finance.SheetOptions{Side: finance.Customers, Partner: 1, Start: &start, End: &end}, msgkit.ListQuery{}},
		{"out of scope", finance.Scope{Partners: []int64{2}}, finance.SheetOptions{Side: finance.Customers, Partner: 1}, msgkit.ListQuery{}},
		{"suppliers", finance.Scope{All: true}, finance.SheetOptions{Side: finance.Suppliers, Partner: 2}, msgkit.ListQuery{}},
		{"filtered and paged", finance.Scope{All: true}, finance.SheetOptions{Side: finance.Customers, Partner: 1},
			msgkit.ListQuery{PageNumber: 1, PageSize: 2, Filters: []msgkit.Filter{{Attr: "total", Op: msgkit.OpGt, Values: []msgkit.Value{gt}}},
				Sort: []msgkit.SortKey{{Attr: "total"}}}},
	} {
		var rows []finance.SheetRow
		for i := range invs {
			if tc.scope.Sees(tc.o.Partner) && tc.o.InSheet(&invs[i]) {
				rows = append(rows, finance.SheetRowOf(&invs[i]))
			}
		}
		tc.o.SortSheet(rows)
		want, err := msgkit.Apply(rows, tc.q, finance.SheetValue)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Sheet(t.Context(), tc.scope, tc.o, tc.q)
		if err != nil {
			t.Fatalf("sheet %s: %v", tc.name, err)
		}
		if diff := cmp.Diff(want, got, same); diff != "" {
			t.Errorf("sheet %s (-want +got):\n%s", tc.name, diff)
		}
	}
}
