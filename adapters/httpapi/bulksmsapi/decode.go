package bulksmsapi

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/sms"
)

// maxDepth bounds the nesting of objects and arrays, the body's own object
// counting as one, as encoding/json bounded it.
const maxDepth = 10000

// decodeSubmission reads a body in one pass over its bytes, validating it
// as JSON (RFC 8259) and keeping only what the submission holds: empty is
// 110 (a common client retries after 105 without one); malformed JSON, a
// body that is not one object, bad bytes in a string and a key given twice
// 109 naming what it can; a field of the wrong type 112 naming it. The
// submission's Custom is a slice of body, which the caller does not reuse.
func decodeSubmission(body []byte) (sms.Submission, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return sms.Submission{}, sms.CodeMissingMandatoryParam.Errorf("the request body is empty")
	}
	d := decoder{b: body}
	d.space()
	if d.peek() != '{' {
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body is not a JSON object")
	}
	d.object(topFields[:])
	d.space()
	switch {
	case d.stop:
		return sms.Submission{}, d.refusal()
	case d.i < len(d.b):
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body holds more than one JSON value")
	}
	if err := d.typeError(); err != nil {
		return sms.Submission{}, err
	}
	return d.submission(), nil
}

// field is a member of the body that the submission keeps.
type field uint8

// The fields. Those from fieldType to fieldDLRURL are strings.
const (
	noField field = iota // a member the submission ignores
	fieldType
	fieldUsername
	fieldPassword
	fieldSender
	fieldReceiver
	fieldDCS
	fieldText
	fieldURL
	fieldTitle
	fieldDLRURL
	fieldDLRMask
	fieldFlash
	fieldAuth
	fieldCustom
	numFields
)

// fields are each field's key and its name in errors.
var fields = [numFields]struct{ key, name string }{
	fieldType:     {"type", "type"},
	fieldUsername: {"username", "auth.username"},
	fieldPassword: {"password", "auth.password"},
	fieldSender:   {"sender", "sender"},
	fieldReceiver: {"receiver", "receiver"},
	fieldDCS:      {"dcs", "dcs"},
	fieldText:     {"text", "text"},
	fieldURL:      {"url", "url"},
	fieldTitle:    {"title", "title"},
	fieldDLRURL:   {"dlrUrl", "dlrUrl"},
	fieldDLRMask:  {"dlrMask", "dlrMask"},
	fieldFlash:    {"flash", "flash"},
	fieldAuth:     {"auth", "auth"},
	fieldCustom:   {"custom", "custom"},
}

// topFields are the known members of the body, authFields those of its
// auth object. Other members are ignored: client libraries send extra ones.
var (
	topFields = [...]field{fieldType, fieldAuth, fieldSender, fieldReceiver, fieldDCS, fieldText,
		fieldURL, fieldTitle, fieldDLRMask, fieldDLRURL, fieldFlash, fieldCustom}
	authFields = [...]field{fieldUsername, fieldPassword}
)

func (f field) isString() bool { return f >= fieldType && f <= fieldDLRURL }

// isLenient tells the fields that take more than one JSON type: sender and
// receiver a string or a whole number, dlrMask an integer or a string
// holding one, as some clients send them.
func (f field) isLenient() bool {
	return f == fieldSender || f == fieldReceiver || f == fieldDLRMask
}

// lookup finds the field of key among known. As with encoding/json, a key
// matches case-insensitively under Unicode simple folding, so "TEXT" and
// "ſender" (U+017F folds to s) are text and sender. No two known keys
// fold alike, so the exact comparison first is only the fast path.
func lookup(key []byte, known []field) field {
	for _, f := range known {
		if string(key) == fields[f].key {
			return f
		}
	}
	for _, f := range known {
		if bytes.EqualFold(key, []byte(fields[f].key)) {
			return f
		}
	}
	return noField
}

// span is where a kept value lies in the body: a string's text between its
// quotes, or a value as written.
type span struct {
	start, end int
	escaped    bool // a string with escapes to undo
}

// decoder walks a body once. The first syntax error or refused string or
// key stops the walk; a value of the wrong type is noted and the walk goes
// on, since the rest of the body may be malformed, which is reported
// first.
type decoder struct {
	b     []byte
	i     int
	depth int

	// stop ends the walk at a syntax error or at fault, what is wrong
	// with the value at where: its path, innermost step first, gathered
	// as the walk unwinds.
	stop  bool
	fault string
	where []pathStep

	// wrong is the first field of the wrong type, wrongLenient the first
	// lenient one, reported before wrong as encoding/json reported it: a
	// lenient field's refusal ended its decoding, other fields' were kept
	// for the end.
	wrong, wrongLenient field

	strs    [fieldDLRURL + 1]span // indexed by the string fields
	custom  span
	dlrMask int64
	maskSet bool
	flash   bool
}

