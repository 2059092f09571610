package gsm

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// Count is the result of counting a text without splitting it.
type Count struct {
	DCS   DCS // the coding chosen: DCSGSM or DCSUCS
	Parts int // physical SMS
	Units int // total septets (GSM) or UTF-16 units (UCS) of the whole text
}

// CountText tells how many physical SMS text needs with the requested coding,
// without allocating. It agrees with SplitText on the coding, the number of
// parts and the units, and returns the same errors.
func CountText(text string, dcs DCS) (Count, error) {
	return countText(text, dcs, nil, Ref8)
}

// CountTextRef is CountText for parts whose concatenation reference is
// of width w: with Ref16 a part holds GSMPart16 septets or UCSPart16
// units.
func CountTextRef(text string, dcs DCS, w RefWidth) (Count, error) {
	return countText(text, dcs, nil, w)
}

// countText is CountText noting the cuts between UCS-2 parts in cuts, as
// far as it has room (see scanUCS).
func countText(text string, dcs DCS, cuts []cut, w RefWidth) (Count, error) {
	if err := checkText(text, dcs); err != nil {
		return Count{}, err
	}
	if dcs != DCSUCS {
		// Positions of two-unit characters let the parts be counted without
		// a second pass; a text with more of them than fit here is walked
		// again.
		d := doubles{limit: len(doubles{}.at)}
		g, bad := countGSM(text, dcs == DCSGSM, &d, w.gsmPart())
		if bad < 0 {
			return g.count(DCSGSM, GSMSingle)
		}
		if dcs == DCSGSM {
			// The text is valid UTF-8 up to bad; invalid UTF-8 is the
			// first error whatever comes before it.
			if !utf8.ValidString(text[bad:]) {
				return Count{}, notUTF8()
			}
			return Count{}, notGSM(text, bad)
		}
	}
	u, ok := scanUCSRef(text, cuts, w)
	if !ok {
		return Count{}, notUTF8()
	}
	return u.count(DCSUCS, UCSSingle)
}

// scanUCSRef is scanUCS for parts of width w's capacity: the fast scanners
// pack UCSPart units, the 16-bit reference's parts are walked character
// by character.
func scanUCSRef(text string, cuts []cut, w RefWidth) (walk, bool) {
	if w == Ref16 {
		return walkUCS(text, UCSPart16, cuts)
	}
	return scanUCS(text, cuts)
}

// walkUCS checks that text is valid UTF-8 and packs its UTF-16 units
// greedily into parts of capacity units, never splitting a surrogate
// pair, noting the end of every part but the last in cuts as far as it
// has room. It does not stop past MaxParts, as scanUCS does not.
func walkUCS(text string, capacity int, cuts []cut) (walk, bool) {
	if !utf8.ValidString(text) {
		return walk{}, false
	}
	var w walk
	filled := 0
	for i, r := range text {
		cost := utf16.RuneLen(r)
		if filled+cost > capacity {
			if w.parts < len(cuts) {
				cuts[w.parts] = cut{end: int32(i), units: int32(filled)}
			}
			w.parts++
			w.total += filled
			filled = 0
		}
		filled += cost
	}
	w.parts++
	w.total += filled
	w.overflown = w.parts > MaxParts
	return w, true
}

