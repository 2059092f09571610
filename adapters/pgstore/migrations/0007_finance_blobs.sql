-- finance blobs: the bytes of uploaded files (finance.BlobStore).
-- A blob is a row of finance_blobs and its content in chunks of at most
-- 128 KiB, numbered from 0: each chunk is written once, where appending
-- to one bytea would rewrite the whole value (and its WAL) per chunk, and
-- the primary key reads the chunks back in order one at a time.

CREATE TABLE finance_blobs (
    key        text        PRIMARY KEY,
    size       bigint      NOT NULL CHECK (size >= 0),
    -- For operators only; no method returns it.
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE finance_blob_chunks (
    key  text    NOT NULL REFERENCES finance_blobs (key) ON DELETE CASCADE,
    seq  integer NOT NULL CHECK (seq >= 0),
    data bytea   NOT NULL,
    PRIMARY KEY (key, seq)
);

-- Uploads are PDFs, images and ZIP-based documents, compressed already:
-- keep chunks out of line without trying to compress them again.
ALTER TABLE finance_blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