// pathStep is an object member's key or an array index.
type pathStep struct {
	key   []byte
	index int // -1 for an object member
}

// refusal is the 109 of a stopped walk, naming the path of a fault:
// auth.username, custom.items[0].note.
func (d *decoder) refusal() error {
	if d.fault == "" {
		return sms.CodeBadContentFormat.Errorf("the request body is not a JSON object")
	}
	var b []byte
	for i := len(d.where) - 1; i >= 0; i-- {
		switch p := d.where[i]; {
		case p.index >= 0:
			b = append(append(append(b, '['), strconv.Itoa(p.index)...), ']')
		case len(b) > 0:
			b = append(append(b, '.'), p.key...)
		default:
			b = append(b, p.key...)
		}
	}
	field := string(b)
	return sms.CodeBadContentFormat.FieldErrorf(field, "%s %s", field, d.fault)
}

// fail stops the walk at a fault of the value being read.
func (d *decoder) fail(fault string) {
	if !d.stop {
		d.stop, d.fault = true, fault
	}
}

// syntax stops the walk at a syntax error.
func (d *decoder) syntax() { d.stop = true }

// unwind adds the step to a fault's path as the walk returns from it.
func (d *decoder) unwind(step pathStep) {
	if d.fault != "" {
		d.where = append(d.where, step)
	}
}

// wrongType notes that field f has a value of the wrong type.
func (d *decoder) wrongType(f field) {
	switch {
	case f.isLenient() && d.wrongLenient == noField:
		d.wrongLenient = f
	case d.wrong == noField:
		d.wrong = f
	}
}

// typeError is the refusal of the field of the wrong type, if any.
func (d *decoder) typeError() error {
	f := d.wrongLenient
	if f == noField {
		f = d.wrong
	}
	name := fields[f].name
	switch f {
	case noField:
		return nil
	case fieldDLRMask:
		return sms.CodeBadParameterValue.FieldErrorf(name, "%s must be an integer", name)
	}
	return sms.CodeBadParameterValue.FieldErrorf(name, "%s has the wrong type", name)
}

// submission is what the body holds, once it is read without refusal.
func (d *decoder) submission() sms.Submission {
	sub := sms.Submission{
		Type: d.text(fieldType), Username: d.text(fieldUsername), Password: d.text(fieldPassword),
		Sender: d.text(fieldSender), Receiver: d.text(fieldReceiver), DCS: d.text(fieldDCS),
		Text: d.text(fieldText), URL: d.text(fieldURL), Title: d.text(fieldTitle),
		DLRURL: d.text(fieldDLRURL), Flash: d.flash,
	}
	if d.maskSet {
		n := d.dlrMask
		sub.DLRMask = &n
	}
	if d.custom.end > d.custom.start {
		sub.Custom = d.b[d.custom.start:d.custom.end]
	}
	return sub
}

// text is the string field f, allocated.
func (d *decoder) text(f field) string {
	s := d.strs[f]
	if !s.escaped {
		return string(d.b[s.start:s.end])
	}
	var buf [128]byte
	return string(unescape(buf[:0], d.b[s.start:s.end]))
}

