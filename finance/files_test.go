package finance_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
	"github.com/msgkit/msgkit/finance/officefile/officefiletest"
)

// memBlobs is an in-memory finance.BlobStore, the fake of these tests.
// Put reads everything before it stores, so a failed Put stores nothing.
type memBlobs struct {
	mu    sync.Mutex
	blobs map[string][]byte
	opens int // Opens so far, to count read-back passes
}

func newMemBlobs() *memBlobs { return &memBlobs{blobs: map[string][]byte{}} }

func (m *memBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return 0, err
	}
	exists := func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		_, ok := m.blobs[key]
		return ok
	}
	if exists() {
		return 0, msgkit.Errorf(msgkit.Conflict, "blob_exists", "blob %s exists", key)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, readerFunc(func(p []byte) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return r.Read(p)
	})); err != nil {
		return 0, fmt.Errorf("memBlobs: reading %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[key]; ok {
		return 0, msgkit.Errorf(msgkit.Conflict, "blob_exists", "blob %s exists", key)
	}
	m.blobs[key] = buf.Bytes()
	return int64(buf.Len()), nil
}

func (m *memBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[key]
	if !ok {
		return nil, msgkit.Errorf(msgkit.NotFound, "blob_not_found", "blob %s not found", key)
	}
	m.opens++
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m *memBlobs) Delete(ctx context.Context, key string) error {
	if err := finance.CheckBlobKey(key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[key]; !ok {
		return msgkit.Errorf(msgkit.NotFound, "blob_not_found", "blob %s not found", key)
	}
	delete(m.blobs, key)
	return nil
}

func (m *memBlobs) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m.blobs {
			if !yield(k) {
				return
			}
		}
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// faultyBlobs injects failures into a memBlobs.
type faultyBlobs struct {
	*memBlobs
	putErr, openErr, deleteErr error
}

func (f faultyBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if f.putErr != nil {
		return 0, f.putErr
	}
	return f.memBlobs.Put(ctx, key, r)
}

func (f faultyBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if f.openErr != nil {
		return nil, f.openErr
	}
	return f.memBlobs.Open(ctx, key)
}

func (f faultyBlobs) Delete(ctx context.Context, key string) error {
	if f.deleteErr != nil {
		return f.deleteErr
	}
	return f.memBlobs.Delete(ctx, key)
}

// The fake meets the contract it stands in for.
func TestMemBlobs(t *testing.T) {
	t.Parallel()
	financetest.Run(t, func(testing.TB) financetest.Stores { return financetest.Stores{Blobs: newMemBlobs()} })
}

const key = "invoices/42/files/1"

// Samples of each accepted format.
var (
	samplePDF  = financetest.SampleFile(".pdf", 0)
	sampleDOC  = financetest.SampleFile(".doc", 0)
	sampleXLS  = financetest.SampleFile(".xls", 0)
	sampleDOCX = financetest.SampleFile(".docx", 0)
	sampleXLSX = financetest.SampleFile(".xlsx", 0)
	sampleJPEG = financetest.SampleFile(".jpg", 0)
	samplePNG  = financetest.SampleFile(".png", 0)
	// An Excel 5/95 workbook keeps its sheets in Book.
	sampleXLS95 = officefiletest.CompoundFile{Root: []string{"Book"}}.Bytes()
	exe         = append([]byte("MZ\x90\x00\x03\x00\x00\x00"), make([]byte, 100)...)
)

const (
	ctDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	ctXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

func TestReceiveAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		filename string
		content  []byte
		want     finance.Received // without Key and Size
	}{
		{"invoice.pdf", samplePDF, finance.Received{Filename: "invoice.pdf", StoredName: "invoice.pdf", Ext: ".pdf", ContentType: "application/pdf"}},
		{"invoice.doc", sampleDOC, finance.Received{Filename: "invoice.doc", StoredName: "invoice.doc", Ext: ".doc", ContentType: "application/msword"}},
		{"invoice.xls", sampleXLS, finance.Received{Filename: "invoice.xls", StoredName: "invoice.xls", Ext: ".xls", ContentType: "application/vnd.ms-excel"}},
		{"old.xls", sampleXLS95, finance.Received{Filename: "old.xls", StoredName: "old.xls", Ext: ".xls", ContentType: "application/vnd.ms-excel"}},
		{"invoice.docx", sampleDOCX, finance.Received{Filename: "invoice.docx", StoredName: "invoice.docx", Ext: ".docx", ContentType: ctDOCX}},
		{"invoice.xlsx", sampleXLSX, finance.Received{Filename: "invoice.xlsx", StoredName: "invoice.xlsx", Ext: ".xlsx", ContentType: ctXLSX}},
		{"scan.jpg", sampleJPEG, finance.Received{Filename: "scan.jpg", StoredName: "scan.jpg", Ext: ".jpg", ContentType: "image/jpeg"}},
		{"scan.jpeg", sampleJPEG, finance.Received{Filename: "scan.jpeg", StoredName: "scan.jpeg", Ext: ".jpeg", ContentType: "image/jpeg"}},
		{"scan.png", samplePNG, finance.Received{Filename: "scan.png", StoredName: "scan.png", Ext: ".png", ContentType: "image/png"}},
		// Extensions in any case; the stored name's in lower case.
		{"INVOICE.PDF", samplePDF, finance.Received{Filename: "INVOICE.PDF", StoredName: "INVOICE.pdf", Ext: ".pdf", ContentType: "application/pdf"}},
		{"Invoice.DocX", sampleDOCX, finance.Received{Filename: "Invoice.DocX", StoredName: "Invoice.docx", Ext: ".docx", ContentType: ctDOCX}},
		{"SCAN.JPEG", sampleJPEG, finance.Received{Filename: "SCAN.JPEG", StoredName: "SCAN.jpeg", Ext: ".jpeg", ContentType: "image/jpeg"}},
		// Larger than the tail window, read in uneven pieces: the window
		// wraps around.
		{"big.docx", financetest.SampleFile(".docx", 1<<20+12345), finance.Received{Filename: "big.docx", StoredName: "big.docx", Ext: ".docx", ContentType: ctDOCX}},
		// Part names are case-insensitive.
		{"upper.docx", officefiletest.Zip(0, "WORD/Document.XML"), finance.Received{Filename: "upper.docx", StoredName: "upper.docx", Ext: ".docx", ContentType: ctDOCX}},
		// A Word file with an Excel chart embedded is a Word file.
		{"chart.doc", officefiletest.CompoundFile{Root: []string{"WordDocument"}, Storages: map[string][]string{"ObjectPool": {"Workbook"}}}.Bytes(),
			finance.Received{Filename: "chart.doc", StoredName: "chart.doc", Ext: ".doc", ContentType: "application/msword"}},
	}
	for _, tc := range tests {
		t.Run(tc.filename, func(t *testing.T) {
			t.Parallel()
			s := newMemBlobs()
			got, err := finance.Receive(t.Context(), s, key, tc.filename, iotest.HalfReader(bytes.NewReader(tc.content)))
			if err != nil {
				t.Fatalf("Receive: %v", err)
			}
			want := tc.want
			want.Key, want.Size = key, int64(len(tc.content))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Received (-want +got):\n%s", diff)
			}
			if stored := s.blobs[key]; !bytes.Equal(stored, tc.content) {
				t.Errorf("stored %d bytes, want the %d uploaded", len(stored), len(tc.content))
			}
		})
	}
}

