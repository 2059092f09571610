//go:build !purego

package gsm

import (
	"math/bits"
	"unsafe"
)

// haveAVX2 tells whether this CPU and its operating system run AVX2: the
// scanner of UCS-2 texts then checks and counts 32 bytes an instruction.
var haveAVX2 = detectAVX2()

func detectAVX2() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(1<<27) == 0 || ecx1&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	if xgetbv()&6 != 6 { // the OS saves the XMM and YMM registers
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0 // AVX2
}

//go:noescape
func ucsBlocksAVX2(p *byte, blocks int, prev *[32]byte, masks *uint64, t *avxTables) (bad bool)

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax uint32)

// avxTables are the constants of ucsBlocksAVX2, each 32 bytes for one YMM
// register; the assembly reads them at these offsets.
type avxTables struct {
	byte1High, byte1Low, byte2High [32]byte // nibble lookups, both lanes alike
	nibble                         [32]byte // 0x0F
	third, fourth                  [32]byte // 0xE0-0x80, 0xF0-0x80
	top                            [32]byte // 0x80
	contMax, lead4Min              [32]byte // 0xBF, 0xEF: compared as signed bytes
}

// The error bits of the nibble lookups: each names a way a pair of bytes
// (the first's two nibbles, the second's high nibble) breaks UTF-8; a pair
// is bad when all three lookups share a bit.
const (
	tooShort     = 1 << 0 // a lead not followed by a continuation byte
	tooLong      = 1 << 1 // ASCII followed by a continuation byte
	overlong3    = 1 << 2 // E0 80..9F
	tooLarge     = 1 << 3 // F4 90..BF, F5..FF
	surrogate    = 1 << 4 // ED A0..BF
	overlong2    = 1 << 5 // C0, C1
	tooLarge1000 = 1 << 6 // F5..FF 80..8F
	overlong4    = 1 << 6 // F0 80..8F
	twoConts     = 1 << 7 // two continuation bytes: right only where a lead of 3 or 4 bytes asks
	carry        = tooShort | tooLong | twoConts
)

var ucsTables = newAVXTables()

func newAVXTables() *avxTables {
	high1 := [16]byte{
		tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, tooLong, // 0_______: ASCII
		twoConts, twoConts, twoConts, twoConts, // 10______
		tooShort | overlong2,             // 1100____
		tooShort,                         // 1101____
		tooShort | overlong3 | surrogate, // 1110____
		tooShort | tooLarge | tooLarge1000 | overlong4, // 1111____
	}
	const big = carry | tooLarge | tooLarge1000
	low1 := [16]byte{
		carry | overlong3 | overlong2 | overlong4, // ____0000
		carry | overlong2,                         // ____0001
		carry, carry,
		carry | tooLarge, // ____0100
		big, big, big,
		big, big, big, big, big,
		big | surrogate, // ____1101
		big, big,
	}
	const cont = tooLong | overlong2 | twoConts
	high2 := [16]byte{
		tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, tooShort, // ASCII
		cont | overlong3 | tooLarge1000 | overlong4, // 1000____
		cont | overlong3 | tooLarge,                 // 1001____
		cont | surrogate | tooLarge,                 // 101_____
		cont | surrogate | tooLarge,
		tooShort, tooShort, tooShort, tooShort, // 11______
	}
	t := new(avxTables)
	for i := range 32 {
		t.byte1High[i], t.byte1Low[i], t.byte2High[i] = high1[i%16], low1[i%16], high2[i%16]
		t.nibble[i], t.third[i], t.fourth[i], t.top[i] = 0x0F, 0xE0-0x80, 0xF0-0x80, 0x80
		t.contMax[i], t.lead4Min[i] = 0xBF, 0xEF
	}
	return t
}

// scanUCS is scanUCSWords (same contract), 32 bytes at a time where the
// CPU has AVX2.
func scanUCS(text string, cuts []cut) (walk, bool) {
	if !haveAVX2 || len(text) < 32 {
		return scanUCSWords(text, cuts)
	}
	return scanUCSBlocks(text, cuts)
}

