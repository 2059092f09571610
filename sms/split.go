package sms

import (
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
	var buf [256]int32
	if dcs != DCSUCS {
		w, bad := countGSM(text, dcs == DCSGSM, buf[:0])
		if bad < 0 {
			return w.count(DCSGSM, GSMSingle)
		}
		if dcs == DCSGSM {
			return Count{}, notGSM(text, bad)
		}
	}
	return countUCS(text, buf[:0]).count(DCSUCS, UCSSingle)
}

// countGSM totals the septets of valid UTF-8 text in one pass, noting the
// character index of each two-septet character in doubles (up to its
// capacity), and derives the number of parts from them. It returns the byte
// offset of the first character outside the alphabet, or -1.
func countGSM(text string, allowCedilla bool, doubles []int32) (walk, int) {
	chars, extra := 0, 0
	for i := 0; i < len(text); chars++ {
		start := i
		var cost uint8
		if c := text[i]; c < utf8.RuneSelf {
			cost = asciiCost[c]
			i++
		} else {
			r, size := decodeValid(text, i)
			cost = nonASCIICost(r)
			if cost == 0 && allowCedilla && r == 'ç' {
				cost = 1
			}
			i += size
		}
		if cost != 1 {
			if cost == 0 {
				return walk{}, start
			}
			if extra++; len(doubles) < cap(doubles) {
				doubles = append(doubles, int32(chars))
			}
		}
	}
	w := walk{total: chars + extra}
	if w.total <= GSMSingle {
		return w, -1
	}
	if extra > len(doubles) {
		w, _ = walkGSM(text, allowCedilla, nil)
		return w, -1
	}
	w.parts, w.overflown = packParts(chars, doubles, GSMPart)
	return w, -1
}

// countUCS is countGSM for UCS-2: characters outside the BMP, four bytes in
// UTF-8, take two UTF-16 units.
func countUCS(text string, doubles []int32) walk {
	chars, extra := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c&0xC0 == 0x80 {
			continue // a continuation byte
		}
		if c >= 0xF0 {
			if extra++; len(doubles) < cap(doubles) {
				doubles = append(doubles, int32(chars))
			}
		}
		chars++
	}
	w := walk{total: chars + extra}
	if w.total <= UCSSingle {
		return w
	}
	if extra > len(doubles) {
		return walkUCS(text, nil)
	}
	w.parts, w.overflown = packParts(chars, doubles, UCSPart)
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
// character outside the BMP (a surrogate pair) is never split.
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
