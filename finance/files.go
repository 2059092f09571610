package finance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance/officefile"
)

// Codes of the errors of file uploads and blob stores.
const (
	// CodeInvalidFile: Receive refused the uploaded file (Invalid).
	CodeInvalidFile = "invalid_file"
	// CodeFileStorage: storing or checking an upload failed for a reason
	// the uploader cannot fix (Internal).
	CodeFileStorage = "file_storage"
	// CodeInvalidBlobKey: a key that CheckBlobKey refuses (Invalid).
	CodeInvalidBlobKey = "invalid_blob_key"
)

// FileField is the multipart field of an invoice file upload; Receive
// names it in its refusals.
const FileField = "supplierInvoice"

// MaxFileSize is the largest file Receive accepts: 10 MB (10,485,760
// bytes), the interface's limit read in binary megabytes.
const MaxFileSize = 10 << 20

// Bounds of file names. A recorded name is bounded so that a record
// stays small; a stored name fits the 255-byte name limit of common file
// systems.
const (
	MaxFilenameLen   = 1024
	MaxStoredNameLen = 255
)

// MaxBlobKeyLen bounds a blob key, so that a key also fits in one file
// name (see CheckBlobKey).
const MaxBlobKeyLen = 255

// BlobStore keeps the bytes of uploaded files under keys the caller
// chooses. Blobs are immutable: a key is written once, read any number
// of times and deleted. Keys are those CheckBlobKey accepts; every method
// refuses others with an Invalid *msgkit.Error. The finance/financetest
// package holds the contract every implementation meets.
type BlobStore interface {
	// Put stores everything r yields under key, failing with a Conflict
	// *msgkit.Error if key exists. It must not hold the whole content in
	// memory (stream it). A Put that fails stores nothing (a blob that
	// was there stays as it was), so its caller has nothing to clean up;
	// when r fails, r's error is in the chain of the one Put returns.
	Put(ctx context.Context, key string, r io.Reader) (size int64, err error)
	// Open reads a blob back; a missing key is a NotFound *msgkit.Error.
	// A reader opened before the blob is deleted either reads it whole or
	// fails: it never ends early without an error.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes a blob; a missing key is a NotFound *msgkit.Error.
	Delete(ctx context.Context, key string) error
}

// CheckBlobKey accepts the keys every BlobStore takes: one to
// MaxBlobKeyLen bytes of segments joined by '/', the only separator;
// each segment is made of lower-case ASCII letters, digits, '-', '_' and
// '.', and does not begin with '.' (so "." and ".." are no segments).
// Such a key names the same blob on any store: it cannot climb out of a
// directory, needs no escaping, and cannot differ only in case (which a
// case-insensitive file system would confuse).
func CheckBlobKey(key string) error {
	bad := func(why string) error {
		return msgkit.Invalidf(CodeInvalidBlobKey, "key", "blob key %q %s", key, why)
	}
	if key == "" || len(key) > MaxBlobKeyLen {
		return bad(fmt.Sprintf("must have 1 to %d bytes", MaxBlobKeyLen))
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg[0] == '.' {
			return bad("has an empty segment or one beginning with '.'")
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				return bad("may hold only a-z, 0-9, '-', '_', '.' and '/'")
			}
		}
	}
	return nil
}

// Received describes a file Receive stored.
type Received struct {
	Key string
	// Filename is the uploaded file's base name as the client sent it,
	// for the record (filename).
	Filename string
	// StoredName is Filename made safe for a file system (fsFilename).
	StoredName string
	// Ext is the extension in lower case, with its dot (".pdf").
	Ext         string
	ContentType string
	Size        int64
}

// fileKind is one accepted extension: the bytes its content begins with,
// and the check of the content's structure when those bytes are shared
// with other formats.
type fileKind struct {
	contentType string
	what        string // "a PDF document", for refusals
	magic       []byte
	check       func(ra io.ReaderAt, size int64) error // nil: the magic suffices
	readBack    bool                                   // check may read the stored blob back
}

var (
	magicPDF  = []byte("%PDF-")
	magicOLE2 = []byte(officefile.MagicCompound)
	magicZIP  = []byte(officefile.MagicZip)
	magicJPEG = []byte{0xFF, 0xD8, 0xFF}
	magicPNG  = []byte("\x89PNG\r\n\x1a\n")
)

