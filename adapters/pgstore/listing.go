package pgstore

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit"
)

// listTable describes one listing to the engine: the relation, the columns
// a page row is scanned from, the tenant condition, the attributes a query
// may name and the store's order. A domain writes it once per listing. Every
// string in it is SQL and is trusted: nothing in it may come from a request.
type listTable struct {
	// From is the FROM clause: a table, or tables joined, with the aliases
	// Select, Scope, Attrs and Order use.
	From string
	// Select is the select list of a page row; its column names are what
	// pgx.RowToStructByName matches to the row type's fields.
	Select string
	// Scope is the tenant condition, ANDed into every listing, with
	// placeholders $1..$n for the scope arguments each call passes (such as
	// "c.service_uuid = $1"). It may not be empty, so no listing can cross
	// tenants by omission; a listing over every tenant says TRUE.
	Scope string
	// Attrs maps each attribute that a query may filter or sort by to its
	// SQL expression and type.
	Attrs map[string]listAttr
	// Order is the store's order: a unique ordering (such as "c.id") that
	// orders an unsorted listing and breaks ties after the sort keys, so
	// equal keys keep the same order on every page and in every run.
	Order string
	// Joins are joined to From only for a query that reads one of their
	// columns: an attribute of its filters, search or sort whose
	// expression names the join's alias (alias.column). PostgreSQL can
	// leave out a left join to a unique key that nothing reads, but still
	// counts the joined column of the listed table as read, so that an
	// index that holds every column the query reads (an index-only scan)
	// no longer serves it; leaving the join out of the SQL keeps it.
	Joins []listJoin
	// CountApart counts the total with a statement of its own instead of
	// a window over the page query, so that the page can stop at its
	// LIMIT (walking an index in the sort's order) rather than read and
	// sort every match first. Worth it over many cheap rows (contacts);
	// not over an aggregate, which the count would compute twice. The
	// count runs only when the page does not tell the total: a page short
	// of its size ends the listing.
	CountApart bool
}

// listJoin is a join of a listTable: its alias and its SQL (such as
// "LEFT JOIN finance_partners o ON o.id = i.owner_id").
type listJoin struct {
	Alias string
	SQL   string
}

// from is the FROM clause for a query reading attrs: From and the joins
// whose alias an attribute's expression names.
func (t *listTable) from(attrs []listAttr) string {
	from := t.From
	for _, j := range t.Joins {
		if slices.ContainsFunc(attrs, func(a listAttr) bool { return namesAlias(a.Expr, j.Alias) }) {
			from += " " + j.SQL
		}
	}
	return from
}

// namesAlias reports whether SQL expression e names alias as a
// qualifier: alias followed by a dot, not the end of a longer name.
func namesAlias(e, alias string) bool {
	for i := 0; ; {
		k := strings.Index(e[i:], alias+".")
		if k < 0 {
			return false
		}
		k += i
		if k == 0 || !isNameByte(e[k-1]) {
			return true
		}
		i = k + 1
	}
}

func isNameByte(c byte) bool { return c == '_' || c == '.' || isASCIIAlnum(c) }

// listAttr is one attribute of a listTable. Expr must have the SQL type of
// Type: text (or varchar, citext: it is cast to text), numeric (or an
// integer type), date, timestamptz or boolean.
type listAttr struct {
	Expr string
	Type msgkit.AttrType
}

