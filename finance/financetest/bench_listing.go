package financetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// listingInvoices is how many invoices the listing benchmarks list: an
// operator's year of invoices, which a memory store must list as fast as
// PostgreSQL does.
const listingInvoices = 20_000

// ListingInvoice is invoice i of the listing benchmarks: of customer
// i%1000 (named "Partner <i%1000>"), owner 1+i%4 and document type
// 1+i%5 (ListingReference stores both); approved but for every tenth
// (draft) and every twentieth (canceled); payment open, closed or on
// hold by i%3; dated one of 1,095 days from 2023-01-01 by i*7919%1095,
// due 30 days later.
func ListingInvoice(i int) finance.Invoice {
	inv := BenchInvoice(i)
	inv.UID = fmt.Sprintf("00000000-0000-4000-9000-%012d", i)
	inv.Customer.Name = fmt.Sprintf("Partner %d", i%1000)
	inv.Customer.ShortName = fmt.Sprintf("p%d", i%1000)
	inv.OwnerID = int64(1 + i%4)
	inv.InvType = int64(1 + i%5)
	switch {
	case i%20 == 0:
		inv.Status = finance.Canceled
	case i%10 == 0:
		inv.Status = finance.Draft
	}
	inv.PaymentStatus = []finance.PaymentStatus{finance.PaymentOpen, finance.PaymentClosed, finance.PaymentOnHold}[i%3]
	inv.InvDate = msgkit.Date{Year: 2023, Month: 1, Day: 1}.AddDays(i * 7919 % 1095)
	inv.InvDueDate = inv.InvDate.AddDays(30)
	inv.InvNumberFix = fmt.Sprintf("INV-%d", i)
	return inv
}

// ListingReference stores the owners and document types ListingInvoice
// names: owner n is "Owner <n> d.o.o.", type n "Type <n>".
func ListingReference(tb testing.TB, s Store) {
	ctx := tb.Context()
	for n := int64(1); n <= 5; n++ {
		if err := s.PutPartner(ctx, finance.Partner{ID: n, Name: fmt.Sprintf("Owner %d d.o.o.", n), ShortName: fmt.Sprintf("Owner %d", n)}); err != nil {
			tb.Fatal(err)
		}
		if err := s.PutDocumentType(ctx, finance.DocumentType{ID: n, Name: fmt.Sprintf("Type %d", n)}); err != nil {
			tb.Fatal(err)
		}
	}
}

// seedListing stores the listing benchmarks' invoices and reference
// data in st, then settles it.
func seedListing(tb testing.TB, st Stores) {
	ListingReference(tb, st.Finance)
	const chunk = 5_000
	invs := make([]finance.Invoice, 0, chunk)
	for i := range listingInvoices {
		invs = append(invs, ListingInvoice(i))
		if len(invs) < chunk && i < listingInvoices-1 {
			continue
		}
		if st.Seed != nil {
			st.Seed(tb, invs)
		} else {
			for _, inv := range invs {
				if _, err := st.Finance.CreateInvoice(tb.Context(), inv); err != nil {
					tb.Fatal(err)
				}
			}
		}
		invs = invs[:0]
	}
	if st.Settle != nil {
		st.Settle(tb)
	}
}

// listingCase is one query of the listing benchmarks and the number of
// invoices it selects.
type listingCase struct {
	name  string
	q     msgkit.ListQuery
	total int
}