// requireRefused checks a refusal: Invalid, CodeInvalidFile, naming the
// upload's field, and no blob left in s.
func requireRefused(t *testing.T, err error, s *memBlobs) {
	t.Helper()
	if !errors.Is(err, msgkit.Invalid) || msgkit.CodeOf(err) != finance.CodeInvalidFile {
		t.Fatalf("error %v, want Invalid %s", err, finance.CodeInvalidFile)
	}
	e, _ := errors.AsType[*msgkit.Error](err)
	if len(e.Fields) != 1 || e.Fields[0].Name != finance.FileField {
		t.Errorf("fields %+v, want one naming %s", e.Fields, finance.FileField)
	}
	if keys := s.keys(); len(keys) != 0 {
		t.Errorf("blobs %q left behind by a refusal", keys)
	}
}

func TestReceiveRefuses(t *testing.T) {
	t.Parallel()
	manyEntries := make([]string, 3000) // a central directory of about 200 KiB
	for i := range manyEntries {
		manyEntries[i] = fmt.Sprintf("word/media/image-with-a-rather-long-name-%04d.png", i)
	}
	manyEntries = append(manyEntries, "word/document.xml")
	tests := []struct {
		name, filename string
		content        []byte
	}{
		{"a PNG named .pdf", "invoice.pdf", samplePNG},
		{"a PDF named .png", "scan.png", samplePDF},
		{"an exe named .jpg", "scan.jpg", exe},
		{"an exe named .doc", "invoice.doc", exe},
		{"an exe named .docx", "invoice.docx", exe},
		{"a JPEG header cut short", "scan.jpg", []byte{0xFF, 0xD8}},
		{"a ZIP without word/document.xml named .docx", "invoice.docx", officefiletest.Zip(0, "[Content_Types].xml", "word/styles.xml")},
		{"an xlsx named .docx", "invoice.docx", sampleXLSX},
		{"a docx named .xlsx", "invoice.xlsx", sampleDOCX},
		{"a document.xml elsewhere", "invoice.docx", officefiletest.Zip(0, "other/word/document.xml")},
		{"a ZIP header then garbage", "invoice.docx", append([]byte("PK\x03\x04"), make([]byte, 5000)...)},
		{"a ZIP directory too large to check", "invoice.docx", officefiletest.Zip(0, manyEntries...)},
		{"a Word file named .xls", "invoice.xls", sampleDOC},
		{"an Excel file named .doc", "invoice.doc", sampleXLS},
		{"an installer named .doc", "setup.doc", officefiletest.CompoundFile{Root: []string{"\x05SummaryInformation", "!_StringData"}}.Bytes()},
		{"Workbook only below the root", "sheet.xls", officefiletest.CompoundFile{Storages: map[string][]string{"ObjectPool": {"Workbook"}}}.Bytes()},
		{"an OLE2 header alone", "invoice.doc", sampleDOC[:512]},
		{"an OLE2 header cut short", "invoice.xls", sampleXLS[:100]},
		{"an OLE2 signature then garbage", "invoice.doc", append(slices.Clone(sampleDOC[:8]), make([]byte, 4000)...)},
		{"empty", "invoice.pdf", nil},
		{"an unaccepted extension", "invoice.exe", samplePDF},
		{"no extension", "invoice", samplePDF},
		{"a dot only", "invoice.", samplePDF},
		{"an extension with a space after", "invoice.pdf ", samplePDF},
		{"a look-alike extension (Kelvin sign)", "invoice.doc\u212a", samplePDF},
		{"no name", "", samplePDF},
		{"a directory", "dir/", samplePDF},
		{"not UTF-8", "inv\xffoice.pdf", samplePDF},
		{"a NUL", "inv\x00oice.pdf", samplePDF},
		{"a name too long", strings.Repeat("n", finance.MaxFilenameLen) + ".pdf", samplePDF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newMemBlobs()
			_, err := finance.Receive(t.Context(), s, key, tc.filename, bytes.NewReader(tc.content))
			requireRefused(t, err, s)
		})
	}
}