// listQuerier is what a listing needs of a pool, a connection or a
// transaction.
type listQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// listPage runs lq over table t for the tenant that scopeArgs select and
// returns the page, each row converted by scan (such as
// pgx.RowToStructByName[T]), with the number of rows that pass the
// filters. It returns what msgkit.Apply would return for the same rows in
// the store's order; the package documentation tells how. A query that
// names an attribute t lacks, or that ParseListQuery could not have made,
// is Internal with code msgkit.CodeInvalidListSpec, as Apply reports it; a
// database failure is Internal with code CodeStorage.
func listPage[T any](ctx context.Context, db listQuerier, t *listTable, lq msgkit.ListQuery, scan pgx.RowToFunc[T], scopeArgs ...any) (msgkit.Page[T], error) {
	st, err := t.statement(lq, scopeArgs)
	if err != nil {
		return msgkit.Page[T]{}, err
	}
	rows, err := db.Query(ctx, st.page, st.args...)
	if err != nil {
		return msgkit.Page[T]{}, classify(err, "listing", "listing")
	}
	if t.CountApart {
		items, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return msgkit.Page[T]{}, classify(err, "listing", "listing")
		}
		if items == nil {
			items = []T{}
		}
		if lq.PageSize > 0 && len(items) < lq.PageSize && (len(items) > 0 || st.offset == 0) {
			return msgkit.Page[T]{Items: items, Total: st.offset + len(items)}, nil
		}
		var total int64
		if err := db.QueryRow(ctx, st.count, st.args[:st.countArgs]...).Scan(&total); err != nil {
			return msgkit.Page[T]{}, classify(err, "listing", "listing")
		}
		return msgkit.Page[T]{Items: items, Total: int(total)}, nil
	}
	items, total, err := collectPage(rows, scan)
	if err != nil {
		return msgkit.Page[T]{}, classify(err, "listing", "listing")
	}
	if len(items) == 0 && st.offset > 0 {
		// A page past the end has no row to carry the window count.
		if err := db.QueryRow(ctx, st.count, st.args[:st.countArgs]...).Scan(&total); err != nil {
			return msgkit.Page[T]{}, classify(err, "listing", "listing")
		}
	}
	return msgkit.Page[T]{Items: items, Total: int(total)}, nil
}

// collectPage scans the rows of a page query, whose last column is the
// total, hiding that column from scan.
func collectPage[T any](rows pgx.Rows, scan pgx.RowToFunc[T]) ([]T, int64, error) {
	defer rows.Close()
	items := []T{}
	var total int64
	row := pageRow{rows}
	for rows.Next() {
		if len(items) == 0 {
			dest := make([]any, len(rows.FieldDescriptions()))
			dest[len(dest)-1] = &total
			if err := rows.Scan(dest...); err != nil {
				return nil, 0, err
			}
		}
		it, err := scan(row)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, it)
	}
	return items, total, rows.Err()
}

// pageRow is a row of a page query as the scan function sees it: without
// the last column, the total, so pgx.RowToStructByName finds exactly the
// columns of Select.
type pageRow struct{ pgx.Rows }

func (r pageRow) FieldDescriptions() []pgconn.FieldDescription {
	fd := r.Rows.FieldDescriptions()
	return fd[:len(fd)-1]
}

func (r pageRow) Scan(dest ...any) error {
	if len(dest) == 1 {
		if rs, ok := dest[0].(pgx.RowScanner); ok {
			return rs.ScanRow(r)
		}
	}
	return r.Rows.Scan(append(dest, nil)...) // a nil destination skips the total
}

func (r pageRow) Values() ([]any, error) {
	v, err := r.Rows.Values()
	if err != nil {
		return nil, err
	}
	return v[:len(v)-1], nil
}

func (r pageRow) RawValues() [][]byte {
	v := r.Rows.RawValues()
	return v[:len(v)-1]
}

// listStmt is the SQL of one listing.
type listStmt struct {
	page      string // the page, with the window count as its last column
	count     string // the count alone, for a page past the end
	args      []any  // scope arguments, filter values, then LIMIT and OFFSET when paged
	countArgs int    // how many of args the count takes
	offset    int
}

