package financetest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
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

func blobRequireKind(t *testing.T, err error, kind msgkit.Kind) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
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
		return OfficeZip(size, "[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml")
	case ".xlsx":
		return OfficeZip(size, "[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml")
	case ".doc":
		return CompoundFile{Root: []string{"WordDocument", "1Table", "\x05SummaryInformation"}}.sized(size)
	case ".xls":
		return CompoundFile{Root: []string{"Workbook", "\x05SummaryInformation"}}.sized(size)
	}
	panic("financetest: no sample of " + ext)
}

// OfficeZip returns a ZIP file holding entries of the given names, with
// a stored (uncompressed) padding entry, "pad.bin", that brings it to
// size bytes when size is larger than the ZIP without it.
func OfficeZip(size int, names ...string) []byte {
	build := func(padLen int) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, err := zw.Create(n)
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(w, "<?xml version=\"1.0\"?><part name=%q/>", n)
		}
		if padLen >= 0 {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "pad.bin", Method: zip.Store})
			if err != nil {
				panic(err)
			}
			w.Write(blobBytes(12, padLen))
		}
		if err := zw.Close(); err != nil {
			panic(err)
		}
		return buf.Bytes()
	}
	empty := build(0) // the overhead of the padding entry is fixed
	if len(empty) >= size {
		return build(-1)
	}
	return build(size - len(empty))
}

// CompoundFile describes a compound file (OLE2, [MS-CFB]) for tests of
// the .doc and .xls checks. Its streams are empty unless they hold the
// padding.
type CompoundFile struct {
	// Version 4 has 4096-byte sectors; any other value means version 3
	// (512-byte sectors), which Office writes.
	Version int
	// Root names the streams at the root; the first one holds the
	// padding.
	Root []string
	// Storages are storages at the root, by name, with the streams in
	// them (an embedded object's, say).
	Storages map[string][]string
	// Pad is the padding's size, in bytes rounded up to sectors; past
	// about 6.8 MB a version 3 file needs a DIFAT sector.
	Pad int
	// Scatter lays the sectors out backwards, between two halves of the
	// padding (away from the start and end of the file): the directory
	// with its chain running backwards, then the FAT, then the DIFAT, so
	// that each must be read before what comes before it.
	Scatter bool
}

const (
	cfbFree, cfbEnd, cfbFATSect, cfbDIFSect = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC
)

// sized returns the file with as much padding as fits in size bytes.
func (c CompoundFile) sized(size int) []byte {
	c.Pad = 0
	small := c.Bytes()
	if len(small) >= size {
		return small
	}
	c.Pad = size - len(small)
	for {
		b := c.Bytes()
		if len(b) <= size {
			return b
		}
		c.Pad -= len(b) - size
	}
}