// scanUCSBlocks checks and packs text by blocks of 32 bytes, the masks of
// up to len(masks) blocks at a call of the assembly. The last block is the
// text's tail padded with zeros, always, even an empty tail: a zero after
// the text is where a character cut short at the end fails the check.
func scanUCSBlocks(text string, cuts []cut) (walk, bool) {
	var (
		masks [16]uint64
		prev  [32]byte
		pad   [32]byte
		bad   bool
	)
	p := blockPacker{cuts: cuts}
	off := 0
	for len(text)-off >= 32 {
		n := min((len(text)-off)/32, len(masks))
		bad = ucsBlocksAVX2(unsafe.StringData(text[off:]), n, &prev, &masks[0], ucsTables) || bad
		p.pack(off, masks[:n])
		off += 32 * n
	}
	tail := copy(pad[:], text[off:])
	bad = ucsBlocksAVX2(&pad[0], 1, &prev, &masks[0], ucsTables) || bad
	masks[0] &= 0xFFFFFFFF<<32 | 1<<tail - 1 // the padding's zeros are no characters (and no leads)
	p.pack(off, masks[:1])
	return p.walk(), !bad
}

// blockPacker packs UTF-16 units greedily into parts of UCSPart units from
// the masks of 32-byte blocks: the low half of a mask has a bit for each
// character's first byte (a unit each), the high half for each lead of 4
// bytes (a second unit, for the surrogate pair). A block holds at most 32
// units, fewer than a part, so at most one part ends in a block.
type blockPacker struct {
	filled, done, parts int
	cuts                []cut
}

func (p *blockPacker) pack(off int, masks []uint64) {
	if p.parts >= len(p.cuts) {
		p.count(masks)
		return
	}
	filled := p.filled
	for i, m := range masks {
		u := bits.OnesCount64(m) // the characters and the second units of surrogate pairs
		if filled+u <= UCSPart {
			filled += u
			continue
		}
		k, before := cutIn(m, UCSPart-filled, p.parts < len(p.cuts))
		if p.parts < len(p.cuts) {
			p.cuts[p.parts] = cut{end: int32(off + 32*i + k), units: int32(filled + before)}
		}
		p.parts++
		p.done += filled + before
		filled = u - before
	}
	p.filled = filled
}

// cutIn finds where in the block of mask m the part ends that has room
// units left: before the first character that does not fit, at byte k,
// after before units of the block. Without where, k is found only when the
// block holds a surrogate pair (it decides before then).
func cutIn(m uint64, room int, where bool) (k, before int) {
	if m>>32 == 0 {
		// Characters of one unit each: the part takes room of them and
		// ends at the next one.
		if where {
			k = selectBit(uint32(m), room)
		}
		return k, room
	}
	// The largest k whose first k bytes hold at most room units (the
	// units grow only at a character's first byte, so byte k is one).
	for step := 16; step > 0; step >>= 1 {
		first := uint64(1)<<(k+step) - 1
		if n := bits.OnesCount64(m & (first | first<<32)); n <= room {
			k, before = k+step, n
		}
	}
	return k, before
}

// count is pack once no more cuts are noted: a part that ends in a block of
// characters of one unit each is counted without a branch (whether a part
// ends in a block is a coin toss to the CPU); only a block with a surrogate
// pair where a part ends is searched.
func (p *blockPacker) count(masks []uint64) {
	filled, parts, done := p.filled, p.parts, p.done
	for _, m := range masks {
		f := filled + bits.OnesCount64(m)
		over := int(uint(UCSPart-f) >> (bits.UintSize - 1)) // 1 when a part ends here
		if m>>32*uint64(over) != 0 {
			_, before := cutIn(m, UCSPart-filled, false)
			parts++
			done += filled + before
			filled = f - filled - before
			continue
		}
		parts += over
		done += over * UCSPart
		filled = f - over*UCSPart
	}
	p.filled, p.parts, p.done = filled, parts, done
}

// selectBit is the position of the bit of x that has r set bits below it;
// x has more than r.
func selectBit(x uint32, r int) int {
	for at := 0; ; at += 8 {
		b := uint8(x >> at)
		if n := bits.OnesCount8(b); r >= n {
			r -= n
			continue
		}
		return at + int(bitsOfByte[b][r])
	}
}

// bitsOfByte lists the positions of each byte's set bits, lowest first.
var bitsOfByte = func() (t [256][8]uint8) {
	for b := range t {
		n := 0
		for i := range 8 {
			if b>>i&1 != 0 {
				t[b][n] = uint8(i)
				n++
			}
		}
	}
	return t
}()

func (p *blockPacker) walk() walk {
	parts := p.parts + 1
	return walk{total: p.done + p.filled, parts: parts, overflown: parts > MaxParts}
}