// TestReceiveRefusedBeforeStoring: a wrong extension or magic is refused
// before the store is asked to keep anything, and the content is not
// read past the magic.
func TestReceiveRefusedBeforeStoring(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		filename  string
		content   []byte
		wantReads int
	}{
		{"scan.exe", samplePNG, 0},
		{"invoice.pdf", samplePNG, len("%PDF-")},
		{"scan.jpg", exe, 3},
	} {
		s := faultyBlobs{memBlobs: newMemBlobs(), putErr: errors.New("Put must not be called")}
		read := 0
		r := readerFunc(func(p []byte) (int, error) {
			n := copy(p, tc.content[read:])
			read += n
			return n, nil
		})
		_, err := finance.Receive(t.Context(), s, key, tc.filename, r)
		requireRefused(t, err, s.memBlobs)
		if read > tc.wantReads {
			t.Errorf("%s: read %d bytes, want at most %d", tc.filename, read, tc.wantReads)
		}
	}
}

// countingReader yields size bytes, the first of them head, and fails
// the test if it is asked for more than limit bytes.
type countingReader struct {
	t           *testing.T
	head        []byte
	size, limit int64
	n           int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.size-c.n)]
	for i := range p {
		if c.n+int64(i) < int64(len(c.head)) {
			p[i] = c.head[c.n+int64(i)]
		} else {
			p[i] = 'x'
		}
	}
	c.n += int64(len(p))
	if c.n > c.limit {
		c.t.Errorf("read %d bytes, more than %d", c.n, c.limit)
	}
	return len(p), nil
}

