// Package financetest is the contract every finance.Store implementation
// meets, and every finance.BlobStore. Run is its one entry point: memstore
// and pgstore both call it, as blob stores such as blobfs do; a behaviour
// that differs between them is a bug. Bench holds the shared benchmarks.
package financetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// Store is a finance store the contract holds whole: invoices, balances
// and sheets, files, partners' tenants, the documents export, and the
// reference data an operator keeps (partner records, configurations).
type Store interface {
	finance.Store
	finance.BalanceStore
	finance.SheetStore
	finance.FileStore
	finance.PartnerTenants
	finance.ExportStore
	finance.DocumentStore
	finance.PartnerStore
	finance.ConfigStore
}

// Stores are a backend's finance stores over one new, empty database, as
// Run and Bench take them. Either is nil where the backend has none of its kind:
// memstore keeps no file bytes, blobfs keeps nothing but them.
type Stores struct {
	Finance Store
	Blobs   finance.BlobStore
	// Seed, when not nil, stores invs in Finance as CreateInvoice one by
	// one would, faster (PostgreSQL: a batch of inserts a round trip);
	// nil, the benchmarks create them one by one.
	Seed func(tb testing.TB, invs []finance.Invoice)
	// Settle, when not nil, settles Finance after a benchmark's seed
	// (PostgreSQL: its statistics), as a store that has run a while is.
	Settle func(tb testing.TB)
}

// Run runs every suite of the contract whose store the backend has, each a
// subtest, over stores from newStores, a new database per test (so the
// parallel subtests each get their own: a schema each, on PostgreSQL).
// The first stores it makes tell which kinds the backend has.
func Run(t *testing.T, newStores func(testing.TB) Stores) {
	t.Helper()
	has := newStores(t)
	if has.Finance == nil && has.Blobs == nil {
		t.Fatal("newStores gives neither a finance store nor a blob store")
	}
	if has.Finance != nil {
		t.Run("store", func(t *testing.T) {
			runStoreTests(t, func(t *testing.T) finance.Store { return newStores(t).Finance })
		})
		t.Run("membership", func(t *testing.T) {
			runMembershipTests(t, func(t *testing.T) finance.Store { return newStores(t).Finance })
		})
		t.Run("balances", func(t *testing.T) {
			runBalanceStoreTests(t, func(t *testing.T) BalanceStore { return newStores(t).Finance })
		})
		t.Run("grouping", func(t *testing.T) {
			runGroupingTests(t, func(t *testing.T) Store { return newStores(t).Finance })
		})
		t.Run("files", func(t *testing.T) {
			runFileStoreTests(t, func(t *testing.T) finance.FileStore { return newStores(t).Finance })
		})
		t.Run("partner tenants", func(t *testing.T) {
			runPartnerTenantTests(t, func(*testing.T) finance.PartnerTenants { return has.Finance })
		})
		t.Run("documents", func(t *testing.T) {
			runDocumentStoreTests(t, func(t *testing.T) DocumentStore { return newStores(t).Finance })
		})
		t.Run("reference", func(t *testing.T) {
			runReferenceTests(t, func(t *testing.T) Store { return newStores(t).Finance })
		})
	}
	if has.Blobs != nil {
		t.Run("blobs", func(t *testing.T) {
			runBlobStoreTests(t, func(t *testing.T) finance.BlobStore { return newStores(t).Blobs })
		})
	}
}

// runStoreTests runs the contract against stores made by newStore, one
// fresh, empty store per subtest. The subtests run in parallel, so
// newStore must give each its own store (a schema each, on PostgreSQL).
func runStoreTests(t *testing.T, newStore func(t *testing.T) finance.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s finance.Store)
	}{
		{"Partners", testPartners},
		{"InvoiceRoundTrip", testInvoiceRoundTrip},
		{"InvoiceNotFound", testInvoiceNotFound},
		{"UpdateIsAtomic", testUpdateIsAtomic},
		{"UpdateErrorStoresNothing", testUpdateErrorStoresNothing},
		{"Copies", testCopies},
		{"List", testList},
		{"InvoiceUID", testInvoiceUID},
		{"ServiceInvoiceUID", testServiceInvoiceUID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// t0 is a whole microsecond in UTC: stores keep microseconds.
var t0 = time.Date(2026, 11, 22, 10, 30, 15, 123456000, time.UTC)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func day(s string) msgkit.Date {
	v, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return v
}

// same compares records: decimals by value and scale (0.0450 stays
// 0.0450), times as instants.
var same = cmp.Options{
	cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) && a.Exponent() == b.Exponent() }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
}

