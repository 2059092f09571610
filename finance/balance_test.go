package finance

import (
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

// issued is an approved document of partner in currency, due on due, with
// total and paid.
func issued(id InvoiceID, class Class, partner int64, currency string, due string, total, paid string) Invoice {
	c, _ := CurrencyByCode(currency)
	t := d(total)
	return Invoice{ID: id, Class: class, Status: Approved, Customer: Partner{ID: partner, Name: "p"}, Currency: c,
		InvDueDate: date(due), Amounts: Amounts{AmountNoVat: t, AmountVat: t, Total: t, TotalPaid: d(paid), TotalUnpaid: t.Sub(d(paid))},
		Domain: Bulk, DataSource: Postpaid, InvType: 3}
}

func TestBalances(t *testing.T) {
	invs := []Invoice{
		issued(1, CustomerInvoice, 7, "EUR", "2025-03-01", "100.00", "0"),
		issued(2, CustomerInvoice, 7, "EUR", "2025-01-31", "50.00", "10.00"), // 29 days late on 2025-03-01
		issued(3, CustomerInvoice, 7, "CHF", "2024-10-01", "30.00", "0"),     // another currency: its own balance
		issued(4, CreditDebitNote, 7, "EUR", "2024-11-01", "-20.00", "0"),    // 120 days late
		issued(5, SupplierInvoice, 7, "EUR", "2025-01-01", "999.00", "0"),    // the other side
		issued(6, CustomerInvoice, 8, "EUR", "2024-10-31", "5.00", "0"),      // 121 days late
	}
	draft := issued(7, CustomerInvoice, 7, "EUR", "2025-01-01", "1000.00", "0")
	draft.Status = Draft
	deleted := issued(8, CustomerInvoice, 7, "EUR", "2025-01-01", "1000.00", "0")
	deleted.Status = Deleted
	invs = append(invs, draft, deleted)
	asOf := date("2025-03-01")
	bs, err := Balances(invs, BalanceOptions{Side: Customers, AsOf: &asOf})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 {
		t.Fatalf("%d balances, want 3 (7 EUR, 7 CHF, 8 EUR)", len(bs))
	}
	eur := bs[1] // CHF (756) sorts before EUR (978)
	if bs[0].Currency.Code != "CHF" || eur.Currency.Code != "EUR" || !eur.Total.Equal(d("130")) || !eur.TotalUnpaid.Equal(d("120")) || eur.Documents != 3 {
		t.Fatalf("partner 7 EUR: %+v", eur)
	}
	a := eur.Aging
	if !a.Current.Equal(d("100")) || !a.Days1To30.Equal(d("40")) || !a.Days91To120.Equal(d("-20")) || !a.Sum().Equal(eur.TotalUnpaid) {
		t.Errorf("aging %+v", a)
	}
	if !bs[2].Aging.Over120.Equal(d("5")) {
		t.Errorf("121 days late: %+v", bs[2].Aging)
	}
	sup, _ := Balances(invs, BalanceOptions{Side: Suppliers})
	if len(sup) != 1 || !sup[0].Total.Equal(d("999")) || sup[0].Aging != nil {
		t.Errorf("suppliers: %+v", sup)
	}
	grouped, err := Balances(invs, BalanceOptions{Side: Customers, Group: []string{"docClassCodeName", "domainId"}})
	if err != nil || len(grouped) != 4 || grouped[2].Group["docClassCodeName"].Str() != "CREDIT_DEBIT_NOTE" || grouped[2].Group["domainId"].Number() != "1" {
		t.Errorf("grouped by class and domain: %v, %+v", err, grouped)
	}
	if _, err := Balances(invs, BalanceOptions{Group: []string{"color"}}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("an unknown group: %v", err)
	}
}

// Each day past the due date falls in exactly one aging bucket, at the
// documented edges.
func TestAgingBuckets(t *testing.T) {
	due := date("2025-01-01")
	edges := map[int]func(Aging) decimal.Decimal{
		-1: func(a Aging) decimal.Decimal { return a.Current }, 0: func(a Aging) decimal.Decimal { return a.Current },
		1: func(a Aging) decimal.Decimal { return a.Days1To30 }, 30: func(a Aging) decimal.Decimal { return a.Days1To30 },
		31: func(a Aging) decimal.Decimal { return a.Days31To60 }, 60: func(a Aging) decimal.Decimal { return a.Days31To60 },
		61: func(a Aging) decimal.Decimal { return a.Days61To90 }, 90: func(a Aging) decimal.Decimal { return a.Days61To90 },
		91: func(a Aging) decimal.Decimal { return a.Days91To120 }, 120: func(a Aging) decimal.Decimal { return a.Days91To120 },
		121: func(a Aging) decimal.Decimal { return a.Over120 }, 5000: func(a Aging) decimal.Decimal { return a.Over120 },
	}
	for late, bucket := range edges {
		var a Aging
		a.add(due, due.AddDays(late), d("1"))
		if !bucket(a).Equal(d("1")) || !a.Sum().Equal(d("1")) {
			t.Errorf("%d days late: %+v", late, a)
		}
	}
}

// The law: every balance is the sum of the documents it covers, its
// aging buckets add up to its unpaid total, and every counted document is
// in exactly one balance.
func TestBalancesAreSums(t *testing.T) {
	classes := []Class{CustomerInvoice, SupplierInvoice, CreditDebitNote, NettingInvoice, SupplierCrDbNote}
	statuses := []Status{Approved, Approved, Draft, Deleted, Archived, Imported, Canceled}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "invoices")
		invs := make([]Invoice, n)
		for i := range invs {
			// Mostly cents; now and then amounts past the int64 fast path:
			// more decimals, more digits.
			scale := rapid.SampledFrom([]int32{2, 2, 2, 0, 3, 6}).Draw(t, "scale")
			limit := rapid.SampledFrom([]int64{100000, 100000, 1_000_000_000_000_000}).Draw(t, "limit")
			total := decimal.New(rapid.Int64Range(-limit, limit).Draw(t, "total"), -scale)
			paid := decimal.New(rapid.Int64Range(0, limit).Draw(t, "paid"), -scale)
			invs[i] = issued(InvoiceID(i+1), rapid.SampledFrom(classes).Draw(t, "class"), rapid.Int64Range(1, 4).Draw(t, "partner"),
				rapid.SampledFrom([]string{"EUR", "CHF", "JPY"}).Draw(t, "currency"), "2025-01-01", "0", "0")
			invs[i].Total, invs[i].AmountVat, invs[i].AmountNoVat, invs[i].TotalPaid, invs[i].TotalUnpaid = total, total, total.Div(decimal.NewFromInt(2)).Round(2), paid, total.Sub(paid)
			invs[i].Vat = invs[i].AmountVat.Sub(invs[i].AmountNoVat)
			invs[i].Status = rapid.SampledFrom(statuses).Draw(t, "status")
			invs[i].InvDueDate = date("2024-06-01").AddDays(rapid.IntRange(0, 400).Draw(t, "due"))
			invs[i].Domain = rapid.SampledFrom([]Domain{Bulk, BulkMNP}).Draw(t, "domain")
		}
		side := Side(rapid.IntRange(0, 1).Draw(t, "side"))
		var group []string
		if rapid.Bool().Draw(t, "grouped") {
			group = []string{"domainCodeName"}
		}
		asOf := date("2025-01-01")
		bs, err := Balances(invs, BalanceOptions{Side: side, Group: group, AsOf: &asOf})
		if err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, b := range bs {
			var total, unpaid, vat decimal.Decimal
			docs := 0
			for _, inv := range invs {
				if inv.Class.Side() == side && InBalance(inv.Status) && inv.Customer.ID == b.Partner.ID && inv.Currency.Code == b.Currency.Code &&
					(group == nil || string(inv.Domain) == b.Group["domainCodeName"].Str()) {
					total, unpaid, vat = total.Add(inv.Total), unpaid.Add(inv.TotalUnpaid), vat.Add(inv.Vat)
					docs++
				}
			}
			if !b.Total.Equal(total) || !b.TotalUnpaid.Equal(unpaid) || !b.Vat.Equal(vat) || b.Documents != docs ||
				b.Total.Exponent() != total.Exponent() {
				t.Fatalf("balance %d %s: total %s unpaid %s vat %s over %d, the documents give %s %s %s over %d",
					b.Partner.ID, b.Currency, b.Total, b.TotalUnpaid, b.Vat, b.Documents, total, unpaid, vat, docs)
			}
			if !b.Vat.Equal(b.AmountVat.Sub(b.AmountNoVat)) || !b.Rounding.Equal(b.Total.Sub(b.AmountVat)) {
				t.Fatalf("balance %d: vat or rounding is not the difference", b.Partner.ID)
			}
			if !b.Aging.Sum().Equal(b.TotalUnpaid) {
				t.Fatalf("aging sums to %s, unpaid %s", b.Aging.Sum(), b.TotalUnpaid)
			}
			counted += b.Documents
		}
		want := 0
		for _, inv := range invs {
			if inv.Class.Side() == side && InBalance(inv.Status) {
				want++
			}
		}
		if counted != want {
			t.Fatalf("balances cover %d documents, %d count", counted, want)
		}
	})
}

func TestCheckBalanceQuery(t *testing.T) {
	q, err := msgkit.ParseListQuery(map[string][]string{"gt(amountNovat)": {"10"}, "sort": {"-totalUnpaid"}}, BalanceSpec())
	if err != nil || CheckBalanceQuery(q, nil) != nil {
		t.Fatalf("gt on an amount: %v", err)
	}
	for _, params := range []map[string][]string{{"total": {"10"}}, {"in(totalPaid)": {"1,2"}}, {"domainCodeName": {"BULK"}}, {"sort": {"domainId"}}} {
		q, err := msgkit.ParseListQuery(params, BalanceSpec())
		if err == nil {
			err = CheckBalanceQuery(q, nil)
		}
		if msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%v: %v, want invalid", params, err)
		}
	}
}
