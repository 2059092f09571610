package contacts

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/jsoncheck"
	"github.com/msgkit/msgkit/segmentation"
)

// CodeInvalidImport is the code of an import body that is not a JSON
// array of objects.
const CodeInvalidImport = "invalid_import"

// readChunk is the number of items ReadImport decodes before it checks
// them, in parallel, and packs them: what it holds of the body at once.
const readChunk = 256

// readPart is the number of items of a chunk one goroutine checks at a
// time.
const readPart = 64

// ReadImport reads an import body, a JSON array of contact objects, into
// items in body order: each checked by Fill as a create body into the
// import's list, the fields of opts.UnsetInvalid that fail set to null.
// An item that is not an object, or has a member that is not a string or
// null (channel_telegram_data: an object), is an invalid item, not an
// error; a body that is not a JSON array is Invalid (code
// invalid_import). It reads the body as a stream, readChunk items at a
// time, checked in parallel, one goroutine per core (phone numbers are
// costly to read), and keeps them packed (ImportItems), so that it holds
// about the body's size, not the 900 bytes of an ImportItem per item.
func ReadImport(body io.Reader, opts ImportOptions) (*ImportItems, error) {
	notArray := msgkit.Invalidf(CodeInvalidImport, "body", "the import body must be a JSON array of contacts")
	dec := json.NewDecoder(body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, notArray
	}
	items := &ImportItems{}
	raws := make([]json.RawMessage, readChunk) // each reused: Decode appends to it
	read := make([]ImportItem, readChunk)
	k := 0
	flush := func() {
		readItems(raws[:k], read[:k], &opts)
		for i := range k {
			items.Append(read[i])
			read[i] = ImportItem{}
		}
		k = 0
	}
	for dec.More() {
		raws[k] = raws[k][:0]
		if err := dec.Decode(&raws[k]); err != nil {
			return nil, notArray
		}
		if k++; k == readChunk {
			flush()
		}
	}
	flush()
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, notArray
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, msgkit.Invalidf(CodeInvalidImport, "body", "the import body must hold one JSON array")
	}
	return items, nil
}