// countGSM totals the septets of text in one pass, noting the character
// index of each two-septet character in d (up to d.limit of them), and
// derives the number of parts from those indices. It returns the byte
// offset of the first character outside the alphabet or of the first byte
// that is not valid UTF-8, or -1: text is valid UTF-8 up to there.
func countGSM(text string, allowCedilla bool, d *doubles, capacity int) (walk, int) {
	// Locals, not d's fields, carry the loop: a counter kept in memory would
	// chain every character through a store and a load.
	chars, n, at := 0, 0, &d.at
	for i := 0; i < len(text); {
		// Eight bytes at once, up to the first non-ASCII one: their classes
		// side by side in a word tell the bad bytes and the two-septet ones
		// without a branch per byte (extension characters come at random
		// and would be mispredicted).
		if i+8 <= len(text) {
			b := text[i : i+8]
			v := binary.LittleEndian.Uint64([]byte(b))
			k, keep := 8, ^uint64(0)
			if hi := v & highBits; hi != 0 {
				k = bits.TrailingZeros64(hi) >> 3
				keep = 1<<(8*k) - 1
			}
			cls := (uint64(asciiClass[b[0]&0x7F]) | uint64(asciiClass[b[1]&0x7F])<<8 |
				uint64(asciiClass[b[2]&0x7F])<<16 | uint64(asciiClass[b[3]&0x7F])<<24 |
				uint64(asciiClass[b[4]&0x7F])<<32 | uint64(asciiClass[b[5]&0x7F])<<40 |
				uint64(asciiClass[b[6]&0x7F])<<48 | uint64(asciiClass[b[7]&0x7F])<<56) & keep
			if cls&highBits != 0 {
				return walk{}, i + bits.TrailingZeros64(cls&highBits)>>3
			}
			for two := cls & (2 * lowBits); two != 0; two &= two - 1 {
				at[n&(len(at)-1)] = int32(chars + bits.TrailingZeros64(two)>>3) // past the limit, d.n tells
				n++
			}
			i += k
			chars += k
			if k == 8 {
				continue
			}
		}
		// A non-ASCII character, or one of the last few bytes.
		c := text[i]
		if c < utf8.RuneSelf {
			v := asciiClass[c]
			if v&classBad != 0 {
				return walk{}, i
			}
			at[n&(len(at)-1)] = int32(chars)
			n += int(v >> 1)
			i++
			chars++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:]) // invalid UTF-8 is utf8.RuneError, outside the alphabet
		cost := nonASCIICost(r)
		if cost == 0 && !(allowCedilla && r == 'ç') {
			return walk{}, i
		}
		at[n&(len(at)-1)] = int32(chars)
		n += int(cost >> 1)
		i += size
		chars++
	}
	d.n = n
	w := walk{total: chars + n}
	if w.total <= GSMSingle {
		return w, -1
	}
	if d.n > d.limit {
		w, _ = walkGSM(text, allowCedilla, capacity, nil)
		return w, -1
	}
	w.parts, w.overflown = packParts(chars, d.at[:d.n], capacity)
	return w, -1
}

// Masks of the low and the high bit of each byte of a word.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// doubles holds the character indices of two-unit characters, up to limit
// of them; past that the text is walked again instead. Slots past the limit
// are reused, so only the first n are meaningful when n <= limit.
type doubles struct {
	at    [256]int32
	n     int // two-unit characters seen, noted or not
	limit int // at most len(at)
}

// cut is where a UCS-2 part ends: the byte offset of its end in the text,
// and its UTF-16 units.
type cut struct {
	end, units int32
}

// scanUCSWords checks that text is valid UTF-8 and packs its UTF-16 units
// greedily into parts of UCSPart units, never splitting a surrogate pair,
// in one pass over the text. It notes the end of every part but the last
// in cuts, as far as cuts has room, and does not stop past MaxParts, so
// that invalid UTF-8 anywhere is found.
//
// It reads eight bytes at a time, without decoding characters: a
// character's units are counted at its lead byte (one for each byte that
// is not a continuation byte, one more for a 4-byte lead), and validity is
// checked on the whole word: every continuation byte must be one that a
// lead byte asks for, and lead bytes must not start an overlong form, a
// surrogate or a value past U+10FFFF. Only a word where a part ends is
// walked byte by byte.
func scanUCSWords(text string, cuts []cut) (walk, bool) {
	if len(text) < 8 {
		return scanShortUCS(text)
	}
	s := ucsScan{cuts: cuts}
	for i := 0; i < len(text); i += 8 {
		if i = s.common(text, i); i < len(text) {
			s.word(text, i)
		}
	}
	s.parts++
	return walk{total: s.done + s.filled, parts: s.parts, overflown: s.parts > MaxParts}, s.bad|s.want == 0
}

// secondByte bounds the byte after each lead of 3 or 4 bytes, E0 to FF:
// from lo to lo+span; F5 to FF, which UTF-8 never uses, allow nothing.
var secondByte = [32]struct {
	lo   uint8
	span int16
}{
	0x00: {0xA0, 0x1F}, // E0: A0..BF, no overlong form
	0x0D: {0x80, 0x1F}, // ED: 80..9F, no surrogate
	0x10: {0x90, 0x2F}, // F0: 90..BF, no overlong form
	0x14: {0x80, 0x0F}, // F4: 80..8F, nothing past U+10FFFF
	0x01: {0x80, 0x3F}, 0x02: {0x80, 0x3F}, 0x03: {0x80, 0x3F}, 0x04: {0x80, 0x3F},
	0x05: {0x80, 0x3F}, 0x06: {0x80, 0x3F}, 0x07: {0x80, 0x3F}, 0x08: {0x80, 0x3F},
	0x09: {0x80, 0x3F}, 0x0A: {0x80, 0x3F}, 0x0B: {0x80, 0x3F}, 0x0C: {0x80, 0x3F},
	0x0E: {0x80, 0x3F}, 0x0F: {0x80, 0x3F},
	0x11: {0x80, 0x3F}, 0x12: {0x80, 0x3F}, 0x13: {0x80, 0x3F},
	0x15: {0, -1}, 0x16: {0, -1}, 0x17: {0, -1}, 0x18: {0, -1}, 0x19: {0, -1},
	0x1A: {0, -1}, 0x1B: {0, -1}, 0x1C: {0, -1}, 0x1D: {0, -1}, 0x1E: {0, -1}, 0x1F: {0, -1},
}

