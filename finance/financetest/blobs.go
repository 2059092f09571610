package financetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/officefile/officefiletest"
)

// runBlobStoreTests runs the contract of finance.BlobStore against stores
// made by newStore, one fresh, empty store per subtest. The subtests run
// in parallel, so newStore must give each its own store (a directory or a
// schema each).
func runBlobStoreTests(t *testing.T, newStore func(t *testing.T) finance.BlobStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s finance.BlobStore)
	}{
		{"RoundTrip", testBlobRoundTrip},
		{"Large", testBlobLarge},
		{"Conflict", testBlobConflict},
		{"NotFound", testBlobNotFound},
		{"Delete", testBlobDelete},
		{"FailedPutStoresNothing", testBlobFailedPut},
		{"FailedPutKeepsExisting", testBlobFailedPutKeepsExisting},
		{"CancelledPut", testBlobCancelledPut},
		{"Keys", testBlobKeys},
		{"InvalidKeys", testBlobInvalidKeys},
		{"ConcurrentPuts", testBlobConcurrentPuts},
		{"ReadWhileDeleted", testBlobReadWhileDeleted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// blobBytes returns n bytes that differ from one seed to another, so a
// store that mixes blobs up is caught.
func blobBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 1}).Read(b) // never fails
	return b
}

func blobPut(t *testing.T, s finance.BlobStore, key string, content []byte) {
	t.Helper()
	n, err := s.Put(t.Context(), key, bytes.NewReader(content))
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	if n != int64(len(content)) {
		t.Fatalf("Put(%q) size = %d, want %d", key, n, len(content))
	}
}

// read returns the blob under key.
func blobRead(t *testing.T, s finance.BlobStore, key string) []byte {
	t.Helper()
	rc, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	return got
}

