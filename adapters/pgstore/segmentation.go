package pgstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// segSchema tells the compiler where a contact's fields are. Every string
// is trusted SQL: nothing in it may come from a request.
type segSchema struct {
	// Text maps each text, gender and mobile field to an SQL expression
	// whose value is segmentation.Fold(the field's value) (mobile: the
	// E.164 number), NULL or '' when absent. The store fills such columns
	// with segmentation.Fold on write (a shadow column), so that
	// case-insensitivity never depends on the database's locale. A field
	// missing here (a custom column the tenant has not defined) is absent
	// from every contact.
	Text map[segmentation.Field]string
	// Dates maps each date field (birthday) to a date SQL expression,
	// NULL when absent. A field missing here is absent from every contact.
	Dates map[segmentation.Field]string
	// Membership returns an SQL boolean, never NULL, true when the contact
	// has a membership with status among the options in the bind
	// parameter param, a placeholder ("$3") bound to a text[] of option
	// UUIDs (lower case, as segmentation.Parse normalises them), which it
	// may cast to the column's type, e.g.
	//	EXISTS (SELECT 1 FROM members m WHERE m.contact_id = c.id
	//	        AND m.option = ANY($3::uuid[]) AND m.status = 1)
	Membership func(param string, status segmentation.Membership) string
}

// compileSegmentation returns a boolean SQL expression selecting the
// contacts q selects, as segmentation.Compile(q, today).Match would,
// appending its bind values to args ($n numbered after what args already
// holds). The expression is never NULL, nor is any part of it that a NOT
// applies to, so SQL's three-valued logic cannot change an answer. On an
// error (a Query that Parse could not have made) args is left as it was.
func compileSegmentation(q *segmentation.Query, s segSchema, today msgkit.Date, args *[]any) (string, error) {
	c := segCompiler{schema: s, today: today, args: *args}
	// Groups combine strictly left to right, as Match folds them from
	// false; no precedence, so every step is parenthesised.
	acc := "false"
	for i, g := range q.Groups {
		gs, err := c.group(g)
		if err != nil {
			return "", fmt.Errorf("segmentation group %d: %w", i, err)
		}
		switch g.Join {
		case segmentation.JoinNone:
			acc = gs
		case segmentation.JoinOr:
			acc = "(" + acc + " OR " + gs + ")"
		case segmentation.JoinAnd:
			acc = "(" + acc + " AND " + gs + ")"
		case segmentation.JoinAndNot:
			acc = "(" + acc + " AND NOT " + gs + ")"
		case segmentation.JoinOrNot:
			acc = "(" + acc + " OR NOT " + gs + ")"
		default:
			return "", fmt.Errorf("segmentation group %d: unknown join %v", i, g.Join)
		}
	}
	*args = c.args
	return acc, nil
}

// segCompiler holds the state of one compilation.
type segCompiler struct {
	schema segSchema
	today  msgkit.Date
	args   []any
}

// bind appends v to the arguments and returns its placeholder.
func (c *segCompiler) bind(v any) string {
	c.args = append(c.args, v)
	return "$" + strconv.Itoa(len(c.args))
}