// statement translates lq into SQL. Values are always bind parameters; the
// SQL text holds only t's trusted fragments, operators and placeholders.
func (t *listTable) statement(lq msgkit.ListQuery, scopeArgs []any) (listStmt, error) {
	if t.From == "" || t.Select == "" || t.Scope == "" || t.Order == "" {
		return listStmt{}, msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
			"list table: From, Select, Scope and Order are required (the scope keeps tenants apart; say TRUE for a listing over all)")
	}
	if lq.PageNumber < 0 || lq.PageSize < 0 {
		return listStmt{}, msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
			"list query: negative page number %d or size %d", lq.PageNumber, lq.PageSize)
	}
	var read []listAttr // what the query reads, for the joins it needs
	for _, name := range lq.Attrs() {
		a, ok := t.Attrs[name]
		if !ok {
			return listStmt{}, unknownListAttr(name)
		}
		read = append(read, a)
	}
	b := listBuilder{args: make([]any, len(scopeArgs), len(scopeArgs)+2*len(lq.Filters)+2)}
	copy(b.args, scopeArgs)
	b.sql.WriteString(" FROM ")
	b.sql.WriteString(t.from(read))
	b.sql.WriteString(" WHERE (")
	b.sql.WriteString(t.Scope)
	b.sql.WriteByte(')')
	for _, f := range lq.Filters {
		a, ok := t.Attrs[f.Attr]
		if !ok {
			return listStmt{}, unknownListAttr(f.Attr)
		}
		b.sql.WriteString(" AND ")
		if err := b.filter(f, a); err != nil {
			return listStmt{}, err
		}
	}
	if fs := lq.Search.Filters(); len(fs) > 0 {
		b.sql.WriteString(" AND (")
		for i, f := range fs {
			a, ok := t.Attrs[f.Attr]
			if !ok {
				return listStmt{}, unknownListAttr(f.Attr)
			}
			if i > 0 {
				b.sql.WriteString(" OR ")
			}
			b.sql.WriteByte('(')
			if err := b.filter(f, a); err != nil {
				return listStmt{}, err
			}
			b.sql.WriteByte(')')
		}
		b.sql.WriteByte(')')
	}
	where := b.sql.String()
	countArgs := len(b.args)

	b.sql.WriteString(" ORDER BY ")
	for _, k := range lq.Sort {
		a, ok := t.Attrs[k.Attr]
		if !ok {
			return listStmt{}, unknownListAttr(k.Attr)
		}
		b.sql.WriteString(attrExpr(a))
		if k.Desc {
			b.sql.WriteString(" DESC NULLS FIRST, ")
		} else {
			b.sql.WriteString(" ASC NULLS LAST, ")
		}
	}
	b.sql.WriteString(t.Order)
	offset := lq.Offset()
	if lq.PageSize > 0 {
		b.sql.WriteString(" LIMIT ")
		b.sql.WriteString(b.arg(int64(lq.PageSize)))
		b.sql.WriteString(" OFFSET ")
		b.sql.WriteString(b.arg(int64(offset)))
	}
	window := ", count(*) OVER ()"
	if t.CountApart {
		window = ""
	}
	return listStmt{
		page:      "SELECT " + t.Select + window + b.sql.String(),
		count:     "SELECT count(*)" + where,
		args:      b.args,
		countArgs: countArgs,
		offset:    offset,
	}, nil
}

// checkSpec reports an attribute that spec lets a query filter or sort by
// but t lacks or types differently, so a domain's test can prove its
// listing complete instead of finding out from a query.
func (t *listTable) checkSpec(spec msgkit.ListSpec) error {
	for name, typ := range spec.Filter {
		a, ok := t.Attrs[name]
		if !ok {
			return unknownListAttr(name)
		}
		if a.Type != typ {
			return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
				"list table: attribute %q is a %s, the spec filters it as a %s", name, a.Type, typ)
		}
	}
	for _, name := range spec.Sort {
		if _, ok := t.Attrs[name]; !ok {
			return unknownListAttr(name)
		}
	}
	return nil
}

func unknownListAttr(attr string) error {
	return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec, "list query: the list table has no attribute %q", attr)
}

// attrExpr is the expression a listing compares and sorts: strings as text
// in byte order (COLLATE "C"), whatever the column's collation.
func attrExpr(a listAttr) string {
	if a.Type == msgkit.AttrString {
		return "((" + a.Expr + `)::text COLLATE "C")`
	}
	return "(" + a.Expr + ")"
}

