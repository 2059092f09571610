package segmentation

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// Membership is a contact's relation to one subscription option.
type Membership uint8

// The memberships.
const (
	NotMember Membership = iota
	Subscribed
	Unsubscribed
)

// Record is what a query is evaluated against: one contact, as its store
// holds it. The package needs no more of a contact than this.
type Record interface {
	// Text is the value of a text, mobile or gender field, "" when the
	// contact has none. Mobile numbers are in E.164.
	Text(f Field) string
	// Date is the value of a date field (birthday); ok is false when the
	// contact has none.
	Date(f Field) (d msgkit.Date, ok bool)
	// Membership is the contact's membership of the subscription option
	// with this UUID (lower case, as Parse normalises it).
	Membership(option string) Membership
}

// Fold is the case-insensitive form of text the conditions compare: each
// character replaced by one representative of its case class, the
// characters strings.EqualFold takes for equal (simple case folding: Σ, σ
// and ς are one, as are K, k and the Kelvin sign), written lower case;
// invalid UTF-8 as U+FFFD. A store that evaluates queries itself (such
// as SQL compiled from one) compares Fold of its values to agree with
// Match.
func Fold(s string) string { return strings.Map(foldRune, s) }

// foldRune is Fold of one character: the lower case of the smallest
// character of its case orbit, and a character alone in its orbit itself
// (İ, whose lower case i is not one with it for strings.EqualFold).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	f := unicode.SimpleFold(r)
	if f == r {
		return r
	}
	m := r
	for ; f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return unicode.ToLower(m)
}

// Today is the date that ann_in_days counts from: now's date in loc, UTC
// when loc is nil.
func Today(now time.Time, loc *time.Location) msgkit.Date {
	if loc == nil {
		loc = time.UTC
	}
	return msgkit.DateOf(now.In(loc))
}

// Matcher evaluates one query; it is safe for concurrent use.
type Matcher struct {
	groups []cgroup
}

type cgroup struct {
	join  Join
	any   bool
	tests []test
}

// test is a compiled rule.
type test struct {
	field Field
	kind  Kind
	cond  Condition
	// text, mobile and gender: the values, folded; set holds them for in
	// and notin.
	values []string
	set    map[string]struct{}
	dates  []msgkit.Date
	// days has bit d of days[m] set when a birthday on month m, day d has
	// its next anniversary within ann_in_days's window.
	days *[13]uint32
}

// Compile prepares q for Match. today is the date ann_in_days counts from
// (see Today).
func Compile(q *Query, today msgkit.Date) *Matcher {
	m := &Matcher{groups: make([]cgroup, len(q.Groups))}
	for i, g := range q.Groups {
		cg := cgroup{join: g.Join, any: g.Any, tests: make([]test, len(g.Rules))}
		for j, r := range g.Rules {
			cg.tests[j] = compileRule(r, today)
		}
		m.groups[i] = cg
	}
	return m
}

func compileRule(r Rule, today msgkit.Date) test {
	t := test{field: r.Field, kind: r.Field.Kind(), cond: r.Condition}
	switch {
	case r.Condition == AnnInDays:
		t.days = AnniversaryDays(today, r.Days)
	case t.kind == KindDate:
		for _, v := range r.Values {
			d, _ := msgkit.ParseDate(v)
			t.dates = append(t.dates, d)
		}
	case t.kind == KindMembership:
		t.values = r.Values
	default:
		for _, v := range r.Values {
			t.values = append(t.values, Fold(v))
		}
		if r.Condition == In || r.Condition == NotIn {
			t.set = make(map[string]struct{}, len(t.values))
			for _, v := range t.values {
				t.set[v] = struct{}{}
			}
		}
	}
	return t
}

// AnniversaryDays is the set of birthdays, by month and day, whose next
// anniversary falls within today .. today+days: bit d of the result's
// element m is set for month m, day d. The next anniversary is this
// year's when it has not passed, else next year's; a birthday on 29
// February has its anniversary on 28 February in a common year.
func AnniversaryDays(today msgkit.Date, days int) *[13]uint32 {
	var set [13]uint32
	last := today.AddDays(days)
	for m := time.January; m <= time.December; m++ {
		for d := 1; d <= daysIn(2000, m); d++ { // 2000: a leap year, so 29 February is there
			a := anniversary(m, d, today.Year)
			if a.Before(today) {
				a = anniversary(m, d, today.Year+1)
			}
			if !a.After(last) {
				set[m] |= 1 << d
			}
		}
	}
	return &set
}

func anniversary(m time.Month, d, year int) msgkit.Date {
	if m == time.February && d == 29 && daysIn(year, m) == 28 {
		d = 28
	}
	return msgkit.Date{Year: year, Month: m, Day: d}
}

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// Match reports whether r is selected by the query. It allocates nothing
// when r's methods do not.
func (m *Matcher) Match(r Record) bool {
	res := false
	for i := range m.groups {
		g := &m.groups[i]
		switch g.join {
		case JoinNone:
			res = g.match(r)
		case JoinOr:
			res = res || g.match(r)
		case JoinAnd:
			res = res && g.match(r)
		case JoinAndNot:
			res = res && !g.match(r)
		case JoinOrNot:
			res = res || !g.match(r)
		}
	}
	return res
}

