package msgkit

import (
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestNumberValueCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"-0.000", "0"},
		{"000", "0"},
		{"007", "7"},
		{"10", "10"},
		{"10.500", "10.5"},
		{"-010.0", "-10"},
		{"0.05", "0.05"},
		{"-0.050", "-0.05"},
		{"123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789"},
	}
	for _, tt := range tests {
		v, err := NumberValue(tt.in)
		if err != nil {
			t.Errorf("NumberValue(%q): %v", tt.in, err)
			continue
		}
		if v.Number() != tt.want || v.String() != tt.want || v.Type() != AttrNumber {
			t.Errorf("NumberValue(%q) = %q (%v), want %q", tt.in, v.Number(), v.Type(), tt.want)
		}
	}
	for _, bad := range []string{"", "-", ".", "1.", ".1", "+1", "1e3", "1,5", " 1", "1 ", "0x1", "--1", "1.2.3", "١"} {
		if v, err := NumberValue(bad); err == nil || KindOf(err) != Invalid {
			t.Errorf("NumberValue(%q) = %v, %v; want an Invalid error", bad, v, err)
		}
	}
}

func TestFloatValue(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.1, "0.1"},
		{-2.5, "-2.5"},
		{1e21, "1000000000000000000000"},
		{math.Copysign(0, -1), "0"},
		{3, "3"},
	}
	for _, tt := range tests {
		if got := FloatValue(tt.in); got.Number() != tt.want {
			t.Errorf("FloatValue(%v) = %q, want %q", tt.in, got.Number(), tt.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if v := FloatValue(f); !v.IsNull() {
			t.Errorf("FloatValue(%v) = %v, want null", f, v)
		}
	}
}

func TestValueAccessors(t *testing.T) {
	d := Date{2026, time.March, 1}
	tm := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	tests := []struct {
		v        Value
		typ      AttrType
		text     string
		isString bool
	}{
		{Null(), 0, "null", false},
		{Value{}, 0, "null", false},
		{StringValue("null"), AttrString, "null", true},
		{IntValue(-42), AttrNumber, "-42", false},
		{DateValue(d), AttrDate, "2026-03-01", false},
		{TimeValue(tm), AttrDateTime, "2026-03-01T10:00:00+01:00", false},
		{BoolValue(true), AttrBool, "true", false},
	}
	for _, tt := range tests {
		if tt.v.Type() != tt.typ || tt.v.String() != tt.text || tt.v.IsNull() != (tt.typ == 0) {
			t.Errorf("%#v: type %v string %q null %v; want %v %q", tt.v, tt.v.Type(), tt.v.String(), tt.v.IsNull(), tt.typ, tt.text)
		}
		if (tt.v.Str() == "null") != tt.isString {
			t.Errorf("%v.Str() = %q", tt.v, tt.v.Str())
		}
	}
	if IntValue(1).Str() != "" || StringValue("1").Number() != "" {
		t.Error("Str and Number must be empty for other types")
	}
	if DateValue(d).Date() != d || !TimeValue(tm).Time().Equal(tm) || !BoolValue(true).Bool() {
		t.Error("typed accessors lost the value")
	}
	if now := time.Now(); TimeValue(now).Time() != now.Round(0) {
		t.Error("TimeValue kept the monotonic clock reading")
	}
}

func TestValueCompare(t *testing.T) {
	east := time.FixedZone("east", 2*3600)
	tests := []struct {
		a, b Value
		want int
	}{
		{StringValue("a"), StringValue("b"), -1},
		{StringValue("B"), StringValue("a"), -1}, // bytes, not case-folded
		{StringValue(""), StringValue("a"), -1},
		{IntValue(10), IntValue(9), 1},
		{num(t, "10"), num(t, "9.99"), 1},
		{num(t, "-10"), num(t, "-9"), -1},
		{num(t, "-0.5"), num(t, "0.25"), -1},
		{num(t, "0.05"), num(t, "0.5"), -1},
		{num(t, "0.5"), num(t, "0.51"), -1},
		{num(t, "1.10"), num(t, "1.1"), 0},
		{num(t, "100"), num(t, "99.999"), 1},
		{num(t, "-100"), num(t, "-99.999"), -1},
		{num(t, "12345678901234567890.1"), num(t, "12345678901234567890.01"), 1},
		{DateValue(Date{2025, 12, 31}), DateValue(Date{2026, 1, 1}), -1},
		{TimeValue(time.Date(2026, 1, 1, 12, 0, 0, 0, east)), TimeValue(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)), 0},
		{TimeValue(time.Date(2026, 1, 1, 11, 0, 0, 0, east)), TimeValue(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)), -1},
		{BoolValue(false), BoolValue(true), -1},
		{BoolValue(true), BoolValue(true), 0},
		{Null(), Null(), 0},
		{Null(), StringValue("zzz"), 1},
		{IntValue(1), Null(), -1},
		{StringValue("1"), IntValue(1), -1}, // different types order by type
	}
	for _, tt := range tests {
		if got := tt.a.Compare(tt.b); got != tt.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Compare(tt.a); got != -tt.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
		if got := tt.a.Equal(tt.b); got != (tt.want == 0) {
			t.Errorf("%v.Equal(%v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestFilterMatch(t *testing.T) {
	s, n := StringValue, IntValue
	f := func(op Op, vs ...Value) Filter { return Filter{Op: op, Attr: "x", Values: vs} }
	tests := []struct {
		f    Filter
		v    Value
		want bool
	}{
		{f(OpIsNull), Null(), true},
		{f(OpIsNull), s(""), false},
		{f(OpIsNotNull), s(""), true},
		{f(OpIsNotNull), Null(), false},
		{f(OpIsEmpty), Null(), true},
		{f(OpIsEmpty), s(""), true},
		{f(OpIsEmpty), s(" "), false},
		{f(OpIsEmpty), n(0), false},
		{f(OpIsNotEmpty), s(""), false},
		{f(OpIsNotEmpty), Null(), false},
		{f(OpIsNotEmpty), n(0), true},

		{f(OpEq, s("Smith")), s("Smith"), true},
		{f(OpEq, s("Smith")), s("smith"), false}, // eq is exact
		{f(OpEq, s("")), Null(), false},
		{f(OpEq, n(1)), s("1"), false}, // another type is unequal
		{f(OpNeq, s("Smith")), s("smith"), true},
		{f(OpNeq, s("Smith")), Null(), false},
		{f(OpNeq, n(1)), s("1"), true},

		{f(OpStartsWith, s("SMI")), s("Smith"), true},
		{f(OpStartsWith, s("mit")), s("Smith"), false},
		{f(OpStartsWith, s("")), s(""), true},
		{f(OpStartsWith, s("Smithy")), s("Smith"), false},
		{f(OpContains, s("MIT")), s("Smith"), true},
		{f(OpContains, s("x")), s("Smith"), false},
		{f(OpContains, s("ÖL")), s("Kölner"), true},
		{f(OpContains, s("k")), s("\u212a"), true}, // Kelvin sign folds to k
		{f(OpContains, s("\u212a")), s("Kelvin"), true},
		{f(OpContains, s("ΣΑΣ")), s("σας"), true},
		{f(OpContains, s("a")), Null(), false},
		{f(OpContains, s("1")), n(1), false},
		{f(OpEndsWith, s("TH")), s("Smith"), true},
		{f(OpEndsWith, s("Ë")), s("Zoë"), true},
		{f(OpEndsWith, s("Smith")), s("mith"), false},
		{f(OpEndsWith, s("")), s("abc"), true},
		{f(OpDoesNotContain, s("X")), s("Smith"), true},
		{f(OpDoesNotContain, s("IT")), s("Smith"), false},
		{f(OpDoesNotContain, s("a")), Null(), false},
		{f(OpDoesNotContain, s("1")), n(1), true}, // negation of a contains that cannot hold

		{f(OpLt, n(10)), n(9), true},
		{f(OpLt, n(10)), n(10), false},
		{f(OpLte, n(10)), n(10), true},
		{f(OpGt, n(9)), n(10), true},
		{f(OpGt, n(9)), Null(), false},
		{f(OpGte, n(9)), n(9), true},
		{f(OpGte, n(9)), s("9"), false},
		{f(OpLt, n(9)), s("1"), false},

		{f(OpIn, n(1), n(2)), n(2), true},
		{f(OpIn, n(1), n(2)), n(3), false},
		{f(OpIn, n(1)), Null(), false},
		{f(OpNotIn, n(1), n(2)), n(3), true},
		{f(OpNotIn, n(1), n(2)), n(1), false},
		{f(OpNotIn, n(1)), Null(), false},
		{f(OpBetween, n(1), n(3)), n(1), true},
		{f(OpBetween, n(1), n(3)), n(3), true},
		{f(OpBetween, n(1), n(3)), n(4), false},
		{f(OpBetween, n(1), n(3)), Null(), false},
		{f(OpBetween, n(1), n(3)), s("2"), false},
		{f(OpNotBetween, n(1), n(3)), n(4), true},
		{f(OpNotBetween, n(1), n(3)), n(2), false},
		{f(OpNotBetween, n(1), n(3)), Null(), false},

		// malformed filters match nothing and do not panic
		{f("bogus", n(1)), n(1), false},
		{f(OpEq), n(1), false},
		{f(OpBetween, n(1)), n(1), false},
		{f(OpIn), n(1), false},
		{f(OpNotIn), n(1), false},
	}
	for _, tt := range tests {
		if got := tt.f.Match(tt.v); got != tt.want {
			t.Errorf("%s(%v).Match(%v) = %v, want %v", tt.f.Op, tt.f.Values, tt.v, got, tt.want)
		}
	}
}

// TestFilterMatchPrecision: with a Precision, a date-time compares as
// shown, truncated to it, with the filter's values as given.
func TestFilterMatchPrecision(t *testing.T) {
	at := func(s string) Value {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return TimeValue(tm)
	}
	shown := at("2026-01-01T10:00:00.7Z") // shown as 10:00:00
	f := func(op Op, vs ...Value) Filter { return Filter{Op: op, Attr: "x", Values: vs, Precision: time.Second} }
	whole, half, next := at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00.5Z"), at("2026-01-01T10:00:01Z")
	tests := []struct {
		f    Filter
		want bool
	}{
		{f(OpGt, whole), false}, // the bug: 10:00:00.7 > 10:00:00
		{f(OpGte, whole), true},
		{f(OpLt, next), true},
		{f(OpLte, whole), true},
		{f(OpLt, half), true}, // 10:00:00 < 10:00:00.5
		{f(OpGt, half), false},
		{f(OpEq, whole), true},
		{f(OpEq, shown), false}, // the value given has a fraction no shown time has
		{f(OpNeq, whole), false},
		{f(OpNeq, half), true},
		{f(OpIn, half, whole), true},
		{f(OpNotIn, half, whole), false},
		{f(OpBetween, half, next), false},
		{f(OpBetween, whole, whole), true},
		{f(OpNotBetween, whole, whole), false},
		{f(OpIsNotNull), true},
		{Filter{Op: OpGt, Attr: "x", Values: []Value{whole}}, true}, // no precision: as stored
	}
	for _, tt := range tests {
		if got := tt.f.Match(shown); got != tt.want {
			t.Errorf("%s(%v) at %v: Match = %v, want %v", tt.f.Op, tt.f.Values, tt.f.Precision, got, tt.want)
		}
	}
	if (Filter{Op: OpEq, Values: []Value{IntValue(1)}, Precision: time.Second}).Match(IntValue(1)) != true {
		t.Error("a precision changed a number")
	}
}

// TestNullMatchesOnlyNullChecks: a comparison with null is never true.
func TestNullMatchesOnlyNullChecks(t *testing.T) {
	for _, o := range Ops() {
		n, _ := o.arity()
		vals := []Value{}
		switch n {
		case 1:
			vals = []Value{StringValue("")}
		case 2, -1:
			vals = []Value{StringValue(""), StringValue("z")}
		}
		want := o == OpIsNull || o == OpIsEmpty
		if got := (Filter{Op: o, Values: vals}).Match(Null()); got != want {
			t.Errorf("%s matches null = %v, want %v", o, got, want)
		}
	}
}

func TestOpAppliesTo(t *testing.T) {
	types := []AttrType{AttrString, AttrNumber, AttrDate, AttrDateTime, AttrBool}
	stringOnly := map[Op]bool{OpStartsWith: true, OpContains: true, OpEndsWith: true, OpDoesNotContain: true}
	ordering := map[Op]bool{OpLt: true, OpLte: true, OpGt: true, OpGte: true, OpBetween: true, OpNotBetween: true}
	for _, o := range Ops() {
		for _, typ := range types {
			want := true
			switch {
			case stringOnly[o]:
				want = typ == AttrString
			case ordering[o]:
				want = typ != AttrBool
			}
			if got := o.appliesTo(typ); got != want {
				t.Errorf("%s applies to %v = %v, want %v", o, typ, got, want)
			}
		}
	}
}

func TestAttrTypeString(t *testing.T) {
	if AttrDateTime.String() != "date-time" || AttrType(0).String() != "null" || AttrType(42).String() != "type(42)" {
		t.Errorf("names: %v %v %v", AttrDateTime, AttrType(0), AttrType(42))
	}
}

// decimalGen draws decimal text in non-canonical shapes (leading and
// trailing zeros, negative zero) with its exact value.
func decimalGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		if rapid.Bool().Draw(t, "neg") {
			b.WriteByte('-')
		}
		b.WriteString(rapid.StringMatching(`0{0,2}[0-9]{1,4}`).Draw(t, "int"))
		if rapid.Bool().Draw(t, "hasFrac") {
			b.WriteByte('.')
			b.WriteString(rapid.StringMatching(`[0-9]{1,4}0{0,2}`).Draw(t, "frac"))
		}
		return b.String()
	})
}

