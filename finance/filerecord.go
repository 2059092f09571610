package finance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"time"
)

// FileID identifies a stored invoice file.
type FileID int64

// FileRecord is a file stored for an invoice: what the upload answers and
// the files listing lists.
type FileRecord struct {
	ID            FileID
	InvoiceID     InvoiceID
	FileTypeID    int64  // dataSourceFileTypeId
	FileTypeCode  string // dataSourceFileTypeCodeName
	Filename      string // as uploaded
	StoredName    string // fileSystemFileFilename / fsFilename
	BlobKey       string
	ContentType   string
	Size          int64
	Status        string // available
	StatusInfo    string
	StatusDt      time.Time
	StorageStatus string // fileSystemFileStatus: stored
	StorageDt     time.Time
	InsertDt      time.Time
}

// The one file type uploads have: a supplier's invoice document.
const (
	SupplierInvoiceFileTypeID   = 1
	SupplierInvoiceFileTypeCode = "SUPPLIER-INVOICE"
)

// FileStore keeps the records of invoice files (their bytes are in a
// BlobStore).
type FileStore interface {
	// AddFile stores rec under a new id, larger than every id before it.
	AddFile(ctx context.Context, rec FileRecord) (FileRecord, error)
	// Files lists an invoice's files by id.
	Files(ctx context.Context, invoice InvoiceID) ([]FileRecord, error)
}

// Upload receives a file for an invoice in scope that is not deleted:
// its bytes go to the blob store (see Receive) under a key of their own,
// its record to the file store. A record that cannot be stored takes its
// blob with it.
func (s *Service) Upload(ctx context.Context, scope Scope, id InvoiceID, filename string, r io.Reader) (FileRecord, error) {
	if !s.HasFiles() {
		return FileRecord{}, notServed("invoice files")
	}
	blobs, files := s.blobs, s.files
	if _, err := s.Get(ctx, scope, id); err != nil {
		return FileRecord{}, err
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:]) // never fails (crypto/rand)
	key := "invoices/" + strconv.FormatInt(int64(id), 10) + "/" + hex.EncodeToString(nonce[:])
	got, err := Receive(ctx, blobs, key, filename, r)
	if err != nil {
		return FileRecord{}, err
	}
	_, now := s.clock()
	rec := FileRecord{InvoiceID: id, FileTypeID: SupplierInvoiceFileTypeID, FileTypeCode: SupplierInvoiceFileTypeCode,
		Filename: got.Filename, StoredName: got.StoredName, BlobKey: got.Key, ContentType: got.ContentType, Size: got.Size,
		Status: "available", StatusDt: now, StorageStatus: "stored", StorageDt: now, InsertDt: now}
	stored, err := files.AddFile(ctx, rec)
	if err != nil {
		if derr := blobs.Delete(context.WithoutCancel(ctx), got.Key); derr != nil {
			s.log.ErrorContext(ctx, "an invoice file's blob outlived its failed record", "key", got.Key, "err", derr)
		}
		return FileRecord{}, err
	}
	return stored, nil
}

// Files lists the files of an invoice in scope that is not deleted.
func (s *Service) Files(ctx context.Context, scope Scope, id InvoiceID) ([]FileRecord, error) {
	if s.files == nil {
		return nil, notServed("invoice files")
	}
	if _, err := s.Get(ctx, scope, id); err != nil {
		return nil, err
	}
	recs, err := s.files.Files(ctx, id)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []FileRecord{}
	}
	return recs, nil
}
