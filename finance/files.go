package finance

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
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
	magicOLE2 = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	magicZIP  = []byte("PK\x03\x04")
	magicJPEG = []byte{0xFF, 0xD8, 0xFF}
	magicPNG  = []byte("\x89PNG\r\n\x1a\n")
)

// fileKinds are the accepted formats of the interface (4.2), by
// extension.
var fileKinds = map[string]fileKind{
	".pdf":  {"application/pdf", "a PDF document", magicPDF, nil, false},
	".doc":  {"application/msword", "a Word 97-2003 document", magicOLE2, checkWordBinary, true},
	".xls":  {"application/vnd.ms-excel", "an Excel 97-2003 workbook", magicOLE2, checkExcelBinary, true},
	".docx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "a Word document", magicZIP, checkZipHolds("word/document.xml"), false},
	".xlsx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "an Excel workbook", magicZIP, checkZipHolds("xl/workbook.xml"), false},
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
		in.head = make([]byte, 0, headWindow)
		in.tail = ring{buf: make([]byte, tailWindow)}
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
		ra := &blobAt{ctx: ctx, blobs: blobs, key: key, size: size, head: in.head, tail: in.tail.bytes()}
		// OLE2 files may be read back (see cfbRootStreams); ZIP files
		// are checked from the tail alone.
		if kind.readBack {
			ra.budget = readBackPasses * size
		}
		err := kind.check(ra, size)
		ra.close()
		switch {
		case errors.Is(ra.err, errTooScattered):
			return Received{}, discard(ctx, blobs, key, refuse("the file's structure is too large or too scattered to check it is %s", kind.what))
		case ra.err != nil:
			return Received{}, discard(ctx, blobs, key, msgkit.Wrap(ra.err, msgkit.Internal, CodeFileStorage, "cannot read the stored file back"))
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

// asciiEqualFold is strings.EqualFold for ASCII letters only: Unicode
// folding would match names no Office program writes ("ſ" for "s").
func asciiEqualFold(a, b string) bool { return asciiLower(a) == asciiLower(b) }

// Windows that Receive keeps of a stream that it checks after storing:
// the head holds an OLE2 header (512 or 4096 bytes); the tail holds a
// ZIP's end records and central directory, which archive/zip reads
// (its search for the end record alone reads the last 65 KiB).
const (
	headWindow = 4 << 10
	tailWindow = 128 << 10
)

// readBackPasses bounds what checking an OLE2 file reads back from the
// store, in multiples of its size: its FAT and its directory are each
// read in one forward pass, after at most one more for the DIFAT sector.
const readBackPasses = 4

var errTooLarge = errors.New("the file is larger than MaxFileSize")

// upload is the uploaded stream as Receive reads it: it counts, stops
// with errTooLarge past MaxFileSize, keeps the head and tail windows
// when they are wanted, and records how the source ended.
type upload struct {
	ctx      context.Context
	src      io.Reader // the upload, limited to MaxFileSize+1 bytes
	n        int64
	eof      bool
	tooLarge bool
	readErr  error // the source's failure
	head     []byte
	tail     ring
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
	if cap(u.head) > 0 {
		if room := cap(u.head) - len(u.head); room > 0 {
			u.head = append(u.head, p[:min(n, room)]...)
		}
		u.tail.write(p[:n])
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

// ring keeps the last len(buf) bytes written to it.
type ring struct {
	buf  []byte
	pos  int
	full bool
}

func (r *ring) write(p []byte) {
	if len(r.buf) == 0 || len(p) == 0 {
		return
	}
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.pos, r.full = 0, true
		return
	}
	n := copy(r.buf[r.pos:], p)
	if n < len(p) {
		r.pos, r.full = copy(r.buf, p[n:]), true
		return
	}
	r.pos += n
	if r.pos == len(r.buf) {
		r.pos, r.full = 0, true
	}
}

// bytes returns the kept bytes in order, rotating them in place; the
// ring is done with afterwards.
func (r *ring) bytes() []byte {
	if !r.full {
		return r.buf[:r.pos]
	}
	slices.Reverse(r.buf[:r.pos])
	slices.Reverse(r.buf[r.pos:])
	slices.Reverse(r.buf)
	r.pos = 0
	return r.buf
}

// errTooScattered refuses a file whose structure would take more reading
// back than the budget, or lies outside the windows when there is none.
var errTooScattered = errors.New("its structure is too large or too scattered")

// blobAt reads a stored blob at offsets, for archive/zip and the OLE2
// check: from the head and tail windows kept while the blob streamed in,
// otherwise (within budget bytes) by reading the blob again through
// Open, forward, reopening it only to go back. Its first failure is
// kept in err, so a caller tells the store's failures from the file's.
type blobAt struct {
	ctx    context.Context
	blobs  BlobStore
	key    string
	size   int64
	head   []byte // bytes [0, len(head))
	tail   []byte // bytes [size-len(tail), size)
	budget int64  // bytes it may still read through Open
	rc     io.ReadCloser
	pos    int64 // rc's offset
	err    error
}

func (b *blobAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	want := p[:min(int64(len(p)), b.size-off)]
	end := off + int64(len(want))
	switch tailOff := b.size - int64(len(b.tail)); {
	case end <= int64(len(b.head)):
		copy(want, b.head[off:])
	case off >= tailOff:
		copy(want, b.tail[off-tailOff:])
	default:
		if err := b.readBack(want, off); err != nil {
			return 0, err
		}
	}
	if len(want) < len(p) {
		return len(want), io.EOF
	}
	return len(p), nil
}

func (b *blobAt) readBack(p []byte, off int64) error {
	if b.err != nil {
		return b.err
	}
	if b.rc == nil || off < b.pos {
		b.close()
		rc, err := b.blobs.Open(b.ctx, b.key)
		if err != nil {
			b.err = err
			return err
		}
		b.rc, b.pos = rc, 0
	}
	if need := off - b.pos + int64(len(p)); need > b.budget {
		b.err = errTooScattered
		return b.err
	} else {
		b.budget -= need
	}
	if _, err := io.CopyN(io.Discard, b.rc, off-b.pos); err != nil {
		b.err = fmt.Errorf("reading the stored file back: %w", err)
		return b.err
	}
	if _, err := io.ReadFull(b.rc, p); err != nil {
		b.err = fmt.Errorf("reading the stored file back: %w", err)
		return b.err
	}
	b.pos = off + int64(len(p))
	return nil
}

func (b *blobAt) close() {
	if b.rc != nil {
		_ = b.rc.Close() // read only
		b.rc = nil
	}
}

// checkZipHolds returns the check of an Office Open XML file: a ZIP
// whose central directory lists the main part, named in any case (part
// names are case-insensitive). The ReaderAt is bounded to the tail
// window: it bounds what archive/zip reads and allocates for a hostile
// directory, and no Office file has a directory near that size.
func checkZipHolds(part string) func(io.ReaderAt, int64) error {
	return func(ra io.ReaderAt, size int64) error {
		zr, err := zip.NewReader(ra, size)
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			return err
		}
		if err != nil {
			return errors.New("a ZIP entry has an unsafe name")
		}
		for _, f := range zr.File {
			if asciiEqualFold(f.Name, part) {
				return nil
			}
		}
		return fmt.Errorf("no %s in the ZIP file", part)
	}
}

// checkWordBinary and checkExcelBinary tell Word from Excel (and from
// other compound files: installers, Outlook messages, PowerPoint) by the
// streams at the root of the compound file: Word keeps its text in
// WordDocument, Excel 97-2003 its sheets in Workbook and Excel 5/95 in
// Book. Streams of embedded objects live in storages below the root, so
// a Word file holding an Excel chart is still Word only.
func checkWordBinary(ra io.ReaderAt, size int64) error {
	return cfbRootHolds(ra, size, "WordDocument")
}

func checkExcelBinary(ra io.ReaderAt, size int64) error {
	return cfbRootHolds(ra, size, "Workbook", "Book")
}

func cfbRootHolds(ra io.ReaderAt, size int64, names ...string) error {
	streams, err := cfbRootStreams(ra, size)
	if err != nil {
		return err
	}
	for _, s := range streams {
		for _, n := range names {
			if asciiEqualFold(s, n) { // the format compares names case-insensitively
				return nil
			}
		}
	}
	return fmt.Errorf("the compound file has no %s stream at its root", names[0])
}

// Compound File Binary format ([MS-CFB]) constants.
const (
	cfbEndOfChain = 0xFFFFFFFE
	cfbNoStream   = 0xFFFFFFFF
	cfbEntrySize  = 128
	cfbHeaderLen  = 512
	cfbHeaderFAT  = 109 // FAT sector numbers in the header
	// cfbMaxDirBytes bounds the directory read: Office files have a few
	// dozen entries (128 bytes each); this allows 2,048.
	cfbMaxDirBytes = 256 << 10
	cfbStream      = 2
	cfbRoot        = 5
)

// cfbEntry is what the check keeps of a directory entry.
type cfbEntry struct {
	typ                byte
	left, right, child uint32
	name               string
}

// cfbRootStreams returns the names of the streams directly below the
// root storage of the compound file ra of size bytes. It reads the
// header, the DIFAT sectors (a file of MaxFileSize needs at most one),
// the FAT sectors that cover the file, in file order, then the
// directory's sectors, in file order: a few forward passes in all,
// whatever the layout, with memory bounded by the file's size over 128
// (the FAT) and cfbMaxDirBytes.
func cfbRootStreams(ra io.ReaderAt, size int64) ([]string, error) {
	var h [cfbHeaderLen]byte
	if _, err := ra.ReadAt(h[:], 0); err != nil {
		return nil, fmt.Errorf("no compound file header: %w", err)
	}
	le := binary.LittleEndian
	u32 := func(b []byte, off int) uint32 { return le.Uint32(b[off:]) }
	if !bytes.Equal(h[:8], magicOLE2) || le.Uint16(h[0x1C:]) != 0xFFFE {
		return nil, errors.New("not a compound file")
	}
	var shift uint16
	switch major := le.Uint16(h[0x1A:]); major {
	case 3:
		shift = 9
	case 4:
		shift = 12
	default:
		return nil, fmt.Errorf("compound file version %d", major)
	}
	if le.Uint16(h[0x1E:]) != shift {
		return nil, errors.New("compound file sector size does not match its version")
	}
	ss := int64(1) << shift
	per := ss / 4 // sector numbers per FAT or DIFAT sector
	nSect := (size - ss + ss - 1) / ss
	if nSect < 1 {
		return nil, errors.New("compound file without sectors")
	}
	// readSector reads sector s; a last sector cut short reads as zeros.
	readSector := func(buf []byte, s uint32) error {
		clear(buf)
		if _, err := ra.ReadAt(buf, (int64(s)+1)*ss); err != nil && err != io.EOF {
			return err
		}
		return nil
	}
	buf := make([]byte, ss)

	// The FAT sectors that cover the file's sectors; any more map
	// sectors that are not there.
	nFAT := min(int64(u32(h[:], 0x2C)), (nSect+per-1)/per)
	if nFAT < 1 {
		return nil, errors.New("compound file without a FAT")
	}
	fatSectors := make([]uint32, 0, nFAT)
	for i := 0; i < cfbHeaderFAT && int64(len(fatSectors)) < nFAT; i++ {
		fatSectors = append(fatSectors, u32(h[:], 0x4C+4*i))
	}
	for difat := u32(h[:], 0x44); int64(len(fatSectors)) < nFAT; {
		if int64(difat) >= nSect {
			return nil, errors.New("compound file DIFAT chain is broken")
		}
		if err := readSector(buf, difat); err != nil {
			return nil, err
		}
		for i := int64(0); i < per-1 && int64(len(fatSectors)) < nFAT; i++ {
			fatSectors = append(fatSectors, u32(buf, int(4*i)))
		}
		difat = u32(buf, int(ss-4))
	}
	fat := make([]uint32, nFAT*per)
	if err := readInOrder(fatSectors, nSect, buf, readSector, func(i int) {
		for j := range per {
			fat[int64(i)*per+j] = u32(buf, int(4*j))
		}
	}); err != nil {
		return nil, err
	}

	// The directory's chain, then its sectors.
	var chain []uint32
	for s := u32(h[:], 0x30); s != cfbEndOfChain; s = fat[s] {
		if int64(s) >= nSect || int64(s) >= int64(len(fat)) {
			return nil, errors.New("compound file directory chain is broken")
		}
		if int64(len(chain)+1)*ss > cfbMaxDirBytes {
			return nil, errors.New("compound file directory is too large")
		}
		chain = append(chain, s)
	}
	perDir := int(ss / cfbEntrySize)
	entries := make([]cfbEntry, len(chain)*perDir)
	if err := readInOrder(chain, nSect, buf, readSector, func(i int) {
		for j := range perDir {
			entries[i*perDir+j] = cfbParseEntry(buf[j*cfbEntrySize : (j+1)*cfbEntrySize])
		}
	}); err != nil {
		return nil, err
	}
	if len(entries) == 0 || entries[0].typ != cfbRoot {
		return nil, errors.New("compound file without a root entry")
	}

	// The root's children form a tree through left and right.
	var names []string
	seen := make([]bool, len(entries))
	stack := []uint32{entries[0].child}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == cfbNoStream {
			continue
		}
		if int(id) >= len(entries) || seen[id] {
			return nil, errors.New("compound file directory tree is broken")
		}
		seen[id] = true
		e := entries[id]
		if e.typ == cfbStream {
			names = append(names, e.name)
		}
		stack = append(stack, e.left, e.right)
	}
	return names, nil
}

// readInOrder reads the sectors of list in file order, calling got with
// each one's index in list while buf holds it, so the blob is read
// forward once.
func readInOrder(list []uint32, nSect int64, buf []byte, read func([]byte, uint32) error, got func(i int)) error {
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
		if int64(list[i]) >= nSect {
			return errors.New("compound file refers to a sector beyond its end")
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(list[a], list[b]) })
	for _, i := range order {
		if err := read(buf, list[i]); err != nil {
			return err
		}
		got(i)
	}
	return nil
}

func cfbParseEntry(b []byte) cfbEntry {
	le := binary.LittleEndian
	e := cfbEntry{typ: b[0x42], left: le.Uint32(b[0x44:]), right: le.Uint32(b[0x48:]), child: le.Uint32(b[0x4C:])}
	if n := int(le.Uint16(b[0x40:])); e.typ != 0 && n >= 2 && n <= 64 && n%2 == 0 {
		units := make([]uint16, n/2-1) // without the terminating NUL
		for i := range units {
			units[i] = le.Uint16(b[2*i:])
		}
		e.name = string(utf16.Decode(units))
	}
	return e
}
