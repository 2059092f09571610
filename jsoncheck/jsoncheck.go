// Package jsoncheck holds JSON texts to the rules every body msgkit reads
// keeps, beyond what encoding/json checks, because encoding/json would
// silently change or merge what the client sent: strings are valid UTF-8
// without a lone surrogate escape (\ud800 alone) or the NUL character (json
// would store U+FFFD, or a NUL no PostgreSQL text column holds); no object
// gives a key twice, or two keys that differ only in case (json matches
// keys without regard to case and keeps the last); and strings stay within
// their maximum length. The HTTP kit checks every body with it
// (httpapi.CheckJSON), and readers of bodies of their own, such as the
// contact import's stream of items, check each value they read.
package jsoncheck

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Fault is a text's first break of the rules: the place (items[0].name;
// "" for the whole text) and what is wrong, never quoting the value.
// Syntax tells a text that is not JSON at all.
type Fault struct {
	Field   string
	Message string
	Syntax  bool
}

func (f *Fault) Error() string { return f.Message }

// Check reports the first fault of data as one JSON value (RFC 8259)
// under the rules of the package: strings longer than maxString
// characters (0: no limit), or than long names for their place ("data",
// "items[].name": array indexes are written []), are faults too. It
// allocates once, and for each object of more than 16 keys.
func Check(data []byte, maxString int, long map[string]int) *Fault {
	c := checker{b: data, maxString: maxString, long: long, floor: maxString}
	c.path = c.pathArr[:0]
	for _, n := range long {
		c.floor = min(c.floor, n)
	}
	if c.floor <= 0 {
		c.floor = 0
	}
	c.space()
	if c.i == len(c.b) {
		c.syntax("the body is empty")
	}
	c.value(0)
	if c.fault == "" {
		c.space()
		if c.i < len(c.b) {
			c.syntax("the body must hold exactly one JSON value")
		}
	}
	if c.fault == "" {
		return nil
	}
	field := c.pathString()
	if c.syntactic {
		field = ""
	}
	shown := field
	if shown == "" {
		shown = "body"
	}
	return &Fault{Field: field, Message: strings.ReplaceAll(c.fault, "{field}", shown), Syntax: c.syntactic}
}

// maxDepth bounds the nesting of objects and arrays, as encoding/json
// bounds it.
const maxDepth = 10000

// checker walks a JSON text once; the first fault stops it.
type checker struct {
	b         []byte
	i         int
	maxString int
	long      map[string]int
	floor     int    // no place allows fewer characters
	path      []step // where the walk is; kept as it was at the fault
	pathArr   [8]step
	fault     string // {field} stands for the path
	syntactic bool   // the fault is the text's, named "body"
	key       []byte // the last object key read, unescaped: a slice of b, or of buf when it had escapes
	buf       []byte
}

// step is an object member's key or an array index (-1: a key).
type step struct {
	key   []byte
	index int
}

func (c *checker) failf(format string, args ...any) {
	if c.fault == "" {
		c.fault = fmt.Sprintf(format, args...)
	}
}

// syntax is a fault of the text: it is not JSON.
func (c *checker) syntax(msg string) {
	if c.fault == "" {
		c.fault, c.syntactic = msg, true
		if msg == "" {
			c.fault = "the body is not valid JSON (at byte " + strconv.Itoa(c.i) + ")"
		}
	}
}

func (c *checker) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *checker) value(depth int) {
	if c.i >= len(c.b) {
		c.syntax("the body ends inside a JSON value")
		return
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		c.object(depth + 1)
	case ch == '[':
		c.array(depth + 1)
	case ch == '"':
		c.str(false)
	case ch == '-' || ch >= '0' && ch <= '9':
		c.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(c.b)-c.i >= len(lit) && string(c.b[c.i:c.i+len(lit)]) == lit {
				c.i += len(lit)
				return
			}
		}
		c.syntax("")
	}
}

