package msgkit

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Op is a filter operator of the `operator(attr)=value` query form. The
// names are exactly the lower-case words of the interface documents.
type Op string

// The 18 filter operators. See the package documentation for how each one
// treats nulls, case and value counts.
const (
	OpIsNull         Op = "isnull"         // the attribute is null
	OpIsNotNull      Op = "isnotnull"      // the attribute is not null
	OpIsEmpty        Op = "isempty"        // null or the empty string
	OpIsNotEmpty     Op = "isnotempty"     // neither null nor the empty string
	OpEq             Op = "eq"             // equal (exact, case-sensitive for strings)
	OpNeq            Op = "neq"            // not null and not equal
	OpStartsWith     Op = "startswith"     // string prefix, case-insensitive
	OpContains       Op = "contains"       // substring, case-insensitive
	OpEndsWith       Op = "endswith"       // string suffix, case-insensitive
	OpDoesNotContain Op = "doesnotcontain" // not null and no such substring, case-insensitive
	OpLt             Op = "lt"             // less than
	OpLte            Op = "lte"            // less than or equal
	OpGt             Op = "gt"             // greater than
	OpGte            Op = "gte"            // greater than or equal
	OpIn             Op = "in"             // equal to one of the values
	OpNotIn          Op = "notin"          // not null and equal to none of the values
	OpBetween        Op = "between"        // within [low, high], both ends included
	OpNotBetween     Op = "notbetween"     // not null and outside [low, high]
)

// Ops returns every operator once, in the order of the interface
// documents, so that stores can check they translate them all.
func Ops() []Op {
	return []Op{
		OpIsNull, OpIsNotNull, OpIsEmpty, OpIsNotEmpty,
		OpEq, OpNeq, OpStartsWith, OpContains, OpEndsWith, OpDoesNotContain,
		OpLt, OpLte, OpGt, OpGte,
		OpIn, OpNotIn, OpBetween, OpNotBetween,
	}
}

// arity tells how many values an operator takes: 0 (none), 1, 2, or -1
// for one or more.
func (o Op) arity() (n int, known bool) {
	switch o {
	case OpIsNull, OpIsNotNull, OpIsEmpty, OpIsNotEmpty:
		return 0, true
	case OpEq, OpNeq, OpStartsWith, OpContains, OpEndsWith, OpDoesNotContain, OpLt, OpLte, OpGt, OpGte:
		return 1, true
	case OpIn, OpNotIn:
		return -1, true
	case OpBetween, OpNotBetween:
		return 2, true
	}
	return 0, false
}

// Valid reports whether o is one of the 18 operators.
func (o Op) Valid() bool {
	_, ok := o.arity()
	return ok
}

// appliesTo reports whether o may filter an attribute of type t: the
// pattern operators are for strings only, and ordering makes no sense for
// booleans.
func (o Op) appliesTo(t AttrType) bool {
	switch o {
	case OpStartsWith, OpContains, OpEndsWith, OpDoesNotContain:
		return t == AttrString
	case OpLt, OpLte, OpGt, OpGte, OpBetween, OpNotBetween:
		return t != AttrBool
	}
	return true
}

// AttrType is the type of a listed attribute, and so of the Values that
// filter and sort it. The zero AttrType is not a type: a Value of it is
// null.
type AttrType uint8

// The attribute types. Values parse from query text as shown.
const (
	AttrString   AttrType = iota + 1 // any text, taken as given
	AttrNumber                       // exact decimal: -?digits(.digits)?
	AttrDate                         // civil date YYYY-MM-DD
	AttrDateTime                     // RFC 3339 instant, any offset
	AttrBool                         // true or false
)

var attrTypeNames = [...]string{
	0:            "null",
	AttrString:   "string",
	AttrNumber:   "number",
	AttrDate:     "date",
	AttrDateTime: "date-time",
	AttrBool:     "boolean",
}

// String names the type as error messages do.
func (t AttrType) String() string {
	if int(t) < len(attrTypeNames) {
		return attrTypeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

func (t AttrType) valid() bool { return t >= AttrString && t <= AttrBool }

// Value is a typed attribute value: a string, an exact decimal number, a
// civil date, an instant or a boolean, or null. The zero Value is null.
// Values are compared by Compare, never by ==, because equal instants may
// carry different zones.
type Value struct {
	typ AttrType
	b   bool
	s   string    // the string, or the canonical decimal of a number
	d   Date      // AttrDate
	t   time.Time // AttrDateTime
}

// Null returns the null Value, which is also the zero Value.
func Null() Value { return Value{} }

// StringValue returns a string Value.
func StringValue(s string) Value { return Value{typ: AttrString, s: s} }

// IntValue returns a number Value.
func IntValue(n int64) Value { return Value{typ: AttrNumber, s: strconv.FormatInt(n, 10)} }

// FloatValue returns the number Value of f's shortest exact decimal form
// (0.1 is 0.1, not 0.1000000000000000055…). NaN and infinities have no
// decimal form and give null.
func FloatValue(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}
	}
	c, _ := canonicalDecimal(strconv.FormatFloat(f, 'f', -1, 64))
	return Value{typ: AttrNumber, s: c}
}

