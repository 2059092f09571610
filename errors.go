package msgkit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind classifies an error so that adapters can choose a status and a body
// without knowing the domain. Kinds are append-only: their numeric values are
// never reused. The zero Kind is Internal, so anything unclassified is treated
// as an internal failure and its details are never shown to callers.
type Kind uint8

// The kinds of error. Adapters map them to HTTP statuses; domains choose them.
const (
	Internal        Kind = iota // a failure the caller cannot fix; details are for logs only
	Invalid                     // the input breaks a rule; Fields name what is wrong
	NotFound                    // the thing asked for does not exist (for this tenant)
	Conflict                    // the request clashes with stored state (duplicate, version)
	Unauthorized                // no or bad credentials
	Forbidden                   // good credentials that may not do this
	RateLimited                 // too many requests; the caller may retry later
	PaymentRequired             // not enough credit or balance
	Unavailable                 // a dependency is down; the caller may retry later
)

// MaxQuoted is the most characters of a caller's value an error message
// quotes (see Short).
const MaxQuoted = 40

// Short is s as an error message quotes a caller's value: whole when it
// has at most MaxQuoted characters, else its first MaxQuoted characters
// and "…", so that no message echoes a long value (a request's bad value
// may be as long as its body allows).
func Short(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Sprintf is fmt.Sprintf for error messages: a string (or []byte)
// formatted with %q is quoted as Short gives it, since a quoted value is a
// caller's and may be as long as a body allows; values formatted
// otherwise (%s of a list of what is allowed) are whole. Errorf and
// Invalidf format with it.
func Sprintf(format string, args ...any) string {
	var short []any // args, copied once one is shortened
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.' || format[i] == '*') {
			if format[i] == '*' {
				arg++
			}
			i++
		}
		if i >= len(format) || format[i] == '%' {
			continue
		}
		if format[i] == '[' { // explicit argument indexes: leave the values whole
			short = nil
			break
		}
		if format[i] == 'q' && arg < len(args) {
			var s string
			switch v := args[arg].(type) {
			case string:
				s = v
			case []byte:
				s = string(v)
			}
			if len(s) > MaxQuoted {
				if short == nil {
					short = slices.Clone(args)
				}
				short[arg] = Short(s)
			}
		}
		arg++
	}
	if short != nil {
		args = short
	}
	return fmt.Sprintf(format, args...)
}

// CodeUnavailable is the code of an Unavailable error whose dependency is
// down for a while (a store that cannot be reached): nothing in the request
// was wrong, and the same request may succeed later.
const CodeUnavailable = "unavailable"

var kindNames = [...]string{
	Internal:        "internal",
	Invalid:         "invalid",
	NotFound:        "not found",
	Conflict:        "conflict",
	Unauthorized:    "unauthorized",
	Forbidden:       "forbidden",
	RateLimited:     "rate limited",
	PaymentRequired: "payment required",
	Unavailable:     "unavailable",
}

// String names the kind in lower case.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error makes a Kind usable as the target of errors.Is:
// errors.Is(err, msgkit.NotFound) reports whether err is classified
// NotFound. A bare Kind returned as an error is an error of that kind with
// no code (see the package doc's classification rule).
func (k Kind) Error() string { return k.String() }

// Is lets a bare Kind match an *Error target of its kind and the empty
// code, as KindOf and CodeOf classify it.
func (k Kind) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == k && t.Code == ""
}

// FieldError tells which input field is wrong and why. Name is the field as the
// caller spelled it (a JSON name or a query parameter); Message is short and
// Description may explain the rule.
type FieldError struct {
	Name        string
	Message     string
	Description string
}

// Error is the one error type that domain code returns. Message is safe to show
// to callers; Err is the cause, kept for logs and never rendered. Code is a
// machine-readable code whose vocabulary belongs to the domain (for example
// the bulk SMS codes "101".."115").
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  []FieldError
	Err     error
}

// New returns an error of the given kind, code and user-safe message.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Errorf is New with a formatted message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: Sprintf(format, args...)}
}