// fileKinds are the accepted formats of the interface (4.2), by
// extension.
var fileKinds = map[string]fileKind{
	".pdf":  {"application/pdf", "a PDF document", magicPDF, nil, false},
	".doc":  {"application/msword", "a Word 97-2003 document", magicOLE2, officefile.CheckDoc, true},
	".xls":  {"application/vnd.ms-excel", "an Excel 97-2003 workbook", magicOLE2, officefile.CheckXls, true},
	".docx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "a Word document", magicZIP, officefile.CheckDocx, false},
	".xlsx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "an Excel workbook", magicZIP, officefile.CheckXlsx, false},
	".jpg":  {"image/jpeg", "a JPEG image", magicJPEG, nil, false},
	".jpeg": {"image/jpeg", "a JPEG image", magicJPEG, nil, false},
	".png":  {"image/png", "a PNG image", magicPNG, nil, false},
}

// acceptedExts lists the extensions for messages, in the interface's
// order.
const acceptedExts = ".pdf, .doc, .docx, .xls, .xlsx, .jpg, .jpeg or .png"

// refuse is Receive's refusal: Invalid, naming the upload's field.
func refuse(format string, args ...any) *msgkit.Error {
	return msgkit.Invalidf(CodeInvalidFile, FileField, format, args...)
}

// Receive streams r (a multipart file part) into blobs under key and
// describes what it stored. It refuses, with an Invalid *msgkit.Error
// naming FileField:
//   - a filename whose extension is not one of the accepted ones (in any
//     case), or that is empty, not UTF-8, holds NUL or is longer than
//     MaxFilenameLen;
//   - an empty file;
//   - a file larger than MaxFileSize, as soon as its MaxFileSize+1st byte
//     arrives: r is never read further;
//   - content whose real type is not its extension's (see the package
//     doc's Files);
//   - r failing (an upload cut short), unless r's error is a classified
//     *msgkit.Error, which comes back as it is.
//
// The magic bytes are checked before anything is stored. A refusal found
// after storing (by the structure of .doc, .xls, .docx and .xlsx files)
// deletes the blob; if that fails, the error is Internal. Store errors
// come back as the store classified them (Conflict for a key in use, whose
// blob stays). key is the caller's choice, so a key CheckBlobKey refuses
// is an Internal error, not the uploader's.
func Receive(ctx context.Context, blobs BlobStore, key, filename string, r io.Reader) (Received, error) {
	if err := CheckBlobKey(key); err != nil {
		return Received{}, msgkit.Wrap(err, msgkit.Internal, CodeFileStorage, "invalid storage key")
	}
	name, err := baseName(filename)
	if err != nil {
		return Received{}, err
	}
	ext := asciiLower(path.Ext(name))
	kind, ok := fileKinds[ext]
	if !ok {
		return Received{}, refuse("the file must be a %s file", acceptedExts)
	}

	in := &upload{ctx: ctx, src: io.LimitReader(r, MaxFileSize+1)}
	if kind.check != nil {
		in.window = officefile.NewWindow()
	}
	// The magic first, so that a file that is not what it says is
	// refused before a byte of it is stored.
	magic := make([]byte, len(kind.magic))
	n, err := io.ReadFull(in, magic)
	switch {
	case in.failed():
		return Received{}, in.err()
	case ctx.Err() != nil:
		return Received{}, msgkit.Wrap(ctx.Err(), msgkit.Internal, CodeFileStorage, "the upload was cancelled")
	case n == 0 && in.eof:
		return Received{}, refuse("the file is empty")
	case err != nil || !bytes.Equal(magic, kind.magic):
		return Received{}, refuse("the file's content is not %s", kind.what)
	}

	size, err := blobs.Put(ctx, key, io.MultiReader(bytes.NewReader(magic), in))
	if err != nil {
		if in.failed() {
			return Received{}, in.err()
		}
		return Received{}, err
	}
	if size != in.n || !in.eof {
		// A store that stopped early or miscounted; what it holds is not
		// the upload.
		return Received{}, discard(ctx, blobs, key, msgkit.New(msgkit.Internal, CodeFileStorage,
			fmt.Sprintf("the store took %d of the file's %d bytes", size, in.n)))
	}
	if kind.check != nil {
		// OLE2 files may be read back (see officefile.CheckDoc); ZIP
		// files are checked from the tail alone.
		var budget int64
		if kind.readBack {
			budget = officefile.ReadBackPasses * size
		}
		ra := in.window.ReaderAt(size, func() (io.ReadCloser, error) { return blobs.Open(ctx, key) }, budget)
		err := kind.check(ra, size)
		ra.Close()
		switch {
		case errors.Is(ra.Err(), officefile.ErrTooScattered):
			return Received{}, discard(ctx, blobs, key, refuse("the file's structure is too large or too scattered to check it is %s", kind.what))
		case ra.Err() != nil:
			return Received{}, discard(ctx, blobs, key, msgkit.Wrap(ra.Err(), msgkit.Internal, CodeFileStorage, "cannot read the stored file back"))
		case err != nil:
			return Received{}, discard(ctx, blobs, key, msgkit.Wrap(err, msgkit.Invalid, CodeInvalidFile,
				"the file's content is not "+kind.what).WithField(FileField, "the file's content is not "+kind.what, err.Error()))
		}
	}
	return Received{
		Key:         key,
		Filename:    name,
		StoredName:  storedName(name, ext),
		Ext:         ext,
		ContentType: kind.contentType,
		Size:        size,
	}, nil
}

