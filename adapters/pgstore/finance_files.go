package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit/finance"
)

var _ finance.FileStore = (*FinanceStore)(nil)

const fileColumns = `id, invoice_id, file_type_id, file_type_code, filename, stored_name, blob_key, content_type, size,
	status, status_info, status_dt, storage_status, storage_dt, insert_dt`

// AddFile stores a file record under the next id of the table's identity.
// Text PostgreSQL cannot hold is Invalid.
func (s *FinanceStore) AddFile(ctx context.Context, rec finance.FileRecord) (finance.FileRecord, error) {
	if err := invalidText("file", "filename", rec.Filename, rec.StoredName, rec.BlobKey, rec.ContentType,
		rec.FileTypeCode, rec.Status, rec.StatusInfo, rec.StorageStatus); err != nil {
		return finance.FileRecord{}, err
	}
	const q = `INSERT INTO finance_files (invoice_id, file_type_id, file_type_code, filename, stored_name, blob_key,
			content_type, size, status, status_info, status_dt, storage_status, storage_dt, insert_dt)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		RETURNING ` + fileColumns
	rows, err := s.pool.Query(ctx, q, int64(rec.InvoiceID), rec.FileTypeID, rec.FileTypeCode, rec.Filename, rec.StoredName,
		rec.BlobKey, rec.ContentType, rec.Size, rec.Status, rec.StatusInfo, dbTime(rec.StatusDt), rec.StorageStatus,
		dbTime(rec.StorageDt), dbTime(rec.InsertDt))
	if err != nil {
		return finance.FileRecord{}, classify(err, "file", "invoice file")
	}
	got, err := pgx.CollectExactlyOneRow(rows, scanFile)
	if err != nil {
		return finance.FileRecord{}, classify(err, "file", "invoice file")
	}
	return got, nil
}

// Files lists an invoice's file records by id.
func (s *FinanceStore) Files(ctx context.Context, invoice finance.InvoiceID) ([]finance.FileRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+fileColumns+` FROM finance_files WHERE invoice_id = $1 ORDER BY id`, int64(invoice))
	if err != nil {
		return nil, storageError(err, "files of ", invoiceWhat(invoice))
	}
	out, err := pgx.CollectRows(rows, scanFile)
	if err != nil {
		return nil, storageError(err, "files of ", invoiceWhat(invoice))
	}
	return out, nil
}

func scanFile(row pgx.CollectableRow) (finance.FileRecord, error) {
	var r finance.FileRecord
	var id, invoice int64
	err := row.Scan(&id, &invoice, &r.FileTypeID, &r.FileTypeCode, &r.Filename, &r.StoredName, &r.BlobKey, &r.ContentType,
		&r.Size, &r.Status, &r.StatusInfo, &r.StatusDt, &r.StorageStatus, &r.StorageDt, &r.InsertDt)
	r.ID, r.InvoiceID = finance.FileID(id), finance.InvoiceID(invoice)
	r.StatusDt, r.StorageDt, r.InsertDt = r.StatusDt.UTC(), r.StorageDt.UTC(), r.InsertDt.UTC()
	return r, err
}
