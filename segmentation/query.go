package segmentation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nyaruka/phonenumbers"

	"github.com/msgkit/msgkit"
)

// CodeInvalidSegmentation is the code of every error Parse returns.
const CodeInvalidSegmentation = "invalid_segmentation"

// Limits on one query, so that a stored or requested query stays cheap to
// parse, evaluate and compile.
const (
	MaxQueryBytes = 64 << 10 // the JSON text
	MaxGroups     = 20
	MaxRules      = 100 // in all groups together
	MaxValues     = 1000
	MaxValueBytes = 1000
	MaxDays       = 366 // ann_in_days: a year ahead covers every birthday
)

// Join joins a group to the result of the groups before it.
type Join uint8

// The joins. The first group has none (an operator it carries has nothing
// to join and is left aside); the others have one of the rest.
const (
	JoinNone Join = iota
	JoinOr
	JoinAnd
	JoinAndNot
	JoinOrNot
)

var joinNames = [...]string{JoinNone: "", JoinOr: "OR", JoinAnd: "AND", JoinAndNot: "AND NOT", JoinOrNot: "OR NOT"}

// String is the join as a query spells it ("" for JoinNone).
func (j Join) String() string {
	if int(j) < len(joinNames) {
		return joinNames[j]
	}
	return "join(" + strconv.Itoa(int(j)) + ")"
}

// Query is a parsed, valid segmentation query: groups combined strictly
// left to right.
type Query struct {
	Groups []Group
}

// Group is rules joined all by AND, or all by OR (Any), and its join to
// the groups before it.
type Group struct {
	Join  Join
	Any   bool
	Rules []Rule
}

// Rule is one test of one field. Values are normalised (see the package
// doc): E.164 numbers, YYYY-MM-DD dates, lower-case genders and option
// UUIDs; text as given. Days is ann_in_days's number of days.
type Rule struct {
	Field     Field
	Condition Condition
	Values    []string
	Days      int
}

// wire forms, decoded level by level so that an error can name its path.
type wireQuery struct {
	Segmentation []json.RawMessage `json:"segmentation"`
}

type wireGroup struct {
	Operator *string           `json:"operator,omitempty"`
	Rules    []json.RawMessage `json:"rules"`
}

type wireRule struct {
	Field     string          `json:"field"`
	Condition string          `json:"condition"`
	Value     json.RawMessage `json:"value,omitempty"`
	Operator  string          `json:"operator,omitempty"`
}

// problems collects every problem of a query, each with its path.
type problems struct{ list []msgkit.FieldError }

func (p *problems) add(path, format string, args ...any) {
	p.list = append(p.list, msgkit.FieldError{Name: path, Message: msgkit.Sprintf(format, args...)})
}

// err is the query's problems as one error. Its message only counts them,
// so that each problem is said once, in Fields: a message naming the
// first would say it twice wherever the fields are shown beside it (the
// error's text, the CDS body's items).
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	msg := "invalid segmentation query (1 problem)"
	if len(p.list) > 1 {
		msg = fmt.Sprintf("invalid segmentation query (%d problems)", len(p.list))
	}
	return &msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidSegmentation, Message: msg, Fields: p.list}
}

// Problems are the problems of an error of Parse, each once, as "path:
// problem" in the order Parse found them, for a caller that reports them
// under a name of its own (a query parameter, a member of a body). Any
// other error is one problem: its message (msgkit.MessageOf).
func Problems(err error) []string {
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Code != CodeInvalidSegmentation || len(e.Fields) == 0 {
		return []string{msgkit.MessageOf(err)}
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.Name + ": " + f.Message
	}
	return out
}

