package financetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit/finance"
)

// runFileStoreTests is the contract of a finance.FileStore: records come
// back whole, with ascending ids, listed per invoice in id order.
func runFileStoreTests(t *testing.T, newStore func(t *testing.T) finance.FileStore) {
	t.Helper()
	t.Run("Files", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := t.Context()
		none, err := s.Files(ctx, 1)
		if err != nil || len(none) != 0 {
			t.Fatalf("Files of an invoice without any = %v, %v", none, err)
		}
		rec := finance.FileRecord{InvoiceID: 1, FileTypeID: finance.SupplierInvoiceFileTypeID, FileTypeCode: finance.SupplierInvoiceFileTypeCode,
			Filename: "Rechnung März.PDF", StoredName: "Rechnung März.pdf", BlobKey: "invoices/1/abc", ContentType: "application/pdf",
			Size: 12345, Status: "available", StatusInfo: "", StatusDt: t0, StorageStatus: "stored", StorageDt: t0.Add(time.Second), InsertDt: t0}
		var want []finance.FileRecord
		var last finance.FileID
		for i, inv := range []finance.InvoiceID{1, 2, 1} {
			r := rec
			r.InvoiceID, r.Size = inv, int64(i)
			got, err := s.AddFile(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID <= last {
				t.Fatalf("file id %d after %d, want ascending", got.ID, last)
			}
			last, r.ID = got.ID, got.ID
			if diff := cmp.Diff(r, got, same); diff != "" {
				t.Fatalf("AddFile returned (-want +got):\n%s", diff)
			}
			if inv == 1 {
				want = append(want, r)
			}
		}
		got, err := s.Files(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, same); diff != "" {
			t.Fatalf("Files(1) (-want +got):\n%s", diff)
		}
	})
}
