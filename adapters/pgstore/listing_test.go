package pgstore

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// listRow is a row of the listing tests' table, as a domain would scan it.
type listRow struct {
	ID     int64
	Name   *string
	Amount *decimal.Decimal
	Day    *time.Time
	At     *time.Time
	Active *bool
}

func listGet(r listRow, attr string) (msgkit.Value, bool) {
	switch attr {
	case "name":
		if r.Name != nil {
			return msgkit.StringValue(*r.Name), true
		}
	case "amount":
		if r.Amount != nil {
			v, err := msgkit.NumberValue(r.Amount.String())
			return v, err == nil
		}
	case "day":
		if r.Day != nil {
			return msgkit.DateValue(msgkit.DateOf(*r.Day)), true
		}
	case "at":
		if r.At != nil {
			return msgkit.TimeValue(*r.At), true
		}
	case "active":
		if r.Active != nil {
			return msgkit.BoolValue(*r.Active), true
		}
	default:
		return msgkit.Value{}, false
	}
	return msgkit.Null(), true
}

func listTestSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{
			"name": msgkit.AttrString, "amount": msgkit.AttrNumber, "day": msgkit.AttrDate,
			"at": msgkit.AttrDateTime, "active": msgkit.AttrBool,
		},
		Sort: []string{"name", "amount", "day", "at", "active"},
	}
}

func listTestTable() *listTable {
	return &listTable{
		From:   "list_rows l",
		Select: "l.id, l.name, l.amount, l.day, l.at, l.active",
		Scope:  "l.tenant = $1",
		Attrs: map[string]listAttr{
			"name":   {"l.name", msgkit.AttrString},
			"amount": {"l.amount", msgkit.AttrNumber},
			"day":    {"l.day", msgkit.AttrDate},
			"at":     {"l.at", msgkit.AttrDateTime},
			"active": {"l.active", msgkit.AttrBool},
		},
		Order: "l.id",
	}
}

func ptr[V any](v V) *V { return &v }

func civil(s string) *time.Time {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return ptr(d.In(time.UTC))
}