func rat(t interface{ Fatalf(string, ...any) }, s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", s)
	}
	return r
}

// TestDecimalOrderAgreesWithBigRat: numbers compare as exact rationals, and
// their canonical text reads back as the same number.
func TestDecimalOrderAgreesWithBigRat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := decimalGen().Draw(t, "a"), decimalGen().Draw(t, "b")
		va, err := NumberValue(a)
		if err != nil {
			t.Fatalf("NumberValue(%q): %v", a, err)
		}
		vb, err := NumberValue(b)
		if err != nil {
			t.Fatalf("NumberValue(%q): %v", b, err)
		}
		if got, want := va.Compare(vb), rat(t, a).Cmp(rat(t, b)); got != want {
			t.Fatalf("%q vs %q: Compare = %d, big.Rat says %d", a, b, got, want)
		}
		if rat(t, va.Number()).Cmp(rat(t, a)) != 0 {
			t.Fatalf("canonical %q of %q is another number", va.Number(), a)
		}
		if again, _ := NumberValue(va.Number()); again.Number() != va.Number() {
			t.Fatalf("canonical form is not stable: %q then %q", va.Number(), again.Number())
		}
	})
}

func TestIntValueOrderAgreesWithInt64(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := rapid.Int64().Draw(t, "a"), rapid.Int64().Draw(t, "b")
		want := 0
		if a < b {
			want = -1
		} else if a > b {
			want = 1
		}
		if got := IntValue(a).Compare(IntValue(b)); got != want {
			t.Fatalf("IntValue(%d).Compare(IntValue(%d)) = %d, want %d", a, b, got, want)
		}
	})
}

