package financetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// Grouping is one of the documents' grouping attributes of balances, with
// the values (as msgkit.Value.String renders them, "null" for null) its
// groups take over the documents SeedGrouping stores, per side.
type Grouping struct {
	Attr                 string
	Customers, Suppliers []string
}

// Groupings are the 13 grouping attributes of balance records, in the
// documents' order, with their groups over SeedGrouping's documents.
func Groupings() []Grouping {
	return []Grouping{
		{"domainId", []string{"1", "2"}, []string{"1"}},
		{"domainCodeName", []string{"BULK", "BULK-MNP"}, []string{"BULK"}},
		{"docClassId", []string{"1", "3", "4", "5"}, []string{"2", "6"}},
		{"docClassCodeName", []string{"CUSTOMER_INVOICE", "NETTING_INVOICE", "CONTROL_INVOICE", "CREDIT_DEBIT_NOTE"}, []string{"SUPPLIER_INVOICE", "SUPPLIER_CR_DB_NOTE"}},
		{"docClassDomain", []string{"customer"}, []string{"supplier"}},
		{"docClassArea", []string{"invoice", "note", "netting", "control"}, []string{"invoice", "note"}},
		{"dataSourceId", []string{"1", "2"}, []string{"4"}},
		{"dataSourceCodeName", []string{"PREPAID", "POSTPAID"}, []string{"SUPPLIER-INVOICE"}},
		{"documentTypeId", []string{"7", "8", "9", "10"}, []string{"11"}},
		{"documentTypeName", []string{"Customer invoice", "Self-billed", "null"}, []string{"Supplier invoice"}},
		{"documentTypeSelfBilling", []string{"no", "yes"}, []string{"no"}},
		{"documentTypeDtsSelectorId", []string{"1", "null"}, []string{"null"}},
		{"documentTypeDtsSelectorCodeName", []string{"PART-PAYMENT", "null"}, []string{"null"}},
	}
}

// groupingStore is what SeedGrouping writes to.
type groupingStore interface {
	finance.Store
	finance.ExportStore
}

// SeedGrouping stores, for Groupings, the document types 7 and 9
// ("Customer invoice"), 8 ("Self-billed", self-billing) and 11 ("Supplier
// invoice"), leaving 10 unknown, and approved documents in EUR: partner 1's
// of every customer class, both domains, PREPAID and POSTPAID (with and
// without PART-PAYMENT), and types 7 to 10; partner 2's supplier invoice
// and note; and a draft, which no balance counts. It returns the types
// by id and the invoices as stored.
func SeedGrouping(t testing.TB, s groupingStore) (map[int64]finance.DocumentType, []finance.Invoice) {
	t.Helper()
	ctx := t.Context()
	types := map[int64]finance.DocumentType{}
	for _, dt := range []finance.DocumentType{{ID: 7, Name: "Customer invoice"}, {ID: 8, Name: "Self-billed", SelfBilling: true},
		{ID: 9, Name: "Customer invoice"}, {ID: 11, Name: "Supplier invoice"}} {
		if err := s.PutDocumentType(ctx, dt); err != nil {
			t.Fatal(err)
		}
		types[dt.ID] = dt
	}
	var invs []finance.Invoice
	for _, r := range []struct {
		partner  int64
		class    finance.Class
		domain   finance.Domain
		source   finance.DataSource
		selector string
		invType  int64
		total    string
		status   finance.Status
	}{
		{1, finance.CustomerInvoice, finance.Bulk, finance.Prepaid, "", 7, "100.00", finance.Approved},
		{1, finance.CustomerInvoice, finance.BulkMNP, finance.Postpaid, finance.PartPayment, 8, "-40.10", finance.Approved},
		{1, finance.CreditDebitNote, finance.Bulk, finance.Postpaid, "", 9, "-12.50", finance.Approved},
		{1, finance.NettingInvoice, finance.Bulk, finance.Postpaid, "", 10, "7.25", finance.Approved},
		{1, finance.ControlInvoice, finance.BulkMNP, finance.Postpaid, "", 7, "3.00", finance.Approved},
		{1, finance.CustomerInvoice, finance.Bulk, finance.Prepaid, "", 7, "55.55", finance.Approved},
		{1, finance.CustomerInvoice, finance.Bulk, finance.Prepaid, "", 12, "999.00", finance.Draft},
		{2, finance.SupplierInvoice, finance.Bulk, finance.SupplierInvoiceSource, "", 11, "300.00", finance.Approved},
		{2, finance.SupplierCrDbNote, finance.Bulk, finance.SupplierInvoiceSource, "", 11, "-30.00", finance.Approved},
	} {
		inv := sample(r.partner)
		inv.UID = fmt.Sprintf("uid-grouping-%d", len(invs)+1)
		inv.Class, inv.Domain, inv.DataSource, inv.Selector, inv.InvType, inv.Status = r.class, r.domain, r.source, r.selector, r.invType, r.status
		inv.Total, inv.AmountVat, inv.AmountNoVat, inv.Vat, inv.Rounding = d(r.total), d(r.total), d(r.total), d("0.00"), d("0.00")
		inv.TotalPaid, inv.TotalUnpaid = d("0.00"), d(r.total)
		got, err := s.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, got)
	}
	return types, invs
}

