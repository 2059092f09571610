package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/msgkit/msgkit"
)

// DefaultMaxBodyBytes is the body limit of a route that sets none: 1 MiB.
const DefaultMaxBodyBytes int64 = 1 << 20

// DecodeOptions tune DecodeJSON.
type DecodeOptions struct {
	// MaxBytes limits the body. Zero keeps the limit LimitBody set for the
	// route, or DefaultMaxBodyBytes when there is none.
	MaxBytes int64
	// DisallowUnknownFields refuses members that v has no field for, naming
	// the first one. Off, they are ignored: read-only fields a client sends
	// back (uuid, created_dt) are not an error.
	DisallowUnknownFields bool
	// MaxString is the longest string in characters; zero means
	// DefaultMaxString.
	MaxString int
	// LongStrings are the places that take longer strings, by their path
	// with array indexes written [] ("data", "items[].text"), and how long.
	LongStrings map[string]int
}

// DecodeJSON reads exactly one JSON value from the request body into v,
// after CheckJSON: invalid UTF-8, lone surrogate escapes, the NUL
// character, a key given twice in an object (or two keys that differ
// only in case) and strings longer than the options allow are refused,
// naming the place, before anything is decoded.
//
// Every failure is an error ready for WriteError: a body over the limit is
// 413 (a *StatusError over Invalid, code CodeRequestTooLarge); a value of the
// wrong type is Invalid naming the field by its JSON path (items.price);
// malformed JSON, an empty body or anything after the value is Invalid
// naming "body"; an error a field's UnmarshalJSON returns is kept when it is
// a *msgkit.Error and otherwise becomes Invalid naming "body". Keys match
// v's fields without regard to case, as encoding/json matches them. The
// Content-Type is not checked.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any, opts DecodeOptions) error {
	data, err := ReadBody(w, r, opts.MaxBytes)
	if err != nil {
		return err
	}
	if err := CheckJSON(data, cmpOrInt(opts.MaxString, DefaultMaxString), opts.LongStrings); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if opts.DisallowUnknownFields {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return nil
}

// ReadBody reads the request body whole, within maxBytes (zero: the limit
// LimitBody set for the route, or DefaultMaxBodyBytes); a body over it is
// the 413 of DecodeJSON.
func ReadBody(w http.ResponseWriter, r *http.Request, maxBytes int64) ([]byte, error) {
	body := r.Body
	if body == nil {
		body = http.NoBody
	}
	switch limit, limited := r.Context().Value(bodyLimitKey{}).(int64); {
	case maxBytes > 0:
		body = http.MaxBytesReader(w, body, maxBytes)
	case !limited || limit <= 0:
		body = http.MaxBytesReader(w, body, DefaultMaxBodyBytes)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge(mb.Limit)
		}
		return nil, invalidBody("the body could not be read")
	}
	return data, nil
}

func cmpOrInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func decodeError(err error) error {
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return tooLarge(mb.Limit)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		name := te.Field
		if name == "" {
			name = "body"
		}
		msg := fmt.Sprintf("%s must be %s, not %s", name, jsonType(te.Type), te.Value)
		return msgkit.Invalidf(CodeInvalidJSON, name, "%s", msg)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return invalidBody(fmt.Sprintf("the body is not valid JSON (at byte %d)", se.Offset))
	}
	if _, ok := errors.AsType[*json.InvalidUnmarshalError](err); ok {
		return msgkit.Wrap(err, msgkit.Internal, "decode", "")
	}
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		return e
	}
	switch {
	case errors.Is(err, io.EOF):
		return invalidBody("the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidBody("the body ends inside a JSON value")
	}
	// encoding/json reports an unknown member only as text.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return msgkit.Invalidf(CodeInvalidJSON, name, "%s is not a known field", name)
	}
	return invalidBody("the body has an invalid value: " + err.Error())
}

func invalidBody(msg string) error { return msgkit.Invalidf(CodeInvalidJSON, "body", "%s", msg) }

func tooLarge(limit int64) error {
	return &StatusError{
		Status: http.StatusRequestEntityTooLarge,
		Err:    msgkit.Errorf(msgkit.Invalid, CodeRequestTooLarge, "the request body exceeds %d bytes", limit),
	}
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}