// badSecond is 1 when next may not follow lead, a lead of 3 or 4 bytes,
// and 0 when it may.
func badSecond(lead, next byte) uint64 {
	r := secondByte[lead-0xE0]
	return uint64(int(r.span)-int(next-r.lo)) >> 63
}

// ucsScan is the state of scanUCSWords between words. Masks of bytes have a bit
// at the top bit of each byte.
type ucsScan struct {
	want   uint64 // continuation bytes the leads of the last word ask of the next
	bad    uint64 // bytes breaking UTF-8
	filled int    // units of the part being filled
	done   int    // units of the parts before it
	parts  int    // parts before it
	cuts   []cut
}

// common goes over the words from text[i:] as long as they are whole, hold
// at most one lead of 3 or 4 bytes, not in their last byte, and end no
// part: the common case (an emoji now and then included), kept apart so
// that its loop makes no call and its state stays in registers. It returns
// the offset of the word it stopped at.
func (s *ucsScan) common(text string, i int) int {
	want, bad, filled := s.want, s.bad, s.filled
	for ; i+8 <= len(text); i += 8 {
		v := binary.LittleEndian.Uint64([]byte(text[i : i+8]))
		cont := v &^ (v << 1) & highBits // 10xxxxxx
		lead := v & (v << 1) & highBits  // 11xxxxxx
		if lead3 := lead & (v << 2); lead3 != 0 {
			// One lead of 3 or 4 bytes (an emoji, say) whose next byte is
			// in this word is checked here; more, or one at the end of
			// the word, are the word's.
			if lead3&(lead3-1)|lead3>>63 != 0 {
				break
			}
			lead4 := lead3 & (v << 3)
			u := int(((highBits&^cont)>>7 + lead4>>7) * lowBits >> 56)
			if filled+u > UCSPart {
				break
			}
			filled += u
			w := v >> (uint(bits.TrailingZeros64(lead3)) &^ 7) // the lead, then its next byte
			bad |= cont ^ (want | lead<<8 | lead3<<16 | lead4<<24) | lead&^(v&^highBits+0x3E*lowBits) |
				badSecond(byte(w), byte(w>>8))
			want = lead>>56 | lead3>>48 | lead4>>40
			continue
		}
		// A unit for each byte but continuation bytes, summed into the top
		// byte by the multiplication.
		u := int((highBits &^ cont) >> 7 * lowBits >> 56)
		if filled+u > UCSPart {
			break
		}
		filled += u
		bad |= cont ^ (want | lead<<8) | lead&^(v&^highBits+0x3E*lowBits) // the last: C0 and C1, overlong
		want = lead >> 56
	}
	s.want, s.bad, s.filled = want, bad, filled
	return i
}