// valueGen draws a Value of typ from a small domain, so that equal values
// and ties are common.
func valueGen(typ AttrType) *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		switch typ {
		case AttrString:
			return StringValue(rapid.StringMatching(`[aAbBéÉ]{0,3}`).Draw(t, "s"))
		case AttrNumber:
			v, _ := NumberValue(rapid.SampledFrom([]string{"-1", "0", "0.5", "9", "10", "10.0", "100"}).Draw(t, "n"))
			return v
		case AttrDate:
			return DateValue(Date{2026, time.January, rapid.IntRange(1, 5).Draw(t, "d")})
		case AttrDateTime:
			zone := time.FixedZone("z", rapid.IntRange(-2, 2).Draw(t, "zone")*3600)
			return TimeValue(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rapid.IntRange(0, 4).Draw(t, "h")) * time.Hour).In(zone))
		}
		return BoolValue(rapid.Bool().Draw(t, "b"))
	})
}

func typeGen() *rapid.Generator[AttrType] {
	return rapid.SampledFrom([]AttrType{AttrString, AttrNumber, AttrDate, AttrDateTime, AttrBool})
}

// TestNegatedOperatorsAreComplements: on non-null values neq, notin,
// notbetween and doesnotcontain are exactly the negations of eq, in, between
// and contains.
func TestNegatedOperatorsAreComplements(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := typeGen().Draw(t, "type")
		v := valueGen(typ).Draw(t, "v")
		a, b := valueGen(typ).Draw(t, "a"), valueGen(typ).Draw(t, "b")
		if a.Compare(b) > 0 {
			a, b = b, a
		}
		set := rapid.SliceOfN(valueGen(typ), 1, 4).Draw(t, "set")
		pairs := [][2]Filter{
			{{Op: OpEq, Values: []Value{a}}, {Op: OpNeq, Values: []Value{a}}},
			{{Op: OpIn, Values: set}, {Op: OpNotIn, Values: set}},
			{{Op: OpBetween, Values: []Value{a, b}}, {Op: OpNotBetween, Values: []Value{a, b}}},
			{{Op: OpContains, Values: []Value{a}}, {Op: OpDoesNotContain, Values: []Value{a}}},
			{{Op: OpIsNull}, {Op: OpIsNotNull}},
			{{Op: OpIsEmpty}, {Op: OpIsNotEmpty}},
		}
		for _, p := range pairs {
			if p[0].Match(v) == p[1].Match(v) {
				t.Fatalf("%s and %s agree on %v (values %v)", p[0].Op, p[1].Op, v, p[0].Values)
			}
		}
		if (Filter{Op: OpIsNotNull}).Match(Null()) || (Filter{Op: OpIsNotEmpty}).Match(Null()) {
			t.Fatal("a not-null check matched null")
		}
	})
}