func (c *checker) object(depth int) {
	if depth > maxDepth {
		c.syntax("the body nests too deeply")
		return
	}
	c.i++ // {
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return
	}
	var keys objectKeys
	for c.fault == "" {
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			c.syntax("")
			return
		}
		c.str(true)
		if c.fault != "" {
			return
		}
		key := c.key
		c.path = append(c.path, step{key: key, index: -1})
		if prev, dup := keys.add(key); dup {
			if bytes.Equal(prev, key) {
				c.failf("{field} is given twice")
			} else {
				c.failf("{field} is given twice: keys that differ only in case name one field")
			}
			return
		}
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			c.syntax("")
			return
		}
		c.i++
		c.space()
		c.value(depth)
		if c.fault != "" {
			return
		}
		c.path = c.path[:len(c.path)-1]
		c.space()
		if c.i >= len(c.b) {
			c.syntax("the body ends inside a JSON value")
			return
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return
		default:
			c.syntax("")
			return
		}
	}
}

func (c *checker) array(depth int) {
	if depth > maxDepth {
		c.syntax("the body nests too deeply")
		return
	}
	c.i++ // [
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return
	}
	c.path = append(c.path, step{index: 0})
	for idx := 0; c.fault == ""; idx++ {
		c.path[len(c.path)-1].index = idx
		c.space()
		c.value(depth)
		if c.fault != "" {
			return
		}
		c.space()
		if c.i >= len(c.b) {
			c.syntax("the body ends inside a JSON value")
			return
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			c.path = c.path[:len(c.path)-1]
			return
		default:
			c.syntax("")
			return
		}
	}
}

// str reads a string; a key's text is kept in c.key.
func (c *checker) str(isKey bool) {
	c.i++ // "
	start, escaped := c.i, false
	if isKey {
		c.buf = c.buf[:0]
	}
	chars := 0
	for {
		if c.i >= len(c.b) {
			c.syntax("the body ends inside a JSON value")
			return
		}
		ch := c.b[c.i]
		switch {
		case ch == '"':
			if isKey {
				if escaped {
					c.key = c.buf
					c.buf = nil // the key keeps it; the next escaped key gets its own
				} else {
					c.key = c.b[start:c.i]
				}
			}
			c.i++
			switch {
			case !isKey:
				c.checkLength(chars)
			case c.maxString > 0 && chars > c.maxString:
				c.failf("a key of {field} is longer than %d characters", c.maxString)
			}
			return
		case ch < 0x20:
			c.syntax("")
			return
		case ch == '\\':
			if isKey && !escaped {
				c.buf = append(c.buf[:0], c.b[start:c.i]...)
			}
			escaped = true
			r, ok := c.escape()
			if !ok {
				return
			}
			if r == 0 {
				c.failf("{field} holds the NUL character")
				return
			}
			if isKey {
				c.buf = utf8.AppendRune(c.buf, r)
			}
			chars++
		case ch < utf8.RuneSelf:
			if isKey && escaped {
				c.buf = append(c.buf, ch)
			}
			c.i++
			chars++
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && size == 1 {
				if isKey {
					c.failf("a key holds invalid UTF-8")
				} else {
					c.failf("{field} holds invalid UTF-8")
				}
				return
			}
			if isKey && escaped {
				c.buf = append(c.buf, c.b[c.i:c.i+size]...)
			}
			c.i += size
			chars++
		}
	}
}

