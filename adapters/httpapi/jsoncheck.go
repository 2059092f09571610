package httpapi

import (
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/jsoncheck"
)

// DefaultMaxString is the longest string, in characters, a JSON body may
// hold where its route sets no other limit (DecodeOptions.LongStrings):
// every string a family stores has this maximum unless its documentation
// names another.
const DefaultMaxString = 1000

// CheckJSON reports whether data is one JSON value (RFC 8259) that keeps
// the rules every family's bodies keep (package jsoncheck), beyond what
// encoding/json checks: strings are valid UTF-8 without a lone surrogate
// escape (\ud800 alone) or the NUL character; no object gives a key twice,
// or two keys that differ only in case (encoding/json would let the last
// one win, matching keys without regard to case); and no string is longer
// than maxString characters, or than long names for its place in the body
// ("data", "items[].name": array indexes are written []). The error is
// Invalid (code invalid_json) and names the place of the fault
// (items[0].name) or "body"; it never quotes the value.
func CheckJSON(data []byte, maxString int, long map[string]int) error {
	f := jsoncheck.Check(data, maxString, long)
	if f == nil {
		return nil
	}
	field := f.Field
	if field == "" {
		field = "body"
	}
	return msgkit.Invalidf(CodeInvalidJSON, field, "%s", f.Message)
}

// FoldKey is jsoncheck.FoldKey: two keys that differ only in case have
// one fold key.
func FoldKey(s string) string { return jsoncheck.FoldKey(s) }