// GroupValues are the values of attr in bs, in order, as Groupings writes them.
func GroupValues(bs []finance.Balance, attr string) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Group[attr].String())
	}
	return out
}

// runGroupingTests checks balances grouped by each of Groupings on both
// sides: the groups the documents make, the same balances as
// finance.Balances over the same invoices and types, sorted by the
// attribute as msgkit.Apply sorts them, and totals that add up to the
// ungrouped total.
func runGroupingTests(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	t.Run("Grouped", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := t.Context()
		types, invs := SeedGrouping(t, s)
		lookup := func(id int64) (finance.DocumentType, bool) { dt, ok := types[id]; return dt, ok }
		values := cmp.Comparer(func(a, b msgkit.Value) bool { return a.Equal(b) || a.IsNull() && b.IsNull() })
		for _, g := range Groupings() {
			for _, side := range []struct {
				side finance.Side
				want []string
			}{{finance.Customers, g.Customers}, {finance.Suppliers, g.Suppliers}} {
				o := finance.BalanceOptions{Side: side.side, Group: []string{g.Attr}}
				got, err := s.Balances(ctx, finance.Scope{All: true}, o, msgkit.ListQuery{})
				if err != nil {
					t.Fatalf("%s: %v", g.Attr, err)
				}
				if vs := GroupValues(got.Items, g.Attr); !sameSet(vs, side.want) || len(vs) != len(side.want) {
					t.Errorf("%s side %d: groups %q, want %q", g.Attr, side.side, vs, side.want)
				}
				ref := o
				ref.Types = lookup
				all, err := finance.Balances(invs, ref)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(all, got.Items, same, values); diff != "" {
					t.Errorf("%s side %d (-finance.Balances +store):\n%s", g.Attr, side.side, diff)
				}
				sorted := msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: g.Attr, Desc: true}}}
				want, err := msgkit.Apply(all, sorted, finance.BalanceValue)
				if err != nil {
					t.Fatal(err)
				}
				gotSorted, err := s.Balances(ctx, finance.Scope{All: true}, o, sorted)
				if err != nil {
					t.Fatalf("%s sorted: %v", g.Attr, err)
				}
				if diff := cmp.Diff(want, gotSorted, same, values); diff != "" {
					t.Errorf("%s side %d sorted (-want +store):\n%s", g.Attr, side.side, diff)
				}
				whole, err := s.Balances(ctx, finance.Scope{All: true}, finance.BalanceOptions{Side: side.side}, msgkit.ListQuery{})
				if err != nil {
					t.Fatal(err)
				}
				if w, sum := totalOf(whole.Items), totalOf(got.Items); !w.Equal(sum) || len(whole.Items) != 1 {
					t.Errorf("%s side %d: grouped totals add up to %s, ungrouped %s over %d balances", g.Attr, side.side, sum, w, len(whole.Items))
				}
			}
		}
		// Groupings together, with the aging of a day, as finance sums them.
		asOf := msgkit.Date{Year: 2026, Month: 6, Day: 30}
		for _, group := range [][]string{
			{"documentTypeName", "documentTypeSelfBilling"}, {"documentTypeName", "domainCodeName", "docClassArea"},
			{"documentTypeSelfBilling", "documentTypeId"}, {"documentTypeName"},
		} {
			for _, side := range []finance.Side{finance.Customers, finance.Suppliers} {
				o := finance.BalanceOptions{Side: side, Group: group, AsOf: &asOf}
				got, err := s.Balances(ctx, finance.Scope{All: true}, o, msgkit.ListQuery{})
				if err != nil {
					t.Fatalf("%v: %v", group, err)
				}
				ref := o
				ref.Types = lookup
				want, err := finance.Balances(invs, ref)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got.Items, same, values); diff != "" {
					t.Errorf("%v side %d as of %s (-finance.Balances +store):\n%s", group, side, asOf, diff)
				}
			}
		}
	})
}

// totalOf adds the totals of bs.
func totalOf(bs []finance.Balance) decimal.Decimal {
	var sum decimal.Decimal
	for _, b := range bs {
		sum = sum.Add(b.Total)
	}
	return sum
}

// sameSet reports whether a and b hold the same values.
func sameSet(a, b []string) bool {
	return !slices.ContainsFunc(a, func(v string) bool { return !slices.Contains(b, v) }) &&
		!slices.ContainsFunc(b, func(v string) bool { return !slices.Contains(a, v) })
}
