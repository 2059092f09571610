package officefile

import (
	"archive/zip"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
)

// The signatures the formats begin with.
const (
	MagicCompound = "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" // OLE2 compound file ([MS-CFB]): .doc, .xls
	MagicZip      = "PK\x03\x04"                       // ZIP local file header: .docx, .xlsx
)

// CheckDocx and CheckXlsx check an Office Open XML file: a ZIP whose
// central directory lists the main part, word/document.xml or
// xl/workbook.xml, named in any case (part names are case-insensitive).
// Give them a ReaderAt bounded to the tail window (Window.ReaderAt with
// no budget): it bounds what archive/zip reads and allocates for a
// hostile directory, and no Office file has a directory near that size.
func CheckDocx(ra io.ReaderAt, size int64) error { return zipHolds(ra, size, "word/document.xml") }

// CheckXlsx: see CheckDocx.
func CheckXlsx(ra io.ReaderAt, size int64) error { return zipHolds(ra, size, "xl/workbook.xml") }

func zipHolds(ra io.ReaderAt, size int64, part string) error {
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

// CheckDoc and CheckXls tell Word from Excel (and from other compound
// files: installers, Outlook messages, PowerPoint) by the streams at the
// root of the compound file: Word keeps its text in WordDocument, Excel
// 97-2003 its sheets in Workbook and Excel 5/95 in Book. Streams of
// embedded objects live in storages below the root, so a Word file
// holding an Excel chart is still Word only. They read the header, the
// FAT and the directory wherever they lie: give them a ReaderAt that may
// read back ReadBackPasses times the file's size.
func CheckDoc(ra io.ReaderAt, size int64) error {
	return cfbRootHolds(ra, size, "WordDocument")
}

// CheckXls: see CheckDoc.
func CheckXls(ra io.ReaderAt, size int64) error {
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
	if string(h[:8]) != MagicCompound || le.Uint16(h[0x1C:]) != 0xFFFE {
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

// asciiEqualFold is strings.EqualFold for ASCII letters only: Unicode
// folding would match names no Office program writes ("ſ" for "s").
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