func requireKind(t *testing.T, err error, kind msgkit.Kind) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
}

// sample is an invoice with every kind of field set, its UID uid-partner:
// a test that stores two of one partner sets their UIDs apart.
func sample(partner int64) finance.Invoice {
	eur, _ := finance.CurrencyByCode("EUR")
	return finance.Invoice{
		InstanceID: 1, OwnerID: 2, UID: fmt.Sprintf("uid-%d", partner),
		Class: finance.SupplierInvoice, DataSource: finance.Postpaid, Domain: finance.Bulk, Selector: finance.PartPayment,
		Customer: finance.Partner{ID: partner, Name: "ACME", ShortName: "acme", Attn: "Ann", Address: "Main 1", Address2: "c/o X",
			Post: "3000", City: "Bern", POBox: "12", VatNumber: "CHE-1", Country: 756, Type: "supplier"},
		InvType: 3, TemplateID: 4, Lang: "de",
		InvNumberFix: "S-1", SupplierInvNumber: "S-1", InvNumber: "2026/1", InvPeriod: "2026-10", OwnerVatNumber: "DE-9",
		InvDate: day("2026-11-01"), InvoicingDate: day("2026-11-02"), DeliveryDate: day("2026-11-01"), InvDueDate: day("2026-12-01"),
		InvPeriodStart: day("2026-10-01"), InvPeriodEnd: day("2026-10-31"),
		Currency: eur, VatInPrice: finance.Gross, VatInTotal: 1, VatPercent: d("19.60"), CashRound: true,
		Amounts: finance.Amounts{AmountNoVat: d("100.0450"), AmountVat: d("119.65"), Vat: d("19.6050"), Rounding: d("0.00"),
			Total: d("119.65"), TotalPaid: d("0.00"), TotalUnpaid: d("119.65")},
		Status: finance.Approved, PaymentStatus: finance.PaymentOpen, SyncStatus: finance.SyncDone, DocsDeliveryStatus: finance.DeliverySent,
		CollectionMode: "none", CollectionLeadID: 5, NettingInvoiceID: 6, ReminderStatus: "enabled", Comment: "ünïcode ✓",
		DocumentSync: json.RawMessage(`{"ext":"X-1","n":[1,2]}`),
		Items: []finance.Item{{Name: "sms", ItemType: 1, Quantity: d("1000"), QuantityMore: d("0"), QuantityMode: 2, MeasureUnit: 3,
			Price: d("0.1196"), VatPercent: d("19.6"), Status: "active", DataSourceID: 8, DataSourceForeignKey: "fk", DtsSelectorID: 9,
			TotalNoVat: d("100.00"), TotalVat: d("119.60")}},
		Payment:      &finance.Payment{FullyPaid: false, PaymentType: 1, PaymentDate: day("2026-11-03"), Comment: "c", BankAccountID: 4, PaymentReference: "ref"},
		SourceRecord: &finance.SourceRecord{BillingRecordID: 10, CreditRecordID: 11},
		InsertDt:     t0, StatusDt: t0, SyncStatusDt: t0.Add(time.Minute), DeliveryDt: t0.Add(2 * time.Minute),
	}
}

func testPartners(t *testing.T, s finance.Store) {
	ctx := t.Context()
	_, err := s.Partner(ctx, 7)
	requireKind(t, err, msgkit.NotFound)
	p := finance.Partner{ID: 7, Name: "ACME", ShortName: "acme", City: "Bern", Country: 756, Type: "customer"}
	if err := s.PutPartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.City = "Zürich"
	if err := s.PutPartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.Partner(ctx, 7)
	if err != nil || got != p {
		t.Fatalf("Partner = %+v, %v; want %+v", got, err, p)
	}
}