// NumberValue parses an exact decimal number (-?digits(.digits)?, such as
// decimal.Decimal's String) into a Value. Numbers keep every digit, so
// 0.1+0.2 problems never arise and "10" sorts after "9". Text of another
// shape is an Invalid *Error.
func NumberValue(s string) (Value, error) {
	c, ok := canonicalDecimal(s)
	if !ok {
		return Value{}, Invalidf(CodeInvalidQuery, "", "%s is not a decimal number", quote(s))
	}
	return Value{typ: AttrNumber, s: c}, nil
}

// DateValue returns a civil date Value.
func DateValue(d Date) Value { return Value{typ: AttrDate, d: d} }

// TimeValue returns an instant Value. The monotonic clock reading is
// dropped so that comparisons are by wall instant only.
func TimeValue(t time.Time) Value { return Value{typ: AttrDateTime, t: t.Round(0)} }

// BoolValue returns a boolean Value.
func BoolValue(b bool) Value { return Value{typ: AttrBool, b: b} }

// Type returns v's attribute type, or 0 when v is null.
func (v Value) Type() AttrType { return v.typ }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.typ == 0 }

// Str returns the string of a string Value, and "" for other types.
func (v Value) Str() string {
	if v.typ == AttrString {
		return v.s
	}
	return ""
}

// Number returns the canonical decimal text of a number Value (no leading
// zeros, no trailing fractional zeros, no "-0"), and "" for other types.
// It is what a SQL store binds as a numeric parameter.
func (v Value) Number() string {
	if v.typ == AttrNumber {
		return v.s
	}
	return ""
}

// Date returns the date of a date Value, and the zero Date for other types.
func (v Value) Date() Date { return v.d }

// Time returns the instant of a date-time Value, and the zero time for
// other types.
func (v Value) Time() time.Time { return v.t }

// Bool returns the boolean of a boolean Value, and false for other types.
func (v Value) Bool() bool { return v.b }

// String renders v in its query text form; null is "null".
func (v Value) String() string {
	switch v.typ {
	case AttrString, AttrNumber:
		return v.s
	case AttrDate:
		return v.d.String()
	case AttrDateTime:
		return v.t.Format(time.RFC3339Nano)
	case AttrBool:
		return strconv.FormatBool(v.b)
	}
	return "null"
}

// Compare orders two Values: null after everything (PostgreSQL's default
// order), then Values of different types by type, then by value: strings
// by bytes, numbers numerically, dates and instants chronologically, false
// before true.
func (v Value) Compare(w Value) int {
	if v.typ != w.typ {
		switch {
		case v.typ == 0:
			return 1
		case w.typ == 0:
			return -1
		}
		return cmpInt(int(v.typ), int(w.typ))
	}
	switch v.typ {
	case AttrString:
		return strings.Compare(v.s, w.s)
	case AttrNumber:
		return compareDecimal(v.s, w.s)
	case AttrDate:
		return v.d.Compare(w.d)
	case AttrDateTime:
		return v.t.Compare(w.t)
	case AttrBool:
		switch {
		case v.b == w.b:
			return 0
		case w.b:
			return -1
		}
		return 1
	}
	return 0
}

// Equal reports whether v and w have the same type and value; instants
// are equal when they are the same moment in any zone. go-cmp uses it.
func (v Value) Equal(w Value) bool { return v.typ == w.typ && v.Compare(w) == 0 }

// Filter is one condition of a listing: Op applied to attribute Attr with
// Values (none for the null and empty checks, two for the ranges, one or
// more for in and notin, else one). The Values have the attribute's type.
type Filter struct {
	Op     Op
	Attr   string
	Values []Value
	// Precision, when positive, is the precision a date-time attribute is
	// shown at (ListSpec.TimePrecision): its instant is truncated to it
	// before it is compared with Values, which are taken as given, so the
	// filter selects by the time a client sees. Zero compares instants as
	// stored.
	Precision time.Duration
}

// Match reports whether v satisfies f. Comparisons never match null, as in
// SQL, so neq, notin, notbetween and doesnotcontain are false for null. On
// non-null values those four are exactly the negations of eq, in, between
// and contains. A Value of another type than the filter's values is unequal
// to them and neither less nor greater. A malformed Filter (unknown Op, wrong number of Values) matches nothing;
// Apply refuses such filters before matching.
func (f Filter) Match(v Value) bool {
	if f.Precision > 0 && v.typ == AttrDateTime {
		v.t = v.t.Truncate(f.Precision)
	}
	switch f.Op {
	case OpIsNull:
		return v.typ == 0
	case OpIsNotNull:
		return v.typ != 0
	case OpIsEmpty:
		return v.typ == 0 || (v.typ == AttrString && v.s == "")
	case OpIsNotEmpty:
		return v.typ != 0 && !(v.typ == AttrString && v.s == "")
	}
	if v.typ == 0 {
		return false
	}
	n, _ := f.Op.arity()
	if n > 0 && len(f.Values) != n || n < 0 && len(f.Values) == 0 {
		return false
	}
	switch f.Op {
	case OpEq:
		return v.Equal(f.Values[0])
	case OpNeq:
		return !v.Equal(f.Values[0])
	case OpLt:
		return sameType(v, f.Values[0]) && v.Compare(f.Values[0]) < 0
	case OpLte:
		return sameType(v, f.Values[0]) && v.Compare(f.Values[0]) <= 0
	case OpGt:
		return sameType(v, f.Values[0]) && v.Compare(f.Values[0]) > 0
	case OpGte:
		return sameType(v, f.Values[0]) && v.Compare(f.Values[0]) >= 0
	case OpIn:
		return in(v, f.Values)
	case OpNotIn:
		return !in(v, f.Values)
	case OpBetween:
		return between(v, f.Values[0], f.Values[1])
	case OpNotBetween:
		return !between(v, f.Values[0], f.Values[1])
	case OpStartsWith, OpContains, OpEndsWith, OpDoesNotContain:
		if v.typ != AttrString || f.Values[0].typ != AttrString {
			return f.Op == OpDoesNotContain // the negation of a contains that cannot hold
		}
		return matchFold(f.Op, v.s, f.Values[0].s)
	}
	return false
}

