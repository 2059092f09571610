package finance_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
)

func ptr[T any](v T) *T { return &v }

func newService(t *testing.T) (*finance.Service, finance.Store) {
	t.Helper()
	return newServiceWith(t, func(*finance.Options, *memstore.FinanceStore) {})
}

// newServiceWith is newService with the options set changes first: the
// parts a service may be built with.
func newServiceWith(t *testing.T, set func(*finance.Options, *memstore.FinanceStore)) (*finance.Service, finance.Store) {
	t.Helper()
	store := memstore.New().Finance()
	for _, p := range []finance.Partner{{ID: 7, Name: "ACME", City: "Bern"}, {ID: 8, Name: "Globex"}} {
		if err := store.PutPartner(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	clock := func() time.Time { return time.Date(2025, 1, 31, 23, 30, 0, 0, time.UTC) }
	// In Tokyo it is already 1 February: default dates follow the zone.
	o := finance.Options{Clock: clock, Location: time.FixedZone("JST", 9*3600)}
	set(&o, store)
	return finance.NewService(store, o), store
}

func supplier(cust int64) finance.Input {
	d := func(s string) *decimal.Decimal { return ptr(decimal.RequireFromString(s)) }
	day := func(s string) *msgkit.Date { v, _ := msgkit.ParseDate(s); return &v }
	return finance.Input{CustID: ptr(cust), Currency: ptr(978), InvType: ptr(int64(3)), InvDate: day("2025-01-20"),
		InvDueDate: day("2025-02-20"), SupplierInvNumber: ptr("S-1"), AmountNoVat: d("100.00"), AmountVat: d("120.00"), Total: d("120.00")}
}

func TestServiceLifecycle(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	acmeOnly := finance.Scope{Partners: []int64{7}}
	inv, err := svc.Create(ctx, all, finance.SupplierInvoice, supplier(7))
	if err != nil {
		t.Fatal(err)
	}
	if inv.ID == 0 || inv.Customer.Name != "ACME" || inv.DeliveryDate.String() != "2025-02-01" {
		t.Fatalf("created %+v", inv)
	}
	if _, err := svc.Create(ctx, all, finance.SupplierInvoice, supplier(99)); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("an unknown partner: %v", err)
	}
	if _, err := svc.Create(ctx, acmeOnly, finance.SupplierInvoice, supplier(8)); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("another's partner: %v", err)
	}
	other, err := svc.Create(ctx, all, finance.SupplierInvoice, supplier(8))
	if err != nil {
		t.Fatal(err)
	}
	// Another scope's invoice looks like no invoice.
	if _, err := svc.Get(ctx, acmeOnly, other.ID); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("Get out of scope: %v", err)
	}
	if _, err := svc.Update(ctx, acmeOnly, other.ID, finance.Input{Comment: ptr("x")}); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("Update out of scope: %v", err)
	}
	up, err := svc.Update(ctx, acmeOnly, inv.ID, finance.Input{Comment: ptr("checked"), InvDueDate: ptr(msgkit.Date{Year: 2025, Month: 3, Day: 1})})
	if err != nil || up.Comment != "checked" {
		t.Fatalf("update: %+v, %v", up, err)
	}
	page, err := svc.List(ctx, all, msgkit.ListQuery{})
	if err != nil || page.Total != 2 {
		t.Fatalf("list: %d, %v", page.Total, err)
	}
	if err := svc.Delete(ctx, all, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, all, other.ID); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("Get deleted: %v", err)
	}
	if page, _ := svc.List(ctx, all, msgkit.ListQuery{}); page.Total != 1 {
		t.Errorf("the deleted invoice is listed: %d", page.Total)
	}
	// A change of many: each invoice its own result.
	res := svc.SetSyncStatusMany(ctx, all, []finance.InvoiceID{inv.ID, other.ID, 999}, finance.SyncChange{Status: "exported"})
	if len(res) != 3 || res[0].OpStatus != "OK" || res[1].OpStatus != "ERROR" || msgkit.CodeOf(res[2].Err) != finance.CodeInvoiceNotFound {
		t.Errorf("many: %+v", res)
	}
	if got, _ := svc.Get(ctx, all, inv.ID); got.SyncStatus != finance.SyncExported {
		t.Errorf("sync status %s", got.SyncStatus)
	}
	if _, err := svc.SetSyncStatus(ctx, all, inv.ID, finance.SyncChange{Status: "bogus"}); msgkit.CodeOf(err) != finance.CodeUnknownStatus {
		t.Errorf("unknown sync: %v", err)
	}
	if got, err := svc.SetDeliveryStatus(ctx, all, inv.ID, "sent"); err != nil || got.DocsDeliveryStatus != finance.DeliverySent {
		t.Errorf("delivery: %v", err)
	}
	var e *msgkit.Error
	if _, err := svc.SetDeliveryStatus(ctx, all, inv.ID, "lost"); !errors.As(err, &e) || e.Code != finance.CodeInvalidValue {
		t.Errorf("delivery lost: %v", err)
	}
}