// sqlType is the type values of t are bound as, so that a parameter never
// takes its type from context; "" for no type.
func sqlType(t msgkit.AttrType) string {
	switch t {
	case msgkit.AttrString:
		return "text"
	case msgkit.AttrNumber:
		return "numeric"
	case msgkit.AttrDate:
		return "date"
	case msgkit.AttrDateTime:
		return "timestamptz"
	case msgkit.AttrBool:
		return "boolean"
	}
	return ""
}

// listBuilder writes the conditions of one statement and collects their
// arguments.
type listBuilder struct {
	sql  strings.Builder
	args []any
}

// arg binds v and returns its placeholder.
func (b *listBuilder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func (b *listBuilder) write(parts ...string) {
	for _, p := range parts {
		b.sql.WriteString(p)
	}
}

// filter writes the condition of f on attribute a. Every condition is
// NULL or false for a null attribute, except isnull and isempty, so neq,
// notin, notbetween and doesnotcontain never match null, as in Apply.
func (b *listBuilder) filter(f msgkit.Filter, a listAttr) error {
	n, ok := arity(f.Op)
	if !ok || (n >= 0 && len(f.Values) != n) || (n < 0 && len(f.Values) == 0) {
		return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
			"list query: malformed filter %s(%s) with %d values", f.Op, f.Attr, len(f.Values))
	}
	if sqlType(a.Type) == "" {
		return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec, "list table: attribute %q has no valid type (%d)", f.Attr, a.Type)
	}
	for _, v := range f.Values {
		if v.Type() != a.Type {
			return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
				"list query: %s(%s) has a %s value for a %s attribute", f.Op, f.Attr, v.Type(), a.Type)
		}
	}
	e := attrExpr(a)
	if a.Type == msgkit.AttrDateTime && f.Precision > 0 && n != 0 { // the null checks need no precision
		return b.shownTime(f, e)
	}
	isString := a.Type == msgkit.AttrString
	switch f.Op {
	case msgkit.OpIsNull:
		b.write(e, " IS NULL")
	case msgkit.OpIsNotNull:
		b.write(e, " IS NOT NULL")
	case msgkit.OpIsEmpty:
		if isString {
			b.write("(", e, " IS NULL OR ", e, " = '')")
		} else {
			b.write(e, " IS NULL")
		}
	case msgkit.OpIsNotEmpty:
		if isString {
			b.write(e, " <> ''")
		} else {
			b.write(e, " IS NOT NULL")
		}
	case msgkit.OpEq, msgkit.OpNeq, msgkit.OpLt, msgkit.OpLte, msgkit.OpGt, msgkit.OpGte:
		b.compare(f.Op, e, a.Type, f.Values[0])
	case msgkit.OpIn, msgkit.OpNotIn:
		b.in(f.Op == msgkit.OpNotIn, e, a.Type, f.Values)
	case msgkit.OpBetween, msgkit.OpNotBetween:
		b.between(f.Op == msgkit.OpNotBetween, e, a.Type, f.Values[0], f.Values[1])
	case msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain:
		if !isString {
			return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
				"list query: %s applies to strings, %q is a %s", f.Op, f.Attr, a.Type)
		}
		b.pattern(f.Op, e, f.Values[0].Str())
	}
	return nil
}

// arity is how many values op takes (-1: one or more), as msgkit's parser
// has it.
func arity(op msgkit.Op) (int, bool) {
	switch op {
	case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
		return 0, true
	case msgkit.OpIn, msgkit.OpNotIn:
		return -1, true
	case msgkit.OpBetween, msgkit.OpNotBetween:
		return 2, true
	}
	return 1, op.Valid()
}

// A bound is a filter value as the database can hold it. Most values are
// exact. A value no column can hold is replaced by the greatest storable
// value below it (floor), or marks a string as unstorable:
//   - a date-time with a fraction of a microsecond (timestamptz keeps
//     microseconds): its floor is the microsecond below it;
//   - a number with more than 16383 fraction digits, or more than 131072
//     integer digits (numeric's limits): its floor has 16383 fraction
//     digits, or is ±Infinity;
//   - a string that is not valid UTF-8 or holds NUL, which no text column
//     can hold.
//
// A stored x then never equals the value v, and as floor < v < every
// storable value above floor, x < v exactly when x <= floor and x > v
// exactly when x > floor. Unstorable strings are ordered as bytes instead.
type bound struct {
	arg        any  // what is bound: the value, or its floor
	exact      bool // arg is the value itself
	unstorable bool // a string no text column can hold
}