func testInvoiceRoundTrip(t *testing.T, s finance.Store) {
	ctx := t.Context()
	var last finance.InvoiceID
	for i := range 3 {
		want := sample(int64(i + 1))
		got, err := s.CreateInvoice(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID <= last {
			t.Fatalf("id %d after %d, want ascending", got.ID, last)
		}
		last = got.ID
		want.ID = got.ID
		if diff := cmp.Diff(want, got, same); diff != "" {
			t.Fatalf("CreateInvoice returned (-want +got):\n%s", diff)
		}
		read, err := s.Invoice(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, read, same); diff != "" {
			t.Fatalf("Invoice read back (-want +got):\n%s", diff)
		}
	}
	// Zero values and nil parts come back as they went.
	bare := finance.Invoice{UID: "uid-bare", Class: finance.CustomerInvoice, Status: finance.Draft, Customer: finance.Partner{ID: 1}, InsertDt: t0, StatusDt: t0}
	got, err := s.CreateInvoice(ctx, bare)
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.Invoice(ctx, got.ID)
	bare.ID = got.ID
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bare, read, same); diff != "" {
		t.Fatalf("a bare invoice read back (-want +got):\n%s", diff)
	}
}

func testInvoiceNotFound(t *testing.T, s finance.Store) {
	ctx := t.Context()
	_, err := s.Invoice(ctx, 404)
	requireKind(t, err, msgkit.NotFound)
	_, err = s.UpdateInvoice(ctx, 404, func(inv finance.Invoice) (finance.Invoice, error) { return inv, nil })
	requireKind(t, err, msgkit.NotFound)
}