func TestReceiveSizeLimit(t *testing.T) {
	t.Parallel()
	t.Run("exactly MaxFileSize", func(t *testing.T) {
		t.Parallel()
		s := newMemBlobs()
		r := &countingReader{t: t, head: samplePDF, size: finance.MaxFileSize, limit: finance.MaxFileSize}
		got, err := finance.Receive(t.Context(), s, key, "big.pdf", r)
		if err != nil {
			t.Fatalf("Receive of exactly %d bytes: %v", finance.MaxFileSize, err)
		}
		if got.Size != finance.MaxFileSize || len(s.blobs[key]) != finance.MaxFileSize {
			t.Errorf("size %d, stored %d, want %d", got.Size, len(s.blobs[key]), finance.MaxFileSize)
		}
	})
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"one byte more", finance.MaxFileSize + 1},
		{"endless", 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newMemBlobs()
			r := &countingReader{t: t, head: samplePDF, size: tc.size, limit: finance.MaxFileSize + 1}
			_, err := finance.Receive(t.Context(), s, key, "big.pdf", r)
			requireRefused(t, err, s)
			if r.n != finance.MaxFileSize+1 {
				t.Errorf("read %d bytes, want MaxFileSize+1", r.n)
			}
		})
	}
	// Large samples of every format, at the limit.
	for _, ext := range []string{".pdf", ".doc", ".xls", ".docx", ".xlsx", ".jpg", ".png"} {
		t.Run("sample"+ext, func(t *testing.T) {
			t.Parallel()
			s := newMemBlobs()
			content := financetest.SampleFile(ext, finance.MaxFileSize)
			if _, err := finance.Receive(t.Context(), s, key, "big"+ext, bytes.NewReader(content)); err != nil {
				t.Fatalf("Receive of a %d-byte %s: %v", len(content), ext, err)
			}
			if s.opens > 2 {
				t.Errorf("read the blob back %d times", s.opens)
			}
		})
	}
}