func sameType(v, w Value) bool { return v.typ == w.typ }

func in(v Value, set []Value) bool {
	for _, w := range set {
		if v.Equal(w) {
			return true
		}
	}
	return false
}

func between(v, lo, hi Value) bool {
	return sameType(v, lo) && sameType(v, hi) && v.Compare(lo) >= 0 && v.Compare(hi) <= 0
}

// matchFold runs a pattern operator with Unicode simple case folding, as
// strings.EqualFold does, without allocating.
func matchFold(op Op, s, sub string) bool {
	switch op {
	case OpStartsWith:
		_, ok := prefixFold(s, sub)
		return ok
	case OpEndsWith:
		return suffixFold(s, sub)
	case OpContains:
		return containsFold(s, sub)
	case OpDoesNotContain:
		return !containsFold(s, sub)
	}
	return false
}

// prefixFold reports whether s begins with prefix under case folding, and
// how many bytes of s the prefix covers.
func prefixFold(s, prefix string) (int, bool) {
	i, j := 0, 0
	for j < len(prefix) {
		if i >= len(s) {
			return 0, false
		}
		a, b := s[i], prefix[j]
		if a < utf8.RuneSelf && b < utf8.RuneSelf {
			if a != b && lowerASCII(a) != lowerASCII(b) {
				return 0, false
			}
			i++
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		q, m := utf8.DecodeRuneInString(prefix[j:])
		if !runeEqualFold(r, q) {
			return 0, false
		}
		i += n
		j += m
	}
	return i, true
}

func suffixFold(s, suffix string) bool {
	i, j := len(s), len(suffix)
	for j > 0 {
		if i == 0 {
			return false
		}
		r, n := utf8.DecodeLastRuneInString(s[:i])
		q, m := utf8.DecodeLastRuneInString(suffix[:j])
		if !runeEqualFold(r, q) {
			return false
		}
		i -= n
		j -= m
	}
	return true
}

func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(s); {
		if _, ok := prefixFold(s[i:], sub); ok {
			return true
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// runeEqualFold reports whether r and q are the same letter under Unicode
// simple case folding (k, K and the Kelvin sign are one letter).
func runeEqualFold(r, q rune) bool {
	if r == q {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == q {
			return true
		}
	}
	return false
}

// canonicalDecimal checks -?digits(.digits)? and returns the number without
// leading integer zeros, trailing fraction zeros or a negative zero, so that
// equal numbers have equal text and compareDecimal needs no arithmetic.
func canonicalDecimal(s string) (string, bool) {
	neg := false
	body := s
	if strings.HasPrefix(body, "-") {
		neg = true
		body = body[1:]
	}
	intPart, frac, hasDot := strings.Cut(body, ".")
	if intPart == "" || (hasDot && frac == "") || !allDigits(intPart) || !allDigits(frac) {
		return "", false
	}
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	if intPart == "" {
		intPart = "0"
	}
	if intPart == "0" && frac == "" {
		return "0", true
	}
	n := len(intPart)
	if frac != "" {
		n += 1 + len(frac)
	}
	if neg {
		n++
	}
	if !neg && len(frac) == 0 && len(intPart) == len(s) {
		return s, true // already canonical: no copy
	}
	var b strings.Builder
	b.Grow(n)
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(intPart)
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareDecimal compares two canonical decimals: by sign, then by the
// length of the integer part, then digit by digit. Canonical fractions have
// no trailing zeros, so comparing them as text is comparing them as numbers.
func compareDecimal(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	switch {
	case an && !bn:
		return -1
	case !an && bn:
		return 1
	case an:
		return compareAbsDecimal(b[1:], a[1:])
	}
	return compareAbsDecimal(a, b)
}

func compareAbsDecimal(a, b string) int {
	ai, af, _ := strings.Cut(a, ".")
	bi, bf, _ := strings.Cut(b, ".")
	if len(ai) != len(bi) {
		return cmpInt(len(ai), len(bi))
	}
	if c := strings.Compare(ai, bi); c != 0 {
		return c
	}
	return strings.Compare(af, bf)
}