// discard deletes a blob Receive stored but will not keep, and returns
// why (refusal). It deletes even after ctx ends: a refused file must
// not stay behind.
func discard(ctx context.Context, blobs BlobStore, key string, refusal error) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := blobs.Delete(dctx, key); err != nil {
		return msgkit.Wrap(errors.Join(refusal, err), msgkit.Internal, CodeFileStorage, "cannot delete a refused file")
	}
	return refusal
}

// baseName returns the last element of a client's file name: browsers
// may send a whole path, with either separator.
func baseName(filename string) (string, error) {
	name := filename[strings.LastIndexAny(filename, `/\`)+1:]
	switch {
	case name == "":
		return "", refuse("the file has no name")
	case len(name) > MaxFilenameLen:
		return "", refuse("the file's name is longer than %d bytes", MaxFilenameLen)
	case !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return "", refuse("the file's name must be UTF-8 text without NUL")
	}
	return name, nil
}

// storedName makes a base name safe to store as a file name anywhere:
// control and invisible formatting characters (a right-to-left override
// can disguise "fdp.exe" as "exe.pdf") and the characters Windows
// reserves become '_'; leading and trailing dots and spaces go (no
// hidden files, no names Windows trims); a Windows device name gets a
// '_' before it; the extension is ext (lower case), and the stem is cut
// to keep the whole within MaxStoredNameLen bytes.
func storedName(name, ext string) string {
	stem := name[:len(name)-len(ext)]
	stem = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || strings.ContainsRune(`<>:"/\|?*`, r) {
			return '_'
		}
		return r
	}, stem)
	stem = strings.Trim(stem, ". ")
	device, _, _ := strings.Cut(stem, ".")
	switch strings.ToUpper(strings.TrimRight(device, " ")) {
	case "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		stem = "_" + stem
	}
	if limit := MaxStoredNameLen - len(ext); len(stem) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		stem = strings.TrimRight(stem[:cut], ". ")
	}
	if stem == "" {
		stem = "file"
	}
	return stem + ext
}

// asciiLower lowers A-Z only: an extension matches an accepted one only
// if it is that one in ASCII letters of any case.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

var errTooLarge = errors.New("the file is larger than MaxFileSize")

// upload is the uploaded stream as Receive reads it: it counts, stops
// with errTooLarge past MaxFileSize, keeps the head and tail windows
// (officefile.Window) when they are wanted, and records how the source
// ended.
type upload struct {
	ctx      context.Context
	src      io.Reader // the upload, limited to MaxFileSize+1 bytes
	n        int64
	eof      bool
	tooLarge bool
	readErr  error              // the source's failure
	window   *officefile.Window // nil when nothing is checked after storing
}

func (u *upload) Read(p []byte) (int, error) {
	if u.tooLarge {
		return 0, errTooLarge
	}
	if err := u.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := u.src.Read(p)
	if u.n+int64(n) > MaxFileSize {
		u.tooLarge = true
		return 0, errTooLarge
	}
	u.n += int64(n)
	if u.window != nil {
		u.window.Write(p[:n])
	}
	switch {
	case err == io.EOF:
		u.eof = true
	case err != nil:
		u.readErr = err
	}
	return n, err
}

// failed reports whether the upload itself is at fault.
func (u *upload) failed() bool { return u.tooLarge || u.readErr != nil }

// err is the refusal of a failed upload.
func (u *upload) err() error {
	if u.tooLarge {
		return refuse("the file is larger than %d bytes (10 MB)", MaxFileSize)
	}
	if _, ok := errors.AsType[*msgkit.Error](u.readErr); ok {
		return u.readErr
	}
	return msgkit.Wrap(u.readErr, msgkit.Invalid, CodeInvalidFile, "the file could not be read to its end").
		WithField(FileField, "the file could not be read to its end", "")
}