// escape reads an escape sequence at c.i: its rune, or false after a
// fault. A surrogate pair is one rune; a lone surrogate a fault.
func (c *checker) escape() (rune, bool) {
	if c.i+1 >= len(c.b) {
		c.syntax("the body ends inside a JSON value")
		return 0, false
	}
	switch c.b[c.i+1] {
	case '"', '\\', '/':
		r := rune(c.b[c.i+1])
		c.i += 2
		return r, true
	case 'b', 'f', 'n', 'r', 't':
		r := map[byte]rune{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c.b[c.i+1]]
		c.i += 2
		return r, true
	case 'u':
	default:
		c.syntax("")
		return 0, false
	}
	r, ok := c.hex4(c.i + 2)
	if !ok {
		c.syntax("")
		return 0, false
	}
	c.i += 6
	switch {
	case utf16.IsSurrogate(r) && r < 0xdc00:
		if c.i+1 < len(c.b) && c.b[c.i] == '\\' && c.b[c.i+1] == 'u' {
			if lo, ok := c.hex4(c.i + 2); ok && lo >= 0xdc00 && lo <= 0xdfff {
				c.i += 6
				return utf16.DecodeRune(r, lo), true
			}
		}
		c.failf("{field} holds a lone surrogate escape")
		return 0, false
	case utf16.IsSurrogate(r):
		c.failf("{field} holds a lone surrogate escape")
		return 0, false
	}
	return r, true
}

func (c *checker) hex4(at int) (rune, bool) {
	if at+4 > len(c.b) {
		return 0, false
	}
	var r rune
	for _, h := range c.b[at : at+4] {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case h >= 'A' && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (c *checker) number() {
	start := c.i
	if c.b[c.i] == '-' {
		c.i++
	}
	digits := func() int {
		n := 0
		for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
			c.i++
			n++
		}
		return n
	}
	switch {
	case c.i < len(c.b) && c.b[c.i] == '0':
		c.i++
	case digits() == 0:
		c.i = start
		c.syntax("")
		return
	}
	if c.i < len(c.b) && c.b[c.i] == '.' {
		c.i++
		if digits() == 0 {
			c.syntax("")
			return
		}
	}
	if c.i < len(c.b) && (c.b[c.i] == 'e' || c.b[c.i] == 'E') {
		c.i++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '-') {
			c.i++
		}
		if digits() == 0 {
			c.syntax("")
		}
	}
}

// checkLength refuses a string longer than its place allows.
func (c *checker) checkLength(chars int) {
	if chars <= c.floor || c.maxString <= 0 && len(c.long) == 0 {
		return
	}
	limit := c.maxString
	if n, ok := c.long[c.pattern()]; ok {
		limit = n
	}
	if limit > 0 && chars > limit {
		c.failf("{field} is longer than %d characters", limit)
	}
}

// pathString is the walk's place, as a field name: items[0].name.
func (c *checker) pathString() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.key)
	}
	return b.String()
}

// pattern is the walk's place with array indexes written []: the key of
// DecodeOptions.LongStrings.
func (c *checker) pattern() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.index >= 0 {
			b.WriteString("[]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.key)
	}
	return b.String()
}

// objectKeys are the keys of one object so far: a few in an array,
// compared without regard to case (bytes.EqualFold: Unicode simple
// folding, as FoldKey); an object of many gets a map by fold key, so that
// a body of many keys costs linear time, not quadratic.
type objectKeys struct {
	few  [16][]byte
	n    int
	many map[string][]byte
}

// add records key and reports the key of the same fold given before.
func (k *objectKeys) add(key []byte) (prev []byte, dup bool) {
	if k.many == nil {
		for _, f := range k.few[:k.n] {
			if bytes.EqualFold(f, key) {
				return f, true
			}
		}
		if k.n < len(k.few) {
			k.few[k.n] = key
			k.n++
			return nil, false
		}
		k.many = make(map[string][]byte, 2*len(k.few))
		for _, f := range k.few {
			k.many[FoldKey(string(f))] = f
		}
	}
	fk := FoldKey(string(key))
	if prev, dup = k.many[fk]; !dup {
		k.many[fk] = key
	}
	return prev, dup
}

// FoldKey is s with each letter replaced by the smallest of its case
// folding orbit (Unicode simple folding, as strings.EqualFold and
// encoding/json match keys): two keys that differ only in case have one
// fold key. A family's own body reader uses it to refuse such keys as
// CheckJSON does.
func FoldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s) // the least of 'a' and 'A' is 'A'
	}
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
