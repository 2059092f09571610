package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
)

func TestFinanceContract(t *testing.T) {
	t.Parallel()
	financetest.Run(t, newFinanceStores)
}

// BenchmarkFinance: financetest.Bench on PostgreSQL (Balances,
// Invoices), the invoices written in batches and analysed.
func BenchmarkFinance(b *testing.B) {
	financetest.Bench(b, newFinanceStores)
}

// BenchmarkFinanceMemoryVersus lists the same invoices from memstore (a)
// and PostgreSQL (b) side by side (financetest.BenchInvoicesVersus), so
// the ratio a/b holds whatever else the machine runs: go test -run '^$'
// -bench FinanceMemoryVersus -benchtime 51x ./adapters/pgstore.
func BenchmarkFinanceMemoryVersus(b *testing.B) {
	financetest.BenchInvoicesVersus(b, financetest.Stores{Finance: memstore.New().Finance()}, newFinanceStores(b))
}

func newFinanceStores(tb testing.TB) financetest.Stores {
	db := newTestDB(tb)
	return financetest.Stores{
		Finance: db.Finance(),
		Blobs:   db.Blobs(),
		Seed: func(tb testing.TB, invs []finance.Invoice) {
			batch := &pgx.Batch{}
			for _, inv := range invs {
				args, err := invoiceArgs(inv)
				if err != nil {
					tb.Fatal(err)
				}
				batch.Queue(invoiceInsertSQL, args...)
			}
			if err := db.pool.SendBatch(context.Background(), batch).Close(); err != nil {
				tb.Fatal(err)
			}
		},
		Settle: func(tb testing.TB) {
			if _, err := db.pool.Exec(context.Background(), "VACUUM (ANALYZE) finance_invoices"); err != nil {
				tb.Fatal(err)
			}
		},
	}
}

// The tests below cover what is particular to PostgreSQL; the contract
// suite covers the rest.

// TestFinanceListingCoversSpec holds the listing's columns to the spec:
// every attribute, with its type, and nothing else.
func TestFinanceListingCoversSpec(t *testing.T) {
	t.Parallel()
	for _, table := range []*listTable{&invoicesAll, &invoicesOwn} {
		if err := table.checkSpec(finance.InvoiceSpec()); err != nil {
			t.Fatal(err)
		}
	}
	names := finance.InvoiceAttrNames()
	if len(names) != len(invoiceAttrs) {
		t.Fatalf("the listing maps %d attributes, finance has %d", len(invoiceAttrs), len(names))
	}
}

// sameInvoice compares invoices as the contract does: decimals by value
// and scale, times as instants, the sync document byte for byte.
var sameInvoice = cmp.Options{
	exactly,
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
}