// TestOrderingOperatorsAgreeWithCompare: lt, lte, gt, gte and between are
// Compare's order, and eq is Compare == 0.
func TestOrderingOperatorsAgreeWithCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := typeGen().Draw(t, "type")
		v, w := valueGen(typ).Draw(t, "v"), valueGen(typ).Draw(t, "w")
		c := v.Compare(w)
		checks := []struct {
			op   Op
			want bool
		}{{OpEq, c == 0}, {OpLt, c < 0}, {OpLte, c <= 0}, {OpGt, c > 0}, {OpGte, c >= 0}}
		for _, ch := range checks {
			if typ == AttrBool && ch.op != OpEq {
				continue
			}
			if got := (Filter{Op: ch.op, Values: []Value{w}}).Match(v); got != ch.want {
				t.Fatalf("%v %s %v = %v, want %v (Compare %d)", v, ch.op, w, got, ch.want, c)
			}
		}
	})
}

// TestPatternOperatorsAgreeWithToLower: on text where Unicode simple folding
// and strings.ToLower coincide, the pattern operators are the strings
// functions on lower-cased text.
func TestPatternOperatorsAgreeWithToLower(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[aAbBéÉσΣ]{0,6}`).Draw(t, "s")
		sub := rapid.StringMatching(`[aAbBéÉσΣ]{0,3}`).Draw(t, "sub")
		ls, lsub := strings.ToLower(s), strings.ToLower(sub)
		checks := []struct {
			op   Op
			want bool
		}{
			{OpStartsWith, strings.HasPrefix(ls, lsub)},
			{OpEndsWith, strings.HasSuffix(ls, lsub)},
			{OpContains, strings.Contains(ls, lsub)},
			{OpDoesNotContain, !strings.Contains(ls, lsub)},
		}
		for _, ch := range checks {
			if got := (Filter{Op: ch.op, Values: []Value{StringValue(sub)}}).Match(StringValue(s)); got != ch.want {
				t.Fatalf("%q %s %q = %v, want %v", s, ch.op, sub, got, ch.want)
			}
		}
	})
}

// TestPatternOperatorsOnInvalidUTF8 keeps the folding helpers total, and a
// byte match of a valid needle is always found. (A needle that cuts a
// character in two is not text and need not match.)
func TestPatternOperatorsOnInvalidUTF8(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "s"))
		sub := string(rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "sub"))
		for _, op := range []Op{OpStartsWith, OpEndsWith, OpContains} {
			got := (Filter{Op: op, Values: []Value{StringValue(sub)}}).Match(StringValue(s))
			var exact bool
			switch op {
			case OpStartsWith:
				exact = strings.HasPrefix(s, sub)
			case OpEndsWith:
				exact = strings.HasSuffix(s, sub)
			default:
				exact = strings.Contains(s, sub)
			}
			if exact && !got && utf8.ValidString(sub) {
				t.Fatalf("%q %s %q is false though the bytes match", s, op, sub)
			}
		}
	})
}

// BenchmarkFilterMatchPrecision: comparing an instant as shown costs a
// truncation over comparing it as stored, and allocates nothing.
func BenchmarkFilterMatchPrecision(b *testing.B) {
	v := TimeValue(time.Date(2026, 1, 31, 9, 30, 0, 123_456_000, time.UTC))
	for _, p := range []time.Duration{0, time.Second} {
		f := Filter{Op: OpGt, Attr: "at", Values: []Value{TimeValue(time.Date(2026, 1, 31, 9, 30, 0, 0, time.UTC))}, Precision: p}
		b.Run("precision "+p.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if f.Match(v) == (p > 0) {
					b.Fatal("wrong match")
				}
			}
		})
	}
}
