package msgkit

import (
	"errors"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// testSpec is the listing used by the parse tests: one attribute per type,
// a sortable set that differs from the filterable one, and the parameters
// the listing endpoints read themselves.
func testSpec() ListSpec {
	return ListSpec{
		Filter: map[string]AttrType{
			"name":   AttrString,
			"amount": AttrNumber,
			"day":    AttrDate,
			"at":     AttrDateTime,
			"active": AttrBool,
		},
		Sort:        []string{"name", "amount", "day", "at", "id"},
		MaxPageSize: 50,
		Ignore:      []string{"q", "owner", "token", "language"},
	}
}

func mustQuery(t testing.TB, raw string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("url.ParseQuery(%q): %v", raw, err)
	}
	return v
}

func num(t testing.TB, s string) Value {
	t.Helper()
	v, err := NumberValue(s)
	if err != nil {
		t.Fatalf("NumberValue(%q): %v", s, err)
	}
	return v
}

func day(t testing.TB, s string) Value {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return DateValue(d)
}

func instant(t testing.TB, s string) Value {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time.Parse(%q): %v", s, err)
	}
	return TimeValue(tm)
}

func TestParseListQuery(t *testing.T) {
	str := StringValue
	page := func(n, size int) ListQuery { return ListQuery{PageNumber: n, PageSize: size} }
	with := func(fs ...Filter) ListQuery { return ListQuery{PageNumber: 1, PageSize: 10, Filters: fs} }
	f := func(op Op, attr string, vs ...Value) Filter { return Filter{Op: op, Attr: attr, Values: vs} }

	tests := []struct {
		name string
		raw  string
		spec func(*ListSpec)
		want ListQuery
	}{
		{name: "defaults", raw: "", want: page(1, 10)},
		{name: "page parameters", raw: "page_number=3&page_size=50", want: page(3, 50)},
		{name: "page size of one", raw: "page_size=1", want: page(1, 1)},
		{name: "leading zeros", raw: "page_number=007", want: page(7, 10)},
		{name: "paging form", raw: "paging=2,20", want: page(2, 20)},
		{name: "paging agrees with both", raw: "paging=2,20&page_number=2&page_size=20", want: page(2, 20)},
		{name: "paging agrees with page_number", raw: "paging=2,20&page_number=2", want: page(2, 20)},
		{name: "spec default page size", raw: "", spec: func(s *ListSpec) { s.DefaultPageSize = 25 }, want: page(1, 25)},
		{name: "zero max means 100", raw: "page_size=100", spec: func(s *ListSpec) { s.MaxPageSize = 0 }, want: page(1, 100)},
		{name: "ignored parameters", raw: "q=smith&owner=me&token=abc&language=en", want: page(1, 10)},
		{name: "ignore wins over a filterable attribute", raw: "name=x", spec: func(s *ListSpec) { s.Ignore = []string{"name"} }, want: page(1, 10)},
		{name: "ignore wins over a reserved name", raw: "page_size=bad", spec: func(s *ListSpec) { s.Ignore = []string{"page_size"} }, want: page(1, 10)},
		{name: "empty value list is absent", raw: "", want: page(1, 10)},

		{name: "sort", raw: "sort=-amount,name", want: ListQuery{PageNumber: 1, PageSize: 10,
			Sort: []SortKey{{Attr: "amount", Desc: true}, {Attr: "name"}}}},
		{name: "sort by a sortable attribute that is not filterable", raw: "sort=id", want: ListQuery{PageNumber: 1, PageSize: 10,
			Sort: []SortKey{{Attr: "id"}}}},
		{name: "empty sort", raw: "sort=", want: page(1, 10)},

		{name: "plain equality", raw: "name=Smith", want: with(f(OpEq, "name", str("Smith")))},
		{name: "plain equality keeps commas", raw: "name=a,b", want: with(f(OpEq, "name", str("a,b")))},
		{name: "plain equality with empty string", raw: "name=", want: with(f(OpEq, "name", str("")))},
		{name: "eq number canonical", raw: "eq(amount)=010.50", want: with(f(OpEq, "amount", num(t, "10.5")))},
		{name: "eq negative number", raw: "eq(amount)=-0.25", want: with(f(OpEq, "amount", num(t, "-0.25")))},
		{name: "isnull empty", raw: "isnull(name)=", want: with(f(OpIsNull, "name"))},
		{name: "isnull true", raw: "isnull(name)=true", want: with(f(OpIsNull, "name"))},
		{name: "isnotnull", raw: "isnotnull(at)", want: with(f(OpIsNotNull, "at"))},
		{name: "isempty on a number", raw: "isempty(amount)=", want: with(f(OpIsEmpty, "amount"))},
		{name: "isnotempty", raw: "isnotempty(name)=true", want: with(f(OpIsNotEmpty, "name"))},
		{name: "neq", raw: "neq(name)=x", want: with(f(OpNeq, "name", str("x")))},
		{name: "startswith", raw: "startswith(name)=Sm", want: with(f(OpStartsWith, "name", str("Sm")))},
		{name: "contains", raw: "contains(name)=it", want: with(f(OpContains, "name", str("it")))},
		{name: "endswith", raw: "endswith(name)=th", want: with(f(OpEndsWith, "name", str("th")))},
		{name: "doesnotcontain", raw: "doesnotcontain(name)=x", want: with(f(OpDoesNotContain, "name", str("x")))},
		{name: "lt number", raw: "lt(amount)=9", want: with(f(OpLt, "amount", num(t, "9")))},
		{name: "lte date", raw: "lte(day)=2024-02-29", want: with(f(OpLte, "day", day(t, "2024-02-29")))},
		{name: "gt date-time", raw: "gt(at)=2026-01-01T10:00:00Z", want: with(f(OpGt, "at", instant(t, "2026-01-01T10:00:00Z")))},
		{name: "gte string", raw: "gte(name)=m", want: with(f(OpGte, "name", str("m")))},
		{name: "date-time with encoded plus", raw: "gt(at)=2026-01-01T10:00:00%2B02:00", want: with(f(OpGt, "at", instant(t, "2026-01-01T08:00:00Z")))},
		{name: "date-time with unencoded plus", raw: "gt(at)=2026-01-01T10:00:00+02:00", want: with(f(OpGt, "at", instant(t, "2026-01-01T08:00:00Z")))},
		{name: "date-time with fraction", raw: "lt(at)=2026-01-01T10:00:00.5-05:00", want: with(f(OpLt, "at", instant(t, "2026-01-01T15:00:00.5Z")))},
		{name: "in numbers", raw: "in(amount)=1,2,3", want: with(f(OpIn, "amount", num(t, "1"), num(t, "2"), num(t, "3")))},
		{name: "in one value", raw: "in(amount)=1", want: with(f(OpIn, "amount", num(t, "1")))},
		{name: "notin strings with an empty one", raw: "notin(name)=a,,b", want: with(f(OpNotIn, "name", str("a"), str(""), str("b")))},
		{name: "between dates", raw: "between(day)=2026-01-01,2026-01-31", want: with(f(OpBetween, "day", day(t, "2026-01-01"), day(t, "2026-01-31")))},
		{name: "notbetween equal bounds", raw: "notbetween(amount)=1,1.0", want: with(f(OpNotBetween, "amount", num(t, "1"), num(t, "1")))},
		{name: "bool", raw: "eq(active)=true", want: with(f(OpEq, "active", BoolValue(true)))},
		{name: "bool plain false", raw: "active=false", want: with(f(OpEq, "active", BoolValue(false)))},
		{name: "in bools", raw: "in(active)=true,false", want: with(f(OpIn, "active", BoolValue(true), BoolValue(false)))},
		{name: "repeated filters are kept and ordered by value", raw: "gt(amount)=5&gt(amount)=1", want: with(
			f(OpGt, "amount", num(t, "1")), f(OpGt, "amount", num(t, "5")))},
		{name: "filters ordered by parameter name", raw: "name=x&gt(amount)=5&amount=1", want: with(
			f(OpEq, "amount", num(t, "1")), f(OpGt, "amount", num(t, "5")), f(OpEq, "name", str("x")))},
		{name: "reserved name filtered with eq form", raw: "eq(sort)=x&sort=name",
			spec: func(s *ListSpec) { s.Filter["sort"] = AttrString },
			want: ListQuery{PageNumber: 1, PageSize: 10, Sort: []SortKey{{Attr: "name"}}, Filters: []Filter{f(OpEq, "sort", str("x"))}}},
		{name: "date-time at the precision shown", raw: "gt(at)=2026-01-01T10:00:00Z&gt(amount)=5",
			spec: func(s *ListSpec) { s.TimePrecision = time.Second },
			want: with(f(OpGt, "amount", num(t, "5")),
				Filter{Op: OpGt, Attr: "at", Values: []Value{instant(t, "2026-01-01T10:00:00Z")}, Precision: time.Second})},
		{name: "everything together", raw: "paging=2,5&sort=-day&contains(name)=a&between(amount)=1,2&q=ignored",
			want: ListQuery{PageNumber: 2, PageSize: 5, Sort: []SortKey{{Attr: "day", Desc: true}}, Filters: []Filter{
				f(OpBetween, "amount", num(t, "1"), num(t, "2")), f(OpContains, "name", str("a"))}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			got, err := ParseListQuery(mustQuery(t, tt.raw), spec)
			if err != nil {
				t.Fatalf("ParseListQuery(%q): %v", tt.raw, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseListQuery(%q) mismatch (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestParseListQueryErrors(t *testing.T) {
	type problem struct{ name, msg string } // msg: a substring of the field message
	tests := []struct {
		name string
		raw  string
		spec func(*ListSpec)
		want []problem
	}{
		{name: "page number zero", raw: "page_number=0", want: []problem{{"page_number", "at least 1"}}},
		{name: "page number negative", raw: "page_number=-1", want: []problem{{"page_number", `"-1"`}}},
		{name: "page number not a number", raw: "page_number=abc", want: []problem{{"page_number", `"abc"`}}},
		{name: "page number with plus sign", raw: "page_number=%2B1", want: []problem{{"page_number", `"+1"`}}},
		{name: "page number with space", raw: "page_number=+1", want: []problem{{"page_number", `" 1"`}}},
		{name: "page number empty", raw: "page_number=", want: []problem{{"page_number", `""`}}},
		{name: "page number fraction", raw: "page_number=1.5", want: []problem{{"page_number", `"1.5"`}}},
		{name: "page number overflows int", raw: "page_number=99999999999999999999", want: []problem{{"page_number", "at least 1"}}},
		{name: "page number overflows the offset", raw: "page_number=922337203685477580&page_size=50", want: []problem{{"page_number", "too large"}}},
		{name: "page number overflows the offset in paging", raw: "paging=922337203685477580,50", want: []problem{{"paging", "too large"}}},
		{name: "page size zero", raw: "page_size=0", want: []problem{{"page_size", "from 1 to 50"}}},
		{name: "page size above the maximum", raw: "page_size=51", want: []problem{{"page_size", "from 1 to 50"}}},
		{name: "page size above the default maximum", raw: "page_size=101", spec: func(s *ListSpec) { s.MaxPageSize = 0 }, want: []problem{{"page_size", "from 1 to 100"}}},
		{name: "page size not a number", raw: "page_size=ten", want: []problem{{"page_size", `"ten"`}}},
		{name: "page number twice", raw: "page_number=1&page_number=2", want: []problem{{"page_number", "at most once"}}},
		{name: "page number twice even when equal", raw: "page_size=5&page_size=5", want: []problem{{"page_size", "at most once"}}},
		{name: "paging without comma", raw: "paging=2", want: []problem{{"paging", "two comma-separated"}}},
		{name: "paging with three parts", raw: "paging=2,20,3", want: []problem{{"paging", `"20,3"`}}},
		{name: "paging page zero", raw: "paging=0,10", want: []problem{{"paging", "at least 1"}}},
		{name: "paging size above the maximum", raw: "paging=1,51", want: []problem{{"paging", "from 1 to 50"}}},
		{name: "paging both parts bad", raw: "paging=x,y", want: []problem{{"paging", `"x"`}, {"paging", `"y"`}}},
		{name: "paging disagrees with page_number", raw: "paging=2,20&page_number=3", want: []problem{{"paging", "disagrees with page_number 3"}}},
		{name: "paging disagrees with page_size", raw: "paging=2,20&page_size=10", want: []problem{{"paging", "disagrees with page_size 10"}}},
		{name: "paging twice", raw: "paging=1,10&paging=1,10", want: []problem{{"paging", "at most once"}}},

		{name: "sort unknown attribute", raw: "sort=foo", want: []problem{{"sort", `"foo"`}}},
		{name: "sort filterable but not sortable", raw: "sort=active", want: []problem{{"sort", `cannot sort by "active"`}}},
		{name: "sort duplicate", raw: "sort=-amount,amount", want: []problem{{"sort", "more than once"}}},
		{name: "sort empty item", raw: "sort=name,,amount", want: []problem{{"sort", "empty attribute"}}},
		{name: "sort bare minus", raw: "sort=-", want: []problem{{"sort", "empty attribute"}}},
		{name: "sort plus is not ascending", raw: "sort=%2Bname", want: []problem{{"sort", `"+name"`}}},
		{name: "sort twice", raw: "sort=name&sort=amount", want: []problem{{"sort", "at most once"}}},
		{name: "sort several problems", raw: "sort=foo,name,bar", want: []problem{{"sort", `"foo"`}, {"sort", `"bar"`}}},

		{name: "unknown parameter", raw: "foo=1", want: []problem{{"foo", `cannot filter by "foo"`}}},
		{name: "unknown operator", raw: "like(name)=x", want: []problem{{"like(name)", `unknown operator "like"`}}},
		{name: "operators are lower case", raw: "EQ(name)=x", want: []problem{{"EQ(name)", `unknown operator "EQ"`}}},
		{name: "empty operator", raw: "(name)=x", want: []problem{{"(name)", `unknown operator ""`}}},
		{name: "unknown attribute in operator form", raw: "eq(foo)=1", want: []problem{{"eq(foo)", `cannot filter by "foo"`}}},
		{name: "unknown operator and attribute", raw: "like(foo)=1", want: []problem{{"like(foo)", "unknown operator"}, {"like(foo)", "cannot filter by"}}},
		{name: "unclosed parenthesis", raw: "eq(name=x", want: []problem{{"eq(name", "cannot filter by"}}},
		{name: "nested parentheses", raw: "eq(eq(name))=x", want: []problem{{"eq(eq(name))", `cannot filter by "eq(name)"`}}},
		{name: "attribute names are case-sensitive", raw: "Name=x", want: []problem{{"Name", "cannot filter by"}}},
		{name: "ignored names are exact", raw: "eq(q)=x", want: []problem{{"eq(q)", `cannot filter by "q"`}}},

		{name: "number not a number", raw: "amount=abc", want: []problem{{"amount", `"abc" is not a number`}}},
		{name: "number with exponent", raw: "eq(amount)=1e5", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "number without integer part", raw: "eq(amount)=.5", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "number with bare point", raw: "eq(amount)=1.", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "number empty", raw: "eq(amount)=", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "number with plus sign", raw: "eq(amount)=%2B1", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "number hexadecimal", raw: "eq(amount)=0x10", want: []problem{{"eq(amount)", "not a number"}}},
		{name: "date that does not exist", raw: "gt(day)=2026-02-30", want: []problem{{"gt(day)", "not a date"}}},
		{name: "date without padding", raw: "gt(day)=2026-2-3", want: []problem{{"gt(day)", "not a date"}}},
		{name: "date with a time", raw: "day=2026-01-01T00:00:00Z", want: []problem{{"day", "not a date"}}},
		{name: "date-time without a time", raw: "gt(at)=2026-01-01", want: []problem{{"gt(at)", "not a date-time"}}},
		{name: "date-time without an offset", raw: "gt(at)=2026-01-01T10:00:00", want: []problem{{"gt(at)", "not a date-time"}}},
		{name: "bool yes", raw: "eq(active)=yes", want: []problem{{"eq(active)", "not a boolean"}}},
		{name: "bool upper case", raw: "active=TRUE", want: []problem{{"active", "not a boolean"}}},

		{name: "contains on a number", raw: "contains(amount)=1", want: []problem{{"contains(amount)", "does not apply to number"}}},
		{name: "startswith on a date", raw: "startswith(day)=2026", want: []problem{{"startswith(day)", "does not apply to date"}}},
		{name: "endswith on a date-time", raw: "endswith(at)=Z", want: []problem{{"endswith(at)", "does not apply to date-time"}}},
		{name: "doesnotcontain on a bool", raw: "doesnotcontain(active)=t", want: []problem{{"doesnotcontain(active)", "does not apply to boolean"}}},
		{name: "lt on a bool", raw: "lt(active)=true", want: []problem{{"lt(active)", "does not apply to boolean"}}},
		{name: "between on a bool", raw: "between(active)=false,true", want: []problem{{"between(active)", "does not apply to boolean"}}},

		{name: "between one value", raw: "between(amount)=1", want: []problem{{"between(amount)", "exactly two"}}},
		{name: "between three values", raw: "between(amount)=1,2,3", want: []problem{{"between(amount)", "exactly two"}}},
		{name: "notbetween low above high", raw: "notbetween(amount)=10,9", want: []problem{{"notbetween(amount)", "above high bound"}}},
		{name: "between dates low above high", raw: "between(day)=2026-02-01,2026-01-31", want: []problem{{"between(day)", "above high bound"}}},
		{name: "between with a bad bound", raw: "between(amount)=1,x", want: []problem{{"between(amount)", `"x" is not a number`}}},
		{name: "in with an empty number", raw: "in(amount)=1,,2", want: []problem{{"in(amount)", `"" is not a number`}}},
		{name: "in with two bad numbers", raw: "in(amount)=a,1,b", want: []problem{{"in(amount)", `"a"`}, {"in(amount)", `"b"`}}},
		{name: "isnull false", raw: "isnull(name)=false", want: []problem{{"isnull(name)", "takes no value"}}},
		{name: "isnotnull yes", raw: "isnotnull(name)=yes", want: []problem{{"isnotnull(name)", "takes no value"}}},
		{name: "isempty with a value", raw: "isempty(name)=x", want: []problem{{"isempty(name)", "takes no value"}}},
		{name: "isnotempty TRUE", raw: "isnotempty(name)=TRUE", want: []problem{{"isnotempty(name)", "takes no value"}}},
		{name: "repeated filter, one bad", raw: "gt(amount)=1&gt(amount)=x", want: []problem{{"gt(amount)", `"x"`}}},

		{name: "all problems collected in parameter order", raw: "sort=foo&page_size=0&gt(amount)=x&foo=1&name=ok",
			want: []problem{{"foo", "cannot filter"}, {"gt(amount)", "not a number"}, {"page_size", "from 1 to 50"}, {"sort", `"foo"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			q, err := ParseListQuery(mustQuery(t, tt.raw), spec)
			if err == nil {
				t.Fatalf("ParseListQuery(%q) = %+v, want an error", tt.raw, q)
			}
			if diff := cmp.Diff(ListQuery{}, q); diff != "" {
				t.Errorf("ParseListQuery(%q) returned a query with its error:\n%s", tt.raw, diff)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if e.Kind != Invalid || e.Code != CodeInvalidQuery {
				t.Errorf("kind, code = %v, %q; want invalid, %q", e.Kind, e.Code, CodeInvalidQuery)
			}
			if len(e.Fields) != len(tt.want) {
				t.Fatalf("fields = %+v, want %d: %+v", e.Fields, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				got := e.Fields[i]
				if got.Name != w.name || !strings.Contains(got.Message, w.msg) {
					t.Errorf("field %d = %q: %q; want %q containing %q", i, got.Name, got.Message, w.name, w.msg)
				}
			}
			if !strings.Contains(e.Message, e.Fields[0].Name+": "+e.Fields[0].Message) {
				t.Errorf("message %q does not show the first problem", e.Message)
			}
		})
	}
}

func TestParseListQueryErrorMessage(t *testing.T) {
	_, err := ParseListQuery(mustQuery(t, "page_size=0&sort=foo&foo=1"), testSpec())
	want := `invalid list query: foo: cannot filter by "foo" (and 2 more problems)`
	if got := MessageOf(err); got != want {
		t.Errorf("MessageOf = %q, want %q", got, want)
	}
	_, err = ParseListQuery(mustQuery(t, "page_size=0&foo=1"), testSpec())
	if got := MessageOf(err); !strings.HasSuffix(got, "(and 1 more problem)") {
		t.Errorf("MessageOf = %q, want it to end with (and 1 more problem)", got)
	}
	var e *Error
	errors.As(err, &e)
	if !strings.Contains(e.Fields[0].Description, "active, amount, at, day, name") {
		t.Errorf("description %q does not list the filterable attributes", e.Fields[0].Description)
	}
	if !strings.Contains(e.Fields[1].Description, "50") {
		t.Errorf("description %q does not give the maximum page size", e.Fields[1].Description)
	}
	_, err = ParseListQuery(mustQuery(t, "sort=a&b=1"), ListSpec{})
	errors.As(err, &e)
	for _, f := range e.Fields {
		if f.Description != "this listing allows none" {
			t.Errorf("%s: description %q for a listing without sort or filters", f.Name, f.Description)
		}
	}
	long := "x" + strings.Repeat("é", 100) // the cut falls inside a character
	_, err = ParseListQuery(url.Values{"amount": {long}}, testSpec())
	errors.As(err, &e)
	if m := e.Fields[0].Message; len(m) > 200 || !strings.Contains(m, "…") {
		t.Errorf("message for a long value is not cut short: %q", m)
	}
}

func TestParseListQueryBadSpec(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		spec func(*ListSpec)
	}{
		{name: "default above max", spec: func(s *ListSpec) { s.DefaultPageSize = 60 }},
		{name: "negative default", spec: func(s *ListSpec) { s.DefaultPageSize = -1 }},
		{name: "negative max", spec: func(s *ListSpec) { s.MaxPageSize = -5 }},
		{name: "attribute without a type", raw: "odd=1", spec: func(s *ListSpec) { s.Filter["odd"] = 0 }},
		{name: "attribute with an unknown type", raw: "odd=1", spec: func(s *ListSpec) { s.Filter["odd"] = 99 }},
		{name: "negative time precision", spec: func(s *ListSpec) { s.TimePrecision = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := testSpec()
			tt.spec(&spec)
			_, err := ParseListQuery(mustQuery(t, tt.raw), spec)
			if KindOf(err) != Internal || CodeOf(err) != CodeInvalidListSpec {
				t.Errorf("err = %v, want internal %s", err, CodeInvalidListSpec)
			}
		})
	}
}

func TestParseListQueryDoesNotModifyInput(t *testing.T) {
	v := url.Values{"gt(amount)": {"5", "1", "3"}, "sort": {"name"}}
	want := url.Values{"gt(amount)": {"5", "1", "3"}, "sort": {"name"}}
	if _, err := ParseListQuery(v, testSpec()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("input modified (-want +got):\n%s", diff)
	}
}

func TestParseListQueryKeyWithoutValues(t *testing.T) {
	got, err := ParseListQuery(url.Values{"page_size": nil, "foo": {}}, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ListQuery{PageNumber: 1, PageSize: 10}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestParseListQueryIsDeterministic(t *testing.T) {
	a, errA := ParseListQuery(mustQuery(t, "in(name)=b,a&name=z&gt(amount)=2&gt(amount)=1&lt(day)=2026-01-01"), testSpec())
	b, errB := ParseListQuery(mustQuery(t, "lt(day)=2026-01-01&gt(amount)=1&name=z&gt(amount)=2&in(name)=b,a"), testSpec())
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("parameter order changed the result (-a +b):\n%s", diff)
	}
}

func TestOffset(t *testing.T) {
	tests := []struct {
		q    ListQuery
		want int
	}{
		{ListQuery{PageNumber: 1, PageSize: 10}, 0},
		{ListQuery{PageNumber: 3, PageSize: 10}, 20},
		{ListQuery{PageNumber: 0, PageSize: 10}, 0},
		{ListQuery{PageNumber: -4, PageSize: 10}, 0},
		{ListQuery{PageNumber: 5, PageSize: 0}, 0},
		{ListQuery{PageNumber: math.MaxInt, PageSize: 2}, math.MaxInt},
		{ListQuery{PageNumber: math.MaxInt/10 + 1, PageSize: 10}, math.MaxInt/10*10 + 0},
		{ListQuery{PageNumber: math.MaxInt/10 + 2, PageSize: 10}, math.MaxInt},
	}
	for _, tt := range tests {
		if got := tt.q.Offset(); got != tt.want {
			t.Errorf("%+v.Offset() = %d, want %d", tt.q, got, tt.want)
		}
	}
}

func TestOpNamesListsEveryOp(t *testing.T) {
	var names []string
	for _, o := range Ops() {
		if !o.Valid() {
			t.Errorf("Ops() has invalid %q", o)
		}
		names = append(names, string(o))
	}
	if got := strings.Join(names, ", "); got != opNames {
		t.Errorf("opNames = %q, want %q", opNames, got)
	}
	if len(names) != 18 || len(slices.Compact(slices.Sorted(slices.Values(names)))) != 18 {
		t.Errorf("Ops() = %v, want 18 distinct operators", names)
	}
}

// TestEveryOperatorParses makes sure no operator of Ops is forgotten by the
// parser: each parses on an attribute of a type it applies to.
func TestEveryOperatorParses(t *testing.T) {
	value := map[int]string{0: "", 1: "a", 2: "a,b", -1: "a,b,c"}
	for _, o := range Ops() {
		n, _ := o.arity()
		raw := url.Values{string(o) + "(name)": {value[n]}}
		q, err := ParseListQuery(raw, testSpec())
		if err != nil {
			t.Errorf("%s: %v", o, err)
			continue
		}
		if len(q.Filters) != 1 || q.Filters[0].Op != o || q.Filters[0].Attr != "name" {
			t.Errorf("%s: filters = %+v", o, q.Filters)
		}
	}
}

// FuzzParseListQuery parses arbitrary query strings. It must never panic;
// an error must be an Invalid *Error naming at least one parameter; a
// success must respect the spec, and Apply must accept what the parser
// returns.
func FuzzParseListQuery(f *testing.F) {
	seeds := []string{
		"",
		"page_number=2&page_size=20",
		"paging=3,5&page_number=3",
		"paging=1,51",
		"sort=-amount,name,-day",
		"sort=-,,",
		"name=Smith&neq(name)=x&startswith(name)=S&contains(name)=mi&endswith(name)=h&doesnotcontain(name)=z",
		"isnull(name)&isnotnull(amount)=true&isempty(day)=&isnotempty(at)",
		"lt(amount)=1&lte(amount)=-2.5&gt(day)=2026-01-01&gte(at)=2026-01-01T00:00:00%2B02:00",
		"in(amount)=1,2,3&notin(name)=a,,b&between(day)=2026-01-01,2026-12-31&notbetween(amount)=1,2",
		"eq(active)=true&active=false&in(active)=true,false",
		"EQ(name)=x&(name)=&eq()=&eq(=&)=&((()))=&eq(eq(name))=1",
		"page_number=99999999999999999999999&page_size=-1&paging=,",
		"page_number=922337203685477580&page_size=50",
		"q=%FF%FE&owner=me&token=x&language=de",
		"name=%FF%00&contains(name)=%E2%84%AA",
		"between(amount)=2,1&between(at)=2026-01-02T00:00:00Z,2026-01-01T00:00:00Z",
		"gt(at)=2026-01-01T10:00:00+02:00",
		"sort=name&sort=amount&page_size=1&page_size=2",
		";;&&==%zz",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	spec := testSpec()
	spec.Sort = append(spec.Sort, "active")
	_, maxSize, _ := spec.pageSizes()
	f.Fuzz(func(t *testing.T, raw string) {
		v, _ := url.ParseQuery(raw) // keep what parsed; the rest is the parser's problem too
		q, err := ParseListQuery(v, spec)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind != Invalid || e.Code != CodeInvalidQuery || len(e.Fields) == 0 {
				t.Fatalf("error %#v is not an Invalid %s with fields", err, CodeInvalidQuery)
			}
			for _, fe := range e.Fields {
				if _, given := v[fe.Name]; !given {
					t.Fatalf("field %q names no parameter of %q", fe.Name, raw)
				}
				if fe.Message == "" {
					t.Fatalf("field %q has no message", fe.Name)
				}
			}
			return
		}
		if q.PageNumber < 1 || q.PageSize < 1 || q.PageSize > maxSize {
			t.Fatalf("page %d size %d out of bounds", q.PageNumber, q.PageSize)
		}
		if q.PageNumber-1 > math.MaxInt/q.PageSize || q.Offset() != (q.PageNumber-1)*q.PageSize {
			t.Fatalf("offset %d for page %d size %d", q.Offset(), q.PageNumber, q.PageSize)
		}
		seen := map[string]bool{}
		for _, k := range q.Sort {
			if !slices.Contains(spec.Sort, k.Attr) || seen[k.Attr] {
				t.Fatalf("sort key %q not sortable or repeated", k.Attr)
			}
			seen[k.Attr] = true
		}
		for _, fl := range q.Filters {
			typ, ok := spec.Filter[fl.Attr]
			if !ok {
				t.Fatalf("filter on %q, which is not filterable", fl.Attr)
			}
			n, known := fl.Op.arity()
			if !known || !fl.Op.appliesTo(typ) {
				t.Fatalf("operator %q on %v attribute", fl.Op, typ)
			}
			if (n >= 0 && len(fl.Values) != n) || (n < 0 && len(fl.Values) == 0) {
				t.Fatalf("%s with %d values", fl.Op, len(fl.Values))
			}
			for _, val := range fl.Values {
				if val.Type() != typ {
					t.Fatalf("%s(%s) value %v has type %v, want %v", fl.Op, fl.Attr, val, val.Type(), typ)
				}
			}
			if n == 2 && fl.Values[0].Compare(fl.Values[1]) > 0 {
				t.Fatalf("%s(%s) bounds out of order: %v", fl.Op, fl.Attr, fl.Values)
			}
		}
		again, err := ParseListQuery(v, spec)
		if err != nil || !cmp.Equal(q, again) {
			t.Fatalf("parsing twice gave %+v then %+v, %v", q, again, err)
		}
		page, err := Apply(rows(t), q, getRow)
		if err != nil {
			t.Fatalf("Apply refused a parsed query: %v", err)
		}
		if len(page.Items) > q.PageSize || page.Total > 6 {
			t.Fatalf("page of %d items, total %d", len(page.Items), page.Total)
		}
	})
}

func BenchmarkParseListQuery(b *testing.B) {
	v := mustQuery(b, "page_number=3&page_size=25&sort=-at,name&contains(name)=smi&between(amount)=10,99.95"+
		"&gte(at)=2026-01-01T00:00:00Z&in(day)=2026-01-01,2026-01-02,2026-01-03&active=true&q=free+text")
	spec := testSpec()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseListQuery(v, spec); err != nil {
			b.Fatal(err)
		}
	}
}

// The pages of a listing hold its items: PerPage items on every page but
// the last, which holds the rest; without paging, all are on page 1.
func TestPageInfo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.IntRange(0, 10_000).Draw(t, "total")
		q := ListQuery{PageNumber: rapid.IntRange(-1, 50).Draw(t, "number"), PageSize: rapid.IntRange(0, 300).Draw(t, "size")}
		count := rapid.IntRange(0, 3).Draw(t, "count")
		p := Page[int]{Items: make([]int, count), Total: total}
		in := p.Info(q)
		if in.Total != total || in.Count != count || in.Number != max(q.PageNumber, 1) || in.PerPage != q.PageSize {
			t.Fatalf("%+v for %+v", in, q)
		}
		switch {
		case total == 0:
			if in.Pages != 0 {
				t.Fatalf("%d pages of nothing", in.Pages)
			}
		case q.PageSize == 0:
			if in.Pages != 1 {
				t.Fatalf("%d pages without paging", in.Pages)
			}
		case (in.Pages-1)*q.PageSize >= total || in.Pages*q.PageSize < total:
			t.Fatalf("%d pages of %d hold %d items", in.Pages, q.PageSize, total)
		}
		w := MapItems(p, func(int) string { return "x" })
		if w == nil || len(w) != count {
			t.Fatalf("MapItems: %v", w)
		}
	})
}
