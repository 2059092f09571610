package finance

import (
	"testing"
)

func TestSheetSelection(t *testing.T) {
	a := issued(1, CustomerInvoice, 7, "EUR", "2025-03-01", "10", "0")
	a.InvDate = date("2025-01-10")
	b := issued(2, CustomerInvoice, 7, "EUR", "2025-03-01", "20", "0")
	b.InvDate = date("2025-01-05")
	c := issued(3, CustomerInvoice, 7, "EUR", "2025-03-01", "30", "0")
	c.InvDate = date("2025-01-10")
	other := issued(4, CustomerInvoice, 8, "EUR", "2025-03-01", "1", "0")
	sup := issued(5, SupplierInvoice, 7, "EUR", "2025-03-01", "1", "0")
	draft := issued(6, CustomerInvoice, 7, "EUR", "2025-03-01", "1", "0")
	draft.Status = Draft
	start, end := date("2025-01-06"), date("2025-01-10")
	for _, tc := range []struct {
		o    SheetOptions
		want []InvoiceID
	}{
		{SheetOptions{Side: Customers, Partner: 7}, []InvoiceID{2, 1, 3}},
		{SheetOptions{Side: Customers, Partner: 7, Desc: true}, []InvoiceID{3, 1, 2}},
		{SheetOptions{Side: Customers, Partner: 7, Start: &start, End: &end}, []InvoiceID{1, 3}},
		{SheetOptions{Side: Suppliers, Partner: 7}, []InvoiceID{5}},
	} {
		var rows []SheetRow
		for _, inv := range []*Invoice{&a, &b, &c, &other, &sup, &draft} {
			if tc.o.InSheet(inv) {
				rows = append(rows, SheetRowOf(inv))
			}
		}
		tc.o.SortSheet(rows)
		var got []InvoiceID
		for _, r := range rows {
			got = append(got, r.DocumentID)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.o, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%+v: %v, want %v", tc.o, got, tc.want)
				break
			}
		}
	}
}
