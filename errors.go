package msgkit

import (
	"errors"
	"fmt"
	"strings"
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
// errors.Is(err, msgkit.NotFound) reports whether err is a *Error of that kind.
func (k Kind) Error() string { return k.String() }

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
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies a cause. The cause stays reachable through errors.Unwrap
// for logs; only message is shown to callers.
func Wrap(cause error, kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// Invalidf returns an Invalid error naming one field.
func Invalidf(code, field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
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

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

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

// KindOf returns the kind of the first *Error in err's chain, Internal when
// there is none, so unknown failures never leak as something a caller caused.
func KindOf(err error) Kind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return Internal
}

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}

// MessageOf returns a message safe to show to callers: the *Error's message,
// or a generic text for internal and unknown errors.
func MessageOf(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && e.Kind != Internal && e.Message != "" {
		return e.Message
	}
	return "internal error"
}
