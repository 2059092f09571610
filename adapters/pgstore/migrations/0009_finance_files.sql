-- The records of invoice files (their bytes are blobs, 0007): one row per
-- upload, ids ascending, listed per invoice. No foreign key to the
-- invoice: invoices are never deleted physically, and the service checks
-- the invoice before it stores a file.
CREATE TABLE finance_files (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id     bigint      NOT NULL,
    file_type_id   bigint      NOT NULL,
    file_type_code text        NOT NULL,
    filename       text        NOT NULL,
    stored_name    text        NOT NULL,
    blob_key       text        NOT NULL,
    content_type   text        NOT NULL,
    size           bigint      NOT NULL,
    status         text        NOT NULL,
    status_info    text        NOT NULL,
    status_dt      timestamptz NOT NULL,
    storage_status text        NOT NULL,
    storage_dt     timestamptz NOT NULL,
    insert_dt      timestamptz NOT NULL
);

CREATE INDEX finance_files_invoice_idx ON finance_files (invoice_id, id);
