package sms

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"
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
	if err := checkText(text, dcs); err != nil {
		return Count{}, err
	}
	// Positions of two-unit characters let the parts be counted without a
	// second pass; a text with more of them than fit here is walked again.
	d := doubles{limit: len(doubles{}.at)}
	if dcs != DCSUCS {
		w, bad := countGSM(text, dcs == DCSGSM, &d)
		if bad < 0 {
			return w.count(DCSGSM, GSMSingle)
		}
		if dcs == DCSGSM {
			return Count{}, notGSM(text, bad)
		}
	}
	d.n = 0
	return countUCS(text, &d).count(DCSUCS, UCSSingle)
}

// countGSM totals the septets of valid UTF-8 text in one pass, noting the
// character index of each two-septet character in d (up to d.limit of them),
// and derives the number of parts from those indices. It returns the byte
// offset of the first character outside the alphabet, or -1.
func countGSM(text string, allowCedilla bool, d *doubles) (walk, int) {
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
		r, size := decodeValid(text, i)
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
		w, _ = walkGSM(text, allowCedilla, nil)
		return w, -1
	}
	w.parts, w.overflown = packParts(chars, d.at[:d.n], GSMPart)
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

// countUCS is countGSM for UCS-2: characters outside the BMP, four bytes in
// UTF-8, take two UTF-16 units.
func countUCS(text string, d *doubles) walk {
	chars := 0
	for i := 0; i < len(text); {
		// 8 bytes at once when none leads a 4-byte sequence: every byte but
		// a continuation byte (10xxxxxx) starts a character of one unit.
		if i+8 <= len(text) {
			v := binary.LittleEndian.Uint64([]byte(text[i : i+8]))
			if v&(v<<1)&(v<<2)&(v<<3)&highBits == 0 {
				chars += 8 - bits.OnesCount64(v&^(v<<1)&highBits)
				i += 8
				continue
			}
		}
		for end := min(i+8, len(text)); i < end; i++ {
			c := text[i]
			if c&0xC0 == 0x80 {
				continue // a continuation byte
			}
			if c >= 0xF0 {
				d.at[d.n&(len(d.at)-1)] = int32(chars)
				d.n++
			}
			chars++
		}
	}
	w := walk{total: chars + d.n}
	if w.total <= UCSSingle {
		return w
	}
	if d.n > d.limit {
		return walkUCS(text, nil)
	}
	w.parts, w.overflown = packParts(chars, d.at[:d.n], UCSPart)
	return w
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
	if dcs == DCSGSM && strings.Contains(text, "ç") {
		// Established gateways send ç as Ç (0x09) when GSM was asked for, and
		// the phone shows what was sent.
		text = strings.ReplaceAll(text, "ç", "Ç")
	}
	n, err := CountText(text, dcs)
	if err != nil {
		return Message{}, err
	}
	m := Message{DCS: n.DCS, Parts: make([]Part, 0, n.Parts)}
	if n.Parts == 1 {
		m.Parts = append(m.Parts, Part{Text: text, Units: n.Units})
		return m, nil
	}
	emit := func(start, end, units int) {
		m.Parts = append(m.Parts, Part{
			Text:  text[start:end],
			Units: units,
			UDH:   UDH{Ref: ref, Total: uint8(n.Parts), Seq: uint8(len(m.Parts) + 1)},
		})
	}
	if n.DCS == DCSGSM {
		walkGSM(text, false, emit)
	} else {
		walkUCS(text, emit)
	}
	return m, nil
}

func checkText(text string, dcs DCS) error {
	switch {
	case text == "":
		return CodeMissingMandatoryParam.FieldErrorf("text", "text is empty")
	case dcs > DCSUCS:
		return CodeBadParameterValue.FieldErrorf("dcs", "dcs %s cannot carry text", dcs)
	case !utf8.ValidString(text):
		return CodeBadContentFormat.FieldErrorf("text", "text is not valid UTF-8")
	}
	return nil
}

func notGSM(text string, at int) error {
	r, _ := utf8.DecodeRuneInString(text[at:])
	return CodeEncodingError.FieldErrorf("text",
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
		return Count{}, CodeConcatError.FieldErrorf("text", "text needs more than %d parts", MaxParts)
	}
	c := Count{DCS: dcs, Parts: w.parts, Units: w.total}
	if w.total <= single {
		c.Parts = 1
	}
	return c, nil
}

// walkGSM packs valid UTF-8 text into parts of GSMPart septets, calling emit
// (when not nil) for each. A two-septet character that does not fit opens
// the next part, so an escape pair is never split. It returns the byte
// offset of the first character outside the alphabet, or -1; with
// allowCedilla, 'ç' counts as 'Ç'.
func walkGSM(text string, allowCedilla bool, emit func(start, end, units int)) (walk, int) {
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
		if units+cost > GSMPart {
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

// walkUCS packs valid UTF-8 text into parts of UCSPart UTF-16 units; a
// character outside the BMP (a surrogate pair) is never split. Its packing
// steps repeat walkGSM's on purpose: sharing them through a per-character
// function value made splitting 60% slower.
func walkUCS(text string, emit func(start, end, units int)) walk {
	var w walk
	start, units := 0, 0
	for i := 0; i < len(text); {
		// In valid UTF-8 the lead byte gives the size; only 4-byte sequences
		// lie outside the BMP.
		cost, size := 1, 1
		switch c := text[i]; {
		case c >= 0xF0:
			cost, size = 2, 4
		case c >= 0xE0:
			size = 3
		case c >= 0xC0:
			size = 2
		}
		w.total += cost
		if units+cost > UCSPart {
			if w.parts++; w.parts == MaxParts {
				w.overflown = true
				return w
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
	return w
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
