package bulksmsapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/msgkit/msgkit/sms"
)

// referenceDecode is decodeSubmission as it was before the one-pass
// decoder: a strict pass (refCheckJSON), then encoding/json into the
// request type with its lenient fields. FuzzDecodeSubmission holds the
// decoder to it; its types carry a ref prefix beside the decoder's own.
func referenceDecode(body []byte) (sms.Submission, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return sms.Submission{}, sms.CodeMissingMandatoryParam.Errorf("the request body is empty")
	}
	if err := refCheckJSON(body); err != nil {
		return sms.Submission{}, err
	}
	var req refRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return sms.Submission{}, sms.CodeBadParameterValue.FieldErrorf(te.Field, "%s has the wrong type", te.Field)
		}
		if fe, ok := errors.AsType[*refFieldError](err); ok {
			return sms.Submission{}, sms.CodeBadParameterValue.FieldErrorf(fe.field, "%s", fe.msg)
		}
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body is not a JSON object")
	}
	if dec.More() {
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body holds more than one JSON value")
	}
	sub := sms.Submission{
		Type: req.Type, Username: req.Auth.Username, Password: req.Auth.Password,
		Sender: string(req.Sender), Receiver: string(req.Receiver), DCS: req.DCS,
		Text: req.Text, URL: req.URL, Title: req.Title, DLRURL: req.DLRURL, Flash: req.Flash,
	}
	if req.DLRMask != nil {
		n := int64(*req.DLRMask)
		sub.DLRMask = &n
	}
	if len(req.Custom) > 0 && !bytes.Equal(bytes.TrimSpace(req.Custom), []byte("null")) {
		sub.Custom = req.Custom
	}
	return sub, nil
}

