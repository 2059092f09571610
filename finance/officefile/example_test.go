package officefile_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/msgkit/msgkit/finance/officefile"
	"github.com/msgkit/msgkit/finance/officefile/officefiletest"
)

// An upload checked while it streams into a store: a Window keeps the
// stream's ends, and the checks read them back at offsets (re-opening
// the stored file only where the windows do not reach, within a budget).
// A .docx must be a ZIP holding word/document.xml; a spreadsheet renamed
// .docx is refused.
func Example() {
	for _, upload := range []struct {
		name string
		file []byte
	}{
		{"invoice.docx", officefiletest.Zip(0, "[Content_Types].xml", "word/document.xml")},
		{"invoice-renamed.docx", officefiletest.Zip(0, "[Content_Types].xml", "xl/workbook.xml")},
	} {
		w := officefile.NewWindow()
		w.Write(upload.file) // as the bytes go by on their way to the store
		stored := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(upload.file)), nil }
		r := w.ReaderAt(int64(len(upload.file)), stored, 0)
		err := officefile.CheckDocx(r, int64(len(upload.file)))
		r.Close()
		fmt.Println(upload.name, err == nil)
	}
	// Output:
	// invoice.docx true
	// invoice-renamed.docx false
}