// Concurrent updates of one invoice each see the one before.
func testUpdateIsAtomic(t *testing.T, s finance.Store) {
	ctx := t.Context()
	inv, err := s.CreateInvoice(ctx, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := s.UpdateInvoice(ctx, inv.ID, func(stored finance.Invoice) (finance.Invoice, error) {
				stored.TotalPaid = stored.TotalPaid.Add(d("1.00"))
				return stored, nil
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Invoice(ctx, inv.ID)
	if err != nil || !got.TotalPaid.Equal(d("16.00")) {
		t.Fatalf("after %d updates: totalPaid %s, %v; want 16.00", n, got.TotalPaid, err)
	}
}

func testUpdateErrorStoresNothing(t *testing.T, s finance.Store) {
	ctx := t.Context()
	inv, err := s.CreateInvoice(ctx, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	boom := msgkit.New(msgkit.Conflict, "nope", "nope")
	_, err = s.UpdateInvoice(ctx, inv.ID, func(stored finance.Invoice) (finance.Invoice, error) {
		stored.Comment = "changed"
		return stored, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateInvoice = %v, want the change's error", err)
	}
	got, _ := s.Invoice(ctx, inv.ID)
	if got.Comment != inv.Comment {
		t.Fatalf("a failed change stored %q", got.Comment)
	}
	// A change may not move the invoice to another id.
	updated, err := s.UpdateInvoice(ctx, inv.ID, func(stored finance.Invoice) (finance.Invoice, error) {
		stored.ID, stored.Comment = 999, "kept"
		return stored, nil
	})
	if err != nil || updated.ID != inv.ID || updated.Comment != "kept" {
		t.Fatalf("UpdateInvoice with a changed id = %d %q, %v", updated.ID, updated.Comment, err)
	}
}

// What a caller does to a record it passed in or got back does not reach
// the store.
func testCopies(t *testing.T, s finance.Store) {
	ctx := t.Context()
	in := sample(1)
	inv, err := s.CreateInvoice(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Items[0].Name, in.Payment.Comment, in.DocumentSync[2] = "x", "x", 'X'
	inv.Items[0].Name, inv.SourceRecord.BillingRecordID = "y", 0
	got, _ := s.Invoice(ctx, inv.ID)
	if got.Items[0].Name != "sms" || got.Payment.Comment != "c" || got.SourceRecord.BillingRecordID != 10 || string(got.DocumentSync) != `{"ext":"X-1","n":[1,2]}` {
		t.Fatalf("the store kept a caller's change: %+v", got)
	}
}

func testList(t *testing.T, s finance.Store) {
	ctx := t.Context()
	type row struct {
		partner int64
		status  finance.Status
		pay     finance.PaymentStatus
		total   string
		date    string
	}
	rows := []row{
		{1, finance.Approved, finance.PaymentOpen, "120.00", "2026-11-01"},
		{1, finance.Draft, finance.PaymentNone, "80.50", "2026-11-03"},
		{2, finance.Approved, finance.PaymentClosed, "300.00", "2026-10-15"},
		{2, finance.Deleted, finance.PaymentNone, "999.00", "2026-11-05"},
		{3, finance.Approved, finance.PaymentOnHold, "-50.00", "2026-11-02"},
		{1, finance.Approved, finance.PaymentOpen, "120.00", "2026-11-04"},
	}
	var ids []finance.InvoiceID
	for i, r := range rows {
		inv := sample(r.partner)
		inv.UID = fmt.Sprintf("uid-list-%d", i)
		inv.Status, inv.PaymentStatus, inv.Total, inv.InvDate = r.status, r.pay, d(r.total), day(r.date)
		got, err := s.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got.ID)
	}
	all := finance.Scope{All: true}
	str := func(v string) msgkit.Value { return msgkit.StringValue(v) }
	numv := func(v string) msgkit.Value { n, _ := msgkit.NumberValue(v); return n }
	tests := []struct {
		name  string
		q     msgkit.ListQuery
		scope finance.Scope
		want  []int // indexes into rows
		total int
	}{
		{"everything but the deleted, by id", msgkit.ListQuery{}, all, []int{0, 1, 2, 4, 5}, 5},
		{"own partners only", msgkit.ListQuery{}, finance.Scope{Partners: []int64{2, 3}}, []int{2, 4}, 2},
		{"no partners", msgkit.ListQuery{}, finance.Scope{}, nil, 0},
		{"status eq", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "status", Op: msgkit.OpEq, Values: []msgkit.Value{str("draft")}}}}, all, []int{1}, 1},
		{"paymentStatus in", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "paymentStatus", Op: msgkit.OpIn, Values: []msgkit.Value{str("open"), str("on-hold")}}}}, all, []int{0, 4, 5}, 3},
		{"total gt, numerically", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "total", Op: msgkit.OpGt, Values: []msgkit.Value{numv("100")}}}}, all, []int{0, 2, 5}, 3},
		{"invDate between", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "invDate", Op: msgkit.OpBetween,
			Values: []msgkit.Value{msgkit.DateValue(day("2026-11-01")), msgkit.DateValue(day("2026-11-03"))}}}}, all, []int{0, 1, 4}, 3},
		{"sorted by -total, then id", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "total", Desc: true}}}, all, []int{2, 0, 5, 1, 4}, 5},
		{"a page", msgkit.ListQuery{PageNumber: 2, PageSize: 2, Sort: []msgkit.SortKey{{Attr: "invDate"}}}, all, []int{4, 1}, 5},
		{"two filters and a sort", msgkit.ListQuery{Filters: []msgkit.Filter{
			{Attr: "custID", Op: msgkit.OpEq, Values: []msgkit.Value{numv("1")}},
			{Attr: "status", Op: msgkit.OpEq, Values: []msgkit.Value{str("approved")}}},
			Sort: []msgkit.SortKey{{Attr: "invDate", Desc: true}}}, all, []int{5, 0}, 2},
	}
	for _, tc := range tests {
		page, err := s.ListInvoices(ctx, tc.q, tc.scope, msgkit.Date{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []finance.InvoiceID
		for _, inv := range page.Items {
			got = append(got, inv.ID)
		}
		var want []finance.InvoiceID
		for _, i := range tc.want {
			want = append(want, ids[i])
		}
		if !slices.Equal(got, want) || page.Total != tc.total {
			t.Errorf("%s: ids %v total %d, want %v total %d", tc.name, got, page.Total, want, tc.total)
		}
	}
}
