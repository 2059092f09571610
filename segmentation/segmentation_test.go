package segmentation

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

// contact is the Record of the tests: raw (unfolded) values.
type contact struct {
	text     [numStandard]string
	cols     map[int]string
	birthday msgkit.Date
	members  map[string]Membership
}

func (c *contact) Text(f Field) string {
	if n := f.Column(); n > 0 {
		return c.cols[n]
	}
	if f < numStandard {
		return c.text[f]
	}
	return ""
}

func (c *contact) Date(f Field) (msgkit.Date, bool) {
	return c.birthday, f == Birthday && !c.birthday.IsZero()
}

func (c *contact) Membership(option string) Membership { return c.members[option] }

func date(s string) msgkit.Date {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// rule1 is a one-rule query's JSON.
func rule1(field, condition string, value any) string {
	r := map[string]any{"field": field, "condition": condition}
	if value != nil {
		r["value"] = value
	}
	b, _ := json.Marshal(map[string]any{"segmentation": []any{map[string]any{"rules": []any{r}}}})
	return string(b)
}

func mustParse(t testing.TB, q string) *Query {
	t.Helper()
	p, err := Parse([]byte(q))
	if err != nil {
		t.Fatalf("Parse(%s): %v", q, err)
	}
	return p
}

const (
	optA = "6f1c3a2e-8b1d-4c3e-9f0a-1b2c3d4e5f60"
	optB = "0a9b8c7d-6e5f-4a3b-8c1d-2e3f4a5b6c7d"
)

var today = date("2026-12-28")

// The rules of each condition, on each kind of field, against a few
// contacts; a rule broken in Match turns one of these rows red.
func TestMatchConditions(t *testing.T) {
	people := map[string]*contact{
		"anna": {text: [numStandard]string{FirstName: "Anna", Email: "Anna.Smith@Example.COM", Gender: "Female", Mobile: "+4915112345678", City: "Zürich"},
			birthday: date("1990-01-02"), members: map[string]Membership{optA: Subscribed}, cols: map[int]string{1: "Gold"}},
		"boris": {text: [numStandard]string{FirstName: "БОРИС", Email: "boris_100%@mail.ru", Gender: "male", Mobile: "+79161234567", City: "ZÜRICH"},
			birthday: date("2000-02-29"), members: map[string]Membership{optA: Unsubscribed, optB: Subscribed}},
		"empty": {text: [numStandard]string{FirstName: "", Email: ""}, cols: map[int]string{1: ""}},
		"ӧzil":  {text: [numStandard]string{FirstName: "Σίσυφος", Email: "x@y.de", Gender: "MALE", Mobile: "+33612345678", LastName: "O'Brien"}, birthday: date("1985-12-31")},
	}
	tests := []struct {
		query string
		want  []string
	}{
		{rule1("first_name", "eq", "anna"), []string{"anna"}},
		{rule1("first_name", "eq", "борис"), []string{"boris"}},
		{rule1("first_name", "eq", "ΣΊΣΥΦΟΣ"), []string{"ӧzil"}}, // final ς folds as σ and Σ
		{rule1("first_name", "neq", "anna"), []string{"boris", "empty", "ӧzil"}},
		{rule1("first_name", "in", "ANNA, борис"), []string{"anna", "boris"}},
		{rule1("first_name", "in", []string{"anna", "nobody"}), []string{"anna"}},
		{rule1("first_name", "notin", []string{"anna"}), []string{"boris", "empty", "ӧzil"}},
		{rule1("first_name", "isnull", nil), []string{"empty"}},
		{rule1("first_name", "isnotnull", ""), []string{"anna", "boris", "ӧzil"}},
		{rule1("last_name", "isnull", nil), []string{"anna", "boris", "empty"}},
		{rule1("last_name", "eq", "o'brien"), []string{"ӧzil"}},
		{rule1("email", "contains", "@example.com"), []string{"anna"}},
		{rule1("email", "contains", "100%"), []string{"boris"}},
		{rule1("email", "contains", "_"), []string{"boris"}},
		{rule1("email", "contains", "%"), []string{"boris"}},
		{rule1("email", "startswith", "ANNA."), []string{"anna"}},
		{rule1("email", "endswith", ".RU"), []string{"boris"}},
		{rule1("city", "eq", "zürich"), []string{"anna", "boris"}},
		{rule1("first_name", "gt", "b"), []string{"boris", "ӧzil"}}, // "борис" and "σίσυφος" sort after Latin
		{rule1("first_name", "lt", "b"), []string{"anna"}},          // empty is absent, not less
		{rule1("first_name", "lte", "anna"), []string{"anna"}},
		{rule1("first_name", "gte", "σίσυφος"), []string{"boris", "ӧzil"}}, // Cyrillic after Greek
		{rule1("column_1", "eq", "GOLD"), []string{"anna"}},
		{rule1("column_1", "isnull", nil), []string{"boris", "empty", "ӧzil"}},
		{rule1("column_7", "isnull", nil), []string{"anna", "boris", "empty", "ӧzil"}},
		{rule1("gender", "eq", "female"), []string{"anna"}},
		{rule1("gender", "in", "male,female"), []string{"anna", "boris", "ӧzil"}},
		{rule1("gender", "neq", "Male"), []string{"anna", "empty"}},
		{rule1("mobile", "eq", "0049 151 1234-5678"), []string{"anna"}},
		{rule1("mobile", "in", []string{"+7 916 123 45 67", "33612345678"}), []string{"boris", "ӧzil"}},
		{rule1("mobile", "startswith", "49"), []string{"anna"}},
		{rule1("mobile", "startswith", "+3"), []string{"ӧzil"}},
		{rule1("mobile", "endswith", "45 678"), []string{"anna", "ӧzil"}},
		{rule1("mobile", "contains", "1234"), []string{"anna", "boris", "ӧzil"}},
		{rule1("birthday", "eq", "1990-01-02"), []string{"anna"}},
		{rule1("birthday", "gt", "1990-01-02"), []string{"boris"}},
		{rule1("birthday", "lte", "1990-01-02"), []string{"anna", "ӧzil"}},
		{rule1("birthday", "neq", "1990-01-02"), []string{"boris", "empty", "ӧzil"}},
		{rule1("birthday", "in", "1985-12-31,2000-02-29"), []string{"boris", "ӧzil"}},
		{rule1("birthday", "notin", "1985-12-31"), []string{"anna", "boris", "empty"}},
		{rule1("birthday", "isnull", nil), []string{"empty"}},
		// Today is 2026-12-28: 31 December is 3 days ahead, 2 January 5
		// (the year wraps), 28 February 2027 (29 February in a common
		// year) 62.
		{rule1("birthday", "ann_in_days", "3"), []string{"ӧzil"}},
		{rule1("birthday", "ann_in_days", 5), []string{"anna", "ӧzil"}},
		{rule1("birthday", "ann_in_days", "61"), []string{"anna", "ӧzil"}},
		{rule1("birthday", "ann_in_days", "62"), []string{"anna", "boris", "ӧzil"}},
		{rule1("subscription_options_in", "eq", optA), []string{"anna"}},
		{rule1("subscription_options_in", "in", []string{optA, optB}), []string{"anna", "boris"}},
		{rule1("subscription_options_in", "notin", []string{optA, optB}), []string{"empty", "ӧzil"}},
		{rule1("subscription_options_out", "in", strings.ToUpper(optA)), []string{"boris"}},
		{rule1("subscription_options_out", "neq", optA), []string{"anna", "empty", "ӧzil"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			m := Compile(mustParse(t, tc.query), today)
			var got []string
			for name, c := range people {
				if m.Match(c) {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("matched %v, want %v", got, tc.want)
			}
		})
	}
}

// Groups combine strictly left to right, and the rules of a group by
// their operator.
func TestMatchGroups(t *testing.T) {
	g := func(op, rulesOp string, conds ...string) string {
		var rules []string
		for _, c := range conds {
			f, v, _ := strings.Cut(c, "=")
			r := fmt.Sprintf(`{"field":%q,"condition":"eq","value":%q`, f, v)
			if rulesOp != "" {
				r += fmt.Sprintf(`,"operator":%q`, rulesOp)
			}
			rules = append(rules, r+"}")
		}
		s := `{"rules":[` + strings.Join(rules, ",") + `]`
		if op != "" {
			s += fmt.Sprintf(`,"operator":%q`, op)
		}
		return s + "}"
	}
	q := func(groups ...string) string { return `{"segmentation":[` + strings.Join(groups, ",") + `]}` }
	// Contacts a..d by first name and city.
	people := map[string]*contact{}
	for _, p := range []struct{ name, city string }{{"a", "x"}, {"b", "x"}, {"c", "y"}, {"d", "y"}} {
		people[p.name] = &contact{text: [numStandard]string{FirstName: p.name, City: p.city}}
	}
	tests := []struct {
		query string
		want  string
	}{
		{q(g("", "AND", "first_name=a", "city=x")), "a"},
		{q(g("", "", "first_name=a", "city=x")), "a"}, // no operator: AND
		{q(g("", "OR", "first_name=a", "city=y")), "acd"},
		{q(g("", "or", "first_name=a", "first_name=b")), "ab"},
		{q(g("", "", "city=x"), g("OR", "", "first_name=c")), "abc"},
		{q(g("", "", "city=x"), g("AND", "", "first_name=b")), "b"},
		{q(g("", "", "city=x"), g("AND NOT", "", "first_name=b")), "a"},
		{q(g("", "", "city=x"), g("OR NOT", "", "first_name=c")), "abd"},
		// Left to right, not by precedence: (x OR c) AND NOT a.
		{q(g("", "", "city=x"), g("OR", "", "first_name=c"), g("and not", "", "first_name=a")), "bc"},
		// x AND NOT (a) OR d.
		{q(g("", "", "city=x"), g("AND NOT", "", "first_name=a"), g("OR", "", "first_name=d")), "bd"},
		// The first group's operator has nothing to join: it is read and
		// left aside, whichever it is.
		{q(g("OR", "", "city=x")), "ab"},
		{q(g("AND NOT", "", "city=x")), "ab"},
		{q(g("or not", "", "city=x"), g("AND", "", "first_name=b")), "b"},
	}
	for _, tc := range tests {
		m := Compile(mustParse(t, tc.query), today)
		got := ""
		for _, name := range []string{"a", "b", "c", "d"} {
			if m.Match(people[name]) {
				got += name
			}
		}
		if got != tc.want {
			t.Errorf("%s matched %q, want %q", tc.query, got, tc.want)
		}
	}
}

// ann_in_days around the turn of the year and 29 February, in leap and
// common years, against a day-by-day count.
func TestAnniversaryDays(t *testing.T) {
	tests := []struct {
		today, birthday string
		days            int
		want            bool
	}{
		{"2026-12-31", "1990-12-31", 0, true},
		{"2026-12-31", "1990-01-01", 0, false},
		{"2026-12-31", "1990-01-01", 1, true},
		{"2026-12-31", "1990-12-30", 364, true}, // next: 2027-12-30, 364 days on
		{"2026-12-31", "1990-12-30", 363, false},
		{"2027-02-28", "2000-02-29", 0, true}, // common year: 28 February
		{"2028-02-28", "2000-02-29", 0, false},
		{"2028-02-28", "2000-02-29", 1, true}, // leap year: 29 February
		{"2028-02-29", "2000-02-29", 0, true},
		{"2027-03-01", "2000-02-29", 365, true}, // next: 2028-02-29
		{"2027-03-01", "2000-02-29", 364, false},
		{"2028-03-01", "2000-02-29", 364, true}, // next: 2029-02-28
		{"2028-03-01", "2000-02-29", 363, false},
		{"2028-03-01", "2000-02-28", 362, false},
		{"2026-01-01", "2000-06-15", 366, true},
	}
	for _, tc := range tests {
		b := date(tc.birthday)
		got := AnniversaryDays(date(tc.today), tc.days)[b.Month]&(1<<b.Day) != 0
		if got != tc.want {
			t.Errorf("today %s, birthday %s, %d days: %v, want %v", tc.today, tc.birthday, tc.days, got, tc.want)
		}
	}
	// Against a walk, day by day, for every day of two years.
	for d := date("2027-01-01"); d.Year < 2029; d = d.AddDays(1) {
		for _, n := range []int{0, 1, 7, 30, 365} {
			set := AnniversaryDays(d, n)
			for b := date("2000-01-01"); b.Year == 2000; b = b.AddDays(1) {
				want := false
				for k := 0; k <= n && !want; k++ {
					day := d.AddDays(k)
					want = anniversary(b.Month, b.Day, day.Year) == day
				}
				if got := set[b.Month]&(1<<b.Day) != 0; got != want {
					t.Fatalf("today %s, %d days, birthday %s: %v, want %v", d, n, b, got, want)
				}
			}
		}
	}
}

func TestToday(t *testing.T) {
	now := time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	if got := Today(now, nil); got != date("2026-12-31") {
		t.Errorf("Today UTC = %s", got)
	}
	if got := Today(now, tokyo); got != date("2027-01-01") {
		t.Errorf("Today in Tokyo = %s", got)
	}
}

// Every problem is refused with its path.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		query string
		paths []string
	}{
		{`{}`, []string{"segmentation"}},
		{`{"segmentation":[]}`, []string{"segmentation"}},
		{`[]`, []string{"segmentation"}},
		{`{"segmentation":[{"rules":[]}]}`, []string{"segmentation[0].rules"}},
		{`{"segmentation":[{"operator":"XOR","rules":[{"field":"city","condition":"eq","value":"x"}]}]}`, []string{"segmentation[0].operator"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x"}]},{"rules":[{"field":"city","condition":"eq","value":"y"}]}]}`, []string{"segmentation[1].operator"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x"}]},{"operator":"XOR","rules":[{"field":"city","condition":"eq","value":"y"}]}]}`, []string{"segmentation[1].operator"}},
		{rule1("shoe_size", "eq", "42"), []string{"segmentation[0].rules[0].field"}},
		{rule1("column_0", "eq", "x"), []string{"segmentation[0].rules[0].field"}},
		{rule1("column_101", "eq", "x"), []string{"segmentation[0].rules[0].field"}},
		{rule1("city", "like", "x"), []string{"segmentation[0].rules[0].condition"}},
		{rule1("city", "doesnotcontain", "x"), []string{"segmentation[0].rules[0].condition"}},
		{rule1("city", "ann_in_days", "7"), []string{"segmentation[0].rules[0].condition"}},
		{rule1("gender", "contains", "ma"), []string{"segmentation[0].rules[0].condition"}},
		{rule1("subscription_options_in", "isnull", nil), []string{"segmentation[0].rules[0].condition"}},
		{rule1("city", "isnull", "x"), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "eq", nil), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "eq", ""), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "eq", []string{"a"}), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "eq", 7), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "in", []string{}), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "in", "a,,b"), []string{"segmentation[0].rules[0].value[1]"}},
		{rule1("city", "in", []any{"a", 1}), []string{"segmentation[0].rules[0].value"}},
		{rule1("gender", "eq", "other"), []string{"segmentation[0].rules[0].value"}},
		{rule1("mobile", "eq", "12ab"), []string{"segmentation[0].rules[0].value"}},
		{rule1("mobile", "in", []string{"+4915112345678", "+1"}), []string{"segmentation[0].rules[0].value[1]"}},
		{rule1("mobile", "contains", "+-"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "eq", "2026-02-30"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "eq", "0000-01-01"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "ann_in_days", "-1"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "ann_in_days", "7 days"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "ann_in_days", "367"), []string{"segmentation[0].rules[0].value"}},
		{rule1("birthday", "ann_in_days", 1.5), []string{"segmentation[0].rules[0].value"}},
		{rule1("subscription_options_in", "eq", "not-a-uuid"), []string{"segmentation[0].rules[0].value"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x","operator":"AND"},{"field":"zip","condition":"eq","value":"1","operator":"OR"}]}]}`, []string{"segmentation[0].rules[1].operator"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x","operator":"NAND"}]}]}`, []string{"segmentation[0].rules[0].operator"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x","extra":1}]}]}`, []string{"segmentation[0].rules[0].extra"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x"}],"name":"g"}]}`, []string{"segmentation[0].name"}},
		{`{"segmentation":[{"rules":{"field":"city"}}]}`, []string{"segmentation[0].rules"}},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"x"}]}]} {}`, []string{"segmentation"}},
		{`{"segmentation":[`, []string{"segmentation"}},
		// Every problem at once.
		{`{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x"},{"field":"city","condition":"bad"}]},{"rules":[]}]}`,
			[]string{"segmentation[0].rules[0].field", "segmentation[0].rules[1].condition", "segmentation[1].operator", "segmentation[1].rules"}},
		{`{"segmentation":[` + strings.Repeat(`{"operator":"OR","rules":[{"field":"city","condition":"eq","value":"x"}]},`, MaxGroups) +
			`{"operator":"OR","rules":[{"field":"city","condition":"eq","value":"x"}]}]}`, []string{"segmentation"}},
		{`{"segmentation":[{"rules":[` + strings.Repeat(`{"field":"city","condition":"eq","value":"x"},`, MaxRules) +
			`{"field":"city","condition":"eq","value":"x"}]}]}`, []string{"segmentation[0].rules"}},
		{rule1("city", "eq", strings.Repeat("x", MaxValueBytes+1)), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "in", strings.Repeat("x,", MaxValues)+"x"), []string{"segmentation[0].rules[0].value"}},
		{rule1("city", "eq", "a") + strings.Repeat(" ", MaxQueryBytes), []string{"segmentation"}},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.query))
		var e *msgkit.Error
		if !errors.As(err, &e) || e.Kind != msgkit.Invalid || e.Code != CodeInvalidSegmentation {
			t.Errorf("Parse(%.200s) = %v, want an invalid_segmentation error", tc.query, err)
			continue
		}
		var paths []string
		for _, f := range e.Fields {
			paths = append(paths, f.Name)
		}
		if !slices.Equal(paths, tc.paths) {
			t.Errorf("Parse(%.200s) names %v, want %v (%v)", tc.query, paths, tc.paths, err)
		}
	}
}