func financeDay(s string) msgkit.Date {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// distinctInvoice has a value in every field that no other field of the
// same type holds, so a column written or read in another's place shows.
func distinctInvoice() finance.Invoice {
	chf, _ := finance.CurrencyByCode("CHF")
	return finance.Invoice{
		InstanceID: 101, OwnerID: 102, UID: "uid",
		Class: finance.NettingInvoice, DataSource: finance.PostpaidControl, Domain: finance.BulkMNP, Selector: "selector",
		Customer: finance.Partner{ID: 103, Name: "name", ShortName: "short", Attn: "attn", Address: "addr1",
			Address2: "addr2", Post: "post", City: "city", POBox: "pobox", VatNumber: "custvat", Country: 104, Type: "ctype"},
		InvType: 105, TemplateID: 106, Lang: "sl",
		InvNumberFix: "fix", SupplierInvNumber: "supplier", InvNumber: "number", InvPeriod: "period", OwnerVatNumber: "ownervat",
		InvDate: financeDay("2026-01-01"), InvoicingDate: financeDay("2026-01-02"), DeliveryDate: financeDay("2026-01-03"),
		InvDueDate: financeDay("2026-01-04"), InvPeriodStart: financeDay("0000-01-05"), InvPeriodEnd: financeDay("9999-12-31"),
		Currency: chf, VatInPrice: finance.Gross, VatInTotal: 107, VatPercent: dec("7.70"), CashRound: true,
		Amounts: finance.Amounts{AmountNoVat: dec("1.1"), AmountVat: dec("2.20"), Vat: dec("3.300"), Rounding: dec("-0.0400"),
			Total: dec("5"), TotalPaid: dec("6.000000"), TotalUnpaid: dec("98765432109876543210.12345678901234567890")},
		Status: finance.Archived, PaymentStatus: finance.PaymentOnHold, SyncStatus: finance.SyncExported,
		DocsDeliveryStatus: finance.DeliveryMisc, CollectionMode: "member", CollectionLeadID: 108, NettingInvoiceID: 109,
		ReminderStatus: "reminder", Comment: "comment 'quoted' \\ ✓",
		DocumentSync: json.RawMessage("{ \"z\" : 1,  \"a\":[ ] , \"z\":2 }"), // whitespace, order, a duplicate key
		Items: []finance.Item{
			{Name: "item1", ItemType: 110, Quantity: dec("1.000"), QuantityMore: dec("0.5"), QuantityMode: 111,
				MeasureUnit: 112, Price: dec("0.0450"), VatPercent: dec("8.1"), Status: "istatus", DataSourceID: 113,
				DataSourceForeignKey: "fk", DtsSelectorID: 114, TotalNoVat: dec("0.05"), TotalVat: dec("0.054")},
			{Name: "item2", Quantity: dec("-2"), Price: dec("100")},
		},
		Payment: &finance.Payment{FullyPaid: true, PaymentType: 115, PaymentDate: financeDay("2026-01-06"), Comment: "pcomment",
			BankAccountID: 116, PaymentReference: "pref"},
		SourceRecord: &finance.SourceRecord{BillingRecordID: 117, CreditRecordID: 118},
		InsertDt:     t1, StatusDt: t1.Add(time.Second), SyncStatusDt: t1.Add(time.Minute), DeliveryDt: t1.Add(time.Hour),
	}
}

// storedInvoice is inv as the store keeps it: times to the microsecond in UTC.
func storedInvoice(inv finance.Invoice) finance.Invoice {
	for _, t := range []*time.Time{&inv.InsertDt, &inv.StatusDt, &inv.SyncStatusDt, &inv.DeliveryDt} {
		if !t.IsZero() {
			*t = t.Truncate(time.Microsecond).UTC()
		}
	}
	return inv
}

func TestFinanceEveryColumnRoundTrips(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Finance()
	ctx := t.Context()
	in := distinctInvoice()
	created, err := s.CreateInvoice(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := storedInvoice(in)
	want.ID = created.ID
	if diff := cmp.Diff(want, created, sameInvoice); diff != "" {
		t.Fatalf("CreateInvoice returned (-want +got):\n%s", diff)
	}
	read, err := s.Invoice(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, read, sameInvoice); diff != "" {
		t.Fatalf("Invoice read back (-want +got):\n%s", diff)
	}
	if read.InsertDt.Location() != time.UTC {
		t.Errorf("times come back in %v, want UTC", read.InsertDt.Location())
	}

	// An update writes every column too, and empty parts stay empty, not
	// nil: an empty item list and an empty sync document.
	next := distinctInvoice()
	next.Items, next.DocumentSync, next.Payment, next.SourceRecord = []finance.Item{}, json.RawMessage{}, nil, nil
	next.Currency, next.UID, next.Status = finance.Currency{}, "", ""
	next.InvDate, next.SyncStatusDt = msgkit.Date{}, time.Time{}
	updated, err := s.UpdateInvoice(ctx, created.ID, func(finance.Invoice) (finance.Invoice, error) { return next, nil })
	if err != nil {
		t.Fatal(err)
	}
	want = storedInvoice(next)
	want.ID, want.UID = created.ID, created.UID // an update keeps the UID
	read, err = s.Invoice(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]finance.Invoice{"UpdateInvoice": updated, "Invoice": read} {
		if diff := cmp.Diff(want, got, sameInvoice); diff != "" {
			t.Fatalf("%s after the update (-want +got):\n%s", name, diff)
		}
		if got.Items == nil {
			t.Errorf("%s: empty items came back nil", name)
		}
	}
}

func TestFinanceRefusesWhatItCannotHold(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Finance()
	ctx := t.Context()
	xxx := finance.Currency{Numeric: 999, Code: "XXX", Decimals: 2}
	eurWrong, _ := finance.CurrencyByCode("EUR")
	eurWrong.Decimals = 3
	tests := []struct {
		name   string
		change func(*finance.Invoice)
		fields []string
	}{
		{"invalid UTF-8 and NUL", func(inv *finance.Invoice) {
			inv.Comment, inv.Customer.City = "a\x00b", "\xff"
		}, []string{"customer.city", "comment"}},
		{"a date that does not exist", func(inv *finance.Invoice) {
			inv.InvDueDate = msgkit.Date{Year: 2026, Month: 2, Day: 30}
		}, []string{"invDueDate"}},
		{"an unknown currency", func(inv *finance.Invoice) { inv.Currency = xxx }, []string{"currency"}},
		{"a known code with other rules", func(inv *finance.Invoice) { inv.Currency = eurWrong }, []string{"currency"}},
		{"text in an item", func(inv *finance.Invoice) { inv.Items[1].Name = "\xfe" }, []string{"items"}},
		{"text in the payment", func(inv *finance.Invoice) { inv.Payment.Comment = "\x00" }, []string{"payment"}},
	}
	for _, tc := range tests {
		inv := distinctInvoice()
		tc.change(&inv)
		_, err := s.CreateInvoice(ctx, inv)
		requireInvalidFields(t, tc.name, err, tc.fields)

		// The same record from an update is refused, and nothing changes.
		stored := distinctInvoice()
		stored.UID = "uid " + tc.name // UIDs are unique
		base, err := s.CreateInvoice(ctx, stored)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.UpdateInvoice(ctx, base.ID, func(finance.Invoice) (finance.Invoice, error) { return inv, nil })
		requireInvalidFields(t, tc.name+" (update)", err, tc.fields)
		after, err := s.Invoice(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(base, after, sameInvoice); diff != "" {
			t.Fatalf("%s: a refused update changed the invoice (-want +got):\n%s", tc.name, diff)
		}
	}

	err := s.PutPartner(ctx, finance.Partner{ID: 1, Name: "\xff"})
	requireInvalidFields(t, "partner", err, []string{"name"})
	if _, err := s.Partner(ctx, 1); !errors.Is(err, msgkit.NotFound) {
		t.Fatalf("a refused partner was stored: %v", err)
	}
}

func requireInvalidFields(t *testing.T, name string, err error, fields []string) {
	t.Helper()
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Kind != msgkit.Invalid {
		t.Fatalf("%s: error %v, want Invalid", name, err)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, fields) {
		t.Fatalf("%s: fields %q, want %q", name, got, fields)
	}
}

// A stored row the store cannot read back, such as a currency code it
// does not know, is a storage error, not a panic or a wrong record.
func TestFinanceCorruptRow(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	s := db.Finance()
	ctx := t.Context()
	inv, err := s.CreateInvoice(ctx, distinctInvoice())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE finance_invoices SET currency = 999",
		"UPDATE finance_invoices SET currency = 756, items = '[{\"price\": \"x\"}]'",
		"UPDATE finance_invoices SET items = NULL, payment = '{\"paymentDate\": \"2026-02-30\"}'",
		"UPDATE finance_invoices SET payment = NULL, inv_date = 'infinity'",
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		_, err := s.Invoice(ctx, inv.ID)
		if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage {
			t.Fatalf("after %q: Invoice = %v, want %s", q, err, CodeStorage)
		}
		_, err = s.ListInvoices(ctx, msgkit.ListQuery{}, finance.Scope{All: true}, msgkit.Date{})
		if msgkit.CodeOf(err) != CodeStorage {
			t.Fatalf("after %q: ListInvoices = %v, want %s", q, err, CodeStorage)
		}
		called := false
		_, err = s.UpdateInvoice(ctx, inv.ID, func(inv finance.Invoice) (finance.Invoice, error) { called = true; return inv, nil })
		if msgkit.CodeOf(err) != CodeStorage || called {
			t.Fatalf("after %q: UpdateInvoice = %v (change called: %v), want %s", q, err, called, CodeStorage)
		}
	}
}

// listingInvoices are invoices whose attributes vary, empty and zero
// values included, so that every attribute's filters and sorts have
// something to tell apart.
func listingInvoices() []finance.Invoice {
	eur, _ := finance.CurrencyByCode("EUR")
	jpy, _ := finance.CurrencyByCode("JPY")
	texts := []string{"", "a", "B", "b", "ä", "a b", "Z"}
	statuses := []finance.Status{finance.Approved, finance.Draft, finance.Deleted, "", finance.Canceled}
	var out []finance.Invoice
	for i := range 35 {
		inv := distinctInvoice()
		tx := func(k int) string { return texts[(i*k+k)%len(texts)] }
		inv.Customer.ID, inv.Customer.Country = int64(i%5+1), i%3*100
		inv.Customer.Name, inv.Customer.ShortName, inv.Customer.POBox, inv.Customer.Type = tx(1), tx(2), tx(3), tx(4)
		inv.Class, inv.DataSource, inv.Domain, inv.Selector = finance.Class(tx(5)), finance.DataSource(tx(6)), finance.Domain(tx(1)), tx(2)
		inv.UID, inv.InvNumberFix, inv.InvPeriod, inv.CollectionMode = fmt.Sprintf("%s-%02d", tx(3), i), tx(4), tx(5), tx(6)
		inv.Status = statuses[i%len(statuses)]
		inv.PaymentStatus, inv.SyncStatus = finance.PaymentStatus(tx(2)), finance.SyncStatus(tx(3))
		inv.DocsDeliveryStatus = finance.DeliveryStatus(tx(4))
		inv.Currency = []finance.Currency{{}, eur, jpy}[i%3]
		inv.InvType, inv.OwnerID, inv.CollectionLeadID, inv.NettingInvoiceID = int64(i%4), int64(i%3), int64(i%6-2), int64(i%2)
		day := func(k int) msgkit.Date {
			if (i+k)%4 == 0 {
				return msgkit.Date{}
			}
			return financeDay("2026-01-01").AddDays((i * k) % 9)
		}
		inv.InvDate, inv.InvDueDate, inv.InvoicingDate = day(1), day(2), day(3)
		inv.DeliveryDate, inv.InvPeriodStart, inv.InvPeriodEnd = day(4), day(5), day(6)
		amount := func(k int) string { return []string{"0", "1.50", "-2", "1.5", "100", "0.001", "-0.5"}[(i*k+k)%7] }
		inv.AmountNoVat, inv.AmountVat, inv.Vat = dec(amount(1)), dec(amount(2)), dec(amount(3))
		inv.Rounding, inv.Total, inv.TotalPaid, inv.TotalUnpaid = dec(amount(4)), dec(amount(5)), dec(amount(6)), dec(amount(7))
		inv.StatusDt = t1.Add(time.Duration(i%4) * time.Hour)
		if i%5 == 0 {
			inv.StatusDt = time.Time{}
		}
		inv.SyncStatusDt = time.Time{}
		if i%3 != 0 {
			inv.SyncStatusDt = t1.Add(time.Duration(i%7) * time.Minute)
		}
		inv.ProcessingStatus, inv.DisputeStatus, inv.InvoicingDatePolicy, inv.SyncMode = tx(1), tx(2), tx(3), tx(4)
		inv.DocumentSync = nil
		if i%4 != 0 {
			inv.DocumentSync = json.RawMessage(fmt.Sprintf(`{"ref":%q}`, tx(5)))
		}
		out = append(out, storedInvoice(inv)) // memstore keeps nanoseconds; compare what both keep
	}
	return out
}

// TestFinanceListingMatchesMemstore lists the same invoices from memstore
// and PostgreSQL with filters and sorts on every attribute and wants the
// same pages: the column of each attribute reads what finance reads.
func TestFinanceListingMatchesMemstore(t *testing.T) {
	if testing.Short() {
		t.Skip("compares every attribute's listings with memstore; the full suite runs it")
	}
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Finance(), memstore.New().Finance()
	invoices := listingInvoices()
	// The operator data the views read: owners 0-2 (ownerBp*), the
	// partners' references (externalRefId), the types (invoiceTypeName,
	// selfBilling); the netting and lead ids name listed invoices.
	texts := []string{"", "a", "B", "b", "ä", "a b", "Z"}
	for _, st := range []interface {
		finance.Store
		finance.ExportStore
	}{pg, mem} {
		for id := range int64(6) {
			if err := st.PutPartner(ctx, finance.Partner{ID: id, Name: texts[id%7], ShortName: texts[(id+3)%7]}); err != nil {
				t.Fatal(err)
			}
			if err := st.PutPartnerExport(ctx, finance.PartnerExport{PartnerID: id, ExternalRefID: texts[(id+1)%7]}); err != nil {
				t.Fatal(err)
			}
		}
		for id := range int64(3) {
			if err := st.PutDocumentType(ctx, finance.DocumentType{ID: id, Name: texts[id+2], SelfBilling: id == 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	today := financeDay("2026-01-05")     // some invoices are overdue
	var pgIDs, memIDs []finance.InvoiceID // by position in invoices
	for _, inv := range invoices {
		a, err := pg.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		b, err := mem.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		pgIDs, memIDs = append(pgIDs, a.ID), append(memIDs, b.ID)
	}
	positions := func(ids, of []finance.InvoiceID) []int {
		out := []int{}
		for _, id := range ids {
			out = append(out, slices.Index(of, id))
		}
		return out
	}

	views, err := mem.ListInvoices(ctx, msgkit.ListQuery{}, finance.Scope{All: true}, today)
	if err != nil {
		t.Fatal(err)
	}
	names := finance.InvoiceAttrNames()
	sort.Strings(names)
	var queries []msgkit.ListQuery
	for _, name := range names {
		queries = append(queries,
			msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: name}}},
			msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: name, Desc: true}}, PageNumber: 2, PageSize: 7},
			msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: name, Op: msgkit.OpIsNull}}},
			msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: name, Op: msgkit.OpIsNotEmpty}}},
		)
		// Each value the attribute takes, compared every way.
		seen := map[string]bool{}
		for _, view := range views.Items {
			v, _ := finance.InvoiceValue(view, name)
			if v.IsNull() || seen[v.String()] {
				continue
			}
			seen[v.String()] = true
			for _, op := range []msgkit.Op{msgkit.OpEq, msgkit.OpNeq, msgkit.OpLt, msgkit.OpGte} {
				queries = append(queries, msgkit.ListQuery{
					Filters: []msgkit.Filter{{Attr: name, Op: op, Values: []msgkit.Value{v}}},
					Sort:    []msgkit.SortKey{{Attr: name, Desc: true}},
				})
			}
		}
	}
	// q, over the searched attributes, with the filters.
	for _, text := range []string{"a", "AC", "draft", "%", "zz", "1", "2.0"} {
		q, err := msgkit.ParseListQuery(url.Values{"q": {text}, "sort": {"-id"}}, finance.InvoiceSpec())
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q)
	}
	scopes := []finance.Scope{{All: true}, {Partners: []int64{2, 4}}, {}}
	for _, q := range queries {
		for _, scope := range scopes {
			want, err := mem.ListInvoices(ctx, q, scope, today)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pg.ListInvoices(ctx, q, scope, today)
			if err != nil {
				t.Fatalf("%s: %v", describeListQuery(q), err)
			}
			var gotIDs, wantIDs []finance.InvoiceID
			for _, inv := range got.Items {
				gotIDs = append(gotIDs, inv.ID)
			}
			for _, inv := range want.Items {
				wantIDs = append(wantIDs, inv.ID)
			}
			g, w := positions(gotIDs, pgIDs), positions(wantIDs, memIDs)
			if !slices.Equal(g, w) || got.Total != want.Total {
				t.Errorf("%s, scope %+v: rows %v of %d, memstore %v of %d", describeListQuery(q), scope, g, got.Total, w, want.Total)
			}
		}
	}
	if len(queries) < 4*len(names) {
		t.Fatalf("only %d queries", len(queries))
	}
}