func toBound(v msgkit.Value) bound {
	switch v.Type() {
	case msgkit.AttrString:
		if !storable(v.Str()) {
			return bound{arg: []byte(v.Str()), unstorable: true}
		}
		return bound{arg: v.Str(), exact: true}
	case msgkit.AttrNumber:
		return numberBound(v.Number())
	case msgkit.AttrDate:
		d := v.Date()
		return bound{arg: time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC), exact: true}
	case msgkit.AttrDateTime:
		t := v.Time()
		if sub := t.Nanosecond() % 1000; sub != 0 {
			return bound{arg: t.Add(-time.Duration(sub))}
		}
		return bound{arg: t, exact: true}
	}
	return bound{arg: v.Bool(), exact: true}
}

// numeric's limits: digits before and after the decimal point.
const (
	numericMaxIntDigits  = 131072
	numericMaxFracDigits = 16383
)

// numberBound binds a canonical decimal as numeric text (pgx sends a
// string in text format, so no digit is lost to a float).
func numberBound(s string) bound {
	neg := strings.HasPrefix(s, "-")
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	switch {
	case len(intPart) > numericMaxIntDigits && neg:
		return bound{arg: "-Infinity"}
	case len(intPart) > numericMaxIntDigits:
		return bound{arg: "Infinity"}
	case len(frac) > numericMaxFracDigits:
		// Canonical, so the digits cut off are not all zero: the floor of a
		// positive number is the cut, of a negative one the cut one unit
		// further from zero.
		digits := []byte(intPart + frac[:numericMaxFracDigits])
		if neg {
			i := len(digits) - 1
			for ; i >= 0 && digits[i] == '9'; i-- {
				digits[i] = '0'
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			} else {
				digits[i]++
			}
		}
		cut := len(digits) - numericMaxFracDigits
		floor := string(digits[:cut]) + "." + string(digits[cut:])
		if neg {
			floor = "-" + floor
		}
		return bound{arg: floor}
	}
	return bound{arg: s, exact: true}
}

// typed returns the placeholder of arg cast to t's SQL type.
func (b *listBuilder) typed(arg any, t msgkit.AttrType) string {
	return b.arg(arg) + "::" + sqlType(t)
}

// bytesOf is e as its UTF-8 bytes, which order as text COLLATE "C" does
// (the database encoding must be UTF8), for comparing with a string that
// is not storable text.
func bytesOf(e string) string { return "convert_to(" + e + ", 'UTF8')" }

func (b *listBuilder) compare(op msgkit.Op, e string, t msgkit.AttrType, v msgkit.Value) {
	bd := toBound(v)
	switch {
	case bd.unstorable && (op == msgkit.OpEq || op == msgkit.OpNeq):
		// Equal to no stored string; handled below as an inexact value.
	case bd.unstorable:
		b.write(bytesOf(e), " ", sqlOp(op), " ", b.arg(bd.arg), "::bytea")
		return
	case bd.exact:
		b.write(e, " ", sqlOp(op), " ", b.typed(bd.arg, t))
		return
	}
	switch op {
	case msgkit.OpEq:
		b.write("FALSE")
	case msgkit.OpNeq:
		b.write(e, " IS NOT NULL")
	case msgkit.OpLt, msgkit.OpLte:
		b.write(e, " <= ", b.typed(bd.arg, t))
	case msgkit.OpGt, msgkit.OpGte:
		b.write(e, " > ", b.typed(bd.arg, t))
	}
}