// Wrap classifies a cause. The cause stays reachable through errors.Unwrap
// for logs; only message is shown to callers.
func Wrap(cause error, kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// Invalidf returns an Invalid error naming one field.
func Invalidf(code, field, format string, args ...any) *Error {
	msg := Sprintf(format, args...)
	return &Error{Kind: Invalid, Code: code, Message: msg, Fields: []FieldError{{Name: field, Message: msg}}}
}

// WithField appends a field problem and returns e, for chaining.
func (e *Error) WithField(name, message, description string) *Error {
	e.Fields = append(e.Fields, FieldError{Name: name, Message: message, Description: description})
	return e
}

// Error renders kind, code, message, fields and cause for logs.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Code != "" {
		b.WriteString(" [")
		b.WriteString(e.Code)
		b.WriteByte(']')
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	for _, f := range e.Fields {
		b.WriteString("; ")
		b.WriteString(f.Name)
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause. When the cause itself holds a classified
// error (an *Error or a bare Kind), it comes back behind a veil that keeps
// the chain reachable for errors.Is and errors.As (a driver's error,
// context.Canceled) but stops its classification from showing through:
// the outermost classification is the only one (see the package doc).
func (e *Error) Unwrap() error {
	if e.Err != nil && classified(e.Err) {
		return veiled{e.Err}
	}
	return e.Err
}

// Is lets errors.Is match a Kind (errors.Is(err, msgkit.Invalid)) or another
// *Error with the same kind and code.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Kind:
		return e.Kind == t
	case *Error:
		return e.Kind == t.Kind && e.Code == t.Code
	}
	return false
}

// classification returns the outermost classified error of err's chain:
// the first *Error or bare Kind, in the order errors.As walks.
func classification(err error) (e *Error, k Kind, ok bool) {
	if e, ok := errors.AsType[*Error](err); ok {
		return e, e.Kind, true
	}
	if k, ok := errors.AsType[Kind](err); ok {
		return nil, k, true
	}
	return nil, Internal, false
}

// classified reports whether err's chain holds an *Error or a bare Kind.
func classified(err error) bool {
	_, _, ok := classification(err)
	return ok
}

// KindOf returns the kind of the outermost *Error (or bare Kind) in err's
// chain, Internal when there is none, so unknown failures never leak as
// something a caller caused. errors.Is(err, k) agrees with it for every
// kind but Internal: an unclassified error is Internal here, yet matches no
// Kind with errors.Is.
func KindOf(err error) Kind {
	_, k, _ := classification(err)
	return k
}

// CodeOf returns the code of the outermost *Error in err's chain, or ""
// (also for a bare Kind).
func CodeOf(err error) string {
	if e, _, _ := classification(err); e != nil {
		return e.Code
	}
	return ""
}

// MessageOf returns a message safe to show to callers: the outermost
// *Error's message (a bare Kind's name), or a generic text for internal and
// unknown errors.
func MessageOf(err error) string {
	e, k, _ := classification(err)
	switch {
	case k == Internal:
	case e == nil:
		return k.String()
	case e.Message != "":
		return e.Message
	}
	return "internal error"
}

// veiled is the cause of an *Error that itself holds classified errors:
// every layer below stays visible to errors.Is and errors.As except *Error
// and Kind layers, which answer neither Kind and *Error targets nor
// errors.As into *Error or Kind. Their causes stay reachable.
type veiled struct{ err error }

func (v veiled) Error() string { return v.err.Error() }

func (v veiled) Unwrap() []error {
	switch u := v.err.(type) {
	case interface{ Unwrap() error }:
		if next := u.Unwrap(); next != nil {
			return []error{veiled{next}}
		}
	case interface{ Unwrap() []error }:
		var out []error
		for _, next := range u.Unwrap() {
			if next != nil {
				out = append(out, veiled{next})
			}
		}
		return out
	}
	return nil
}

// hidden reports whether this layer is a classification to veil.
func (v veiled) hidden() bool {
	switch v.err.(type) {
	case *Error, Kind:
		return true
	}
	return false
}

func (v veiled) Is(target error) bool {
	switch target.(type) {
	case Kind, *Error:
		return false
	}
	if v.hidden() {
		return false
	}
	if reflect.TypeOf(target).Comparable() && v.err == target {
		return true
	}
	if x, ok := v.err.(interface{ Is(error) bool }); ok {
		return x.Is(target)
	}
	return false
}

func (v veiled) As(target any) bool {
	if v.hidden() {
		return false
	}
	if x, ok := v.err.(interface{ As(any) bool }); ok && x.As(target) {
		return true
	}
	val := reflect.ValueOf(target)
	if val.Kind() != reflect.Pointer || val.IsNil() {
		return false
	}
	switch val.Type().Elem() {
	case reflect.TypeFor[*Error](), reflect.TypeFor[Kind]():
		return false
	}
	if reflect.TypeOf(v.err).AssignableTo(val.Type().Elem()) {
		val.Elem().Set(reflect.ValueOf(v.err))
		return true
	}
	return false
}

// QuoteValue quotes a caller's value for an error message: at most 40
// characters, then "…", so an error never echoes a long value back.
func QuoteValue(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) > 40 {
		return strconv.Quote(string([]rune(s)[:40])) + "…"
	}
	return strconv.Quote(s)
}