func describeListQuery(q msgkit.ListQuery) string {
	var parts []string
	for _, f := range q.Filters {
		var vals []string
		for _, v := range f.Values {
			vals = append(vals, v.String())
		}
		parts = append(parts, fmt.Sprintf("%s(%s)=%s", f.Op, f.Attr, strings.Join(vals, ",")))
	}
	for _, k := range q.Sort {
		parts = append(parts, fmt.Sprintf("sort=%s desc=%v", k.Attr, k.Desc))
	}
	return fmt.Sprintf("%s page %d size %d", strings.Join(parts, " "), q.PageNumber, q.PageSize)
}

// financeBenchSQL fills finance_invoices with a million invoices: 1,000
// partners, three years of invoice dates (2023 to 2025), totals from 1 to
// 10,000 (VAT 22 %), 85 % approved (7 % draft, 3 % each canceled and
// deleted, 2 % archived) and, of the invoices that are not drafts, 60 %
// closed, 25 % open, 5 % on hold and 10 % without a payment status. One
// item each, as a small invoice has; 90 % not processed, 5 % scheduled,
// 3 % running, 2 % done. random() is seeded, so every run lists the same
// rows.
const financeBenchSQL = `INSERT INTO finance_invoices (instance_id, owner_id, uid, class, data_source, domain, selector,
	cust_id, cust_name, cust_short_name, cust_attn, cust_address, cust_address2, cust_post, cust_city, cust_po_box,
	cust_vat_number, cust_country, cust_type, inv_type, template_id, lang, inv_number_fix, supplier_inv_number,
	inv_number, inv_period, owner_vat_number, inv_date, invoicing_date, delivery_date, inv_due_date,
	inv_period_start, inv_period_end, currency, vat_in_price, vat_in_total, vat_percent, cash_round,
	amount_no_vat, amount_vat, vat, rounding, total, total_paid, total_unpaid, status, payment_status,
	sync_status, docs_delivery_status, collection_mode, collection_lead_id, netting_invoice_id,
	reminder_status, comment, document_sync, items, payment, source_billing_id, source_credit_id,
	insert_dt, status_dt, sync_status_dt, delivery_dt, processing_status)
SELECT 1, 1, 'uid-' || g, 'CUSTOMER_INVOICE', 'POSTPAID', 'BULK', NULL,
	p, 'Partner ' || p, 'p' || p, '', 'Main street ' || p, '', '1000', 'Ljubljana', NULL,
	'SI' || (10000000 + p), 705, 'customer', 1, 1, 'en', 'INV-' || g, '',
	'2026/' || g, to_char(d, 'YYYY-MM'), 'SI12345678', d, d, d, d + 30,
	date_trunc('month', d)::date, (date_trunc('month', d) + interval '1 month - 1 day')::date,
	978, 0, 1, 22, false,
	net, net + vat, vat, 0, net + vat,
	CASE WHEN pay = 'closed' THEN net + vat ELSE 0 END,
	CASE WHEN pay = 'closed' THEN 0 ELSE net + vat END,
	st, pay, 'done', 'sent', 'none', 0, 0, 'enabled', '', NULL,
	jsonb_build_array(jsonb_build_object('name', 'SMS traffic', 'itemType', 1, 'quantity', (net * 100)::text,
		'quantityMore', '0', 'quantityMode', 0, 'measureUnit', 1, 'price', '0.0100', 'vatPercent', '22',
		'status', 'active', 'dataSourceId', 0, 'dataSourceForeignKey', '', 'dtsSelectorId', 0,
		'totalNoVat', net::text, 'totalVat', (net + vat)::text)),
	NULL, NULL, NULL,
	d + time '10:00', d + time '10:00', d + time '10:05', d + time '11:00',
	CASE WHEN r6 < 0.90 THEN 'none' WHEN r6 < 0.95 THEN 'scheduled' WHEN r6 < 0.98 THEN 'running' ELSE 'done' END
FROM (
	SELECT g, p, d, net, round(net * 0.22, 2) AS vat, st, pay, r6 FROM (
		SELECT g, 1 + floor(r1 * 1000)::int AS p, date '2023-01-01' + floor(r2 * 1095)::int AS d,
			round((1 + r3 * 9999)::numeric / 1.22, 2) AS net,
			CASE WHEN r4 < 0.85 THEN 'approved' WHEN r4 < 0.92 THEN 'draft' WHEN r4 < 0.95 THEN 'canceled'
				WHEN r4 < 0.98 THEN 'deleted' ELSE 'archived' END AS st,
			CASE WHEN r4 >= 0.85 AND r4 < 0.92 THEN 'none'
				WHEN r5 < 0.60 THEN 'closed' WHEN r5 < 0.85 THEN 'open' WHEN r5 < 0.90 THEN 'on-hold' ELSE 'none' END AS pay, r6
		FROM (SELECT g, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6
			FROM generate_series(1, 1000000) AS g) r
	) s
) t`