// refRequest is the submission body as encoding/json read it.
type refRequest struct {
	Type string `json:"type"`
	Auth struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"auth"`
	Sender   refLenientString `json:"sender"`
	Receiver refLenientString `json:"receiver"`
	DCS      string           `json:"dcs"`
	Text     string           `json:"text"`
	URL      string           `json:"url"`
	Title    string           `json:"title"`
	DLRMask  *refLenientInt   `json:"dlrMask"`
	DLRURL   string           `json:"dlrUrl"`
	Flash    bool             `json:"flash"`
	Custom   json.RawMessage  `json:"custom"`
}

type refFieldError struct{ field, msg string }

func (e *refFieldError) Error() string { return e.field + ": " + e.msg }

// refLenientString takes a JSON string or number, as text.
type refLenientString string

func (s *refLenientString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = refLenientString(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil || bytes.ContainsAny(b, ".eE-+") {
		return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[string]()}
	}
	*s = refLenientString(n.String())
	return nil
}

// refLenientInt takes a JSON integer or a string holding one.
type refLenientInt int64

func (n *refLenientInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return &refFieldError{field: "dlrMask", msg: "dlrMask must be an integer"}
	}
	*n = refLenientInt(v)
	return nil
}

// refCheckJSON refuses what encoding/json would silently change or merge: a
// body that is not one JSON object (null included), a string holding
// invalid UTF-8 or a lone UTF-16 surrogate escape such as \ud800 (json
// replaces both with U+FFFD, which the customer never sent and would be
// charged for), and a key given twice in one object (json keeps the last,
// so a second "auth" would be merged into the first). Each is 109
// (RC_BAD_CONTENT_FORMAT) naming the field, as auth.username or
// custom.items[0].note. A body that is not JSON at all passes: Decode
// reports it. It is one pass over the bytes without allocating, since
// every submission goes through it.
func refCheckJSON(body []byte) error {
	var steps [8]refStep
	s := refScanner{b: body, path: steps[:0]}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		if s.i < len(s.b) && s.valueStarts() {
			return sms.CodeBadContentFormat.Errorf("the request body is not a JSON object")
		}
		return nil // not JSON: Decode says so
	}
	s.value()
	return s.err
}

// refScanner walks a JSON text and stops at its first finding. A
// malformed text just stops the walk with no error.
type refScanner struct {
	b    []byte
	i    int
	path []refStep // to the value being read
	err  error
	stop bool
}

// refStep is an object member's key or an array index.
type refStep struct {
	key   []byte
	index int // -1 for an object member
}

// field names the path: auth.username, custom.items[0].note.
func (s *refScanner) field() string {
	var b []byte
	for _, p := range s.path {
		switch {
		case p.index >= 0:
			b = append(append(append(b, '['), strconv.Itoa(p.index)...), ']')
		case len(b) > 0:
			b = append(append(b, '.'), p.key...)
		default:
			b = append(b, p.key...)
		}
	}
	return string(b)
}

func (s *refScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *refScanner) valueStarts() bool {
	switch c := s.b[s.i]; {
	case c == '[' || c == '"' || c == '-' || c == 't' || c == 'f' || c == 'n':
		return true
	default:
		return c >= '0' && c <= '9'
	}
}

func (s *refScanner) fail(what string) {
	if s.err == nil {
		field := s.field()
		s.err = sms.CodeBadContentFormat.FieldErrorf(field, "%s %s", field, what)
	}
	s.stop = true
}

// value reads the value at s.i.
func (s *refScanner) value() {
	if s.stop || s.i >= len(s.b) {
		s.stop = true
		return
	}
	switch s.b[s.i] {
	case '{':
		s.object()
	case '[':
		s.i++
		for n := 0; !s.stop; n++ {
			s.space()
			if s.i < len(s.b) && s.b[s.i] == ']' && n == 0 {
				s.i++
				return
			}
			s.path = append(s.path, refStep{index: n})
			s.value()
			s.path = s.path[:len(s.path)-1]
			s.space()
			if s.i >= len(s.b) || (s.b[s.i] != ',' && s.b[s.i] != ']') {
				s.stop = true
				return
			}
			s.i++
			if s.b[s.i-1] == ']' {
				return
			}
		}
	case '"':
		if _, bad := s.str(); bad != "" {
			s.fail("holds " + bad)
		}
	default: // a number, true, false or null: Decode checks its spelling
		for s.i < len(s.b) && !refIsDelimiter(s.b[s.i]) {
			s.i++
		}
	}
}

func refIsDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// object reads an object, refusing a key given twice.
func (s *refScanner) object() {
	s.i++ // {
	var small [16][]byte
	keys := small[:0]
	for n := 0; !s.stop; n++ {
		s.space()
		if s.i < len(s.b) && s.b[s.i] == '}' && n == 0 {
			s.i++
			return
		}
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			s.stop = true
			return
		}
		start := s.i
		escaped, bad := s.str()
		if bad != "" { // named by what precedes the bad bytes
			s.path = append(s.path, refStep{key: bytes.ToValidUTF8(s.b[start+1:s.i], []byte("?")), index: -1})
			s.fail("holds " + bad)
			return
		}
		if s.stop {
			return
		}
		key := s.b[start+1 : s.i-1]
		if escaped { // rare: compare keys as json reads them
			var k string
			if err := json.Unmarshal(s.b[start:s.i], &k); err != nil {
				s.stop = true
				return
			}
			key = []byte(k)
		}
		s.path = append(s.path, refStep{key: key, index: -1})
		for _, k := range keys {
			if bytes.EqualFold(k, key) { // in any case, as the fields match
				s.fail("is given twice")
				return
			}
		}
		keys = append(keys, key)
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.stop = true
			return
		}
		s.i++
		s.space()
		s.value()
		if s.stop {
			return
		}
		s.path = s.path[:len(s.path)-1]
		s.space()
		if s.i >= len(s.b) || (s.b[s.i] != ',' && s.b[s.i] != '}') {
			s.stop = true
			return
		}
		s.i++
		if s.b[s.i-1] == '}' {
			return
		}
	}
}

// str reads the string at s.i (its opening quote) and tells whether it has
// escapes and what is wrong with it: invalid UTF-8, or a \u escape of a
// surrogate that is not part of a pair ("" when nothing is).
func (s *refScanner) str() (escaped bool, bad string) {
	s.i++ // "
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return escaped, ""
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				s.stop = true
				return escaped, ""
			}
			if s.b[s.i+1] != 'u' {
				s.i += 2
				continue
			}
			r, ok := refHex4(s.b, s.i+2)
			switch {
			case !ok:
				s.stop = true
				return escaped, ""
			case r >= 0xD800 && r < 0xDC00: // a high surrogate needs a low one next
				if s.i+7 >= len(s.b) || s.b[s.i+6] != '\\' || s.b[s.i+7] != 'u' {
					return escaped, "a lone UTF-16 surrogate escape"
				}
				if lo, ok := refHex4(s.b, s.i+8); !ok || lo < 0xDC00 || lo > 0xDFFF {
					return escaped, "a lone UTF-16 surrogate escape"
				}
				s.i += 12
			case r >= 0xDC00 && r <= 0xDFFF:
				return escaped, "a lone UTF-16 surrogate escape"
			default:
				s.i += 6
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return escaped, "invalid UTF-8"
			}
			s.i += size
		}
	}
	s.stop = true
	return escaped, ""
}

// refHex4 reads the four hex digits at b[i:].
func refHex4(b []byte, i int) (rune, bool) {
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