// An error of Parse says each problem once: its message counts them, its
// fields name them, and Problems gives them as text in the same order.
func TestParseErrorSaysEachProblemOnce(t *testing.T) {
	twoProblems := `{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x","operator":"AND"},{"field":"city","condition":"bogus","value":"x","operator":"AND"}]}]}`
	for _, tc := range []struct {
		query, message string
		problems       []string
	}{
		{twoProblems, "invalid segmentation query (2 problems)", []string{
			`segmentation[0].rules[0].field: unknown field "nope"`,
			`segmentation[0].rules[1].condition: unknown condition "bogus"`,
		}},
		{`{"segmentation":[]}`, "invalid segmentation query (1 problem)", []string{"segmentation: empty: a query needs at least one group"}},
	} {
		_, err := Parse([]byte(tc.query))
		var e *msgkit.Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse(%s) = %v", tc.query, err)
		}
		if e.Message != tc.message {
			t.Errorf("message %q, want %q", e.Message, tc.message)
		}
		got := Problems(err)
		if !slices.Equal(got, tc.problems) {
			t.Errorf("Problems = %q, want %q", got, tc.problems)
		}
		for _, p := range tc.problems {
			if n := strings.Count(err.Error(), p); n != 1 {
				t.Errorf("%q says %q %d times, want once", err, p, n)
			}
			if strings.Contains(e.Message, p) {
				t.Errorf("message %q repeats the field %q", e.Message, p)
			}
		}
	}
	if got := Problems(msgkit.New(msgkit.Invalid, "other", "not a query")); !slices.Equal(got, []string{"not a query"}) {
		t.Errorf("Problems of another error = %q", got)
	}
}