// BenchmarkListInvoicesPostgres lists page 1 (10 rows) of invoices over
// every partner from a million (financeBenchSQL), one listing per case:
// two filters and a sort (the approved invoices open or on hold, newest
// first: about 255,000 match), and the three-filter cases: those of a
// half year, the approved invoices of a half year by the owner's name (a
// join), and the approved invoices of one partner in processing, by due
// date. Each reports the median time of a listing and logs the plan
// of its listing statement once. Run it alone: go test -run '^$' -bench
// ListInvoicesPostgres -benchtime 30x ./adapters/pgstore (filling the
// table takes about a minute).
func BenchmarkListInvoicesPostgres(b *testing.B) {
	db := newTestDB(b)
	s := db.Finance()
	ctx := b.Context()
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT setseed(0.42)"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, financeBenchSQL)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	// The owner of every invoice (owner_id 1), whose names the join
	// cases read.
	if err := s.PutPartner(ctx, finance.Partner{ID: 1, Name: "Operator d.o.o.", ShortName: "Operator"}); err != nil {
		b.Fatal(err)
	}
	// VACUUM marks the pages all-visible, as autovacuum would have, so
	// that index-only scans need not visit the table.
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) finance_invoices"); err != nil {
		b.Fatal(err)
	}
	str := msgkit.StringValue
	date := func(s string) msgkit.Value { return msgkit.DateValue(financeDay(s)) }
	approved := msgkit.Filter{Attr: "status", Op: msgkit.OpEq, Values: []msgkit.Value{str("approved")}}
	unpaid := msgkit.Filter{Attr: "paymentStatus", Op: msgkit.OpIn, Values: []msgkit.Value{str("open"), str("on-hold")}}
	partner, _ := msgkit.NumberValue("17")
	for _, c := range []struct {
		name  string
		q     msgkit.ListQuery
		check func(v *finance.View) bool
		least int
	}{
		{"status,payment;-invDate", msgkit.ListQuery{Filters: []msgkit.Filter{approved, unpaid}, Sort: []msgkit.SortKey{{Attr: "invDate", Desc: true}}},
			func(v *finance.View) bool {
				return v.Status == finance.Approved && (v.PaymentStatus == finance.PaymentOpen || v.PaymentStatus == finance.PaymentOnHold)
			}, 200_000},
		{"status,payment,invDate;-invDate", msgkit.ListQuery{Filters: []msgkit.Filter{approved, unpaid,
			{Attr: "invDate", Op: msgkit.OpBetween, Values: []msgkit.Value{date("2025-01-01"), date("2025-06-30")}}},
			Sort: []msgkit.SortKey{{Attr: "invDate", Desc: true}}},
			func(v *finance.View) bool {
				return v.Status == finance.Approved && v.InvDate.Year == 2025 && v.InvDate.Month <= 6 &&
					(v.PaymentStatus == finance.PaymentOpen || v.PaymentStatus == finance.PaymentOnHold)
			}, 30_000},
		{"ownerBpName,status,invDate;-invDate", msgkit.ListQuery{Filters: []msgkit.Filter{
			{Attr: "ownerBpName", Op: msgkit.OpEq, Values: []msgkit.Value{str("Operator d.o.o.")}}, approved,
			{Attr: "invDate", Op: msgkit.OpBetween, Values: []msgkit.Value{date("2025-01-01"), date("2025-06-30")}}},
			Sort: []msgkit.SortKey{{Attr: "invDate", Desc: true}}},
			func(v *finance.View) bool {
				return v.Status == finance.Approved && v.OwnerName == "Operator d.o.o." && v.InvDate.Year == 2025 && v.InvDate.Month <= 6
			}, 100_000},
		{"processingStatus,status,custID;invDueDate", msgkit.ListQuery{Filters: []msgkit.Filter{
			{Attr: "processingStatus", Op: msgkit.OpIn, Values: []msgkit.Value{str("scheduled"), str("running")}}, approved,
			{Attr: "custID", Op: msgkit.OpEq, Values: []msgkit.Value{partner}}},
			Sort: []msgkit.SortKey{{Attr: "invDueDate"}}},
			func(v *finance.View) bool {
				return v.Status == finance.Approved && v.Customer.ID == 17 && (v.ProcessingStatus == "scheduled" || v.ProcessingStatus == "running")
			}, 10},
	} {
		b.Run(c.name, func(b *testing.B) {
			q := c.q
			q.PageNumber, q.PageSize = 1, 10
			today := pgtype.Date{Time: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Valid: true}
			st, err := invoicesAll.statement(q, []any{today})
			if err != nil {
				b.Fatal(err)
			}
			rows, err := db.pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+st.page, st.args...)
			if err != nil {
				b.Fatal(err)
			}
			plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				b.Fatal(err)
			}
			// Not b.Log: the testing package keeps only ten lines of a
			// benchmark's log.
			fmt.Fprintf(os.Stderr, "%s: the listing's plan:\n%s\n", b.Name(), strings.Join(plan, "\n"))
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				page, err := s.ListInvoices(ctx, q, finance.Scope{All: true}, financeDay("2026-03-01"))
				times = append(times, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Items) != 10 || page.Total < c.least {
					b.Fatalf("got %d invoices of %d", len(page.Items), page.Total)
				}
				for i := range page.Items {
					v := &page.Items[i]
					if !c.check(v) || (i > 0 && c.q.Sort[0].Desc && v.InvDate.After(page.Items[i-1].InvDate)) {
						b.Fatalf("invoice %d of the page: %+v", i, v.Invoice)
					}
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