// word checks and counts the word at text[i:], a partial one at the end
// included, whatever it holds (its leads of 3 or 4 bytes one by one), and
// walks it byte by byte if a part ends in it.
func (s *ucsScan) word(text string, i int) {
	var v uint64
	n := len(text) - i // bytes of text in the word
	if n >= 8 {
		v, n = binary.LittleEndian.Uint64([]byte(text[i:i+8])), 8
	} else {
		// The text's last 8 bytes shifted down past those already seen:
		// zeros pad them, and a zero is no continuation byte.
		v = binary.LittleEndian.Uint64([]byte(text[len(text)-8:])) >> (8 * (8 - n))
	}
	cont := v &^ (v << 1) & highBits                                                              // 10xxxxxx
	lead := v & (v << 1) & highBits                                                               // 11xxxxxx: a lead of 2 bytes or more
	lead3 := lead & (v << 2)                                                                      // 111xxxxx
	lead4 := lead3 & (v << 3)                                                                     // 1111xxxx
	s.bad |= cont ^ (s.want | lead<<8 | lead3<<16 | lead4<<24) | lead&^(v&^highBits+0x3E*lowBits) // C0 and C1: overlong
	s.want = lead>>56 | lead3>>48 | lead4>>40
	for m := lead3; m != 0; m &= m - 1 {
		if k := i + bits.TrailingZeros64(m)>>3; k+1 < len(text) { // a lead at the end: want tells
			s.bad |= badSecond(text[k], text[k+1])
		}
	}
	// Units per byte: 1, 2 for a 4-byte lead, none for a continuation byte;
	// summed into the top byte by the multiplication. Padding counts one.
	u := int(((highBits&^cont)>>7+lead4>>7)*lowBits>>56) - (8 - n)
	if s.filled+u <= UCSPart {
		s.filled += u
		return
	}
	// A part ends in this word: walk it to find where.
	for k := i; k < i+n; k++ {
		c := text[k]
		if c&0xC0 == 0x80 {
			continue
		}
		cost := 1
		if c >= 0xF0 {
			cost = 2
		}
		if s.filled+cost > UCSPart {
			if s.parts < len(s.cuts) {
				s.cuts[s.parts] = cut{end: int32(k), units: int32(s.filled)}
			}
			s.parts++
			s.done += s.filled
			s.filled = 0
		}
		s.filled += cost
	}
}

// scanShortUCS is scanUCS for texts shorter than a word, which fit a part.
func scanShortUCS(text string) (walk, bool) {
	w := walk{parts: 1}
	for _, r := range text {
		w.total += utf16.RuneLen(r)
	}
	return w, utf8.ValidString(text)
}

// packParts counts the parts that greedy packing makes of n characters of
// one unit, except those at the indices in doubles (ascending), which take
// two units and never straddle a part. It stops past MaxParts.
func packParts(n int, doubles []int32, capacity int) (parts int, overflown bool) {
	k := 0
	for p := 0; p < n; {
		if parts++; parts > MaxParts {
			return parts, true
		}
		end := p + capacity // exclusive end if no double lies before it
		for k < len(doubles) {
			e := int(doubles[k])
			if e >= end {
				break
			}
			if e == end-1 {
				end = e // a double in the last slot moves to the next part
				break
			}
			end-- // a double inside costs one more unit
			k++
		}
		p = end
	}
	return parts, false
}

// SplitText splits text into the physical SMS a network carries, using dcs
// (DCSAuto, DCSGSM or DCSUCS). ref is the 8-bit concatenation reference the
// caller chose for this message; it appears in every part's UDH when there is
// more than one part.
//
// Errors (each a *msgkit.Error carrying its Code and naming the field text):
// 110 for an empty text, 109 for text that is not valid UTF-8, 102 for a
// character outside GSM 03.38 with DCSGSM, 115 when more than 255 parts are
// needed.
func SplitText(text string, dcs DCS, ref uint8) (Message, error) {
	return SplitTextInto(nil, text, dcs, ref)
}

// SplitTextInto is SplitText writing the parts into parts[:0], which it
// grows only when the text needs more than cap(parts): the returned
// Message's Parts then share parts' array. A caller that turns the parts
// into records of its own at once splits without allocating, with parts on
// its stack or reused from one text to the next; SplitText's one allocation
// costs more than the rest of a UCS-2 split.
func SplitTextInto(parts []Part, text string, dcs DCS, ref uint8) (Message, error) {
	return SplitTextRef(parts, text, dcs, ref, Ref8)
}