func (g *cgroup) match(r Record) bool {
	for i := range g.tests {
		if g.tests[i].match(r) == g.any {
			return g.any // OR: the first true; AND: the first false
		}
	}
	return !g.any
}

func (t *test) match(r Record) bool {
	switch t.kind {
	case KindDate:
		d, ok := r.Date(t.field)
		if !ok {
			return t.cond.negative()
		}
		return t.matchDate(d)
	case KindMembership:
		want := Subscribed
		if t.field == SubscriptionOptionsOut {
			want = Unsubscribed
		}
		found := false
		for _, o := range t.values {
			if r.Membership(o) == want {
				found = true
				break
			}
		}
		return found != t.cond.negative()
	}
	s := r.Text(t.field)
	if s == "" {
		return t.cond.negative()
	}
	switch t.cond {
	case IsNull:
		return false
	case IsNotNull:
		return true
	case Eq:
		return foldCompare(s, t.values[0]) == 0
	case Neq:
		return foldCompare(s, t.values[0]) != 0
	case In:
		return t.inSet(s)
	case NotIn:
		return !t.inSet(s)
	case Contains:
		return foldContains(s, t.values[0])
	case StartsWith:
		_, ok := foldPrefix(s, t.values[0])
		return ok
	case EndsWith:
		return foldSuffix(s, t.values[0])
	case Gt:
		return foldCompare(s, t.values[0]) > 0
	case Gte:
		return foldCompare(s, t.values[0]) >= 0
	case Lt:
		return foldCompare(s, t.values[0]) < 0
	case Lte:
		return foldCompare(s, t.values[0]) <= 0
	}
	return false
}

func (t *test) matchDate(d msgkit.Date) bool {
	switch t.cond {
	case IsNull:
		return false
	case IsNotNull:
		return true
	case AnnInDays:
		return d.Month >= 1 && d.Month <= 12 && t.days[d.Month]&(1<<d.Day) != 0
	case In, NotIn:
		found := false
		for _, v := range t.dates {
			if d == v {
				found = true
				break
			}
		}
		return found == (t.cond == In)
	}
	c := d.Compare(t.dates[0])
	switch t.cond {
	case Eq:
		return c == 0
	case Neq:
		return c != 0
	case Gt:
		return c > 0
	case Gte:
		return c >= 0
	case Lt:
		return c < 0
	case Lte:
		return c <= 0
	}
	return false
}

// inSet reports whether Fold(s) is one of the values, folding into a
// buffer on the stack when s is short, and comparing one by one when not.
func (t *test) inSet(s string) bool {
	var buf [128]byte
	if b, ok := foldInto(buf[:0], s); ok {
		_, found := t.set[string(b)]
		return found
	}
	for _, v := range t.values {
		if foldCompare(s, v) == 0 {
			return true
		}
	}
	return false
}

// foldInto appends Fold(s) to b if it fits b's capacity.
func foldInto(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if len(b) == cap(b) {
				return b, false
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		r = foldRune(r)
		if len(b)+utf8.RuneLen(r) > cap(b) {
			return b, false
		}
		b = utf8.AppendRune(b, r)
		i += n
	}
	return b, true
}

// lowerAt decodes the rune of s at i, folded, and its width.
func lowerAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return foldRune(r), n
}

// foldCompare compares Fold(s) with p, which is folded, as strings
// compare: by code point, which is UTF-8's byte order.
func foldCompare(s, p string) int {
	i, j := 0, 0
	for i < len(s) && j < len(p) {
		a, n := lowerAt(s, i)
		b, m := utf8.DecodeRuneInString(p[j:])
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
		i, j = i+n, j+m
	}
	switch {
	case i < len(s):
		return 1
	case j < len(p):
		return -1
	}
	return 0
}

// foldPrefix reports whether Fold(s) starts with p, which is folded, and
// returns the bytes of s that the prefix took.
func foldPrefix(s, p string) (int, bool) {
	i, j := 0, 0
	for j < len(p) {
		if i >= len(s) {
			return 0, false
		}
		a, n := lowerAt(s, i)
		b, m := utf8.DecodeRuneInString(p[j:])
		if a != b {
			return 0, false
		}
		i, j = i+n, j+m
	}
	return i, true
}

// foldSuffix reports whether Fold(s) ends with p, which is folded.
func foldSuffix(s, p string) bool {
	i, j := len(s), len(p)
	for j > 0 {
		if i == 0 {
			return false
		}
		a, n := utf8.DecodeLastRuneInString(s[:i])
		b, m := utf8.DecodeLastRuneInString(p[:j])
		if foldRune(a) != b {
			return false
		}
		i, j = i-n, j-m
	}
	return true
}

// foldContains reports whether Fold(s) contains p, which is folded and
// not empty. Only where s has p's first character does it compare the
// rest; ASCII is read a byte at a time, and any other character folded,
// since some (the Kelvin sign, long s) fold to ASCII letters.
func foldContains(s, p string) bool {
	first, _ := utf8.DecodeRuneInString(p)
	upper := first // the ASCII letter's other case
	if 'a' <= first && first <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i < len(s); {
		c := rune(s[i])
		n := 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRuneInString(s[i:])
			c = foldRune(c)
		} else if c == upper {
			c = first
		}
		if c == first {
			if _, ok := foldPrefix(s[i:], p); ok {
				return true
			}
		}
		i += n
	}
	return false
}