// sqlOp is the SQL operator of a comparison.
func sqlOp(op msgkit.Op) string {
	switch op {
	case msgkit.OpEq:
		return "="
	case msgkit.OpNeq:
		return "<>"
	case msgkit.OpLt:
		return "<"
	case msgkit.OpLte:
		return "<="
	case msgkit.OpGt:
		return ">"
	}
	return ">="
}

// in binds the values as one array, so the SQL text is the same for any
// number of values. Values no column holds cannot be equal to a stored one
// and are left out.
func (b *listBuilder) in(not bool, e string, t msgkit.AttrType, vals []msgkit.Value) {
	var arr any
	n := 0
	switch t {
	case msgkit.AttrString, msgkit.AttrNumber:
		a := make([]string, 0, len(vals))
		for _, v := range vals {
			if bd := toBound(v); bd.exact {
				a = append(a, bd.arg.(string))
			}
		}
		arr, n = a, len(a)
	case msgkit.AttrDate, msgkit.AttrDateTime:
		a := make([]time.Time, 0, len(vals))
		for _, v := range vals {
			if bd := toBound(v); bd.exact {
				a = append(a, bd.arg.(time.Time))
			}
		}
		arr, n = a, len(a)
	default:
		a := make([]bool, len(vals))
		for i, v := range vals {
			a[i] = v.Bool()
		}
		arr, n = a, len(a)
	}
	switch {
	case n == 0 && not:
		b.write(e, " IS NOT NULL") // <> ALL of nothing would be true for null too
	case n == 0:
		b.write("FALSE")
	case not:
		b.write(e, " <> ALL(", b.typed(arr, t), "[])")
	default:
		b.write(e, " = ANY(", b.typed(arr, t), "[])")
	}
}

func (b *listBuilder) between(not bool, e string, t msgkit.AttrType, lo, hi msgkit.Value) {
	l, h := toBound(lo), toBound(hi)
	if not {
		b.write("NOT ")
	}
	switch {
	case l.unstorable || h.unstorable:
		be := bytesOf(e)
		b.write("(", be, " BETWEEN ", b.arg([]byte(lo.Str())), "::bytea AND ", b.arg([]byte(hi.Str())), "::bytea)")
	case l.exact && h.exact:
		b.write("(", e, " BETWEEN ", b.typed(l.arg, t), " AND ", b.typed(h.arg, t), ")")
	default:
		// x >= lo is x > floor(lo) for an inexact lo; x <= hi is x <=
		// floor(hi). For a null x both sides are null, and so is NOT.
		op := " >= "
		if !l.exact {
			op = " > "
		}
		b.write("(", e, op, b.typed(l.arg, t), " AND ", e, " <= ", b.typed(h.arg, t), ")")
	}
}

