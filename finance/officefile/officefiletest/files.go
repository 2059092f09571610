// Package officefiletest makes files for the tests of package
// officefile and of what uses it: ZIP files with the parts Office Open
// XML files hold, and compound files (OLE2) laid out as a test asks,
// their sectors scattered or in order, with or without a DIFAT sector.
// The files are no documents a program could open, only what the checks
// read.
package officefiletest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"unicode/utf16"
)

// filler returns n bytes that differ from one seed to another.
func filler(seed uint64, n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 1}).Read(b) // never fails
	return b
}

// Zip returns a ZIP file holding entries of the given names, with
// a stored (uncompressed) padding entry, "pad.bin", that brings it to
// size bytes when size is larger than the ZIP without it.
func Zip(size int, names ...string) []byte {
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
			w.Write(filler(12, padLen))
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

// Sized returns the file with as much padding as fits in size bytes.
func (c CompoundFile) Sized(size int) []byte {
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
		copy(sector(s), filler(uint64(13+i%7), ss))
	}
	return out
}