// The listing spec reads the documents' filters: equality and operator
// forms, numbers compared as numbers, and q searching names.
func TestInvoiceSpec(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	for _, total := range []string{"120.00", "80.00"} {
		in := supplier(7)
		in.AmountVat, in.Total = ptr(decimal.RequireFromString(total)), ptr(decimal.RequireFromString(total))
		in.AmountNoVat = ptr(decimal.RequireFromString(total).Sub(decimal.RequireFromString("10")))
		if _, err := svc.Create(ctx, finance.Scope{All: true}, finance.SupplierInvoice, in); err != nil {
			t.Fatal(err)
		}
	}
	q, err := msgkit.ParseListQuery(map[string][]string{"gt(total)": {"100"}, "paymentStatus": {"open"}, "sort": {"-total"}, "q": {"acm"}}, finance.InvoiceSpec())
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.List(ctx, finance.Scope{All: true}, q)
	if err != nil || page.Total != 1 || !page.Items[0].Total.Equal(decimal.RequireFromString("120")) {
		t.Fatalf("gt(total)=100: %+v, %v", page, err)
	}
	if _, err := msgkit.ParseListQuery(map[string][]string{"shoeSize": {"42"}}, finance.InvoiceSpec()); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("an unknown attribute: %v", err)
	}
}

// An upload stores the bytes and the record; a refused file leaves
// neither; another scope's invoice takes no file.
func TestServiceUpload(t *testing.T) {
	ctx := t.Context()
	blobs, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = blobs.Close() })
	svc, _ := newServiceWith(t, func(o *finance.Options, st *memstore.FinanceStore) { o.Files, o.Blobs = st, blobs })
	all := finance.Scope{All: true}
	inv, err := svc.Create(ctx, all, finance.SupplierInvoice, supplier(7))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Upload(ctx, all, inv.ID, `C:\scans\Rechnung.PDF`, bytes.NewReader(financetest.SampleFile(".pdf", 2000)))
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID == 0 || rec.Filename != "Rechnung.PDF" || rec.StoredName != "Rechnung.pdf" || rec.Size != 2000 || rec.Status != "available" ||
		rec.FileTypeCode != finance.SupplierInvoiceFileTypeCode {
		t.Fatalf("record %+v", rec)
	}
	r, err := blobs.Open(ctx, rec.BlobKey)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	_ = r.Close()
	if !bytes.Equal(got, financetest.SampleFile(".pdf", 2000)) {
		t.Errorf("the stored blob differs")
	}
	if _, err := svc.Upload(ctx, all, inv.ID, "x.pdf", bytes.NewReader(financetest.SampleFile(".png", 100))); msgkit.CodeOf(err) != finance.CodeInvalidFile {
		t.Errorf("a PNG named .pdf: %v", err)
	}
	if _, err := svc.Upload(ctx, finance.Scope{Partners: []int64{8}}, inv.ID, "x.pdf", bytes.NewReader(financetest.SampleFile(".pdf", 10))); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("another's invoice: %v", err)
	}
	list, err := svc.Files(ctx, all, inv.ID)
	if err != nil || len(list) != 1 || list[0].ID != rec.ID {
		t.Errorf("Files = %+v, %v; want the one stored", list, err)
	}
	if list, _ := svc.Files(ctx, all, inv.ID+100); list != nil {
		t.Errorf("files of an unknown invoice: %v", list)
	}
}