// TestReceiveCompoundLayouts: the .doc and .xls checks read any layout,
// from the head and tail windows when they hold what is needed, else in
// a few forward passes over the stored blob (opens), never more than
// three: the DIFAT, the FAT, the directory.
func TestReceiveCompoundLayouts(t *testing.T) {
	t.Parallel()
	many := []string{"WordDocument"}
	for i := range 100 { // a directory of 26 sectors
		many = append(many, fmt.Sprintf("Stream%03d", i))
	}
	tests := []struct {
		name      string
		file      officefiletest.CompoundFile
		opens     int
		wantError bool
	}{
		{"version 4", officefiletest.CompoundFile{Version: 4, Root: []string{"WordDocument"}}, 0, false},
		{"version 4, large", officefiletest.CompoundFile{Version: 4, Root: []string{"WordDocument"}, Pad: 9 << 20}, 1, false},
		{"version 4, scattered", officefiletest.CompoundFile{Version: 4, Root: many, Pad: 9 << 20, Scatter: true}, 2, false},
		{"many entries", officefiletest.CompoundFile{Root: many}, 0, false},
		{"many entries, scattered", officefiletest.CompoundFile{Root: many, Pad: 1 << 20, Scatter: true}, 2, false},
		{"with a DIFAT sector", officefiletest.CompoundFile{Root: many, Pad: 9 << 20}, 2, false},
		{"with a DIFAT sector, scattered", officefiletest.CompoundFile{Root: many, Pad: 9 << 20, Scatter: true}, 3, false},
		{"small, scattered", officefiletest.CompoundFile{Root: many, Scatter: true}, 0, false},
		{"Word below the root only", officefiletest.CompoundFile{Root: many[1:], Storages: map[string][]string{"Embedded": {"WordDocument"}}, Pad: 1 << 20, Scatter: true}, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			content := tc.file.Bytes()
			if len(content) > finance.MaxFileSize {
				t.Fatalf("sample of %d bytes", len(content))
			}
			s := newMemBlobs()
			_, err := finance.Receive(t.Context(), s, key, "invoice.doc", bytes.NewReader(content))
			if tc.wantError {
				requireRefused(t, err, s)
			} else if err != nil {
				t.Fatalf("Receive: %v", err)
			}
			if s.opens != tc.opens {
				t.Errorf("read the blob back %d times, want %d", s.opens, tc.opens)
			}
		})
	}
}

func TestReceiveNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200) + ".pdf" // 404 bytes
	tests := []struct {
		filename, wantFilename, wantStored string
	}{
		{"invoice.pdf", "invoice.pdf", "invoice.pdf"},
		{"C:\\Users\\ana\\Desktop\\invoice.pdf", "invoice.pdf", "invoice.pdf"},
		{"../../etc/passwd.pdf", "passwd.pdf", "passwd.pdf"},
		{".pdf", ".pdf", "file.pdf"},
		{"...pdf", "...pdf", "file.pdf"},
		{" .hidden.pdf", " .hidden.pdf", "hidden.pdf"},
		{"end. .pdf", "end. .pdf", "end.pdf"},
		{"tab\there\x7f.pdf", "tab\there\x7f.pdf", "tab_here_.pdf"},
		{"a:b*c?d\"e<f>g|h.pdf", "a:b*c?d\"e<f>g|h.pdf", "a_b_c_d_e_f_g_h.pdf"},
		{"invoice\u202efdp.exe.pdf", "invoice\u202efdp.exe.pdf", "invoice_fdp.exe.pdf"},
		{"zero\u200bwidth.pdf", "zero\u200bwidth.pdf", "zero_width.pdf"},
		{"CON.pdf", "CON.pdf", "_CON.pdf"},
		{"lpt1.tar.pdf", "lpt1.tar.pdf", "_lpt1.tar.pdf"},
		{"Rechnung März.PDF", "Rechnung März.PDF", "Rechnung März.pdf"},
		{long, long, strings.Repeat("é", 125) + ".pdf"},
	}
	for _, tc := range tests {
		s := newMemBlobs()
		got, err := finance.Receive(t.Context(), s, key, tc.filename, bytes.NewReader(samplePDF))
		if err != nil {
			t.Errorf("Receive(%q): %v", tc.filename, err)
			continue
		}
		if got.Filename != tc.wantFilename || got.StoredName != tc.wantStored {
			t.Errorf("Receive(%q): Filename %q, StoredName %q; want %q, %q", tc.filename, got.Filename, got.StoredName, tc.wantFilename, tc.wantStored)
		}
		checkStoredName(t, got.StoredName)
	}
}

// checkStoredName checks what storedName promises of any name.
func checkStoredName(t *testing.T, name string) {
	t.Helper()
	if len(name) > finance.MaxStoredNameLen || !utf8.ValidString(name) || name == "" || strings.ContainsAny(name, "/\\\x00") ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, " ") {
		t.Errorf("stored name %q is not safe", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '\u202e' {
			t.Errorf("stored name %q holds %U", name, r)
		}
	}
}

