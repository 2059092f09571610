package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var _ finance.BlobStore = (*BlobStore)(nil)

// blobChunkSize is the most content one row of finance_blob_chunks
// holds: what Put and a reader keep in memory at a time, and few enough
// rows (80 for a 10 MB file) for reads of one chunk per query.
const blobChunkSize = 128 << 10

// BlobStore keeps the bytes of uploaded files (finance.BlobStore): a row
// of finance_blobs per blob and its content in numbered chunks (see
// migration 0007). Memory stays within a chunk or two whatever the size.
type BlobStore struct {
	pool *pgxpool.Pool
}

// Blobs is the store of uploaded files' bytes.
func (db *DB) Blobs() *BlobStore { return &BlobStore{pool: db.pool} }

// Put inserts key's row first, so a key in use is a Conflict before r is
// read (a Put of the same key in flight makes it wait for that one's
// outcome), then copies r's chunks with COPY, which pgx streams as it
// encodes them, and sets the size; all in one transaction, so a failed
// Put leaves nothing. It is not retried: r cannot be read again.
func (s *BlobStore) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return 0, err
	}
	src := &chunkSource{ctx: ctx, key: key, r: r, buf: make([]byte, blobChunkSize)}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO finance_blobs (key, size) VALUES ($1, 0)", key); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"finance_blob_chunks"}, []string{"key", "seq", "data"}, src); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE finance_blobs SET size = $2 WHERE key = $1", key, src.n)
		return err
	})
	if err != nil {
		if src.err != nil {
			return 0, fmt.Errorf("pgstore: reading blob %s: %w", key, src.err)
		}
		return 0, classify(err, "blob", "blob "+key)
	}
	return src.n, nil
}

// chunkSource is the CopyFromSource of a blob's chunks, cut from r. pgx
// encodes each row before it asks for the next, so one buffer serves
// every chunk.
type chunkSource struct {
	ctx   context.Context
	key   string
	r     io.Reader
	buf   []byte
	chunk []byte
	seq   int32
	n     int64
	err   error // r's failure, or ctx's
	done  bool
}

func (c *chunkSource) Next() bool {
	if c.done {
		return false
	}
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return false
	}
	n, err := io.ReadFull(c.r, c.buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		c.done = true
	case err != nil:
		c.err = err
		return false
	}
	if n == 0 {
		return false
	}
	if c.chunk != nil {
		c.seq++
	}
	c.chunk = c.buf[:n]
	c.n += int64(n)
	return true
}

func (c *chunkSource) Values() ([]any, error) { return []any{c.key, c.seq, c.chunk}, nil }
func (c *chunkSource) Err() error             { return c.err }

// Open reads the blob a chunk per query, so no connection stays taken
// while a caller reads slowly. The reader uses ctx for its queries.
func (s *BlobStore) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return nil, err
	}
	var size int64
	err := s.pool.QueryRow(ctx, "SELECT size FROM finance_blobs WHERE key = $1", key).Scan(&size)
	if err != nil {
		return nil, classify(err, "blob", "blob "+key)
	}
	return &blobReader{ctx: ctx, pool: s.pool, key: key, size: size}, nil
}

// blobReader reads a blob's chunks in order. The size read by Open tells
// the end of the blob from chunks deleted meanwhile, which fail the read.
type blobReader struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	key    string
	size   int64
	read   int64 // bytes of the chunks fetched
	seq    int32
	chunk  []byte // what is left of the current chunk
	store  []byte // the chunk buffer, reused
	closed bool
}

func (b *blobReader) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errors.New("pgstore: read of a closed blob")
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(b.chunk) == 0 {
		if b.read == b.size {
			return 0, io.EOF
		}
		if err := b.fetch(); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.chunk)
	b.chunk = b.chunk[n:]
	return n, nil
}

func (b *blobReader) fetch() error {
	rows, err := b.pool.Query(b.ctx, "SELECT data FROM finance_blob_chunks WHERE key = $1 AND seq = $2", b.key, b.seq)
	if err != nil {
		return storageError(err, "blob ", b.key)
	}
	found := false
	for rows.Next() {
		var data pgtype.DriverBytes // valid until rows.Next, so copied
		if err := rows.Scan(&data); err != nil {
			rows.Close()
			return storageError(err, "blob ", b.key)
		}
		b.store = append(b.store[:0], data...)
		found = true
	}
	if err := rows.Err(); err != nil {
		return storageError(err, "blob ", b.key)
	}
	switch {
	case !found:
		return msgkit.Wrap(io.ErrUnexpectedEOF, msgkit.Internal, CodeStorage,
			fmt.Sprintf("blob %s ended after %d of %d bytes: it was deleted while being read", b.key, b.read, b.size))
	case len(b.store) == 0 || b.read+int64(len(b.store)) > b.size:
		return storageError(fmt.Errorf("chunk %d of %d bytes after %d of %d", b.seq, len(b.store), b.read, b.size), "blob ", b.key)
	}
	b.seq++
	b.read += int64(len(b.store))
	b.chunk = b.store
	return nil
}

func (b *blobReader) Close() error {
	b.closed, b.chunk, b.store = true, nil, nil
	return nil
}

// Delete removes the blob and, by the foreign key, its chunks.
func (s *BlobStore) Delete(ctx context.Context, key string) error {
	if err := finance.CheckBlobKey(key); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM finance_blobs WHERE key = $1", key)
	if err != nil {
		return storageError(err, "blob ", key)
	}
	if tag.RowsAffected() == 0 {
		return finance.BlobNotFound(key)
	}
	return nil
}