// shownTime writes f over e, an instant that f compares as shown: its
// instant truncated to f.Precision (msgkit.Filter.Match). Every
// comparison of the shown s(x) with a value v is written as one of x
// itself with multiples of the precision p, so that an index on the column
// serves it as it serves a comparison as stored: s(x) < v is x < ceil(v),
// s(x) <= v is x < floor(v)+p, s(x) > v is x >= floor(v)+p, s(x) >= v is
// x >= ceil(v), and s(x) = v is floor(v) <= x < floor(v)+p when v is a
// multiple of p, and never otherwise. The multiples are exact for a
// precision of whole microseconds, which timestamptz keeps; another is a
// programming error.
func (b *listBuilder) shownTime(f msgkit.Filter, e string) error {
	p := f.Precision
	if p%time.Microsecond != 0 {
		return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
			"list query: %s(%s) compares at %v, which is no whole number of microseconds", f.Op, f.Attr, p)
	}
	floor := func(v msgkit.Value) time.Time { return v.Time().Truncate(p) }
	ceil := func(v msgkit.Value) time.Time {
		fl := floor(v)
		if fl.Equal(v.Time()) {
			return fl
		}
		return fl.Add(p)
	}
	at := func(t time.Time) string { return b.arg(t) + "::timestamptz" }
	// shows is the condition that e shows v; "" when no instant does.
	shows := func(v msgkit.Value) string {
		fl := floor(v)
		if !fl.Equal(v.Time()) {
			return ""
		}
		return "(" + e + " >= " + at(fl) + " AND " + e + " < " + at(fl.Add(p)) + ")"
	}
	// anyOf is the condition that e shows one of vs; "" when none can be.
	anyOf := func(vs []msgkit.Value) string {
		var alts []string
		for _, v := range vs {
			if c := shows(v); c != "" {
				alts = append(alts, c)
			}
		}
		return strings.Join(alts, " OR ")
	}
	v := f.Values[0]
	switch f.Op {
	case msgkit.OpLt:
		b.write(e, " < ", at(ceil(v)))
	case msgkit.OpLte:
		b.write(e, " < ", at(floor(v).Add(p)))
	case msgkit.OpGt:
		b.write(e, " >= ", at(floor(v).Add(p)))
	case msgkit.OpGte:
		b.write(e, " >= ", at(ceil(v)))
	case msgkit.OpEq, msgkit.OpIn, msgkit.OpNeq, msgkit.OpNotIn:
		c := anyOf(f.Values)
		not := f.Op == msgkit.OpNeq || f.Op == msgkit.OpNotIn
		switch {
		case c == "" && not:
			b.write(e, " IS NOT NULL")
		case c == "":
			b.write("FALSE")
		case not:
			// e IS NOT NULL first: NOT of a null comparison is null, and
			// neq and notin never match null.
			b.write("(", e, " IS NOT NULL AND NOT (", c, "))")
		default:
			b.write("(", c, ")")
		}
	case msgkit.OpBetween, msgkit.OpNotBetween:
		if f.Op == msgkit.OpNotBetween {
			b.write("NOT ") // null for a null e, as the range is
		}
		b.write("(", e, " >= ", at(ceil(v)), " AND ", e, " < ", at(floor(f.Values[1]).Add(p)), ")")
	default:
		return msgkit.Errorf(msgkit.Internal, msgkit.CodeInvalidListSpec,
			"list query: %s applies to strings, %q is a %s", f.Op, f.Attr, msgkit.AttrDateTime)
	}
	return nil
}

// pattern writes startswith, contains, endswith or doesnotcontain as a
// case-sensitive regular expression in which each letter of the value is
// the bracket of its whole Unicode simple case folding orbit ("k" is
// [kKK], with the Kelvin sign). That matches exactly what
// strings.EqualFold matches, rune by rune, and depends on no database
// collation or Unicode version, where ILIKE and lower() depend on both and
// fold some letters differently.
func (b *listBuilder) pattern(op msgkit.Op, e, sub string) {
	if strings.IndexByte(sub, 0) >= 0 {
		// No stored string holds NUL, and a text parameter cannot.
		if op == msgkit.OpDoesNotContain {
			b.write(e, " IS NOT NULL")
		} else {
			b.write("FALSE")
		}
		return
	}
	re := foldRegexp(op, sub)
	if op == msgkit.OpDoesNotContain {
		b.write(e, " !~ ", b.arg(re))
	} else {
		b.write(e, " ~ ", b.arg(re))
	}
}

// foldRegexp returns the regular expression (PostgreSQL ARE) for a
// pattern operator with value sub. Bytes of sub that are not UTF-8 read as
// U+FFFD, as they do in msgkit's matching.
func foldRegexp(op msgkit.Op, sub string) string {
	var b strings.Builder
	b.Grow(len(sub) + 8)
	if op == msgkit.OpStartsWith {
		b.WriteByte('^')
	}
	for _, r := range sub {
		f := unicode.SimpleFold(r)
		switch {
		case f != r:
			b.WriteByte('[')
			b.WriteRune(r)
			for ; f != r; f = unicode.SimpleFold(f) {
				b.WriteRune(f)
			}
			b.WriteByte(']')
		case r < utf8.RuneSelf && !isASCIIAlnum(byte(r)):
			// \ before any ASCII character but a letter or digit makes it
			// literal: the metacharacters, and % _ \ too.
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if op == msgkit.OpEndsWith {
		b.WriteByte('$')
	}
	return b.String()
}

func isASCIIAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