func TestReceiveConflict(t *testing.T) {
	t.Parallel()
	s := newMemBlobs()
	s.blobs[key] = []byte("earlier")
	_, err := finance.Receive(t.Context(), s, key, "invoice.docx", bytes.NewReader(sampleDOCX))
	if !errors.Is(err, msgkit.Conflict) {
		t.Fatalf("error %v, want Conflict", err)
	}
	if got := string(s.blobs[key]); got != "earlier" {
		t.Errorf("the earlier blob became %q", got)
	}
}

func TestReceiveKeyIsTheCallers(t *testing.T) {
	t.Parallel()
	_, err := finance.Receive(t.Context(), newMemBlobs(), "../x", "invoice.pdf", bytes.NewReader(samplePDF))
	if msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("error %v, want Internal: the key is no fault of the uploader", err)
	}
}

var errCut = errors.New("connection reset")

func TestReceiveReadFailures(t *testing.T) {
	t.Parallel()
	cut := func(n int, err error) io.Reader {
		return io.MultiReader(bytes.NewReader(samplePDF[:n]), iotest.ErrReader(err))
	}
	t.Run("cut short", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{0, 3, 20} {
			s := newMemBlobs()
			_, err := finance.Receive(t.Context(), s, key, "invoice.pdf", cut(n, errCut))
			requireRefused(t, err, s)
			if !errors.Is(err, errCut) {
				t.Errorf("cut after %d bytes: the cause %v is not in the chain", n, err)
			}
		}
	})
	t.Run("a classified failure stays as it is", func(t *testing.T) {
		t.Parallel()
		tooMuch := msgkit.New(msgkit.Invalid, "request_too_large", "the request is too large")
		s := newMemBlobs()
		_, err := finance.Receive(t.Context(), s, key, "invoice.pdf", cut(20, tooMuch))
		if msgkit.CodeOf(err) != "request_too_large" {
			t.Errorf("error %v, want the reader's", err)
		}
		if len(s.keys()) != 0 {
			t.Error("blob left behind")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		s := newMemBlobs()
		_, err := finance.Receive(ctx, s, key, "invoice.pdf", bytes.NewReader(samplePDF))
		if !errors.Is(err, context.Canceled) || errors.Is(err, msgkit.Invalid) {
			t.Errorf("error %v, want context.Canceled, not Invalid", err)
		}
		if len(s.keys()) != 0 {
			t.Error("blob left behind")
		}
	})
}

func TestReceiveStoreFailures(t *testing.T) {
	t.Parallel()
	errFire := errors.New("disk on fire")
	down := msgkit.Wrap(errFire, msgkit.Internal, "storage_error", "storage error")
	t.Run("Put", func(t *testing.T) {
		t.Parallel()
		s := faultyBlobs{memBlobs: newMemBlobs(), putErr: down}
		_, err := finance.Receive(t.Context(), s, key, "invoice.pdf", bytes.NewReader(samplePDF))
		if msgkit.CodeOf(err) != "storage_error" {
			t.Errorf("error %v, want the store's", err)
		}
	})
	t.Run("Open while checking", func(t *testing.T) {
		t.Parallel()
		s := faultyBlobs{memBlobs: newMemBlobs(), openErr: down}
		// The FAT at the start, past the head window: read back.
		content := officefiletest.CompoundFile{Root: []string{"WordDocument"}, Pad: 1 << 20}.Bytes()
		_, err := finance.Receive(t.Context(), s, key, "invoice.doc", bytes.NewReader(content))
		if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != finance.CodeFileStorage {
			t.Errorf("error %v, want Internal %s", err, finance.CodeFileStorage)
		}
		if len(s.keys()) != 0 {
			t.Error("blob left behind")
		}
	})
	t.Run("Delete after a refusal", func(t *testing.T) {
		t.Parallel()
		s := faultyBlobs{memBlobs: newMemBlobs(), deleteErr: down}
		_, err := finance.Receive(t.Context(), s, key, "invoice.docx", bytes.NewReader(sampleXLSX))
		if msgkit.KindOf(err) != msgkit.Internal || !errors.Is(err, errFire) {
			t.Errorf("error %v, want Internal with the store's failure in the chain", err)
		}
	})
	t.Run("a store that stops early", func(t *testing.T) {
		t.Parallel()
		s := &shortBlobs{memBlobs: newMemBlobs()}
		_, err := finance.Receive(t.Context(), s, key, "invoice.pdf", bytes.NewReader(samplePDF))
		if msgkit.KindOf(err) != msgkit.Internal {
			t.Errorf("error %v, want Internal", err)
		}
		if len(s.keys()) != 0 {
			t.Error("blob left behind")
		}
	})
}