// What Parse normalises, and the canonical form MarshalJSON writes.
func TestParseNormalises(t *testing.T) {
	q := mustParse(t, `{"segmentation":[
		{"operator":"or","rules":[
			{"field":"mobile","condition":"in","value":"0049 151 1234 5678, (+7) 916-123-45-67","operator":"or"},
			{"field":"mobile","condition":"startswith","value":"0049"},
			{"field":"gender","condition":"eq","value":"FEMALE"}]},
		{"operator":"and  not","rules":[
			{"field":"birthday","condition":"ann_in_days","value":7},
			{"field":"subscription_options_out","condition":"in","value":["`+strings.ToUpper(optA)+`"]},
			{"field":"column_12","condition":"isnotnull","value":null}]}]}`)
	want := &Query{Groups: []Group{
		{Any: true, Rules: []Rule{
			{Field: Mobile, Condition: In, Values: []string{"+4915112345678", "+79161234567"}},
			{Field: Mobile, Condition: StartsWith, Values: []string{"+49"}},
			{Field: Gender, Condition: Eq, Values: []string{"female"}},
		}},
		{Join: JoinAndNot, Rules: []Rule{
			{Field: Birthday, Condition: AnnInDays, Days: 7},
			{Field: SubscriptionOptionsOut, Condition: In, Values: []string{optA}},
			{Field: ColumnField(12), Condition: IsNotNull},
		}},
	}}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Fatalf("Parse (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	const canonical = `{"segmentation":[{"rules":[` +
		`{"field":"mobile","condition":"in","value":["+4915112345678","+79161234567"],"operator":"OR"},` +
		`{"field":"mobile","condition":"startswith","value":"+49","operator":"OR"},` +
		`{"field":"gender","condition":"eq","value":"female","operator":"OR"}]},` +
		`{"operator":"AND NOT","rules":[` +
		`{"field":"birthday","condition":"ann_in_days","value":"7","operator":"AND"},` +
		`{"field":"subscription_options_out","condition":"in","value":["` + optA + `"],"operator":"AND"},` +
		`{"field":"column_12","condition":"isnotnull","operator":"AND"}]}]}`
	if string(b) != canonical {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", b, canonical)
	}
	if diff := cmp.Diff(q, mustParse(t, string(b))); diff != "" {
		t.Errorf("the canonical form parses otherwise (-first +again):\n%s", diff)
	}
}

func TestFieldNames(t *testing.T) {
	for _, f := range Fields() {
		g, ok := ParseField(f.String())
		if !ok || g != f || !f.Valid() {
			t.Errorf("ParseField(%q) = %v, %v; want %v", f, g, ok, f)
		}
	}
	if len(Fields()) != 32+MaxColumn {
		t.Errorf("%d fields, want the 32 of the documents and %d columns", len(Fields()), MaxColumn)
	}
	for _, name := range []string{"", "Email", "column_01", "column_+1", "column_", "b_compan"} {
		if _, ok := ParseField(name); ok {
			t.Errorf("ParseField(%q) accepted", name)
		}
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"ABC": "abc", "Zürich": "zürich", "ΣΊΣΥΦΟς": "σίσυφοσ", "İ": "İ", "ı": "ı", "straße": "straße", "\xff": "\uFFFD",
		"\u212A": "k", "ſ": "s", "Ǆ": "ǆ", "ǅ": "ǆ",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	// The streaming comparisons agree with comparing Fold's output.
	for _, s := range []string{"ABC", "İstanbul", "KELVIN \u212A", "a\xffb", "σΣ", ""} {
		for _, p := range []string{"abc", "i", "istanbul", "kelvin k", "\uFFFD", "σσ", "a", "k"} {
			f := Fold(s)
			if got, want := foldCompare(s, p), strings.Compare(f, p); got != want {
				t.Errorf("foldCompare(%q, %q) = %d, want %d", s, p, got, want)
			}
			if _, got := foldPrefix(s, p); got != strings.HasPrefix(f, p) {
				t.Errorf("foldPrefix(%q, %q) = %v", s, p, got)
			}
			if got := foldSuffix(s, p); got != strings.HasSuffix(f, p) {
				t.Errorf("foldSuffix(%q, %q) = %v", s, p, got)
			}
			if p != "" {
				if got := foldContains(s, p); got != strings.Contains(f, p) {
					t.Errorf("foldContains(%q, %q) = %v", s, p, got)
				}
			}
		}
	}
}

// The law of the canonical form: whatever Parse accepts, MarshalJSON
// writes a query that Parse reads back to the same Query.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		rule1("first_name", "eq", "anna"),
		rule1("mobile", "in", "0049 151 1234 5678, +79161234567"),
		rule1("birthday", "ann_in_days", 7),
		rule1("subscription_options_in", "in", []string{optA}),
		`{"segmentation":[{"rules":[{"field":"city","condition":"isnull"}]},{"operator":"or not","rules":[{"field":"zip","condition":"gt","value":"1","operator":"or"}]}]}`,
		`{"segmentation":[{"rules":[{"field":"column_3","condition":"notin","value":"a, b ,c"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := Parse(data)
		if err != nil {
			var e *msgkit.Error
			if !errors.As(err, &e) || e.Kind != msgkit.Invalid || len(e.Fields) == 0 {
				t.Fatalf("Parse error %v is not an invalid_segmentation error naming a path", err)
			}
			return
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(b)
		if err != nil {
			t.Fatalf("the canonical form %s of %q does not parse: %v", b, data, err)
		}
		if diff := cmp.Diff(q, again); diff != "" {
			t.Fatalf("%q re-parses otherwise (-first +again):\n%s", data, diff)
		}
		Compile(q, today).Match(&contact{}) // no panic on an empty contact
	})
}

// texts are the hard cases of text values: case, non-ASCII, LIKE's
// wildcards, quotes, empty.
var texts = []string{"", "a", "A", "ab", "Ab%", "a_b", "O'Brien", `back\slash`, "Zürich", "ZÜRICH", "straße", "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "ǅ", "😀x", "борис"}

func genContact() *rapid.Generator[*contact] {
	return rapid.Custom(func(t *rapid.T) *contact {
		c := &contact{cols: map[int]string{}, members: map[string]Membership{}}
		c.text[FirstName] = rapid.SampledFrom(texts).Draw(t, "first_name")
		c.cols[1] = rapid.SampledFrom(texts).Draw(t, "column_1")
		c.text[Gender] = rapid.SampledFrom([]string{"", "male", "Female", "MALE"}).Draw(t, "gender")
		c.text[Mobile] = rapid.SampledFrom([]string{"", "+4915112345678", "+79161234567", "+33612345678"}).Draw(t, "mobile")
		if rapid.Bool().Draw(t, "has birthday") {
			c.birthday = date("1996-02-28").AddDays(rapid.IntRange(-400, 400).Draw(t, "birthday"))
		}
		for _, o := range []string{optA, optB} {
			c.members[o] = Membership(rapid.IntRange(0, 2).Draw(t, "member "+o))
		}
		return c
	})
}

// Laws between conditions, for any contact: the negative conditions are
// the complements of the positive ones, in is eq of any value, gte is gt
// or eq, lte is lt or eq.
func TestConditionLaws(t *testing.T) {
	values := map[Field][]string{
		FirstName:             texts[1:],
		ColumnField(1):        texts[1:],
		Gender:                {"male", "female", "MALE"},
		Mobile:                {"+4915112345678", "0079161234567", "+33 6 12 34 56 78", "+4930123456"},
		Birthday:              {"1996-02-28", "1996-02-29", "1995-12-31", "1997-01-01"},
		SubscriptionOptionsIn: {optA, optB}, SubscriptionOptionsOut: {optA, optB},
	}
	fields := []Field{FirstName, ColumnField(1), Gender, Mobile, Birthday, SubscriptionOptionsIn, SubscriptionOptionsOut}
	rapid.Check(t, func(t *rapid.T) {
		c := genContact().Draw(t, "contact")
		f := rapid.SampledFrom(fields).Draw(t, "field")
		vs := rapid.SliceOfNDistinct(rapid.SampledFrom(values[f]), 1, 3, rapid.ID).Draw(t, "values")
		day := date("2026-01-01").AddDays(rapid.IntRange(0, 800).Draw(t, "today"))
		match := func(cond Condition, vs ...string) bool {
			var v any
			switch {
			case cond.arity() < 0:
				v = vs
			case cond.arity() > 0:
				v = vs[0]
			}
			q, err := Parse([]byte(rule1(f.String(), string(cond), v)))
			if err != nil {
				t.Fatalf("%s %s %v: %v", f, cond, v, err)
			}
			return Compile(q, day).Match(c)
		}
		k := f.Kind()
		pairs := [][2]Condition{{Eq, Neq}, {In, NotIn}, {IsNull, IsNotNull}}
		for _, p := range pairs {
			if k.Takes(p[0]) && match(p[0], vs...) == match(p[1], vs...) {
				t.Fatalf("%s %s and %s agree on %v", f, p[0], p[1], vs)
			}
		}
		if k.Takes(In) {
			any := false
			for _, v := range vs {
				any = any || match(Eq, v)
			}
			if any != match(In, vs...) {
				t.Fatalf("%s in %v is %v, but eq of each gives %v", f, vs, !any, any)
			}
		}
		if k.Takes(Gte) {
			if match(Gte, vs[0]) != (match(Gt, vs[0]) || match(Eq, vs[0])) || match(Lte, vs[0]) != (match(Lt, vs[0]) || match(Eq, vs[0])) {
				t.Fatalf("%s: gte/lte are not gt/lt or eq for %q", f, vs[0])
			}
			if !match(IsNull) && match(Gt, vs[0]) == match(Lte, vs[0]) {
				t.Fatalf("%s: gt and lte agree on %q for a present value", f, vs[0])
			}
		}
	})
}

// Fold agrees with strings.EqualFold on every character: two characters
// fold alike exactly when EqualFold takes them for equal.
func TestFoldIsEqualFold(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		f := foldRune(r)
		if !strings.EqualFold(string(r), string(f)) {
			t.Fatalf("Fold(%q) = %q, which EqualFold does not take for equal", r, f)
		}
		for g := unicode.SimpleFold(r); g != r; g = unicode.SimpleFold(g) {
			if foldRune(g) != f {
				t.Fatalf("%q and %q are one for EqualFold but fold to %q and %q", r, g, f, foldRune(g))
			}
		}
	}
}