// Bytes lays the file out.
func (c CompoundFile) Bytes() []byte {
	shift := 9
	if c.Version == 4 {
		shift = 12
	}
	ss := 1 << shift
	per := ss / 4
	le := binary.LittleEndian

	type entry struct {
		name                      string
		typ                       byte
		left, right, child, start uint32
		size                      uint64
	}
	// All entries first, then their links: the slice must not grow
	// while tree writes into it.
	entries := []entry{{name: "Root Entry", typ: 5, start: cfbEnd}}
	add := func(name string, typ byte) uint32 {
		entries = append(entries, entry{name: name, typ: typ, start: cfbEnd})
		return uint32(len(entries) - 1)
	}
	var rootKids []uint32
	for _, n := range c.Root {
		rootKids = append(rootKids, add(n, 2))
	}
	storageKids := map[uint32][]uint32{}
	for _, st := range slices.Sorted(maps.Keys(c.Storages)) {
		id := add(st, 1)
		rootKids = append(rootKids, id)
		for _, n := range c.Storages[st] {
			storageKids[id] = append(storageKids[id], add(n, 2))
		}
	}
	for i := range entries {
		entries[i].left, entries[i].right, entries[i].child = cfbFree, cfbFree, cfbFree
	}
	// tree links siblings into a binary tree (left and right both used)
	// and returns its root.
	var tree func(ids []uint32) uint32
	tree = func(ids []uint32) uint32 {
		if len(ids) == 0 {
			return cfbFree
		}
		mid := len(ids) / 2
		entries[ids[mid]].left, entries[ids[mid]].right = tree(ids[:mid]), tree(ids[mid+1:])
		return ids[mid]
	}
	entries[0].child = tree(rootKids)
	for id, kids := range storageKids {
		entries[id].child = tree(kids)
	}

	perDir := ss / 128
	m := (len(entries) + perDir - 1) / perDir
	p := (c.Pad + ss - 1) / ss
	k, d := 1, 0
	for {
		n := k + d + m + p
		k2 := (n + per - 1) / per
		d2 := 0
		if k2 > 109 {
			d2 = (k2 - 109 + per - 2) / (per - 1)
		}
		if k2 == k && d2 == d {
			break
		}
		k, d = k2, d2
	}
	n := k + d + m + p

	// Sector numbers of each structure.
	fatIDs, difIDs, dirIDs, padIDs := make([]uint32, k), make([]uint32, d), make([]uint32, m), make([]uint32, p)
	next := uint32(0)
	take := func(ids []uint32, backwards bool) {
		for i := range ids {
			if backwards {
				ids[len(ids)-1-i] = next
			} else {
				ids[i] = next
			}
			next++
		}
	}
	if c.Scatter {
		take(padIDs[:p/2], false)
		take(dirIDs, true)
		take(fatIDs, false)
		take(difIDs, false)
		take(padIDs[p/2:], false)
	} else {
		take(fatIDs, false)
		take(difIDs, false)
		take(dirIDs, false)
		take(padIDs, false)
	}

	fat := make([]uint32, k*per)
	for i := range fat {
		fat[i] = cfbFree
	}
	for _, s := range fatIDs {
		fat[s] = cfbFATSect
	}
	for _, s := range difIDs {
		fat[s] = cfbDIFSect
	}
	chain := func(ids []uint32) {
		for i, s := range ids {
			if i+1 < len(ids) {
				fat[s] = ids[i+1]
			} else {
				fat[s] = cfbEnd
			}
		}
	}
	chain(dirIDs)
	chain(padIDs)
	if p > 0 && len(c.Root) > 0 {
		entries[1].start, entries[1].size = padIDs[0], uint64(p*ss)
	}

	out := make([]byte, (1+n)*ss)
	sector := func(s uint32) []byte { return out[(int(s)+1)*ss : (int(s)+2)*ss] }
	h := out[:512]
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(h[0x18:], 0x3E)
	le.PutUint16(h[0x1A:], uint16(3+shift/12))
	le.PutUint16(h[0x1C:], 0xFFFE)
	le.PutUint16(h[0x1E:], uint16(shift))
	le.PutUint16(h[0x20:], 6)
	if shift == 12 {
		le.PutUint32(h[0x28:], uint32(m))
	}
	le.PutUint32(h[0x2C:], uint32(k))
	le.PutUint32(h[0x30:], dirIDs[0])
	le.PutUint32(h[0x38:], 4096)
	le.PutUint32(h[0x3C:], cfbEnd)
	le.PutUint32(h[0x44:], cfbEnd)
	if d > 0 {
		le.PutUint32(h[0x44:], difIDs[0])
	}
	le.PutUint32(h[0x48:], uint32(d))
	for i := range 109 {
		v := uint32(cfbFree)
		if i < k {
			v = fatIDs[i]
		}
		le.PutUint32(h[0x4C+4*i:], v)
	}
	rest := fatIDs[min(k, 109):]
	for i, s := range difIDs {
		b := sector(s)
		for j := range per - 1 {
			v := uint32(cfbFree)
			if j < len(rest) {
				v = rest[j]
			}
			le.PutUint32(b[4*j:], v)
		}
		rest = rest[min(len(rest), per-1):]
		nextDIF := uint32(cfbEnd)
		if i+1 < d {
			nextDIF = difIDs[i+1]
		}
		le.PutUint32(b[ss-4:], nextDIF)
	}
	for i, s := range fatIDs {
		b := sector(s)
		for j := range per {
			le.PutUint32(b[4*j:], fat[i*per+j])
		}
	}
	for i := range m * perDir {
		b := sector(dirIDs[i/perDir])[(i%perDir)*128:][:128]
		if i >= len(entries) {
			le.PutUint32(b[0x44:], cfbFree)
			le.PutUint32(b[0x48:], cfbFree)
			le.PutUint32(b[0x4C:], cfbFree)
			continue
		}
		e := entries[i]
		units := utf16.Encode([]rune(e.name))
		for j, u := range units {
			le.PutUint16(b[2*j:], u)
		}
		le.PutUint16(b[0x40:], uint16(2*len(units)+2))
		b[0x42], b[0x43] = e.typ, 1
		le.PutUint32(b[0x44:], e.left)
		le.PutUint32(b[0x48:], e.right)
		le.PutUint32(b[0x4C:], e.child)
		le.PutUint32(b[0x74:], e.start)
		le.PutUint64(b[0x78:], e.size)
	}
	for i, s := range padIDs {
		copy(sector(s), blobBytes(uint64(13+i%7), ss))
	}
	return out
}