func (d *decoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// space skips JSON whitespace.
func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// open enters the object or array at d.i, refusing one nested too deep,
// and tells whether it has members or elements to read.
func (d *decoder) open(closing byte) bool {
	d.i++
	d.depth++
	if d.depth > maxDepth {
		d.syntax()
		return false
	}
	d.space()
	if d.peek() == closing {
		d.i++
		d.depth--
		return false
	}
	return true
}

// object reads the object at d.i, refusing a key given twice, and the
// value of each member as the field among known that its key names.
func (d *decoder) object(known []field) {
	if !d.open('}') {
		return
	}
	var keys keySet
	for {
		key, ok := d.key()
		if !ok {
			return
		}
		if keys.add(key) {
			d.fail("is given twice")
		} else if d.colon() {
			d.member(lookup(key, known))
		}
		if d.stop {
			d.unwind(pathStep{key: key, index: -1})
			return
		}
		if !d.next('}') {
			return
		}
	}
}

// colon reads the colon after a key.
func (d *decoder) colon() bool {
	d.space()
	if d.peek() != ':' {
		d.syntax()
		return false
	}
	d.i++
	d.space()
	return true
}

// next reads what follows a member or an element: a comma, and true, or
// the closing bracket, and false.
func (d *decoder) next(closing byte) bool {
	d.space()
	switch d.peek() {
	case ',':
		d.i++
		d.space()
		return true
	case closing:
		d.i++
		d.depth--
	default:
		d.syntax()
	}
	return false
}

// array reads the array at d.i.
func (d *decoder) array() {
	if !d.open(']') {
		return
	}
	for n := 0; ; n++ {
		d.value()
		if d.stop {
			d.unwind(pathStep{index: n})
			return
		}
		if !d.next(']') {
			return
		}
	}
}

// key reads an object's key at d.i, with its escapes undone. A refused
// key is named by what precedes its bad bytes, as written.
func (d *decoder) key() ([]byte, bool) {
	if d.peek() != '"' {
		d.syntax()
		return nil, false
	}
	start := d.i + 1
	escaped, bad := d.str()
	if bad != "" {
		d.fail("holds " + bad)
		d.unwind(pathStep{key: d.b[start:d.i], index: -1})
	}
	if d.stop {
		return nil, false
	}
	key := d.b[start : d.i-1]
	if escaped { // rare: a key of its own
		key = unescape(nil, key)
	}
	return key, true
}

// member reads the value of field f at d.i. null leaves a string, flash
// and auth as they are and clears the others, as encoding/json did with
// the types it read them into.
func (d *decoder) member(f field) {
	start := d.i
	c := d.peek()
	switch {
	case f == noField:
		d.value()
	case c == 'n':
		d.value()
		switch f {
		case fieldSender, fieldReceiver:
			d.strs[f] = span{}
		case fieldDLRMask:
			d.maskSet = false
		case fieldCustom:
			d.custom = span{}
		}
	case f == fieldCustom:
		d.value()
		d.custom = span{start: start, end: d.i}
	case f == fieldDLRMask:
		d.readDLRMask()
	case f == fieldAuth && c == '{':
		d.object(authFields[:])
	case f == fieldFlash && (c == 't' || c == 'f'):
		d.value()
		d.flash = c == 't'
	case f.isString() && c == '"':
		d.strs[f] = d.stringSpan()
	case (f == fieldSender || f == fieldReceiver) && (c == '-' || isDigit(c)):
		d.number()
		if bytes.ContainsAny(d.b[start:d.i], ".eE-+") { // only whole numbers, as written
			d.wrongType(f)
		} else {
			d.strs[f] = span{start: start, end: d.i}
		}
	default:
		d.value()
		d.wrongType(f)
	}
}

// readDLRMask reads dlrMask: a number or a string holding a base-10
// int64, as strconv.ParseInt reads it.
func (d *decoder) readDLRMask() {
	start := d.i
	var text []byte
	if d.peek() == '"' {
		s := d.stringSpan()
		text = d.b[s.start:s.end]
		if s.escaped {
			var buf [32]byte
			text = unescape(buf[:0], text)
		}
	} else {
		d.value()
		text = d.b[start:d.i]
	}
	if d.stop {
		return
	}
	n, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		d.wrongType(fieldDLRMask)
		return
	}
	d.dlrMask, d.maskSet = n, true
}

// value reads any JSON value at d.i.
func (d *decoder) value() {
	switch c := d.peek(); {
	case c == '{':
		d.object(nil)
	case c == '[':
		d.array()
	case c == '"':
		d.stringSpan()
	case c == '-' || isDigit(c):
		d.number()
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	default:
		d.syntax()
	}
}