// echoOf is an invalid item as its error shows it: as sent, unless it
// holds bytes JSON text cannot carry (invalid UTF-8, a lone surrogate
// escape) or a string longer than msgkit.MaxQuoted characters; then as
// encoding/json reads it (U+FFFD for bad bytes), each long string cut as
// msgkit.Short cuts it, so no error echoes a long value.
func echoOf(raw json.RawMessage) []byte {
	if utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u`)) && !hasLongString(raw) {
		return bytes.Clone(raw)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []byte("null")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(shortened(v)) != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// hasLongString reports whether raw may hold a string longer than
// msgkit.MaxQuoted characters: a run of that many bytes between quotes.
func hasLongString(raw []byte) bool {
	run, in, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
			run++
		case in && c == '\\':
			escaped = true
		case c == '"':
			in, run = !in, 0
		case in:
			run++
		}
		if run > msgkit.MaxQuoted {
			return true
		}
	}
	return false
}

// shortened is v with every string cut by msgkit.Short.
func shortened(v any) any {
	switch x := v.(type) {
	case string:
		return msgkit.Short(x)
	case []any:
		for i := range x {
			x[i] = shortened(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = shortened(e)
		}
	}
	return v
}

// readItems reads raws into out, in parallel when there are many.
func readItems(raws []json.RawMessage, out []ImportItem, o *ImportOptions) {
	workers := min(runtime.GOMAXPROCS(0), (len(raws)+readPart-1)/readPart)
	if workers <= 1 {
		for i := range raws {
			out[i] = readItem(raws[i], o)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(readPart)) - readPart
				if lo >= len(raws) {
					return
				}
				for i := lo; i < min(lo+readPart, len(raws)); i++ {
					out[i] = readItem(raws[i], o)
				}
			}
		})
	}
	wg.Wait()
}

// readItem reads one item.
func readItem(raw json.RawMessage, o *ImportOptions) ImportItem {
	invalid := func(errs []msgkit.FieldError) ImportItem {
		return ImportItem{Raw: echoOf(raw), Errors: errs}
	}
	// The rules of every body (package jsoncheck): bad bytes, NUL and a key
	// given twice make the item invalid, naming the member, since json
	// would change or merge them.
	if f := jsoncheck.Check(raw, 0, nil); f != nil {
		name := f.Field
		if name == "" {
			name = "contact"
		}
		return invalid([]msgkit.FieldError{{Name: name, Message: f.Message}})
	}
	in, given, ok := flatItem(raw)
	var bad []msgkit.FieldError
	if !ok {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil || body == nil {
			return invalid([]msgkit.FieldError{{Name: "contact", Message: "an import item must be a JSON object"}})
		}
		in, given, bad = itemInput(body)
	}
	if len(bad) > 0 {
		return invalid(bad)
	}
	if bad = undefinedColumns(&in, o); len(bad) > 0 {
		return invalid(bad)
	}
	list := o.ListUUID
	in.ListUUID = &list
	c := Contact{}
	err := Fill(&c, in, true)
	if err != nil {
		e, _ := err.(*msgkit.Error)
		if e == nil {
			return invalid([]msgkit.FieldError{{Name: "contact", Message: err.Error()}})
		}
		if !allUnsettable(e.Fields, o.UnsetInvalid) {
			return invalid(e.Fields)
		}
		for _, f := range e.Fields {
			unset(&in, f.Name)
		}
		if err := Fill(&c, in, true); err != nil { // cannot fail: only valid fields are left
			if e, ok := err.(*msgkit.Error); ok {
				return invalid(e.Fields)
			}
			return invalid([]msgkit.FieldError{{Name: "contact", Message: err.Error()}})
		}
	}
	return ImportItem{Contact: c, Given: given}
}

// undefinedColumns names the custom columns of in outside o.Columns,
// setting those of o.UnsetInvalid to null instead.
func undefinedColumns(in *Input, o *ImportOptions) []msgkit.FieldError {
	if o.Columns == nil {
		return nil
	}
	var bad []msgkit.FieldError
	for name, v := range in.Values {
		f, ok := segmentation.ParseField(name)
		if !ok || f.Column() == 0 || o.Columns[f.Column()] || v == nil {
			continue
		}
		if slices.Contains(o.UnsetInvalid, name) {
			in.Values[name] = nil
			continue
		}
		bad = append(bad, msgkit.FieldError{Name: name, Message: name + " is not a custom field of this service"})
	}
	slices.SortFunc(bad, func(a, b msgkit.FieldError) int { return strings.Compare(a.Name, b.Name) })
	return bad
}

// allUnsettable says whether every problem names a field of unset.
func allUnsettable(errs []msgkit.FieldError, unset []string) bool {
	for _, f := range errs {
		if !slices.Contains(unset, f.Name) {
			return false
		}
	}
	return len(errs) > 0
}

// unset sets the field named name of in to null.
func unset(in *Input, name string) {
	switch name {
	case "opt_status":
		in.OptStatus = nil
	case "channel_telegram_identifier":
		in.TelegramIdentifier = nil
	case "channel_telegram_opt_status":
		in.TelegramOptStatus = nil
	case "channel_telegram_data":
		in.TelegramData = nil
	default:
		if _, ok := in.Values[name]; ok {
			in.Values[name] = nil
		}
	}
}

// itemInput reads an item's members as a create body's (BodyInput),
// without list_uuid: the list is the import's.
func itemInput(body map[string]json.RawMessage) (in Input, given []string, bad []msgkit.FieldError) {
	in, given, bad = BodyInput(body)
	if in.ListUUID != nil || slices.Contains(given, "list_uuid") {
		in.ListUUID = nil
		given = slices.DeleteFunc(given, func(n string) bool { return n == "list_uuid" })
	}
	return in, given, bad
}

// bodyReadOnly are the members of an answer that a client may send back
// in a body but cannot set: ignored. opt_status_webpush and
// webpush_subscription, the webpush channel, are set by a status change
// (Patch) only.
var bodyReadOnly = map[string]bool{
	"uuid": true, "created_dt": true, "updated_dt": true, "deleted_dt": true, "channels": true,
	"member_status": true, "lists": true, "opt_status_webpush": true, "webpush_subscription": true,
}

// BodyInput reads the members of a create or replace body (a JSON object)
// into an Input: strings or null, channel_telegram_data an object (checked
// by Fill); the read-only members of an answer (uuid, created_dt,
// updated_dt, deleted_dt, channels, member_status, lists),
// opt_status_webpush and webpush_subscription are ignored. given are the
// members it read, sorted; bad names the members of another type, sorted.
func BodyInput(body map[string]json.RawMessage) (in Input, given []string, bad []msgkit.FieldError) {
	in.Values = make(map[string]*string, len(body))
	for name, raw := range body {
		if bodyReadOnly[name] {
			continue
		}
		given = append(given, name)
		if name == "channel_telegram_data" {
			in.TelegramData = raw
			continue
		}
		s, ok := StringOrNull(raw)
		if !ok {
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " must be a string or null"})
			continue
		}
		switch name {
		case "list_uuid":
			in.ListUUID = s
		case "opt_status":
			in.OptStatus = s
		case "channel_telegram_identifier":
			in.TelegramIdentifier = s
		case "channel_telegram_opt_status":
			in.TelegramOptStatus = s
		default:
			in.Values[name] = s
		}
	}
	slices.Sort(given)
	slices.SortFunc(bad, func(a, b msgkit.FieldError) int { return strings.Compare(a.Name, b.Name) })
	return in, given, bad
}

// StringOrNull reads a JSON string (a pointer to it) or null (nil); ok is
// false for any other JSON value.
func StringOrNull(raw json.RawMessage) (s *string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		return nil, true
	}
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return &v, true
}

// flatItem reads the common item fast: an object whose members are all
// strings without escapes (valid UTF-8, no control characters) or null,
// as itemInput reads it. ok is false for anything else, which
// encoding/json then reads.
func flatItem(raw []byte) (in Input, given []string, ok bool) {
	i := 0
	ws := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
			i++
		}
	}
	str := func() (string, bool) { // at the opening quote
		i++
		start, ascii := i, true
		for ; i < len(raw); i++ {
			switch c := raw[i]; {
			case c == '"':
				v := raw[start:i]
				i++
				if !ascii && !utf8.Valid(v) {
					return "", false
				}
				return string(v), true
			case c == '\\' || c < 0x20:
				return "", false
			case c >= 0x80:
				ascii = false
			}
		}
		return "", false
	}
	ws()
	if i >= len(raw) || raw[i] != '{' {
		return Input{}, nil, false
	}
	i++
	in.Values = map[string]*string{}
	ws()
	if i < len(raw) && raw[i] == '}' {
		i++
	} else {
		for {
			ws()
			if i >= len(raw) || raw[i] != '"' {
				return Input{}, nil, false
			}
			name, ok := str()
			if !ok {
				return Input{}, nil, false
			}
			ws()
			if i >= len(raw) || raw[i] != ':' {
				return Input{}, nil, false
			}
			i++
			ws()
			var v *string
			switch {
			case i < len(raw) && raw[i] == '"':
				s, ok := str()
				if !ok {
					return Input{}, nil, false
				}
				v = &s
			case bytes.HasPrefix(raw[i:], []byte("null")):
				i += 4
			default:
				return Input{}, nil, false
			}
			if !bodyReadOnly[name] && name != "list_uuid" {
				if !slices.Contains(given, name) {
					given = append(given, name)
				}
				switch name {
				case "channel_telegram_data":
					if v != nil {
						return Input{}, nil, false // a string where an object goes: encoding/json names it
					}
					in.TelegramData = nil
				case "opt_status":
					in.OptStatus = v
				case "channel_telegram_identifier":
					in.TelegramIdentifier = v
				case "channel_telegram_opt_status":
					in.TelegramOptStatus = v
				default:
					in.Values[name] = v
				}
			}
			ws()
			if i < len(raw) && raw[i] == ',' {
				i++
				continue
			}
			if i < len(raw) && raw[i] == '}' {
				i++
				break
			}
			return Input{}, nil, false
		}
	}
	ws()
	if i != len(raw) {
		return Input{}, nil, false
	}
	slices.Sort(given)
	return in, given, true
}