// Parse reads and validates a segmentation query from its JSON text. A bad
// query is an Invalid *msgkit.Error with code CodeInvalidSegmentation whose
// Fields name every problem by its path, such as
// segmentation[1].rules[0].condition.
func Parse(data []byte) (*Query, error) {
	var p problems
	if len(data) > MaxQueryBytes {
		p.add("segmentation", "the query is %d bytes, more than %d", len(data), MaxQueryBytes)
		return nil, p.err()
	}
	var w wireQuery
	if !decode(data, &w, "segmentation", &p) {
		return nil, p.err()
	}
	switch {
	case w.Segmentation == nil:
		p.add("segmentation", "missing: a query is an object with an array of groups, segmentation")
	case len(w.Segmentation) == 0:
		p.add("segmentation", "empty: a query needs at least one group")
	case len(w.Segmentation) > MaxGroups:
		p.add("segmentation", "%d groups, more than %d", len(w.Segmentation), MaxGroups)
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	q := &Query{Groups: make([]Group, 0, len(w.Segmentation))}
	rules := 0
	for i, raw := range w.Segmentation {
		g := parseGroup(raw, fmt.Sprintf("segmentation[%d]", i), i == 0, &p)
		rules += len(g.Rules)
		q.Groups = append(q.Groups, g)
	}
	if rules > MaxRules {
		p.add("segmentation", "%d rules, more than %d", rules, MaxRules)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return q, nil
}

// decode reads one JSON object into v, refusing unknown keys and
// trailing data; a problem is noted at path.
func decode(data []byte, v any, path string, p *problems) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil {
		if _, e := d.Token(); e != io.EOF {
			err = errors.New("data after the value")
		}
	}
	if err == nil {
		return true
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		p.add(path+"."+te.Field, "want %s, not a JSON %s", te.Type, te.Value)
	case errors.As(err, &te):
		p.add(path, "want an object, not a JSON %s", te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		p.add(path+"."+name, "unknown key")
	default:
		p.add(path, "not valid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return false
}

func parseGroup(raw json.RawMessage, path string, first bool, p *problems) Group {
	var w wireGroup
	var g Group
	if !decode(raw, &w, path, p) {
		return g
	}
	switch {
	case w.Operator == nil || *w.Operator == "":
		if !first {
			p.add(path+".operator", "missing: a group after the first joins the result with OR, AND, AND NOT or OR NOT")
		}
	default:
		j, ok := parseJoin(*w.Operator)
		if !ok {
			p.add(path+".operator", "%q is not OR, AND, AND NOT or OR NOT", *w.Operator)
		}
		if !first { // the first group has nothing to join: its operator is left aside
			g.Join = j
		}
	}
	switch {
	case w.Rules == nil:
		p.add(path+".rules", "missing: a group needs rules")
	case len(w.Rules) == 0:
		p.add(path+".rules", "empty: a group needs at least one rule")
	case len(w.Rules) > MaxRules:
		p.add(path+".rules", "%d rules, more than %d", len(w.Rules), MaxRules)
		return g
	}
	logic := ""
	for i, raw := range w.Rules {
		rp := fmt.Sprintf("%s.rules[%d]", path, i)
		r, op, ok := parseRule(raw, rp, p)
		if !ok {
			continue
		}
		switch {
		case op == "":
		case logic == "":
			logic = op
		case op != logic:
			p.add(rp+".operator", "%s, but an earlier rule of the group says %s: every rule of a group carries the same operator", op, logic)
		}
		g.Rules = append(g.Rules, r)
	}
	g.Any = logic == "OR"
	return g
}

func parseJoin(s string) (Join, bool) {
	switch strings.Join(strings.Fields(strings.ToUpper(s)), " ") {
	case "OR":
		return JoinOr, true
	case "AND":
		return JoinAnd, true
	case "AND NOT":
		return JoinAndNot, true
	case "OR NOT":
		return JoinOrNot, true
	}
	return JoinNone, false
}

// parseRule reads one rule; op is its operator, upper case ("" when left
// out), and ok false when the rule has a problem.
func parseRule(raw json.RawMessage, path string, p *problems) (r Rule, op string, ok bool) {
	var w wireRule
	if !decode(raw, &w, path, p) {
		return r, "", false
	}
	before := len(p.list)
	switch op = strings.ToUpper(strings.TrimSpace(w.Operator)); op {
	case "", "AND", "OR":
	default:
		p.add(path+".operator", "%q is not AND or OR", w.Operator)
	}
	f, fok := ParseField(w.Field)
	switch {
	case w.Field == "":
		p.add(path+".field", "missing")
	case !fok:
		p.add(path+".field", "unknown field %q", w.Field)
	}
	c := Condition(w.Condition)
	switch {
	case w.Condition == "":
		p.add(path+".condition", "missing")
	case !c.known():
		p.add(path+".condition", "unknown condition %q", w.Condition)
	case fok && !f.Kind().Takes(c):
		p.add(path+".condition", "%s does not apply to %s", c, f)
	}
	if len(p.list) > before {
		return r, op, false
	}
	r = Rule{Field: f, Condition: c}
	values, vok := readValues(w.Value, c, path+".value", p)
	if !vok {
		return r, op, false
	}
	if c == AnnInDays {
		n, err := strconv.Atoi(values[0])
		if err != nil || n < 0 || n > MaxDays || strconv.Itoa(n) != values[0] {
			p.add(path+".value", "ann_in_days takes a whole number of days from 0 to %d, not %q", MaxDays, values[0])
			return r, op, false
		}
		r.Days = n
		return r, op, true
	}
	for i, v := range values {
		vp := path + ".value"
		if c.arity() < 0 {
			vp = fmt.Sprintf("%s[%d]", vp, i)
		}
		nv, err := normalise(f, c, v)
		if err != "" {
			p.add(vp, "%s", err)
			continue
		}
		values[i] = nv
	}
	r.Values = values
	return r, op, len(p.list) == before
}

// readValues reads a rule's value as the condition wants it: none, one
// string, or a list (a JSON array of strings, or one comma-separated
// string).
func readValues(raw json.RawMessage, c Condition, path string, p *problems) ([]string, bool) {
	raw = bytes.TrimSpace(raw)
	absent := len(raw) == 0 || bytes.Equal(raw, []byte("null"))
	if c.arity() == 0 {
		if !absent && !bytes.Equal(raw, []byte(`""`)) && !bytes.Equal(raw, []byte(`[]`)) {
			p.add(path, "%s takes no value", c)
			return nil, false
		}
		return nil, true
	}
	if absent {
		p.add(path, "missing: %s takes a value", c)
		return nil, false
	}
	var values []string
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			p.add(path, "not a JSON string")
			return nil, false
		}
		if c.arity() < 0 {
			for v := range strings.SplitSeq(s, ",") {
				values = append(values, strings.TrimSpace(v))
			}
		} else {
			values = []string{s}
		}
	case '[':
		if c.arity() > 0 {
			p.add(path, "%s takes one value, not an array", c)
			return nil, false
		}
		if err := json.Unmarshal(raw, &values); err != nil {
			p.add(path, "want an array of strings")
			return nil, false
		}
	default:
		if c == AnnInDays && raw[0] >= '0' && raw[0] <= '9' {
			return []string{string(raw)}, true // a JSON number of days
		}
		p.add(path, "want a string or an array of strings")
		return nil, false
	}
	switch {
	case len(values) == 0:
		p.add(path, "empty: %s takes at least one value", c)
		return nil, false
	case len(values) > MaxValues:
		p.add(path, "%d values, more than %d", len(values), MaxValues)
		return nil, false
	}
	ok := true
	for i, v := range values {
		vp := path
		if c.arity() < 0 {
			vp = fmt.Sprintf("%s[%d]", path, i)
		}
		switch {
		case v == "":
			p.add(vp, "empty: use isnull or isnotnull to test for no value")
			ok = false
		case len(v) > MaxValueBytes:
			p.add(vp, "%d bytes, more than %d", len(v), MaxValueBytes)
			ok = false
		case !utf8.ValidString(v):
			p.add(vp, "not valid UTF-8")
			ok = false
		}
	}
	return values, ok
}

// normalise checks one value of a rule on f with c and returns it in its
// canonical form, or a problem.
func normalise(f Field, c Condition, v string) (string, string) {
	switch f.Kind() {
	case KindMobile:
		if c == Contains || c == EndsWith || c == StartsWith {
			return numberFragment(c, v)
		}
		return e164(v)
	case KindGender:
		if g := strings.ToLower(v); g == "male" || g == "female" {
			return g, ""
		}
		return "", msgkit.Sprintf("gender is male or female, not %q", v)
	case KindDate:
		d, err := msgkit.ParseDate(v)
		if err != nil || d.Year < 1 {
			return "", msgkit.Sprintf("%q is not a date of the form YYYY-MM-DD", v)
		}
		return d.String(), ""
	case KindMembership:
		u, err := uuid.Parse(v)
		if err != nil || len(v) != 36 {
			return "", msgkit.Sprintf("%q is not a subscription option UUID", v)
		}
		return u.String(), ""
	}
	return v, ""
}

// e164 reads a whole phone number, international, with or without its +
// or 00 and with spaces, dashes, dots or brackets, as E.164.
func e164(v string) (string, string) {
	digits := numberDigits(v)
	if digits == "" {
		return "", msgkit.Sprintf("%q is not a phone number", v)
	}
	num, err := phonenumbers.Parse("+"+digits, "")
	if err != nil || !phonenumbers.IsPossibleNumber(num) {
		return "", msgkit.Sprintf("%q is not an international phone number", v)
	}
	return phonenumbers.Format(num, phonenumbers.E164), ""
}

// numberFragment reads part of a number: its digits, and for startswith
// the beginning of the international number, so +49, 0049 and 49 all
// become +49.
func numberFragment(c Condition, v string) (string, string) {
	digits := numberDigits(v)
	if digits == "" {
		return "", msgkit.Sprintf("%q holds no digits of a phone number", v)
	}
	if c == StartsWith {
		return "+" + digits, ""
	}
	return digits, ""
}

// numberDigits strips the formatting of a number: spaces, dashes, dots
// and brackets, then a leading + or 00. It is empty when anything else is
// there.
func numberDigits(v string) string {
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9', c == '+' && len(b) == 0:
			b = append(b, c)
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
		default:
			return ""
		}
	}
	s := string(b)
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		return rest
	}
	return strings.TrimPrefix(s, "00")
}