func instant(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func amount(s string) *decimal.Decimal { return ptr(decimal.RequireFromString(s)) }

// listFixture is the rows of tenant "t1", in id order. Tenant "t2" holds
// the same rows under ids 101.., so every filter would match its rows too.
func listFixture() []listRow {
	return []listRow{
		{1, ptr("Smith"), amount("10.50"), civil("2026-01-31"), instant("2026-01-31T09:30:00Z"), ptr(true)},
		{2, ptr("smith"), amount("9"), civil("2025-12-31"), instant("2026-01-31T10:30:00+01:00"), ptr(false)},
		{3, ptr("100% off_sale"), amount("-1"), civil("2026-02-01"), instant("2026-01-31T09:30:00.000001Z"), ptr(true)},
		{4, ptr(`C:\dir`), amount("0"), civil("0000-01-01"), instant("1969-12-31T23:59:59.999999Z"), ptr(false)},
		{5, ptr(""), amount("100"), civil("9999-12-31"), instant("2026-01-31T09:29:59.999999Z"), ptr(true)},
		{6, nil, nil, nil, nil, nil},
		{7, ptr("STRASSE"), amount("9.000"), civil("2026-01-31"), instant("2026-02-01T00:00:00Z"), ptr(true)},
		{8, ptr("straße"), amount("0.001"), civil("2026-01-31"), instant("2026-02-01T00:00:00Z"), ptr(false)},
		{9, ptr("\u212aelvin"), amount("-0.5"), civil("2026-01-30"), instant("2026-01-30T00:00:00Z"), ptr(true)},
		{10, ptr("'; DROP TABLE list_rows; --"), amount("1"), civil("2026-01-31"), instant("2026-01-31T09:30:00Z"), ptr(false)},
		{11, ptr("ΣΊΣΥΦΟΣ"), amount("2"), civil("2026-01-31"), instant("2026-01-31T09:30:00Z"), ptr(true)},
		{12, ptr("İstanbul ıi"), amount("3"), civil("2026-01-31"), instant("2026-01-31T09:30:00Z"), ptr(false)},
		{13, ptr("a\nb"), amount("4"), civil("2026-01-31"), instant("2026-01-31T09:30:00Z"), ptr(true)},
	}
}

// newListStore opens a store with the listing tests' table filled.
func newListStore(t testing.TB) *DB {
	t.Helper()
	s := newTestDB(t)
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, `CREATE TABLE list_rows (
		tenant text NOT NULL, id bigint PRIMARY KEY,
		name text, amount numeric, day date, at timestamptz, active boolean)`); err != nil {
		t.Fatal(err)
	}
	for _, tenant := range []struct {
		name  string
		first int64
	}{{"t1", 0}, {"t2", 100}} {
		for _, r := range listFixture() {
			if _, err := s.pool.Exec(ctx, `INSERT INTO list_rows VALUES ($1, $2, $3, $4::text::numeric, $5::date, $6, $7)`,
				tenant.name, tenant.first+r.ID, r.Name, numText(r.Amount), r.Day, r.At, r.Active); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func numText(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	return ptr(d.String())
}

func parseListQuery(t testing.TB, query string) msgkit.ListQuery {
	t.Helper()
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := msgkit.ParseListQuery(v, listTestSpec())
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return lq
}

func ids(rows []listRow) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

// filterSQL returns the conditions lq adds to the scope, and their
// arguments.
func filterSQL(t testing.TB, table *listTable, lq msgkit.ListQuery, scopeArgs ...any) (string, []any) {
	t.Helper()
	st, err := table.statement(lq, scopeArgs)
	if err != nil {
		t.Fatal(err)
	}
	where := strings.TrimPrefix(st.count, "SELECT count(*) FROM "+table.From+" WHERE ("+table.Scope+")")
	return strings.TrimPrefix(where, " AND "), st.args[len(scopeArgs):st.countArgs]
}

// TestListingOperators shows the SQL of every operator on every type it
// applies to, and that it selects the rows msgkit.Apply selects: escaping
// of LIKE and regular expression characters, case folding, nulls, and
// values no column can hold.
func TestListingOperators(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	table := listTestTable()
	const (
		name   = `((l.name)::text COLLATE "C")`
		num    = "(l.amount)"
		day    = "(l.day)"
		at     = "(l.at)"
		active = "(l.active)"
	)
	date := func(s string) time.Time { return *civil(s) }
	tm := func(s string) time.Time { return *instant(s) }
	tests := []struct {
		query    string
		wantSQL  string
		wantArgs []any
		wantIDs  []int64
	}{
		{"isnull(name)=", name + " IS NULL", nil, []int64{6}},
		{"isnull(active)=true", active + " IS NULL", nil, []int64{6}},
		{"isnotnull(amount)=", num + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"isempty(name)=", "(" + name + " IS NULL OR " + name + " = '')", nil, []int64{5, 6}},
		{"isempty(day)=", day + " IS NULL", nil, []int64{6}},
		{"isnotempty(name)=", name + " <> ''", nil, []int64{1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13}},
		{"isnotempty(at)=", at + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},

		// eq, neq and in compare strings byte for byte.
		{"eq(name)=smith", name + " = $2::text", []any{"smith"}, []int64{2}},
		{"name=Smith", name + " = $2::text", []any{"Smith"}, []int64{1}},
		{"eq(name)=", name + " = $2::text", []any{""}, []int64{5}},
		{"neq(name)=smith", name + " <> $2::text", []any{"smith"}, []int64{1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"in(name)=Smith,STRASSE,straße", name + " = ANY($2::text[])", []any{[]string{"Smith", "STRASSE", "straße"}}, []int64{1, 7, 8}},
		{"notin(name)=Smith,,smith", name + " <> ALL($2::text[])", []any{[]string{"Smith", "", "smith"}}, []int64{3, 4, 7, 8, 9, 10, 11, 12, 13}},
		{"eq(amount)=9.0", num + " = $2::numeric", []any{"9"}, []int64{2, 7}},
		{"neq(amount)=9", num + " <> $2::numeric", []any{"9"}, []int64{1, 3, 4, 5, 8, 9, 10, 11, 12, 13}},
		{"in(amount)=10.5,-1,7", num + " = ANY($2::numeric[])", []any{[]string{"10.5", "-1", "7"}}, []int64{1, 3}},
		{"notin(amount)=0,100", num + " <> ALL($2::numeric[])", []any{[]string{"0", "100"}}, []int64{1, 2, 3, 7, 8, 9, 10, 11, 12, 13}},
		{"eq(day)=0000-01-01", day + " = $2::date", []any{date("0000-01-01")}, []int64{4}},
		{"in(day)=2025-12-31,9999-12-31", day + " = ANY($2::date[])", []any{[]time.Time{date("2025-12-31"), date("9999-12-31")}}, []int64{2, 5}},
		{"eq(at)=2026-01-31T11:30:00 02:00", at + " = $2::timestamptz", []any{tm("2026-01-31T09:30:00Z")}, []int64{1, 2, 10, 11, 12, 13}},
		{"eq(active)=false", active + " = $2::boolean", []any{false}, []int64{2, 4, 8, 10, 12}},
		{"neq(active)=false", active + " <> $2::boolean", []any{false}, []int64{1, 3, 5, 7, 9, 11, 13}},
		{"in(active)=true", active + " = ANY($2::boolean[])", []any{[]bool{true}}, []int64{1, 3, 5, 7, 9, 11, 13}},
		{"notin(active)=true,false", active + " <> ALL($2::boolean[])", []any{[]bool{true, false}}, []int64{}},

		// Ordering: strings by bytes, so "Smith" < "smith" and "" first.
		{"lt(name)=Smith", name + " < $2::text", []any{"Smith"}, []int64{3, 4, 5, 7, 10}},
		{"lte(name)=Smith", name + " <= $2::text", []any{"Smith"}, []int64{1, 3, 4, 5, 7, 10}},
		{"gt(name)=smith", name + " > $2::text", []any{"smith"}, []int64{8, 9, 11, 12}},
		{"gte(name)=smith", name + " >= $2::text", []any{"smith"}, []int64{2, 8, 9, 11, 12}},
		{"between(name)=S,Sz", "(" + name + " BETWEEN $2::text AND $3::text)", []any{"S", "Sz"}, []int64{1, 7}},
		{"notbetween(name)=S,Sz", "NOT (" + name + " BETWEEN $2::text AND $3::text)", []any{"S", "Sz"}, []int64{2, 3, 4, 5, 8, 9, 10, 11, 12, 13}},
		{"lt(amount)=0", num + " < $2::numeric", []any{"0"}, []int64{3, 9}},
		{"gte(amount)=9.0000", num + " >= $2::numeric", []any{"9"}, []int64{1, 2, 5, 7}},
		{"between(amount)=-1,0.001", "(" + num + " BETWEEN $2::numeric AND $3::numeric)", []any{"-1", "0.001"}, []int64{3, 4, 8, 9}},
		{"notbetween(day)=2026-01-01,2026-01-31", "NOT (" + day + " BETWEEN $2::date AND $3::date)", []any{date("2026-01-01"), date("2026-01-31")}, []int64{2, 3, 4, 5}},
		{"gt(at)=2026-01-31T09:30:00Z", at + " > $2::timestamptz", []any{tm("2026-01-31T09:30:00Z")}, []int64{3, 7, 8}},

		// The pattern operators fold case as strings.EqualFold does: each
		// letter is the bracket of its folding orbit, every other ASCII
		// character is escaped, so % _ \ . ( match themselves.
		{"startswith(name)=SMI", name + " ~ $2", []any{"^[Ss\u017f][Mm][Ii]"}, []int64{1, 2}},
		{"contains(name)=%25", name + " ~ $2", []any{`\%`}, []int64{3}},
		{"contains(name)=_", name + " ~ $2", []any{`\_`}, []int64{3, 10}},
		{`contains(name)=\`, name + " ~ $2", []any{`\\`}, []int64{4}},
		{"contains(name)=%25 OFF_", name + " ~ $2", []any{`\%\ [Oo][Ff][Ff]\_`}, []int64{3}},
		{"contains(name)=.", name + " ~ $2", []any{`\.`}, []int64{}},
		{"endswith(name)=SALE", name + " ~ $2", []any{"[Ss\u017f][Aa][Ll][Ee]$"}, []int64{3}},
		{"endswith(name)=A", name + " ~ $2", []any{"[Aa]$"}, []int64{}}, // "a\nb" ends with b: $ is the end of the string
		{"startswith(name)=B", name + " ~ $2", []any{"^[Bb]"}, []int64{}},
		{"contains(name)=", name + " ~ $2", []any{""}, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"doesnotcontain(name)=smith", name + " !~ $2", []any{"[s\u017fS][mM][iI][tT][hH]"}, []int64{3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"doesnotcontain(name)=", name + " !~ $2", []any{""}, []int64{}},
		// The Kelvin sign is a k; ß is not ss under simple folding, but ẞ
		// is ß; Greek sigmas are one letter; dotted and dotless i are
		// not i.
		{"startswith(name)=kel", name + " ~ $2", []any{"^[k\u212aK][eE][lL]"}, []int64{9}},
		{"contains(name)=SS", name + " ~ $2", []any{"[Ss\u017f][Ss\u017f]"}, []int64{7}},
		{"contains(name)=ẞ", name + " ~ $2", []any{"[\u1e9e\u00df]"}, []int64{8}},
		{"contains(name)=σίσυφος", name + " ~ $2", []any{"[σΣς][ίΊ][σΣς][υΥ][φϕΦ][οΟ][ςσΣ]"}, []int64{11}},
		{"contains(name)=istanbul", name + " ~ $2", []any{"[iI][s\u017fS][tT][aA][nN][bB][uU][lL]"}, []int64{}},
		{"contains(name)=İ", name + " ~ $2", []any{"İ"}, []int64{12}},
		{"contains(name)=ıI", name + " ~ $2", []any{"ı[Ii]"}, []int64{12}},

		// Values no column can hold: a fraction of a microsecond, more
		// digits than numeric has, strings that are not UTF-8 or hold NUL.
		{"eq(at)=2026-01-31T09:30:00.0000005Z", "FALSE", nil, []int64{}},
		{"neq(at)=2026-01-31T09:30:00.0000005Z", at + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"lt(at)=2026-01-31T09:30:00.0000005Z", at + " <= $2::timestamptz", []any{tm("2026-01-31T09:30:00Z")}, []int64{1, 2, 4, 5, 9, 10, 11, 12, 13}},
		{"gte(at)=2026-01-31T09:30:00.0000005Z", at + " > $2::timestamptz", []any{tm("2026-01-31T09:30:00Z")}, []int64{3, 7, 8}},
		{"between(at)=2026-01-31T09:29:59.9999995Z,2026-01-31T09:30:00.0000005Z",
			"(" + at + " > $2::timestamptz AND " + at + " <= $3::timestamptz)", []any{tm("2026-01-31T09:29:59.999999Z"), tm("2026-01-31T09:30:00Z")}, []int64{1, 2, 10, 11, 12, 13}},
		{"in(at)=2026-01-31T09:30:00.0000005Z", "FALSE", nil, []int64{}},
		{"notin(at)=2026-01-31T09:30:00.0000005Z", at + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"gt(amount)=0.0" + strings.Repeat("0", numericMaxFracDigits) + "1", num + " > $2::numeric", []any{"0." + strings.Repeat("0", numericMaxFracDigits)}, []int64{1, 2, 5, 7, 8, 10, 11, 12, 13}},
		{"lt(amount)=-1.0" + strings.Repeat("0", numericMaxFracDigits) + "1", num + " <= $2::numeric", []any{"-1." + strings.Repeat("0", numericMaxFracDigits-1) + "1"}, []int64{}},
		{"gt(amount)=-0." + strings.Repeat("9", numericMaxFracDigits+1), num + " > $2::numeric", []any{"-1." + strings.Repeat("0", numericMaxFracDigits)}, []int64{1, 2, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"lt(amount)=1" + strings.Repeat("0", numericMaxIntDigits), num + " <= $2::numeric", []any{"Infinity"}, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"gt(amount)=-1" + strings.Repeat("0", numericMaxIntDigits), num + " > $2::numeric", []any{"-Infinity"}, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"eq(name)=Smith%00", "FALSE", nil, []int64{}},
		{"neq(name)=%FF", name + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"in(name)=Smith%00,smith", name + " = ANY($2::text[])", []any{[]string{"smith"}}, []int64{2}},
		{"notin(name)=%00", name + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"lt(name)=Smith%00", "convert_to(" + name + ", 'UTF8') < $2::bytea", []any{[]byte("Smith\x00")}, []int64{1, 3, 4, 5, 7, 10}},
		{"gte(name)=%CE", "convert_to(" + name + ", 'UTF8') >= $2::bytea", []any{[]byte("\xce")}, []int64{9, 11}},
		{"between(name)=s,s%FF", "(convert_to(" + name + ", 'UTF8') BETWEEN $2::bytea AND $3::bytea)", []any{[]byte("s"), []byte("s\xff")}, []int64{2, 8}},
		{"contains(name)=%00", "FALSE", nil, []int64{}},
		{"doesnotcontain(name)=%00", name + " IS NOT NULL", nil, []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13}},
		{"contains(name)=%FF", name + " ~ $2", []any{"\ufffd"}, []int64{}},
	}
	rows := listFixture()
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			lq := parseListQuery(t, tt.query+"&page_size=100")
			gotSQL, gotArgs := filterSQL(t, table, lq, "t1")
			if gotSQL != tt.wantSQL {
				t.Errorf("SQL:\n got %s\nwant %s", gotSQL, tt.wantSQL)
			}
			if diff := cmp.Diff(tt.wantArgs, gotArgs, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			got, err := listPage(t.Context(), s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
			if err != nil {
				t.Fatal(err)
			}
			want, err := msgkit.Apply(rows, lq, listGet)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ids(want.Items), tt.wantIDs); diff != "" {
				t.Errorf("the test expects other rows than Apply (-Apply +test):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantIDs, ids(got.Items)); diff != "" || got.Total != len(tt.wantIDs) {
				t.Errorf("total %d, ids (-want +got):\n%s", got.Total, diff)
			}
		})
	}
}

// TestListingNeverInlinesValues sends a value made to break out of a
// string literal through every operator: the SQL text never holds it, it
// is matched literally, and the table is still there.
func TestListingNeverInlinesValues(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	table := listTestTable()
	const evil = "'; DROP TABLE list_rows; --"
	for _, op := range msgkit.Ops() {
		raw := url.QueryEscape(evil)
		switch op {
		case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
			continue
		case msgkit.OpBetween, msgkit.OpNotBetween:
			raw += "," + url.QueryEscape(evil+"z")
		case msgkit.OpIn, msgkit.OpNotIn:
			raw += ",x"
		}
		query := string(op) + "(name)=" + raw + "&page_size=100"
		t.Run(string(op), func(t *testing.T) {
			lq := parseListQuery(t, query)
			st, err := table.statement(lq, []any{"t1"})
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{st.page, st.count} {
				if strings.Contains(text, "DROP") || strings.Contains(text, "--") {
					t.Errorf("the value is in the SQL text: %s", text)
				}
			}
			got, err := listPage(t.Context(), s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
			if err != nil {
				t.Fatal(err)
			}
			want, err := msgkit.Apply(listFixture(), lq, listGet)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ids(want.Items), ids(got.Items)); diff != "" {
				t.Errorf("ids (-Apply +SQL):\n%s", diff)
			}
		})
	}
	got, err := listPage(t.Context(), s.pool, table, parseListQuery(t, "eq(name)="+url.QueryEscape(evil)), pgx.RowToStructByName[listRow], "t1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{10}, ids(got.Items)); diff != "" {
		t.Errorf("eq matches the row holding the text (-want +got):\n%s", diff)
	}
	var n int
	if err := s.pool.QueryRow(t.Context(), "SELECT count(*) FROM list_rows").Scan(&n); err != nil || n != 2*len(listFixture()) {
		t.Errorf("list_rows has %d rows (err %v), want %d", n, err, 2*len(listFixture()))
	}
}

// TestListingScope shows that the scope is ANDed into every listing, that
// its arguments come first, and that a listing cannot go without one.
func TestListingScope(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	ctx := t.Context()
	table := listTestTable()
	lq := parseListQuery(t, "startswith(name)=s&sort=-amount&page_size=100")
	for tenant, want := range map[string][]int64{"t1": {1, 2, 7, 8}, "t2": {101, 102, 107, 108}, "t3": {}} {
		got, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], tenant)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, ids(got.Items)); diff != "" || got.Total != len(want) {
			t.Errorf("tenant %s: total %d, ids (-want +got):\n%s", tenant, got.Total, diff)
		}
	}

	// An OR among the filters cannot widen the scope: the scope is
	// parenthesised, and so is every condition.
	twoArgs := listTestTable()
	twoArgs.Scope = "l.tenant = $1 OR l.tenant = $2"
	gotSQL, gotArgs := filterSQL(t, twoArgs, parseListQuery(t, "eq(name)=smith"), "t1", "t2")
	if wantSQL := `((l.name)::text COLLATE "C") = $3::text`; gotSQL != wantSQL {
		t.Errorf("with two scope arguments the filters start at $3:\n got %s\nwant %s", gotSQL, wantSQL)
	}
	if diff := cmp.Diff([]any{"smith"}, gotArgs); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	got, err := listPage(ctx, s.pool, twoArgs, parseListQuery(t, "eq(name)=smith"), pgx.RowToStructByName[listRow], "t1", "t2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{2, 102}, ids(got.Items)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}

	unscoped := listTestTable()
	unscoped.Scope = ""
	_, err = listPage(ctx, s.pool, unscoped, lq, pgx.RowToStructByName[listRow])
	if !errors.Is(err, &msgkit.Error{Kind: msgkit.Internal, Code: msgkit.CodeInvalidListSpec}) {
		t.Errorf("without a scope: got %v, want an Internal %s error", err, msgkit.CodeInvalidListSpec)
	}
}

// TestListingPaging shows pages, the total on every page, a page past the
// end, and the store's order breaking ties.
func TestListingPaging(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	table := listTestTable()
	tests := []struct {
		query     string
		wantIDs   []int64
		wantTotal int
	}{
		{"sort=active&page_size=3", []int64{2, 4, 8}, 13},
		{"sort=active&page_size=3&page_number=2", []int64{10, 12, 1}, 13},
		{"sort=-active&page_size=4", []int64{6, 1, 3, 5}, 13},
		{"sort=-day,name&page_size=4&page_number=2", []int64{7, 1, 13, 8}, 13},
		{"sort=-amount,name&paging=1,3", []int64{6, 5, 1}, 13},
		{"isnotnull(name)=&page_size=5&page_number=3", []int64{12, 13}, 12},
		{"isnotnull(name)=&page_size=5&page_number=4", []int64{}, 12},
		{"isnotnull(name)=&page_number=99999999", []int64{}, 12},
		{"eq(name)=nobody&page_number=2", []int64{}, 0},
		{"eq(name)=nobody", []int64{}, 0},
	}
	for _, tt := range tests {
		lq := parseListQuery(t, tt.query)
		got, err := listPage(t.Context(), s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
		if err != nil {
			t.Fatal(err)
		}
		want, err := msgkit.Apply(listFixture(), lq, listGet)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ids(want.Items), tt.wantIDs); diff != "" || want.Total != tt.wantTotal {
			t.Errorf("%s: the test expects another page than Apply's total %d (-Apply +test):\n%s", tt.query, want.Total, diff)
		}
		if diff := cmp.Diff(tt.wantIDs, ids(got.Items)); diff != "" || got.Total != tt.wantTotal {
			t.Errorf("%s: total %d, want %d; ids (-want +got):\n%s", tt.query, got.Total, tt.wantTotal, diff)
		}
		if got.Items == nil {
			t.Errorf("%s: Items is nil, want an empty slice", tt.query)
		}
	}

	// A ListQuery built in code with no page size lists everything.
	got, err := listPage(t.Context(), s.pool, table, msgkit.ListQuery{}, pgx.RowToStructByName[listRow], "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 13 || got.Total != 13 {
		t.Errorf("the zero ListQuery: %d items, total %d, want 13 and 13", len(got.Items), got.Total)
	}
}

// TestListingScan shows that the scan function sees exactly the columns
// of Select, however it reads them.
func TestListingScan(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	ctx := t.Context()
	table := listTestTable()
	lq := parseListQuery(t, "in(amount)=10.5,-1&sort=amount")

	got, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]listRow{listFixture()[2], listFixture()[0]}, got.Items); diff != "" {
		t.Errorf("RowToStructByName (-want +got):\n%s", diff)
	}

	byValues := func(row pgx.CollectableRow) (string, error) {
		vals, err := row.Values()
		if err != nil {
			return "", err
		}
		names := make([]string, len(row.FieldDescriptions()))
		for i, fd := range row.FieldDescriptions() {
			names[i] = fd.Name
		}
		return strings.Join(names, ",") + "=" + strconv.Itoa(len(vals)) + "," + strconv.Itoa(len(row.RawValues())), nil
	}
	names, err := listPage(ctx, s.pool, table, lq, byValues, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"id,name,amount,day,at,active=6,6", "id,name,amount,day,at,active=6,6"}; !slices.Equal(names.Items, want) {
		t.Errorf("Values and FieldDescriptions: got %q, want %q", names.Items, want)
	}

	scanner := func(row pgx.CollectableRow) (idScanner, error) {
		var sc idScanner
		return sc, row.Scan(&sc)
	}
	scanned, err := listPage(ctx, s.pool, table, lq, scanner, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]idScanner{{3, 6}, {1, 6}}, scanned.Items); diff != "" {
		t.Errorf("a pgx.RowScanner (-want +got):\n%s", diff)
	}
}

// idScanner is a pgx.RowScanner that keeps the id and the column count.
type idScanner struct{ ID, Columns int64 }

func (s *idScanner) ScanRow(rows pgx.Rows) error {
	s.Columns = int64(len(rows.FieldDescriptions()))
	dest := make([]any, s.Columns)
	dest[0] = &s.ID
	return rows.Scan(dest...)
}

// TestListingErrors shows that a query the table cannot run is the same
// Internal error Apply gives, and a database failure is a storage error.
func TestListingErrors(t *testing.T) {
	t.Parallel()
	s := newListStore(t)
	ctx := t.Context()
	table := listTestTable()
	invalidSpec := &msgkit.Error{Kind: msgkit.Internal, Code: msgkit.CodeInvalidListSpec}
	str := msgkit.StringValue("x")
	for name, lq := range map[string]msgkit.ListQuery{
		"unknown filter attribute": {Filters: []msgkit.Filter{{Op: msgkit.OpEq, Attr: "nickname", Values: []msgkit.Value{str}}}},
		"unknown sort attribute":   {Sort: []msgkit.SortKey{{Attr: "nickname"}}},
		"unknown operator":         {Filters: []msgkit.Filter{{Op: "like", Attr: "name", Values: []msgkit.Value{str}}}},
		"too few values":           {Filters: []msgkit.Filter{{Op: msgkit.OpBetween, Attr: "name", Values: []msgkit.Value{str}}}},
		"no values":                {Filters: []msgkit.Filter{{Op: msgkit.OpIn, Attr: "name"}}},
		"negative page":            {PageNumber: -1, PageSize: 10},
	} {
		_, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
		if !errors.Is(err, invalidSpec) {
			t.Errorf("%s: got %v, want an Internal %s error", name, err, msgkit.CodeInvalidListSpec)
		}
		// Apply says the same, given a row to ask about the attribute.
		_, applyErr := msgkit.Apply(listFixture()[:1], lq, listGet)
		if !errors.Is(applyErr, invalidSpec) {
			t.Errorf("%s: Apply gives %v", name, applyErr)
		}
	}
	for name, lq := range map[string]msgkit.ListQuery{
		"value of another type":            {Filters: []msgkit.Filter{{Op: msgkit.OpEq, Attr: "amount", Values: []msgkit.Value{str}}}},
		"pattern on a non-string":          {Filters: []msgkit.Filter{{Op: msgkit.OpContains, Attr: "amount", Values: []msgkit.Value{msgkit.IntValue(1)}}}},
		"null value (the parser has none)": {Filters: []msgkit.Filter{{Op: msgkit.OpEq, Attr: "name", Values: []msgkit.Value{msgkit.Null()}}}},
	} {
		if _, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], "t1"); !errors.Is(err, invalidSpec) {
			t.Errorf("%s: got %v, want an Internal %s error", name, err, msgkit.CodeInvalidListSpec)
		}
	}

	storage := &msgkit.Error{Kind: msgkit.Internal, Code: CodeStorage}
	missing := listTestTable()
	missing.From = "no_such_table l"
	if _, err := listPage(ctx, s.pool, missing, msgkit.ListQuery{}, pgx.RowToStructByName[listRow], "t1"); !errors.Is(err, storage) {
		t.Errorf("missing table: got %v, want an Internal %s error", err, CodeStorage)
	}
	type wrongRow struct{ Nickname string }
	if _, err := listPage(ctx, s.pool, table, msgkit.ListQuery{}, pgx.RowToStructByName[wrongRow], "t1"); !errors.Is(err, storage) {
		t.Errorf("a row type that does not fit: got %v, want an Internal %s error", err, CodeStorage)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := listPage(cancelled, s.pool, table, msgkit.ListQuery{}, pgx.RowToStructByName[listRow], "t1"); !errors.Is(err, storage) {
		t.Errorf("cancelled context: got %v, want an Internal %s error", err, CodeStorage)
	}
	// The count of a page past the end fails like the page.
	lq := parseListQuery(t, "page_number=100")
	if _, err := listPage(ctx, failingCount{s.pool}, table, lq, pgx.RowToStructByName[listRow], "t1"); !errors.Is(err, storage) {
		t.Errorf("failing count: got %v, want an Internal %s error", err, CodeStorage)
	}
}

// failingCount is a listQuerier whose single-row queries fail.
type failingCount struct{ listQuerier }

func (f failingCount) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return f.listQuerier.QueryRow(ctx, "SELECT 1/0")
}

func TestListTableCheckSpec(t *testing.T) {
	t.Parallel()
	table := listTestTable()
	if err := table.checkSpec(listTestSpec()); err != nil {
		t.Errorf("the table fits its spec: %v", err)
	}
	invalidSpec := &msgkit.Error{Kind: msgkit.Internal, Code: msgkit.CodeInvalidListSpec}
	for name, spec := range map[string]msgkit.ListSpec{
		"missing filter": {Filter: map[string]msgkit.AttrType{"nickname": msgkit.AttrString}},
		"other type":     {Filter: map[string]msgkit.AttrType{"amount": msgkit.AttrString}},
		"missing sort":   {Sort: []string{"nickname"}},
	} {
		if err := table.checkSpec(spec); !errors.Is(err, invalidSpec) {
			t.Errorf("%s: got %v, want an Internal %s error", name, err, msgkit.CodeInvalidListSpec)
		}
	}
}

// BenchmarkListing lists a page of 50 of a tenant's 10,000 rows (beside
// another tenant's 10,000) with a case-insensitive contains, a range and a
// two-key sort.
func BenchmarkListing(b *testing.B) {
	s := newTestDB(b)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE list_rows (
			tenant text NOT NULL, id bigint PRIMARY KEY,
			name text, amount numeric, day date, at timestamptz, active boolean)`,
		`CREATE INDEX ON list_rows (tenant)`,
		`INSERT INTO list_rows
			SELECT CASE WHEN i <= 10000 THEN 't1' ELSE 't2' END, i,
				(ARRAY['Anna', 'Johan', 'Marta', 'Ivan', 'Zoë', 'Ståle', 'Kelvin', 'Straße', 'OBRIAN'])[i % 9 + 1] || ' ' || i,
				(i * 37 % 1000) / 4.0, DATE '2026-01-01' + i % 365,
				TIMESTAMPTZ '2026-01-01 00:00:00Z' + i * INTERVAL '1 minute', i % 3 = 0
			FROM generate_series(1, 20000) i`,
		`ANALYZE list_rows`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	table := listTestTable()
	lq := parseListQuery(b, "contains(name)=AN&gte(amount)=100&sort=-amount,name&page_number=3&page_size=50")
	b.ReportAllocs()
	for b.Loop() {
		page, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Items) != 50 || page.Total < 1000 {
			b.Fatalf("got %d items of %d", len(page.Items), page.Total)
		}
	}
}

// TestListingFoldsEveryLetter checks the pattern operators' case folding
// on every letter that has another case, not only those the other tests
// draw: for each such rune r and each rune c of its folding orbit or its
// upper, lower and title case, PostgreSQL finds r's pattern in c exactly
// when strings.EqualFold(c, r).
func TestListingFoldsEveryLetter(t *testing.T) {
	t.Parallel()
	s := newTestDB(t)
	var texts, patterns []string
	var want []bool
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.SimpleFold(r) == r && unicode.ToUpper(r) == r && unicode.ToLower(r) == r {
			continue
		}
		cands := []rune{unicode.ToUpper(r), unicode.ToLower(r), unicode.ToTitle(r)}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			cands = append(cands, f)
		}
		for _, c := range cands {
			texts = append(texts, string(c))
			patterns = append(patterns, foldRegexp(msgkit.OpContains, string(r)))
			want = append(want, strings.EqualFold(string(c), string(r)))
		}
	}
	rows, err := s.pool.Query(t.Context(), `SELECT i, c, re, c COLLATE "C" ~ re FROM unnest($1::text[], $2::text[], $3::boolean[])
		WITH ORDINALITY AS u(c, re, want, i) WHERE (c COLLATE "C" ~ re) <> want`, texts, patterns, want)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			i       int
			c, re   string
			matched bool
		)
		if err := rows.Scan(&i, &c, &re, &matched); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%q ~ %q is %v in PostgreSQL, but strings.EqualFold says %v", c, re, matched, !matched)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(texts) < 5000 {
		t.Errorf("only %d pairs checked", len(texts))
	}
	t.Logf("%d pairs checked", len(texts))
}

// TestListingShownTime: a date-time compared at the precision a listing
// shows (msgkit.ListSpec.TimePrecision) selects what msgkit.Apply selects
// for every operator and every value around the edges of a shown second,
// and compares the column itself, so an index on it serves the filter.
func TestListingShownTime(t *testing.T) {
	t.Parallel()
	s := newTestDB(t)
	ctx := t.Context()
	if _, err := s.pool.Exec(ctx, `CREATE TABLE list_times (tenant text NOT NULL, id bigint PRIMARY KEY, at timestamptz)`); err != nil {
		t.Fatal(err)
	}
	var rows []listRow
	for i, at := range []string{"2026-01-31T09:29:59.999999Z", "2026-01-31T09:30:00Z", "2026-01-31T09:30:00.000001Z",
		"2026-01-31T09:30:00.5Z", "2026-01-31T09:30:00.999999Z", "2026-01-31T09:30:01Z", "2026-01-31T09:30:01.25Z", ""} {
		r := listRow{ID: int64(i + 1)}
		if at != "" {
			r.At = instant(at)
		}
		rows = append(rows, r)
		if _, err := s.pool.Exec(ctx, `INSERT INTO list_times VALUES ('t1', $1, $2)`, r.ID, r.At); err != nil {
			t.Fatal(err)
		}
	}
	table := &listTable{From: "list_times l", Select: "l.id, NULL::text AS name, NULL::numeric AS amount, NULL::date AS day, l.at, NULL::boolean AS active",
		Scope: "l.tenant = $1", Attrs: map[string]listAttr{"at": {"l.at", msgkit.AttrDateTime}}, Order: "l.id"}
	spec := msgkit.ListSpec{Filter: map[string]msgkit.AttrType{"at": msgkit.AttrDateTime}, TimePrecision: time.Second}
	values := []string{"2026-01-31T09:30:00Z", "2026-01-31T09:30:00.5Z", "2026-01-31T09:30:01Z", "2026-01-31T09:29:59.9999995Z", "2026-01-31T10:30:00.25 01:00"}
	var queries []string
	for _, op := range msgkit.Ops() {
		switch op {
		case msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain:
			continue
		case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
			queries = append(queries, string(op)+"(at)=")
			continue
		}
		for i, v := range values {
			switch op {
			case msgkit.OpIn, msgkit.OpNotIn:
				queries = append(queries, string(op)+"(at)="+v+","+values[(i+1)%len(values)])
			case msgkit.OpBetween, msgkit.OpNotBetween:
				for _, hi := range values {
					queries = append(queries, string(op)+"(at)="+v+","+hi)
				}
			default:
				queries = append(queries, string(op)+"(at)="+v)
			}
		}
	}
	for _, q := range queries {
		v, err := url.ParseQuery(q + "&page_size=100")
		if err != nil {
			t.Fatal(err)
		}
		lq, err := msgkit.ParseListQuery(v, spec)
		if err != nil {
			continue // a between the wrong way round
		}
		want, err := msgkit.Apply(rows, lq, listGet)
		if err != nil {
			t.Fatal(err)
		}
		got, err := listPage(ctx, s.pool, table, lq, pgx.RowToStructByName[listRow], "t1")
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if diff := cmp.Diff(ids(want.Items), ids(got.Items)); diff != "" || got.Total != want.Total {
			sql, args := filterSQL(t, table, lq, "t1")
			t.Errorf("%s: %s %v: ids (-Apply +SQL):\n%s", q, sql, args, diff)
		}
	}

	// The SQL compares the column with whole seconds.
	tm := func(s string) time.Time { return *instant(s) }
	for _, tt := range []struct {
		query, sql string
		args       []any
	}{
		{"gt(at)=2026-01-31T09:30:00Z", "(l.at) >= $2::timestamptz", []any{tm("2026-01-31T09:30:01Z")}},
		{"gte(at)=2026-01-31T09:30:00.5Z", "(l.at) >= $2::timestamptz", []any{tm("2026-01-31T09:30:01Z")}},
		{"lt(at)=2026-01-31T09:30:00.5Z", "(l.at) < $2::timestamptz", []any{tm("2026-01-31T09:30:01Z")}},
		{"lte(at)=2026-01-31T09:30:00Z", "(l.at) < $2::timestamptz", []any{tm("2026-01-31T09:30:01Z")}},
		{"eq(at)=2026-01-31T09:30:00Z", "(((l.at) >= $2::timestamptz AND (l.at) < $3::timestamptz))", []any{tm("2026-01-31T09:30:00Z"), tm("2026-01-31T09:30:01Z")}},
		{"eq(at)=2026-01-31T09:30:00.5Z", "FALSE", nil},
		{"neq(at)=2026-01-31T09:30:00Z", "((l.at) IS NOT NULL AND NOT (((l.at) >= $2::timestamptz AND (l.at) < $3::timestamptz)))",
			[]any{tm("2026-01-31T09:30:00Z"), tm("2026-01-31T09:30:01Z")}},
		{"between(at)=2026-01-31T09:29:59.5Z,2026-01-31T09:30:00Z", "((l.at) >= $2::timestamptz AND (l.at) < $3::timestamptz)",
			[]any{tm("2026-01-31T09:30:00Z"), tm("2026-01-31T09:30:01Z")}},
	} {
		v, _ := url.ParseQuery(tt.query)
		lq, err := msgkit.ParseListQuery(v, spec)
		if err != nil {
			t.Fatal(err)
		}
		sql, args := filterSQL(t, table, lq, "t1")
		if sql != tt.sql || !cmp.Equal(args, tt.args, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })) {
			t.Errorf("%s:\n got %s %v\nwant %s %v", tt.query, sql, args, tt.sql, tt.args)
		}
	}
	lq := msgkit.ListQuery{Filters: []msgkit.Filter{{Op: msgkit.OpGt, Attr: "at", Values: []msgkit.Value{msgkit.TimeValue(tm("2026-01-31T09:30:00Z"))},
		Precision: time.Nanosecond}}}
	if _, err := table.statement(lq, []any{"t1"}); msgkit.CodeOf(err) != msgkit.CodeInvalidListSpec {
		t.Errorf("a precision finer than timestamptz: %v", err)
	}
}