func (c *segCompiler) group(g segmentation.Group) (string, error) {
	if len(g.Rules) == 0 {
		// Match: AND over nothing holds, OR over nothing does not.
		return strconv.FormatBool(!g.Any), nil
	}
	parts := make([]string, len(g.Rules))
	for i, r := range g.Rules {
		p, err := c.rule(r)
		if err != nil {
			return "", fmt.Errorf("rule %d (%s %s): %w", i, r.Field, r.Condition, err)
		}
		parts[i] = p
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	op := " AND "
	if g.Any {
		op = " OR "
	}
	return "(" + strings.Join(parts, op) + ")", nil
}

// negative reports whether cond holds for an absent value (and is the
// complement of its positive twin).
func negative(cond segmentation.Condition) bool {
	return cond == segmentation.Neq || cond == segmentation.NotIn || cond == segmentation.IsNull
}

// positive is the twin of a negative condition.
func positive(cond segmentation.Condition) segmentation.Condition {
	switch cond {
	case segmentation.Neq:
		return segmentation.Eq
	case segmentation.NotIn:
		return segmentation.In
	case segmentation.IsNull:
		return segmentation.IsNotNull
	}
	return cond
}

// wantValues checks the number of values a condition takes.
func wantValues(r segmentation.Rule) error {
	switch r.Condition {
	case segmentation.IsNull, segmentation.IsNotNull, segmentation.AnnInDays:
		return nil
	case segmentation.In, segmentation.NotIn:
		if len(r.Values) == 0 {
			return fmt.Errorf("no values")
		}
		return nil
	}
	if len(r.Values) != 1 {
		return fmt.Errorf("%d values, want one", len(r.Values))
	}
	return nil
}

// rule compiles one rule to a non-NULL boolean. A negative condition is
// NOT of its positive twin, which is made non-NULL by testing for NULL
// first ("x IS NOT NULL AND ..."): false AND NULL is false, and that form,
// unlike COALESCE, leaves the comparison where an index can serve it.
func (c *segCompiler) rule(r segmentation.Rule) (string, error) {
	k := r.Field.Kind()
	if !k.Takes(r.Condition) {
		return "", fmt.Errorf("the condition does not apply to the field")
	}
	if err := wantValues(r); err != nil {
		return "", err
	}
	if k == segmentation.KindMembership {
		if c.schema.Membership == nil {
			return "", fmt.Errorf("the schema has no memberships")
		}
		status := segmentation.Subscribed
		if r.Field == segmentation.SubscriptionOptionsOut {
			status = segmentation.Unsubscribed
		}
		sql := c.schema.Membership(c.bind(append([]string(nil), r.Values...)), status)
		if negative(r.Condition) {
			return "(NOT " + sql + ")", nil
		}
		return "(" + sql + ")", nil
	}
	var pos string
	var err error
	if k == segmentation.KindDate {
		expr, ok := c.schema.Dates[r.Field]
		if !ok {
			return strconv.FormatBool(negative(r.Condition)), nil
		}
		pos, err = c.date("("+expr+")", positive(r.Condition), r)
	} else {
		expr, ok := c.schema.Text[r.Field]
		if !ok {
			return strconv.FormatBool(negative(r.Condition)), nil
		}
		pos, err = c.text("("+expr+")", positive(r.Condition), r)
	}
	if err != nil {
		return "", err
	}
	if negative(r.Condition) {
		return "(NOT " + pos + ")", nil
	}
	return pos, nil
}

// text compiles a positive condition on a folded text expression x. Every
// comparison is COLLATE "C": byte order is code point order, as Go
// compares strings, and =, LIKE and the empty string are exact whatever
// the column's collation (a nondeterministic one could take ignorable
// characters for empty). Absent is NULL or empty: NULL is excluded by
// "IS NOT NULL", and the empty string by the value, never empty, except
// where the empty string would pass (lt, lte).
func (c *segCompiler) text(x string, cond segmentation.Condition, r segmentation.Rule) (string, error) {
	xc := x + ` COLLATE "C"`
	notNull := "(" + x + " IS NOT NULL AND "
	var folded string
	if len(r.Values) > 0 {
		folded = segmentation.Fold(r.Values[0])
	}
	switch cond {
	case segmentation.IsNotNull:
		return notNull + xc + " <> '')", nil
	case segmentation.Eq:
		return notNull + xc + " = " + c.bind(folded) + "::text)", nil
	case segmentation.In:
		vs := make([]string, len(r.Values))
		for i, v := range r.Values {
			vs[i] = segmentation.Fold(v)
		}
		return notNull + xc + " = ANY(" + c.bind(vs) + "::text[]))", nil
	case segmentation.Contains:
		return notNull + xc + " LIKE " + c.bind("%"+likeEscape(folded)+"%") + "::text)", nil
	case segmentation.StartsWith:
		return notNull + xc + " LIKE " + c.bind(likeEscape(folded)+"%") + "::text)", nil
	case segmentation.EndsWith:
		return notNull + xc + " LIKE " + c.bind("%"+likeEscape(folded)) + "::text)", nil
	case segmentation.Gt:
		return notNull + xc + " > " + c.bind(folded) + "::text)", nil
	case segmentation.Gte:
		return notNull + xc + " >= " + c.bind(folded) + "::text)", nil
	case segmentation.Lt:
		// The empty string is less than v, but absent is less than
		// nothing; under "C" it is the least string, so "> ''" excludes
		// it and also bounds an index range.
		return notNull + xc + " > '' AND " + xc + " < " + c.bind(folded) + "::text)", nil
	case segmentation.Lte:
		return notNull + xc + " > '' AND " + xc + " <= " + c.bind(folded) + "::text)", nil
	}
	return "", fmt.Errorf("no SQL for the condition on text")
}

// likeEscape escapes LIKE's wildcards and its default escape character,
// the backslash (no ESCAPE clause, whose literal would depend on
// standard_conforming_strings).
func likeEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\\' || r == '%' || r == '_' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// date compiles a positive condition on a date expression d. Only NULL
// is absent.
func (c *segCompiler) date(d string, cond segmentation.Condition, r segmentation.Rule) (string, error) {
	if cond == segmentation.AnnInDays {
		return c.anniversary(d, r.Days)
	}
	dates := make([]time.Time, len(r.Values))
	for i, v := range r.Values {
		t, err := msgkit.ParseDate(v)
		if err != nil {
			return "", err
		}
		dates[i] = time.Date(t.Year, t.Month, t.Day, 0, 0, 0, 0, time.UTC)
	}
	notNull := "(" + d + " IS NOT NULL AND " + d
	op := ""
	switch cond {
	case segmentation.IsNotNull:
		return "(" + d + " IS NOT NULL)", nil
	case segmentation.In:
		return notNull + " = ANY(" + c.bind(dates) + "::date[]))", nil
	case segmentation.Eq:
		op = " = "
	case segmentation.Gt:
		op = " > "
	case segmentation.Gte:
		op = " >= "
	case segmentation.Lt:
		op = " < "
	case segmentation.Lte:
		op = " <= "
	default:
		return "", fmt.Errorf("no SQL for the condition on a date")
	}
	return notNull + op + c.bind(dates[0]) + "::date)", nil
}

// annivKey is the SQL of a date's anniversary key, month*100 + day, whose
// expression index (segmentationIndexes) serves ann_in_days. It is NULL
// for NULL and for ±infinity, and raises no error on any date.
func annivKey(d string) string {
	return "(EXTRACT(MONTH FROM " + d + ")::int * 100 + EXTRACT(DAY FROM " + d + ")::int)"
}

// daysOf2000 is the number of days of each month in a leap year: every
// month and day a stored date can have.
var daysOf2000 = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// annivRanges turns segmentation.AnniversaryDays into ranges of keys
// (month*100 + day). Keys that no date has (132 to 200, and so on) are
// skipped, so a run of days across a month's end is one range; the window
// of ann_in_days, wrapping at the year's end, is at most three ranges (29
// February can cut one).
func annivRanges(set *[13]uint32) [][2]int32 {
	var out [][2]int32
	open := false
	for m := 1; m <= 12; m++ {
		for d := 1; d <= daysOf2000[m]; d++ {
			key := int32(m*100 + d)
			switch {
			case set[m]&(1<<d) == 0:
				open = false
			case open:
				out[len(out)-1][1] = key
			default:
				out = append(out, [2]int32{key, key})
				open = true
			}
		}
	}
	return out
}

// anniversary compiles ann_in_days: the month and day of the next
// anniversaries in the window are computed here, in Go, as Match does
// (29 February included), and the SQL tests the key against ranges of
// them, each an index range scan. The key's NOT NULL test keeps the
// result non-NULL (also for ±infinity, which has no month).
func (c *segCompiler) anniversary(d string, days int) (string, error) {
	if days < 0 || days > segmentation.MaxDays {
		return "", fmt.Errorf("ann_in_days of %d days", days)
	}
	ranges := annivRanges(segmentation.AnniversaryDays(c.today, days))
	if len(ranges) == 0 {
		return "false", nil
	}
	key := annivKey(d)
	tests := make([]string, len(ranges))
	for i, r := range ranges {
		if r[0] == r[1] {
			tests[i] = key + " = " + c.bind(r[0]) + "::int"
		} else {
			tests[i] = key + " BETWEEN " + c.bind(r[0]) + "::int AND " + c.bind(r[1]) + "::int"
		}
	}
	return "(" + key + " IS NOT NULL AND (" + strings.Join(tests, " OR ") + "))", nil
}

// segmentationIndexes returns the CREATE INDEX statements that serve
// compiled segmentation queries on the fields given, for a contacts table
// table (a trusted, unqualified table name) described by s, whose
// expressions must then name the table's columns bare or qualified by the
// table's name, not by an alias, as CREATE INDEX reads them (and the
// queries must use the same expressions, or the planner will not match
// them to the indexes):
//   - a text field gets a btree on its expression COLLATE "C", the
//     collation the compiled SQL compares in, so that it serves eq, in,
//     gt..lte and startswith (under "C" a plain btree serves a LIKE prefix;
//     text_pattern_ops is not needed);
//   - a date field gets a btree on the date and one on its anniversary
//     key, for ann_in_days.
//
// contains and endswith cannot use a btree. A trigram index (pg_trgm)
// could serve them, but it is not made here: the extension is one per
// database and lives in one schema (dropping that schema drops every
// trigram index of every schema), and creating it needs the CREATE
// privilege on the database, so schemas of one database (tenants, test
// runs) cannot each own it. Index names are table_seg_field and
// table_seg_field_ann.
func segmentationIndexes(table string, s segSchema, fields ...segmentation.Field) ([]string, error) {
	var out []string
	create := func(suffix, element string) {
		name := pgx.Identifier{table + "_seg_" + suffix}.Sanitize()
		out = append(out, "CREATE INDEX IF NOT EXISTS "+name+" ON "+pgx.Identifier{table}.Sanitize()+" ("+element+")")
	}
	for _, f := range fields {
		if x, ok := s.Text[f]; ok {
			create(f.String(), "("+x+`) COLLATE "C"`)
			continue
		}
		if d, ok := s.Dates[f]; ok {
			create(f.String(), "("+d+")")
			create(f.String()+"_ann", "("+annivKey("("+d+")")+")")
			continue
		}
		return nil, fmt.Errorf("segmentation index: no column for %s", f)
	}
	return out, nil
}