// MarshalJSON writes q in the canonical form Parse reads back to the same
// query: the first group without operator, every rule with its group's
// operator, a list as an array, ann_in_days's days as a string.
func (q *Query) MarshalJSON() ([]byte, error) {
	type rule struct {
		Field     string `json:"field"`
		Condition string `json:"condition"`
		Value     any    `json:"value,omitempty"`
		Operator  string `json:"operator"`
	}
	type group struct {
		Operator string `json:"operator,omitempty"`
		Rules    []rule `json:"rules"`
	}
	out := struct {
		Segmentation []group `json:"segmentation"`
	}{Segmentation: make([]group, 0, len(q.Groups))}
	for _, g := range q.Groups {
		wg := group{Operator: g.Join.String(), Rules: make([]rule, 0, len(g.Rules))}
		op := "AND"
		if g.Any {
			op = "OR"
		}
		for _, r := range g.Rules {
			wr := rule{Field: r.Field.String(), Condition: string(r.Condition), Operator: op}
			switch {
			case r.Condition == AnnInDays:
				wr.Value = strconv.Itoa(r.Days)
			case r.Condition.arity() < 0:
				wr.Value = r.Values
			case r.Condition.arity() > 0 && len(r.Values) > 0:
				wr.Value = r.Values[0]
			}
			wg.Rules = append(wg.Rules, wr)
		}
		out.Segmentation = append(out.Segmentation, wg)
	}
	return json.Marshal(out)
}