// A listing joins a table only when the query reads an attribute of it,
// so that a query over the listed table's own columns keeps its
// index-only scan.
func TestListingJoinsWhatItReads(t *testing.T) {
	tbl := listTable{From: "a_t a", Select: "a.id", Scope: "TRUE", Order: "a.id",
		Joins: []listJoin{{"b", "LEFT JOIN b_t b ON b.id = a.b_id"}, {"bb", "LEFT JOIN bb_t bb ON bb.id = a.bb_id"}},
		Attrs: map[string]listAttr{
			"name":  {"a.name", msgkit.AttrString},
			"bName": {"b.name", msgkit.AttrString},
			"both":  {"coalesce(bb.name, b.name)", msgkit.AttrString},
			"sub":   {"a.sub_b.x", msgkit.AttrString}, // names sub_b, not b
		}}
	eq := func(attr string) msgkit.Filter {
		return msgkit.Filter{Attr: attr, Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("x")}}
	}
	for _, tt := range []struct {
		name string
		q    msgkit.ListQuery
		want []string
	}{
		{"own columns", msgkit.ListQuery{Filters: []msgkit.Filter{eq("name"), eq("sub")}}, nil},
		{"a filter", msgkit.ListQuery{Filters: []msgkit.Filter{eq("bName")}}, []string{"b_t"}},
		{"a sort", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "both"}}}, []string{"b_t", "bb_t"}},
		{"a search", msgkit.ListQuery{Search: msgkit.Search{Text: "x", Attrs: []string{"name", "bName"}}}, []string{"b_t"}},
	} {
		st, err := tbl.statement(tt.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"b_t", "bb_t"} {
			if got, want := strings.Contains(st.page, " "+table+" "), slices.Contains(tt.want, table); got != want || strings.Contains(st.count, " "+table+" ") != want {
				t.Errorf("%s: joins %s %v, want %v: %s", tt.name, table, got, want, st.page)
			}
		}
	}
}