// A scope of some classes (a class-specific manage privilege) creates and
// changes documents of those classes only; another class's document is
// not found by its changes, as one out of scope is.
func TestServiceScopeClasses(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	inv, err := svc.Create(ctx, finance.Scope{All: true}, finance.SupplierInvoice, supplier(7))
	if err != nil {
		t.Fatal(err)
	}
	netting := finance.Scope{All: true, Classes: []finance.Class{finance.NettingInvoice}}
	if _, err := svc.Create(ctx, netting, finance.SupplierInvoice, supplier(7)); msgkit.KindOf(err) != msgkit.Forbidden || msgkit.CodeOf(err) != finance.CodeClassNotManaged {
		t.Errorf("create of another class: %v", err)
	}
	if err := svc.Delete(ctx, netting, inv.ID); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("delete of another class: %v", err)
	}
	if _, err := svc.SetDeliveryStatus(ctx, netting, inv.ID, "sent"); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("status change of another class: %v", err)
	}
	suppliers := finance.Scope{All: true, Classes: []finance.Class{finance.SupplierInvoice, finance.SupplierCrDbNote}}
	if _, err := svc.SetDeliveryStatus(ctx, suppliers, inv.ID, "sent"); err != nil {
		t.Errorf("status change of its class: %v", err)
	}
	// The classes do not narrow reading.
	if _, err := svc.Get(ctx, finance.Scope{All: true}, inv.ID); err != nil {
		t.Error(err)
	}
}

// A service tells which parts it was built with; the operations of a part
// it lacks answer Unavailable, and the others check their queries as the
// API does.
func TestServiceParts(t *testing.T) {
	ctx := t.Context()
	bare, _ := newService(t)
	if bare.HasBalances() || bare.HasSheets() || bare.HasFiles() || bare.HasDocuments() {
		t.Errorf("a bare service has parts")
	}
	all := finance.Scope{All: true}
	for name, err := range map[string]error{
		"Balances": func() error {
			_, err := bare.Balances(ctx, all, finance.BalanceOptions{}, msgkit.ListQuery{})
			return err
		}(),
		"Sheet": func() error {
			_, err := bare.Sheet(ctx, all, finance.SheetOptions{Partner: 7}, msgkit.ListQuery{})
			return err
		}(),
		"Files":     func() error { _, err := bare.Files(ctx, all, 1); return err }(),
		"Upload":    func() error { _, err := bare.Upload(ctx, all, 1, "a.pdf", bytes.NewReader(nil)); return err }(),
		"Documents": func() error { _, err := bare.Documents(ctx, all, finance.DocumentQuery{}); return err }(),
	} {
		if msgkit.KindOf(err) != msgkit.Unavailable || msgkit.CodeOf(err) != finance.CodeNotServed {
			t.Errorf("%s of a bare service: %v", name, err)
		}
	}
	if s, err := bare.ScopeFor(ctx, false, []msgkit.ServiceUUID{"a"}); err != nil || s.All || len(s.Partners) != 0 {
		t.Errorf("an -own scope without tenants: %+v, %v", s, err)
	}

	const tenant msgkit.ServiceUUID = "0b7e6a58-4f3c-4d2e-9a51-7c0f6f2b1a90"
	svc, _ := newServiceWith(t, func(o *finance.Options, st *memstore.FinanceStore) {
		o.Balances, o.Sheets, o.Documents, o.Tenants = st, st, st, st
		if err := st.SetPartnerTenant(ctx, 8, tenant); err != nil {
			t.Fatal(err)
		}
	})
	if !svc.HasBalances() || !svc.HasSheets() || svc.HasFiles() || !svc.HasDocuments() {
		t.Errorf("parts: balances %v, sheets %v, files %v, documents %v", svc.HasBalances(), svc.HasSheets(), svc.HasFiles(), svc.HasDocuments())
	}
	if s, err := svc.ScopeFor(ctx, false, []msgkit.ServiceUUID{tenant}); err != nil || s.All || !slices.Equal(s.Partners, []int64{8}) {
		t.Errorf("the tenant's scope: %+v, %v", s, err)
	}
	if s, _ := svc.ScopeFor(ctx, true, nil); !s.All {
		t.Errorf("the all scope: %+v", s)
	}
	if _, err := svc.Balances(ctx, all, finance.BalanceOptions{Group: []string{"shoeSize"}}, msgkit.ListQuery{}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("balances grouped by an unknown attribute: %v", err)
	}
	jan, feb := msgkit.Date{Year: 2025, Month: 1, Day: 1}, msgkit.Date{Year: 2025, Month: 2, Day: 1}
	if _, err := svc.Sheet(ctx, all, finance.SheetOptions{Partner: 7, Start: &feb, End: &jan}, msgkit.ListQuery{}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("a sheet ending before it starts: %v", err)
	}
	if page, err := svc.Sheet(ctx, all, finance.SheetOptions{Partner: 7, Start: &jan, End: &feb}, msgkit.ListQuery{}); err != nil || page.Total != 0 {
		t.Errorf("an empty sheet: %+v, %v", page, err)
	}
	if got := svc.Today(); got != feb {
		t.Errorf("Today = %s, want 2025-02-01 (Tokyo)", got)
	}
}