// listingCases are the typical invoice listings, page 1 of 10 each by
// -invDate: an equality filter on status and paymentStatus, a filter on
// a view attribute (the owner's name, the type's name), and a q search.
func listingCases() []listingCase {
	str := func(s string) []msgkit.Value { return []msgkit.Value{msgkit.StringValue(s)} }
	byDate := []msgkit.SortKey{{Attr: "invDate", Desc: true}}
	eq := func(attr, v string) msgkit.Filter { return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: str(v)} }
	count := func(keep func(inv *finance.Invoice) bool) int {
		n := 0
		for i := range listingInvoices {
			if inv := ListingInvoice(i); keep(&inv) {
				n++
			}
		}
		return n
	}
	search := finance.InvoiceSpec()
	q, err := msgkit.ParseListQuery(map[string][]string{"q": {"partner 17"}, "sort": {"-invDate"}}, search)
	if err != nil {
		panic(err) // the spec and the parameters are the benchmark's own
	}
	return []listingCase{
		{"status,paymentStatus", msgkit.ListQuery{Filters: []msgkit.Filter{eq("status", "approved"), eq("paymentStatus", "open")}, Sort: byDate},
			count(func(inv *finance.Invoice) bool {
				return inv.Status == finance.Approved && inv.PaymentStatus == finance.PaymentOpen
			})},
		{"ownerBpName", msgkit.ListQuery{Filters: []msgkit.Filter{eq("ownerBpName", "Owner 2 d.o.o.")}, Sort: byDate},
			count(func(inv *finance.Invoice) bool { return inv.OwnerID == 2 })},
		{"invoiceTypeName", msgkit.ListQuery{Filters: []msgkit.Filter{eq("invoiceTypeName", "Type 3")}, Sort: byDate},
			count(func(inv *finance.Invoice) bool { return inv.InvType == 3 })},
		{"q", q, count(func(inv *finance.Invoice) bool {
			return inv.Customer.ID == 17 || inv.Customer.ID >= 170 && inv.Customer.ID < 180
		})},
	}
}

// listPage lists c's page 1 of 10 from s and checks it: the total, the
// page's size and its order.
func listPage(tb testing.TB, s finance.Store, c listingCase) {
	q := c.q
	q.PageNumber, q.PageSize = 1, 10
	page, err := s.ListInvoices(tb.Context(), q, finance.Scope{All: true}, msgkit.Date{Year: 2026, Month: 3, Day: 1})
	if err != nil || page.Total != c.total || len(page.Items) != min(10, c.total) {
		tb.Fatalf("%s: got %d invoices of %d, want %d: %v", c.name, len(page.Items), page.Total, c.total, err)
	}
	for i := 1; i < len(page.Items); i++ {
		if page.Items[i].InvDate.After(page.Items[i-1].InvDate) {
			tb.Fatalf("%s: invoice %d of the page is newer than the one before", c.name, i)
		}
	}
}

// benchInvoices lists the invoices of listingCases from 20,000
// (ListingInvoice), a sub-benchmark a query, each reporting the median
// time of a page.
func benchInvoices(b *testing.B, st Stores) {
	seedListing(b, st)
	for _, c := range listingCases() {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				listPage(b, st.Finance, c)
				times = append(times, time.Since(start))
			}
			b.ReportMetric(medianMS(times), "median-ms")
		})
	}
}

// BenchInvoicesVersus lists the invoices of the listing benchmarks from
// two backends side by side in one run: both hold the same invoices, and
// each iteration lists a page from one and then from the other
// (alternating which goes first), so that load the machine is under
// falls on both alike. Each query reports both medians (a-ms, b-ms) and
// their ratio (a/b): with a the memory store and b PostgreSQL, a ratio
// of at most 1 is what the memory store promises.
func BenchInvoicesVersus(b *testing.B, a, c Stores) {
	seedListing(b, a)
	seedListing(b, c)
	for _, lc := range listingCases() {
		b.Run(lc.name, func(b *testing.B) {
			benchVersus(b, func() { listPage(b, a.Finance, lc) }, func() { listPage(b, c.Finance, lc) })
		})
	}
}

// benchVersus times la and lb alternately, one of each an iteration,
// and reports their medians and ratio.
func benchVersus(b *testing.B, la, lb func()) {
	var ta, tb []time.Duration
	timed := func(f func(), ts *[]time.Duration) {
		start := time.Now()
		f()
		*ts = append(*ts, time.Since(start))
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			timed(la, &ta)
			timed(lb, &tb)
		} else {
			timed(lb, &tb)
			timed(la, &ta)
		}
		i++
	}
	ma, mb := medianMS(ta), medianMS(tb)
	b.ReportMetric(ma, "a-ms")
	b.ReportMetric(mb, "b-ms")
	b.ReportMetric(ma/mb, "a/b")
}

// medianMS is the median of ts in milliseconds.
func medianMS(ts []time.Duration) float64 {
	ts = slices.Clone(ts)
	slices.Sort(ts)
	return float64(ts[len(ts)/2].Nanoseconds()) / 1e6
}