// SplitTextRef is SplitTextInto for parts whose concatenation reference
// is of width w: a network that ties parts by a 16-bit reference (Ref16)
// gives them a header one octet longer, so each part holds GSMPart16
// septets or UCSPart16 units. ref fills UDH.Ref either way; the sender
// that writes the 16-bit element chooses its reference.
func SplitTextRef(parts []Part, text string, dcs DCS, ref uint8, w RefWidth) (Message, error) {
	if dcs == DCSGSM && strings.Contains(text, "ç") {
		// Established gateways send ç as Ç (0x09) when GSM was asked for, and
		// the phone shows what was sent.
		text = strings.ReplaceAll(text, "ç", "Ç")
	}
	var room [32]cut // the cuts of a text of up to 33 UCS-2 parts
	n, err := countText(text, dcs, room[:], w)
	if err != nil {
		return Message{}, err
	}
	if cap(parts) < n.Parts {
		parts = make([]Part, n.Parts)
	}
	m := Message{DCS: n.DCS, Parts: parts[:n.Parts]}
	if n.Parts == 1 {
		m.Parts[0] = Part{Text: text, Units: n.Units}
		return m, nil
	}
	udh := UDH{Ref: ref, Total: uint8(n.Parts)}
	if n.DCS == DCSGSM {
		walkGSM(text, false, w.gsmPart(), func(start, end, units int) {
			udh.Seq++
			m.Parts[udh.Seq-1] = Part{Text: text[start:end], Units: units, UDH: udh}
		})
		return m, nil
	}
	cuts := room[:]
	if n.Parts-1 > len(cuts) {
		cuts = make([]cut, n.Parts-1)
		scanUCSRef(text, cuts, w)
	}
	start, left := 0, n.Units
	for i := range m.Parts[:n.Parts-1] {
		c := cuts[i]
		udh.Seq++
		m.Parts[i] = Part{Text: text[start:c.end], Units: int(c.units), UDH: udh}
		start, left = int(c.end), left-int(c.units)
	}
	udh.Seq++
	m.Parts[n.Parts-1] = Part{Text: text[start:], Units: left, UDH: udh}
	return m, nil
}

func checkText(text string, dcs DCS) error {
	switch {
	case text == "":
		return msgkit.Invalidf(CodeMissing, "text", "text is empty")
	case dcs > DCSUCS:
		return msgkit.Invalidf(CodeBadValue, "dcs", "dcs %s cannot carry text", dcs)
	}
	return nil
}

func notUTF8() error {
	return msgkit.Invalidf(CodeBadContent, "text", "text is not valid UTF-8")
}

func notGSM(text string, at int) error {
	r, _ := utf8.DecodeRuneInString(text[at:])
	return msgkit.Invalidf(CodeNotInAlphabet, "text",
		"character %q (U+%04X) at byte %d is not in the GSM 03.38 alphabet; use dcs UCS", r, r, at)
}

// walk is the outcome of packing a text greedily into concatenated parts.
type walk struct {
	total     int  // units of the whole text
	parts     int  // parts when concatenated
	overflown bool // more than MaxParts were needed; the walk stopped there
}

// count turns a walk into a Count: a text within single fits one message
// without a header.
func (w walk) count(dcs DCS, single int) (Count, error) {
	if w.overflown {
		return Count{}, msgkit.Invalidf(CodeTooManyParts, "text", "text needs more than %d parts", MaxParts)
	}
	c := Count{DCS: dcs, Parts: w.parts, Units: w.total}
	if w.total <= single {
		c.Parts = 1
	}
	return c, nil
}

// walkGSM packs valid UTF-8 text into parts of capacity septets, calling emit
// (when not nil) for each. A two-septet character that does not fit opens
// the next part, so an escape pair is never split. It returns the byte
// offset of the first character outside the alphabet, or -1; with
// allowCedilla, 'ç' counts as 'Ç'.
func walkGSM(text string, allowCedilla bool, capacity int, emit func(start, end, units int)) (walk, int) {
	var w walk
	start, units := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		var cost, size int
		if c < utf8.RuneSelf {
			cost, size = int(asciiCost[c]), 1
		} else {
			var r rune
			r, size = decodeValid(text, i)
			cost = int(nonASCIICost(r))
			if cost == 0 && allowCedilla && r == 'ç' {
				cost = 1
			}
		}
		if cost == 0 {
			return w, i
		}
		w.total += cost
		if units+cost > capacity {
			if w.parts++; w.parts == MaxParts {
				w.overflown = true
				return w, -1
			}
			if emit != nil {
				emit(start, i, units)
			}
			start, units = i, 0
		}
		units += cost
		i += size
	}
	w.parts++
	if emit != nil {
		emit(start, len(text), units)
	}
	return w, -1
}

// decodeValid decodes the multi-byte rune at text[i] of valid UTF-8.
func decodeValid(text string, i int) (rune, int) {
	c := text[i]
	switch {
	case c < 0xE0:
		return rune(c&0x1F)<<6 | rune(text[i+1]&0x3F), 2
	case c < 0xF0:
		return rune(c&0x0F)<<12 | rune(text[i+1]&0x3F)<<6 | rune(text[i+2]&0x3F), 3
	}
	return rune(c&0x07)<<18 | rune(text[i+1]&0x3F)<<12 | rune(text[i+2]&0x3F)<<6 | rune(text[i+3]&0x3F), 4
}