// shortBlobs stores only the first 10 bytes, without an error.
type shortBlobs struct{ *memBlobs }

func (s *shortBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	return s.memBlobs.Put(ctx, key, io.LimitReader(r, 10))
}

// FuzzReceive: any bytes under any name are accepted whole or refused
// as Invalid without a blob left behind, and never make Receive panic.
func FuzzReceive(f *testing.F) {
	for _, seed := range []struct {
		name    string
		content []byte
	}{
		{"a.pdf", samplePDF}, {"a.doc", sampleDOC}, {"a.xls", sampleXLS}, {"a.docx", sampleDOCX},
		{"a.xlsx", sampleXLSX}, {"a.jpg", sampleJPEG}, {"a.png", samplePNG}, {"a.pdf", samplePNG},
		{"a.doc", officefiletest.CompoundFile{Version: 4, Root: []string{"WordDocument"}}.Bytes()},
		{"a.xls", officefiletest.CompoundFile{Root: []string{"Workbook"}, Storages: map[string][]string{"S": {"Book"}}}.Bytes()},
		{"C:\\x\\CON.Docx", sampleXLSX}, {"", nil}, {"\u202e.png", samplePNG},
	} {
		f.Add(seed.content, seed.name)
	}
	f.Fuzz(func(t *testing.T, content []byte, filename string) {
		s := newMemBlobs()
		got, err := finance.Receive(t.Context(), s, key, filename, bytes.NewReader(content))
		if err != nil {
			if !errors.Is(err, msgkit.Invalid) {
				t.Fatalf("error %v, want Invalid", err)
			}
			if keys := s.keys(); len(keys) != 0 {
				t.Fatalf("blobs %q left behind by a refusal", keys)
			}
			return
		}
		if got.Size != int64(len(content)) || !bytes.Equal(s.blobs[key], content) {
			t.Fatalf("stored %d bytes (said %d), want the %d uploaded", len(s.blobs[key]), got.Size, len(content))
		}
		if got.ContentType == "" || !strings.HasSuffix(strings.ToLower(filename), got.Ext) {
			t.Fatalf("Received %+v for %q", got, filename)
		}
		checkStoredName(t, got.StoredName)
	})
}

func ExampleReceive() {
	blobs := newMemBlobs() // in a server: blobfs.New(dir) or pgstore's db.Blobs()
	upload := strings.NewReader("%PDF-1.7\n...\n%%EOF\n")
	got, err := finance.Receive(context.Background(), blobs, "invoices/42/files/1", `C:\Scans\Invoice 42.PDF`, upload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Filename, "|", got.StoredName, "|", got.ContentType, "|", got.Size)

	_, err = finance.Receive(context.Background(), blobs, "invoices/42/files/2", "invoice.pdf", strings.NewReader("MZ\x90\x00"))
	fmt.Println(msgkit.KindOf(err), msgkit.CodeOf(err), msgkit.MessageOf(err))
	// Output:
	// Invoice 42.PDF | Invoice 42.pdf | application/pdf | 19
	// invalid invalid_file the file's content is not a PDF document
}