func blobRequireContent(t *testing.T, s finance.BlobStore, key string, want []byte) {
	t.Helper()
	if got := blobRead(t, s, key); !bytes.Equal(got, want) {
		t.Fatalf("blob %q: %d bytes (sha256 %x), want %d bytes (sha256 %x)", key, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
	}
}

// blobRequireKind holds err to kind, and a NotFound or Conflict to the
// code finance's constructors give it.
func blobRequireKind(t *testing.T, err error, kind msgkit.Kind) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
	code := map[msgkit.Kind]string{msgkit.NotFound: finance.CodeBlobNotFound, msgkit.Conflict: finance.CodeBlobExists}[kind]
	if code != "" && msgkit.CodeOf(err) != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func blobRequireMissing(t *testing.T, s finance.BlobStore, key string) {
	t.Helper()
	rc, err := s.Open(t.Context(), key)
	if err == nil {
		rc.Close()
		t.Fatalf("Open(%q) succeeded, want NotFound", key)
	}
	blobRequireKind(t, err, msgkit.NotFound)
}

// testBlobRoundTrip stores sizes around the chunk and buffer sizes
// stores are likely to use, from readers that return little at a time,
// and checks the readers Open returns with iotest.TestReader.
func testBlobRoundTrip(t *testing.T, s finance.BlobStore) {
	for i, n := range []int{0, 1, 511, 512, 4096, 32<<10 + 1, 64 << 10, 128<<10 - 1, 128 << 10, 128<<10 + 1, 300 << 10} {
		key := fmt.Sprintf("round/%d", n)
		content := blobBytes(uint64(i), n)
		got, err := s.Put(t.Context(), key, iotest.HalfReader(bytes.NewReader(content)))
		if err != nil {
			t.Fatalf("Put %d bytes: %v", n, err)
		}
		if got != int64(n) {
			t.Fatalf("Put %d bytes: size %d", n, got)
		}
		rc, err := s.Open(t.Context(), key)
		if err != nil {
			t.Fatalf("Open %d bytes: %v", n, err)
		}
		if err := iotest.TestReader(rc, content); err != nil {
			t.Errorf("reading %d bytes back: %v", n, err)
		}
		if err := rc.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// testBlobLarge stores one more byte than finance.MaxFileSize, from a
// reader that yields its bytes as it goes.
func testBlobLarge(t *testing.T, s finance.BlobStore) {
	content := blobBytes(7, finance.MaxFileSize+1)
	blobPut(t, s, "large", content)
	blobRequireContent(t, s, "large", content)
}

func testBlobConflict(t *testing.T, s finance.BlobStore) {
	blobPut(t, s, "a", []byte("first"))
	_, err := s.Put(t.Context(), "a", strings.NewReader("second"))
	blobRequireKind(t, err, msgkit.Conflict)
	blobRequireContent(t, s, "a", []byte("first"))
	// Also for an empty blob.
	blobPut(t, s, "empty", nil)
	_, err = s.Put(t.Context(), "empty", strings.NewReader("x"))
	blobRequireKind(t, err, msgkit.Conflict)
	blobRequireContent(t, s, "empty", []byte{})
}

func testBlobNotFound(t *testing.T, s finance.BlobStore) {
	blobRequireMissing(t, s, "missing")
	blobRequireKind(t, s.Delete(t.Context(), "missing"), msgkit.NotFound)
	blobPut(t, s, "a/b", []byte("x"))
	blobRequireMissing(t, s, "a")
	blobRequireMissing(t, s, "a/b/c")
}

func testBlobDelete(t *testing.T, s finance.BlobStore) {
	blobPut(t, s, "d", []byte("one"))
	blobPut(t, s, "keep", []byte("kept"))
	if err := s.Delete(t.Context(), "d"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	blobRequireMissing(t, s, "d")
	blobRequireKind(t, s.Delete(t.Context(), "d"), msgkit.NotFound)
	blobRequireContent(t, s, "keep", []byte("kept"))
	// The key is free again.
	blobPut(t, s, "d", []byte("two"))
	blobRequireContent(t, s, "d", []byte("two"))
}

var errBlobReader = errors.New("financetest: the reader failed")

// blobFailingReader yields n bytes, then fails with errBlobReader.
func blobFailingReader(n int) io.Reader {
	return io.MultiReader(bytes.NewReader(blobBytes(3, n)), iotest.ErrReader(errBlobReader))
}

func testBlobFailedPut(t *testing.T, s finance.BlobStore) {
	for _, n := range []int{0, 1000, 300 << 10} {
		key := fmt.Sprintf("failed/%d", n)
		_, err := s.Put(t.Context(), key, blobFailingReader(n))
		if !errors.Is(err, errBlobReader) {
			t.Fatalf("Put from a reader failing after %d bytes: %v, want the reader's error in the chain", n, err)
		}
		blobRequireMissing(t, s, key)
		blobRequireKind(t, s.Delete(t.Context(), key), msgkit.NotFound)
		blobPut(t, s, key, []byte("after"))
		blobRequireContent(t, s, key, []byte("after"))
	}
}

func testBlobFailedPutKeepsExisting(t *testing.T, s finance.BlobStore) {
	want := blobBytes(9, 200<<10)
	blobPut(t, s, "k", want)
	if _, err := s.Put(t.Context(), "k", blobFailingReader(300<<10)); err == nil {
		t.Fatal("Put over an existing key from a failing reader succeeded")
	}
	blobRequireContent(t, s, "k", want)
}

// blobCancelAfter cancels a context once it has yielded n bytes, and yields
// more after it.
type blobCancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *blobCancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func testBlobCancelledPut(t *testing.T, s finance.BlobStore) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &blobCancelAfter{r: bytes.NewReader(blobBytes(4, 2<<20)), n: 100 << 10, cancel: cancel}
	if _, err := s.Put(ctx, "cancelled", r); err == nil {
		t.Fatal("Put with a context cancelled midway succeeded")
	}
	blobRequireMissing(t, s, "cancelled")

	done, cancel2 := context.WithCancel(t.Context())
	cancel2()
	if _, err := s.Put(done, "cancelled", strings.NewReader("x")); err == nil {
		t.Fatal("Put with a cancelled context succeeded")
	}
	blobRequireMissing(t, s, "cancelled")
}

// testBlobKeys: keys that nest by '/' are independent of one another,
// and the longest key is accepted.
func testBlobKeys(t *testing.T, s finance.BlobStore) {
	keys := []string{
		"a", "a/b", "a/b/c", "a.b", "a-b", "a_b", "ab",
		"invoices/42/files/6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b.pdf",
		strings.Repeat("k", finance.MaxBlobKeyLen),
		strings.Repeat("k/", finance.MaxBlobKeyLen/2) + "k",
	}
	for i, k := range keys {
		blobPut(t, s, k, []byte(fmt.Sprint(i)))
	}
	for i, k := range keys {
		blobRequireContent(t, s, k, []byte(fmt.Sprint(i)))
	}
	if err := s.Delete(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	blobRequireContent(t, s, "a/b", []byte("1"))
}

func testBlobInvalidKeys(t *testing.T, s finance.BlobStore) {
	blobPut(t, s, "x", []byte("x"))
	for _, key := range []string{
		"", "/x", "x/", "a//b", ".", "..", "../x", "a/../x", "a/./b", ".hidden", "a/.b",
		"A", "x\\y", "a b", "a:b", "a~b", "é", "a\x00b", "a\nb",
		strings.Repeat("k", finance.MaxBlobKeyLen+1),
	} {
		reads := 0
		r := blobReaderFunc(func(p []byte) (int, error) { reads++; return 0, io.EOF })
		_, err := s.Put(t.Context(), key, r)
		blobRequireKind(t, err, msgkit.Invalid)
		if reads != 0 {
			t.Errorf("Put(%q) read the content of a key it refuses", key)
		}
		_, err = s.Open(t.Context(), key)
		blobRequireKind(t, err, msgkit.Invalid)
		blobRequireKind(t, s.Delete(t.Context(), key), msgkit.Invalid)
	}
	blobRequireContent(t, s, "x", []byte("x"))
}

type blobReaderFunc func([]byte) (int, error)

func (f blobReaderFunc) Read(p []byte) (int, error) { return f(p) }

// testBlobConcurrentPuts: of Puts racing for one key, exactly one wins,
// and the blob is the winner's whole content.
func testBlobConcurrentPuts(t *testing.T, s finance.BlobStore) {
	const racers = 8
	var (
		wg     sync.WaitGroup
		errs   [racers]error
		bodies [racers][]byte
	)
	for i := range racers {
		bodies[i] = blobBytes(uint64(100+i), 150<<10)
		wg.Go(func() {
			_, errs[i] = s.Put(t.Context(), "race", iotest.HalfReader(bytes.NewReader(bodies[i])))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("Puts %d and %d of one key both succeeded", winner, i)
		case err == nil:
			winner = i
		default:
			blobRequireKind(t, err, msgkit.Conflict)
		}
	}
	if winner < 0 {
		t.Fatal("no Put of the key succeeded")
	}
	blobRequireContent(t, s, "race", bodies[winner])
}

// testBlobReadWhileDeleted: a reader opened before Delete reads the
// whole blob or fails; it never ends early as if the blob were shorter.
func testBlobReadWhileDeleted(t *testing.T, s finance.BlobStore) {
	content := blobBytes(5, 1<<20)
	blobPut(t, s, "r", content)
	rc, err := s.Open(t.Context(), "r")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	first := make([]byte, 1000)
	if _, err := io.ReadFull(rc, first); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "r"); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(rc)
	if err == nil && !bytes.Equal(append(first, rest...), content) {
		t.Fatalf("a reader of a deleted blob ended after %d of %d bytes without an error", len(first)+len(rest), len(content))
	}
	blobRequireMissing(t, s, "r")
}

// SampleFile returns a file of the format ext (".pdf", ".docx", ... as
// finance.Receive accepts them) that Receive accepts, of size bytes, or
// of the format's smallest such file when size is smaller. Compound files
// (.doc, .xls) are whole sectors, so they may be up to 1 KiB shorter.
// The content is no document a program could open, only what Receive
// checks: the magic bytes, and the structure of ZIP and compound files.
func SampleFile(ext string, size int) []byte {
	pad := func(base []byte, tail string) []byte {
		if n := size - len(base) - len(tail); n > 0 {
			base = append(base, blobBytes(11, n)...)
		}
		return append(base, tail...)
	}
	switch ext {
	case ".pdf":
		return pad([]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), "\n%%EOF\n")
	case ".jpg", ".jpeg":
		return pad([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "\xff\xd9")
	case ".png":
		return pad([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), "")
	case ".docx":
		return officefiletest.Zip(size, "[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml")
	case ".xlsx":
		return officefiletest.Zip(size, "[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml")
	case ".doc":
		return officefiletest.CompoundFile{Root: []string{"WordDocument", "1Table", "\x05SummaryInformation"}}.Sized(size)
	case ".xls":
		return officefiletest.CompoundFile{Root: []string{"Workbook", "\x05SummaryInformation"}}.Sized(size)
	}
	panic("financetest: no sample of " + ext)
}
