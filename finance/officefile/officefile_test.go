package officefile_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/msgkit/msgkit/finance/officefile"
	"github.com/msgkit/msgkit/finance/officefile/officefiletest"
	"pgregory.net/rapid"
)

// readerOf is a Reader of content as a caller makes it that streamed
// content into a store: its windows, and content again to read back
// within ReadBackPasses.
func readerOf(content []byte) *officefile.Reader {
	w := officefile.NewWindow()
	w.Write(content)
	return w.ReaderAt(int64(len(content)), func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(content)), nil
	}, officefile.ReadBackPasses*int64(len(content)))
}

// check runs c over a readerOf content.
func check(t *testing.T, c func(io.ReaderAt, int64) error, content []byte) error {
	t.Helper()
	r := readerOf(content)
	defer r.Close()
	err := c(r, int64(len(content)))
	if r.Err() != nil {
		t.Fatalf("reading back: %v", r.Err())
	}
	return err
}

func TestChecks(t *testing.T) {
	word := officefiletest.CompoundFile{Root: []string{"WordDocument", "1Table"}}.Bytes()
	excel := officefiletest.CompoundFile{Root: []string{"Workbook"}}.Bytes()
	excel95 := officefiletest.CompoundFile{Version: 4, Root: []string{"book"}}.Bytes()
	chart := officefiletest.CompoundFile{Root: []string{"1Table"}, Storages: map[string][]string{"Embedded": {"WordDocument"}}}.Bytes()
	docx := officefiletest.Zip(0, "[Content_Types].xml", "WORD/Document.xml")
	xlsx := officefiletest.Zip(0, "[Content_Types].xml", "xl/workbook.xml")
	tests := []struct {
		name    string
		check   func(io.ReaderAt, int64) error
		content []byte
		ok      bool
	}{
		{"Word is a .doc", officefile.CheckDoc, word, true},
		{"Word is no .xls", officefile.CheckXls, word, false},
		{"Excel is a .xls", officefile.CheckXls, excel, true},
		{"Excel 5/95 in version 4 is a .xls", officefile.CheckXls, excel95, true},
		{"Excel is no .doc", officefile.CheckDoc, excel, false},
		{"Word below the root only is no .doc", officefile.CheckDoc, chart, false},
		{"a ZIP is no .doc", officefile.CheckDoc, docx, false},
		{"part names in any case", officefile.CheckDocx, docx, true},
		{"a Word ZIP is no .xlsx", officefile.CheckXlsx, docx, false},
		{"an Excel ZIP is a .xlsx", officefile.CheckXlsx, xlsx, true},
		{"a compound file is no .docx", officefile.CheckDocx, word, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := check(t, tc.check, tc.content); (err == nil) != tc.ok {
				t.Errorf("error %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// A Reader reads any offset as the stream holds it: from its windows,
// and otherwise from open within its budget.
func TestReaderAt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 300<<10).Draw(t, "size")
		content := make([]byte, size)
		_, _ = rand.NewChaCha8([32]byte{byte(size)}).Read(content)
		w := officefile.NewWindow()
		for rest := content; len(rest) > 0; {
			n := rapid.IntRange(1, max(1, len(rest)/3)).Draw(t, "write")
			w.Write(rest[:min(n, len(rest))])
			rest = rest[min(n, len(rest)):]
		}
		opens := 0
		r := w.ReaderAt(int64(size), func() (io.ReadCloser, error) {
			opens++
			return io.NopCloser(bytes.NewReader(content)), nil
		}, 1<<40)
		defer r.Close()
		for range 5 {
			off := rapid.IntRange(0, size-1).Draw(t, "off")
			n := rapid.IntRange(1, 1<<12).Draw(t, "n")
			p := make([]byte, n)
			got, err := r.ReadAt(p, int64(off))
			want := min(n, size-off)
			if got != want || (want < n) != (err == io.EOF) || (want == n && err != nil) {
				t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; want %d", n, off, got, err, want)
			}
			if !bytes.Equal(p[:got], content[off:off+got]) {
				t.Fatalf("ReadAt(%d bytes at %d) read other bytes", n, off)
			}
		}
		inWindows := size <= officefile.HeadWindow+officefile.TailWindow
		if inWindows && opens != 0 {
			t.Fatalf("opened a stream of %d bytes, which its windows hold", size)
		}
	})
}

// A read across the end of the head, into a tail that begins inside the
// head, comes from the windows: without a budget, and without opening.
func TestReaderAtWhereTheWindowsMeet(t *testing.T) {
	size := officefile.HeadWindow + officefile.TailWindow - 1000
	content := make([]byte, size)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(content)
	w := officefile.NewWindow()
	w.Write(content)
	r := w.ReaderAt(int64(size), func() (io.ReadCloser, error) {
		t.Fatal("opened a stream its windows hold")
		return nil, nil
	}, 0)
	defer r.Close()
	for _, off := range []int{0, 2000, officefile.HeadWindow - 1000, officefile.HeadWindow - 1} {
		p := make([]byte, 3000)
		if n, err := r.ReadAt(p, int64(off)); n != len(p) || err != nil || !bytes.Equal(p, content[off:off+len(p)]) {
			t.Fatalf("ReadAt(3000 bytes at %d) = %d, %v, equal %v", off, n, err, bytes.Equal(p, content[off:off+len(p)]))
		}
	}
}

// Without a budget, what lies between the windows is not read, and the
// Reader says why.
func TestReaderAtBudget(t *testing.T) {
	size := officefile.HeadWindow + officefile.TailWindow + 1000
	content := bytes.Repeat([]byte{7}, size)
	w := officefile.NewWindow()
	w.Write(content)
	r := w.ReaderAt(int64(size), func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(content)), nil
	}, 0)
	defer r.Close()
	if _, err := r.ReadAt(make([]byte, 10), officefile.HeadWindow+10); !errors.Is(err, officefile.ErrTooScattered) || !errors.Is(r.Err(), officefile.ErrTooScattered) {
		t.Fatalf("ReadAt between the windows: %v, Err %v; want ErrTooScattered", err, r.Err())
	}
}

// FuzzCheckDoc: the compound file check reads any bytes without
// panicking, and within its budget.
func FuzzCheckDoc(f *testing.F) {
	f.Add(officefiletest.CompoundFile{Root: []string{"WordDocument"}}.Bytes())
	f.Add(officefiletest.CompoundFile{Root: []string{"Workbook", "x"}, Storages: map[string][]string{"S": {"y"}}}.Bytes())
	f.Add([]byte(officefile.MagicCompound))
	f.Fuzz(func(t *testing.T, content []byte) {
		r := readerOf(content)
		defer r.Close()
		_ = officefile.CheckDoc(r, int64(len(content)))
		_ = officefile.CheckXls(r, int64(len(content)))
	})
}

// FuzzCheckDocx: the ZIP check reads any bytes without panicking.
func FuzzCheckDocx(f *testing.F) {
	f.Add(officefiletest.Zip(0, "word/document.xml"))
	f.Add([]byte(officefile.MagicZip))
	f.Fuzz(func(t *testing.T, content []byte) {
		w := officefile.NewWindow()
		w.Write(content)
		r := w.ReaderAt(int64(len(content)), nil, 0)
		defer r.Close()
		_ = officefile.CheckDocx(r, int64(len(content)))
	})
}