func (d *decoder) literal(word string) {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		d.syntax()
		return
	}
	d.i += len(word)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number reads a number by the RFC 8259 number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() {
	if d.peek() == '-' {
		d.i++
	}
	switch c := d.peek(); {
	case c == '0':
		d.i++
	case isDigit(c):
		d.digits()
	default:
		d.syntax()
		return
	}
	if d.peek() == '.' {
		d.i++
		if !d.digits() {
			d.syntax()
			return
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if !d.digits() {
			d.syntax()
		}
	}
}

// digits reads one or more digits.
func (d *decoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && isDigit(d.b[d.i]) {
		d.i++
	}
	return d.i > start
}

// stringSpan reads the string value at d.i, refusing it with 109 naming
// the path when it holds bad bytes.
func (d *decoder) stringSpan() span {
	start := d.i + 1
	escaped, bad := d.str()
	if bad != "" {
		d.fail("holds " + bad)
	}
	if d.stop {
		return span{}
	}
	return span{start: start, end: d.i - 1, escaped: escaped}
}

// str reads the string at d.i (its opening quote) and tells whether it has
// escapes and what is wrong with it: invalid UTF-8, or a \u escape of a
// surrogate that is not part of a pair, with d.i left at the fault ("" when
// nothing is). encoding/json would replace either with U+FFFD, which the
// customer never sent and would pay for. A control character, a bad escape
// and a string the body ends in are syntax errors.
func (d *decoder) str() (escaped bool, bad string) {
	d.i++ // "
	for {
		d.i += plainRun(d.b[d.i:])
		if d.i >= len(d.b) {
			d.syntax()
			return escaped, ""
		}
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return escaped, ""
		case c == '\\':
			escaped = true
			if bad := d.escape(); bad != "" || d.stop {
				return escaped, bad
			}
		case c < ' ':
			d.syntax()
			return escaped, ""
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				return escaped, "invalid UTF-8"
			}
			d.i += size
		}
	}
}

// plainRun counts the bytes at the start of b that stand for themselves
// in a string: printable ASCII but the quote and the backslash.
func plainRun(b []byte) int {
	for i, c := range b {
		if c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

// escape reads the escape at d.i. RFC 8259 allows \" \\ \/ \b \f \n \r \t
// and \u with four hex digits; of the UTF-16 surrogates only a high one
// followed by an escaped low one makes a character.
func (d *decoder) escape() (bad string) {
	if d.i+1 >= len(d.b) {
		d.syntax()
		return ""
	}
	if c := d.b[d.i+1]; c != 'u' {
		if unescapeByte(c) == 0 {
			d.syntax()
			return ""
		}
		d.i += 2
		return ""
	}
	r, ok := hex4(d.b, d.i+2)
	switch {
	case !ok:
		d.syntax()
	case r >= 0xD800 && r < 0xDC00:
		if d.i+7 >= len(d.b) || d.b[d.i+6] != '\\' || d.b[d.i+7] != 'u' {
			return "a lone UTF-16 surrogate escape"
		}
		if lo, ok := hex4(d.b, d.i+8); !ok || lo < 0xDC00 || lo > 0xDFFF {
			return "a lone UTF-16 surrogate escape"
		}
		d.i += 12
	case r >= 0xDC00 && r <= 0xDFFF:
		return "a lone UTF-16 surrogate escape"
	default:
		d.i += 6
	}
	return ""
}

// unescapeByte is the byte a one-character escape stands for, 0 for none.
func unescapeByte(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// unescape appends the text of a string str has read, escapes undone.
func unescape(dst, raw []byte) []byte {
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(dst, raw...)
		}
		dst, raw = append(dst, raw[:i]...), raw[i:]
		if raw[1] != 'u' {
			dst, raw = append(dst, unescapeByte(raw[1])), raw[2:]
			continue
		}
		r, _ := hex4(raw, 2)
		raw = raw[6:]
		if utf16.IsSurrogate(r) { // a pair: str has checked it
			lo, _ := hex4(raw, 2)
			r, raw = utf16.DecodeRune(r, lo), raw[6:]
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// keySet holds the keys of one object, to refuse a key given twice: keys
// are compared as written once escapes are undone and without regard to
// case, as they match fields and as httpapi.CheckJSON compares them in
// every family's bodies, so "\u0061", "a" and "A" are one key. A search
// of a few keys is fastest; an object of many gets a map, so that a body
// of many keys costs linear time, not quadratic.
type keySet struct {
	few  [16][]byte
	n    int
	many map[string]struct{}
}

// add adds key and tells whether it was there already.
func (s *keySet) add(key []byte) (dup bool) {
	if s.many == nil {
		for _, k := range s.few[:s.n] {
			if bytes.EqualFold(k, key) {
				return true
			}
		}
		if s.n < len(s.few) {
			s.few[s.n] = key
			s.n++
			return false
		}
		s.many = make(map[string]struct{}, 2*len(s.few))
		for _, k := range s.few {
			s.many[httpapi.FoldKey(string(k))] = struct{}{}
		}
	}
	fk := httpapi.FoldKey(string(key))
	if _, ok := s.many[fk]; ok {
		return true
	}
	s.many[fk] = struct{}{}
	return false
}
