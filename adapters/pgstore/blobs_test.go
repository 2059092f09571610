package pgstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/officefile/officefiletest"
)

// The tests below cover what is particular to PostgreSQL; the contract
// suite (financetest.Run in TestFinanceContract) covers the rest.

// blobRows counts the rows of the two blob tables.
func blobRows(t *testing.T, s *BlobStore) (blobs, chunks int) {
	t.Helper()
	err := s.pool.QueryRow(t.Context(),
		"SELECT (SELECT count(*) FROM finance_blobs), (SELECT count(*) FROM finance_blob_chunks)").Scan(&blobs, &chunks)
	if err != nil {
		t.Fatal(err)
	}
	return blobs, chunks
}

func TestBlobChunks(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Blobs()
	content := bytes.Repeat([]byte("0123456789abcdef"), (3*blobChunkSize+100)/16+1)[:3*blobChunkSize+100]
	n, err := s.Put(t.Context(), "k", iotest.OneByteReader(bytes.NewReader(content[:blobChunkSize+1])))
	if err != nil || n != blobChunkSize+1 {
		t.Fatalf("Put: %d, %v", n, err)
	}
	if _, err := s.Put(t.Context(), "big", bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	// Full chunks, whatever the reader's pieces; in order; the size kept.
	rows, err := s.pool.Query(t.Context(),
		"SELECT b.key, b.size, c.seq, length(c.data) FROM finance_blobs b JOIN finance_blob_chunks c USING (key) ORDER BY b.key, c.seq")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var (
			key            string
			size           int64
			seq, chunkSize int
		)
		if err := rows.Scan(&key, &size, &seq, &chunkSize); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(key, size, seq, chunkSize))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	big, c := len(content), blobChunkSize
	want := []string{
		fmt.Sprint("big", big, 0, c), fmt.Sprint("big", big, 1, c), fmt.Sprint("big", big, 2, c), fmt.Sprint("big", big, 3, 100),
		fmt.Sprint("k", c+1, 0, c), fmt.Sprint("k", c+1, 1, 1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

// TestBlobFailedPutLeavesNoRows: a Put that fails after some chunks
// leaves no row in either table.
func TestBlobFailedPutLeavesNoRows(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Blobs()
	boom := errors.New("boom")
	_, err := s.Put(t.Context(), "k", io.MultiReader(bytes.NewReader(make([]byte, 3*blobChunkSize)), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want the reader's", err)
	}
	if b, c := blobRows(t, s); b != 0 || c != 0 {
		t.Errorf("%d blobs and %d chunks left by a failed Put", b, c)
	}
}

// TestBlobConflictReadsNothing: a key in use is refused before the
// content is read, so an upload is not consumed for nothing.
func TestBlobConflictReadsNothing(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Blobs()
	if _, err := s.Put(t.Context(), "k", strings.NewReader("first")); err != nil {
		t.Fatal(err)
	}
	r := &countReader{r: strings.NewReader("second")}
	_, err := s.Put(t.Context(), "k", r)
	if !errors.Is(err, msgkit.Conflict) || msgkit.CodeOf(err) != "blob_exists" {
		t.Fatalf("error %v, want Conflict blob_exists", err)
	}
	if r.n != 0 {
		t.Errorf("read %d bytes of a Put refused as a Conflict", r.n)
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestBlobDeletedWhileRead: a reader whose next chunk was deleted fails;
// it does not end as if the blob were shorter.
func TestBlobDeletedWhileRead(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Blobs()
	if _, err := s.Put(t.Context(), "k", bytes.NewReader(make([]byte, 2*blobChunkSize))); err != nil {
		t.Fatal(err)
	}
	rc, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	if err == nil || msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("read %d more bytes of a deleted blob, error %v; want an Internal error", n, err)
	}
	if b, c := blobRows(t, s); b != 0 || c != 0 {
		t.Errorf("%d blobs and %d chunks after Delete", b, c)
	}
}

// TestBlobReceive runs an upload through Receive into PostgreSQL,
// including a .doc check that reads the blob back.
func TestBlobReceive(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Blobs()
	content := officefiletest.CompoundFile{Root: []string{"WordDocument"}, Pad: 2 << 20}.Bytes()
	got, err := finance.Receive(t.Context(), s, "invoices/1/files/1", "invoice.doc", bytes.NewReader(content))
	if err != nil || got.Size != int64(len(content)) {
		t.Fatalf("Receive: %+v, %v", got, err)
	}
	_, err = finance.Receive(t.Context(), s, "invoices/1/files/2", "invoice.xls", bytes.NewReader(content))
	if !errors.Is(err, msgkit.Invalid) {
		t.Fatalf("Receive of a Word file as .xls: %v, want Invalid", err)
	}
	if b, c := blobRows(t, s); b != 1 || c != (len(content)+blobChunkSize-1)/blobChunkSize {
		t.Errorf("%d blobs and %d chunks, want the first file's only", b, c)
	}
}
