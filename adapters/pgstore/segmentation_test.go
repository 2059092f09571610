package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

const (
	segOptA = "6f1c3a2e-8b1d-4c3e-9f0a-1b2c3d4e5f60"
	segOptB = "0a9b8c7d-6e5f-4a3b-8c1d-2e3f4a5b6c7d"
	segOptC = "11111111-2222-4333-8444-555555555555"
)

// segTextFields are the text, gender and mobile fields the test table has
// a folded column for: every standard one and column_1..column_3. Other
// custom columns are undefined, so absent from every contact.
func segTextFields() []segmentation.Field {
	var fs []segmentation.Field
	for _, f := range segmentation.Fields() {
		switch f.Kind() {
		case segmentation.KindText, segmentation.KindGender, segmentation.KindMobile:
			if f.Column() <= 3 {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// segTestSchema is the segSchema of the test table contacts, whose
// columns are named as the fields, and of its memberships. Its
// expressions qualify columns by the table's name, not an alias, so that
// segmentationIndexes can use them too.
func segTestSchema() segSchema {
	s := segSchema{
		Text:  map[segmentation.Field]string{},
		Dates: map[segmentation.Field]string{segmentation.Birthday: "contacts.birthday"},
		Membership: func(param string, status segmentation.Membership) string {
			return "EXISTS (SELECT 1 FROM members m WHERE m.contact_id = contacts.id AND m.option = ANY(" +
				param + "::uuid[]) AND m.status = " + strconv.Itoa(int(status)) + ")"
		},
	}
	for _, f := range segTextFields() {
		s.Text[f] = "contacts." + pgx.Identifier{f.String()}.Sanitize()
	}
	return s
}

// segContact is the Record of the tests: raw (unfolded) values, as a
// user gave them; the table holds them folded.
type segContact struct {
	ID     int32
	Values map[segmentation.Field]string // absent: missing or ""
	// Null says that an absent text field is stored as NULL, not ''.
	Null     map[segmentation.Field]bool
	Birthday *msgkit.Date
	Members  map[string]segmentation.Membership
}

func (c *segContact) Text(f segmentation.Field) string { return c.Values[f] }

func (c *segContact) Date(f segmentation.Field) (msgkit.Date, bool) {
	if f != segmentation.Birthday || c.Birthday == nil {
		return msgkit.Date{}, false
	}
	return *c.Birthday, true
}

func (c *segContact) Membership(option string) segmentation.Membership { return c.Members[option] }

// GoString shows a contact in rapid's report of a failing case.
func (c *segContact) GoString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{id %d", c.ID)
	for _, f := range segTextFields() {
		if v, ok := c.Values[f]; ok {
			fmt.Fprintf(&b, ", %s %q", f, v)
			if v == "" && c.Null[f] {
				b.WriteString("(NULL)")
			}
		}
	}
	if c.Birthday != nil {
		fmt.Fprintf(&b, ", birthday %s", c.Birthday)
	}
	for _, o := range []string{segOptA, segOptB, segOptC} {
		if m, ok := c.Members[o]; ok {
			fmt.Fprintf(&b, ", %s…:%d", o[:4], m)
		}
	}
	return b.String() + "}"
}

// segDB is a connection to a fresh schema with the test tables.
type segDB struct {
	conn   *pgx.Conn
	schema segSchema
	cols   []string // the contacts columns CopyFrom writes
}

func newSegDB(t testing.TB) *segDB {
	t.Helper()
	dsn, schema := newTestSchema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("%s is set, so the database must be reachable: %v", envDSN, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) }) // before the schema is dropped
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+ident+"; SET search_path TO "+ident); err != nil {
		t.Fatal(err)
	}
	// Some columns use a non-C collation, where one exists, to show the
	// compiled SQL does not depend on a column's collation.
	var icu bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')`).Scan(&icu); err != nil {
		t.Fatal(err)
	}
	db := &segDB{conn: conn, schema: segTestSchema(), cols: []string{"id"}}
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE contacts (id int PRIMARY KEY")
	for _, f := range segTextFields() {
		coll := ` COLLATE "C"`
		if icu && (f == segmentation.City || f == segmentation.ColumnField(2) || f == segmentation.LastName) {
			coll = ` COLLATE "und-x-icu"`
		}
		ddl.WriteString(", " + pgx.Identifier{f.String()}.Sanitize() + " text" + coll)
		db.cols = append(db.cols, f.String())
	}
	ddl.WriteString(", birthday date);\n")
	db.cols = append(db.cols, "birthday")
	ddl.WriteString("CREATE TABLE members (contact_id int NOT NULL, option uuid NOT NULL, status smallint NOT NULL, PRIMARY KEY (contact_id, option))")
	if _, err := conn.Exec(ctx, ddl.String()); err != nil {
		t.Fatal(err)
	}
	return db
}

// segTB is what the helpers need of a *testing.T and a *rapid.T.
type segTB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// load replaces the table's contacts with cs, in one batch each table.
func (db *segDB) load(t segTB, cs []*segContact) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.conn.Exec(ctx, "DELETE FROM members; DELETE FROM contacts"); err != nil {
		t.Fatal(err)
	}
	var rows, members [][]any
	for _, c := range cs {
		row := []any{c.ID}
		for _, f := range segTextFields() {
			v, ok := c.Values[f]
			switch {
			case !ok, v == "" && c.Null[f]:
				row = append(row, nil)
			default:
				row = append(row, segmentation.Fold(v)) // the shadow column
			}
		}
		if c.Birthday != nil {
			row = append(row, time.Date(c.Birthday.Year, c.Birthday.Month, c.Birthday.Day, 0, 0, 0, 0, time.UTC))
		} else {
			row = append(row, nil)
		}
		rows = append(rows, row)
		for o, m := range c.Members {
			members = append(members, []any{c.ID, [16]byte(uuid.MustParse(o)), int16(m)})
		}
	}
	if _, err := db.conn.CopyFrom(ctx, pgx.Identifier{"contacts"}, db.cols, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.conn.CopyFrom(ctx, pgx.Identifier{"members"}, []string{"contact_id", "option", "status"}, pgx.CopyFromRows(members)); err != nil {
		t.Fatal(err)
	}
}

// selectIDs compiles q and returns the ids PostgreSQL selects, with the
// SQL and arguments for a failure's report. A first argument is bound
// before the query's, as a tenant condition would be, to check the
// numbering.
func (db *segDB) selectIDs(t segTB, q *segmentation.Query, today msgkit.Date) ([]int32, string, []any) {
	t.Helper()
	args := []any{int32(-1)}
	where, err := compileSegmentation(q, db.schema, today, &args)
	if err != nil {
		t.Fatalf("compileSegmentation: %v", err)
	}
	sql := "SELECT id FROM contacts WHERE id <> $1 AND " + where + " ORDER BY id"
	rows, err := db.conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	if ids == nil {
		ids = []int32{}
	}
	return ids, sql, args
}

// matchIDs is what the in-memory Matcher selects.
func matchIDs(q *segmentation.Query, today msgkit.Date, cs []*segContact) []int32 {
	m := segmentation.Compile(q, today)
	ids := []int32{}
	for _, c := range cs {
		if m.Match(c) {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func segDate(s string) *msgkit.Date {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return &d
}

// JSON builders for queries.
type segRule map[string]any

func sr(field, cond string, value any) segRule {
	r := segRule{"field": field, "condition": cond}
	if value != nil {
		r["value"] = value
	}
	return r
}

type segGroup struct {
	op    string // the join; "" for the first group
	any   bool
	rules []segRule
}

func segQueryJSON(groups ...segGroup) string {
	var gs []any
	for _, g := range groups {
		var rules []any
		for _, r := range g.rules {
			if g.any {
				r = withKey(r, "operator", "OR")
			}
			rules = append(rules, r)
		}
		m := map[string]any{"rules": rules}
		if g.op != "" {
			m["operator"] = g.op
		}
		gs = append(gs, m)
	}
	b, err := json.Marshal(map[string]any{"segmentation": gs})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// withKey is a copy of r with k set to v.
func withKey(r segRule, k string, v any) segRule {
	c := segRule{}
	for kk, vv := range r {
		c[kk] = vv
	}
	c[k] = v
	return c
}

func one(r segRule) string { return segQueryJSON(segGroup{rules: []segRule{r}}) }

// segPeople are the contacts of the table tests, by name.
func segPeople() map[string]*segContact {
	F := func(kv ...any) map[segmentation.Field]string {
		m := map[segmentation.Field]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(segmentation.Field)] = kv[i+1].(string)
		}
		return m
	}
	col := segmentation.ColumnField
	S, U := segmentation.Subscribed, segmentation.Unsubscribed
	return map[string]*segContact{
		"anna": {ID: 1, Values: F(segmentation.FirstName, "Anna", segmentation.Email, "Anna.Smith@Example.COM",
			segmentation.Gender, "Female", segmentation.Mobile, "+4915112345678", segmentation.City, "Zürich",
			col(1), "Gold", segmentation.LastName, ""),
			Birthday: segDate("1990-01-02"), Members: map[string]segmentation.Membership{segOptA: S}},
		"boris": {ID: 2, Values: F(segmentation.FirstName, "БОРИС", segmentation.Email, "boris_100%@mail.ru",
			segmentation.Gender, "male", segmentation.Mobile, "+79161234567", segmentation.City, "ZÜRICH", col(2), `back\slash`),
			Birthday: segDate("2000-02-29"), Members: map[string]segmentation.Membership{segOptA: U, segOptB: S}},
		"empty": {ID: 3, Values: F(segmentation.FirstName, "", segmentation.Email, "", segmentation.City, "", col(1), "", segmentation.Gender, ""),
			Null: map[segmentation.Field]bool{segmentation.Email: true, segmentation.Gender: true}},
		"sisyphus": {ID: 4, Values: F(segmentation.FirstName, "Σίσυφος", segmentation.Email, "x@y.de", segmentation.Gender, "MALE",
			segmentation.Mobile, "+33612345678", segmentation.LastName, "O'Brien", segmentation.City, "İstanbul", col(3), "100% _done_"),
			Birthday: segDate("1985-12-31"), Members: map[string]segmentation.Membership{segOptA: segmentation.NotMember}},
		"percent": {ID: 5, Values: F(segmentation.FirstName, "a%b", segmentation.LastName, `a\_b`, segmentation.Email, "A_B@x.org",
			segmentation.City, "ISTANBUL", segmentation.Gender, "other", col(2), "STRASSE", col(3), "straße"),
			Birthday: segDate("2004-02-28"), Members: map[string]segmentation.Membership{segOptB: U}},
		"emoji": {ID: 6, Values: F(segmentation.FirstName, "😀x", segmentation.LastName, "'", segmentation.Email, `"quoted"@x.org`,
			segmentation.City, "istanbul", col(1), "ǅ", segmentation.Mobile, "+14155552671"),
			Birthday: segDate("1999-03-01"), Members: map[string]segmentation.Membership{segOptC: S}},
		"kelvin": {ID: 7, Values: F(segmentation.FirstName, "\u212Aelvin", segmentation.LastName, "ſam", segmentation.Email, "user12@Example.com"),
			Birthday: segDate("1970-01-01")},
	}
}

// Each condition on each kind of field, each join, against contacts with
// the hard cases; PostgreSQL and Match must both select exactly want.
func TestSegmentationConditions(t *testing.T) {
	t.Parallel()
	db := newSegDB(t)
	people := segPeople()
	var cs []*segContact
	names := map[int32]string{}
	for name, c := range people {
		cs = append(cs, c)
		names[c.ID] = name
	}
	db.load(t, cs)
	all := "anna boris empty sisyphus percent emoji kelvin"
	dec28 := "2026-12-28"
	tests := []struct {
		query string
		today string // dec28 when empty
		want  string // names, any order
	}{
		{query: one(sr("first_name", "eq", "anna")), want: "anna"},
		{query: one(sr("first_name", "eq", "борис")), want: "boris"},
		{query: one(sr("first_name", "eq", "ΣΊΣΥΦΟΣ")), want: "sisyphus"},
		{query: one(sr("first_name", "neq", "anna")), want: "boris empty sisyphus percent emoji kelvin"},
		{query: one(sr("first_name", "in", "ANNA, борис")), want: "anna boris"},
		{query: one(sr("first_name", "in", []string{"anna", "nobody"})), want: "anna"},
		{query: one(sr("first_name", "notin", []string{"anna"})), want: "boris empty sisyphus percent emoji kelvin"},
		{query: one(sr("first_name", "isnull", nil)), want: "empty"},
		{query: one(sr("first_name", "isnotnull", "")), want: "anna boris sisyphus percent emoji kelvin"},
		{query: one(sr("first_name", "startswith", "k")), want: "kelvin"}, // the Kelvin sign folds to k
		{query: one(sr("first_name", "contains", "%")), want: "percent"},
		{query: one(sr("first_name", "contains", "_")), want: ""},
		{query: one(sr("first_name", "startswith", "a_")), want: ""}, // _ is no wildcard
		{query: one(sr("first_name", "startswith", "A%")), want: "percent"},
		{query: one(sr("first_name", "endswith", "X")), want: "emoji"},
		{query: one(sr("first_name", "gt", "b")), want: "boris sisyphus emoji kelvin"},
		{query: one(sr("first_name", "lt", "b")), want: "anna percent"}, // '' is absent, not less
		{query: one(sr("first_name", "lte", "anna")), want: "anna percent"},
		{query: one(sr("first_name", "gte", "σίσυφος")), want: "boris sisyphus emoji"}, // Greek < Cyrillic < emoji
		{query: one(sr("first_name", "gte", "a")), want: "anna boris sisyphus percent emoji kelvin"},
		{query: one(sr("last_name", "isnull", nil)), want: "anna boris empty"},
		{query: one(sr("last_name", "eq", "o'brien")), want: "sisyphus"},
		{query: one(sr("last_name", "eq", "'")), want: "emoji"},
		{query: one(sr("last_name", "eq", `A\_B`)), want: "percent"},
		{query: one(sr("last_name", "contains", `\`)), want: "percent"},
		{query: one(sr("last_name", "contains", `\_`)), want: "percent"},
		{query: one(sr("last_name", "endswith", `\_b`)), want: "percent"},
		{query: one(sr("last_name", "eq", "SAM")), want: "kelvin"}, // ſ folds to s
		{query: one(sr("last_name", "lt", "b")), want: "emoji percent"},
		{query: one(sr("email", "contains", "@example.com")), want: "anna kelvin"},
		{query: one(sr("email", "contains", "100%")), want: "boris"},
		{query: one(sr("email", "contains", "_")), want: "boris percent"},
		{query: one(sr("email", "contains", "%")), want: "boris"},
		{query: one(sr("email", "contains", `"`)), want: "emoji"},
		{query: one(sr("email", "startswith", "ANNA.")), want: "anna"},
		{query: one(sr("email", "endswith", ".RU")), want: "boris"},
		{query: one(sr("email", "isnull", nil)), want: "empty"},
		{query: one(sr("email", "neq", "x@y.de")), want: "anna boris empty percent emoji kelvin"},
		{query: one(sr("email", "notin", []string{"x@y.de", "A_B@X.ORG"})), want: "anna boris empty emoji kelvin"},
		{query: one(sr("city", "eq", "zürich")), want: "anna boris"},
		{query: one(sr("city", "eq", "istanbul")), want: "percent emoji"}, // İ is not i, as for strings.EqualFold
		{query: one(sr("city", "eq", "İSTANBUL")), want: "sisyphus"},
		{query: one(sr("city", "gt", "istanbul")), want: "anna boris sisyphus"}, // İ (U+0130) sorts after i
		{query: one(sr("city", "isnull", nil)), want: "empty kelvin"},
		{query: one(sr("column_1", "eq", "GOLD")), want: "anna"},
		{query: one(sr("column_1", "eq", "ǆ")), want: "emoji"},
		{query: one(sr("column_1", "isnull", nil)), want: "boris empty sisyphus percent kelvin"},
		{query: one(sr("column_2", "eq", "strasse")), want: "percent"},
		{query: one(sr("column_2", "endswith", `\SLASH`)), want: "boris"},
		{query: one(sr("column_3", "eq", "strasse")), want: ""}, // ß is not ss
		{query: one(sr("column_3", "eq", "STRAßE")), want: "percent"},
		{query: one(sr("column_3", "contains", "% _")), want: "sisyphus"},
		{query: one(sr("column_7", "isnull", nil)), want: all}, // undefined: absent
		{query: one(sr("column_7", "eq", "x")), want: ""},
		{query: one(sr("column_7", "neq", "x")), want: all},
		{query: one(sr("column_7", "lt", "x")), want: ""},
		{query: one(sr("gender", "eq", "female")), want: "anna"},
		{query: one(sr("gender", "in", "male,female")), want: "anna boris sisyphus"},
		{query: one(sr("gender", "neq", "Male")), want: "anna empty percent emoji kelvin"},
		{query: one(sr("gender", "notin", []string{"MALE", "female"})), want: "empty percent emoji kelvin"},
		{query: one(sr("gender", "isnull", nil)), want: "empty emoji kelvin"},
		{query: one(sr("mobile", "eq", "0049 151 1234-5678")), want: "anna"},
		{query: one(sr("mobile", "in", []string{"+7 916 123 45 67", "33612345678"})), want: "boris sisyphus"},
		{query: one(sr("mobile", "startswith", "49")), want: "anna"},
		{query: one(sr("mobile", "startswith", "+3")), want: "sisyphus"},
		{query: one(sr("mobile", "endswith", "45 678")), want: "anna sisyphus"},
		{query: one(sr("mobile", "contains", "1234")), want: "anna boris sisyphus"},
		{query: one(sr("mobile", "gt", "+4915112345678")), want: "boris"},
		{query: one(sr("mobile", "lt", "+4915112345678")), want: "sisyphus emoji"},
		{query: one(sr("mobile", "isnull", nil)), want: "empty percent kelvin"},
		{query: one(sr("birthday", "eq", "1990-01-02")), want: "anna"},
		{query: one(sr("birthday", "gt", "1990-01-02")), want: "boris percent emoji"},
		{query: one(sr("birthday", "gte", "1990-01-02")), want: "anna boris percent emoji"},
		{query: one(sr("birthday", "lt", "1990-01-02")), want: "sisyphus kelvin"},
		{query: one(sr("birthday", "lte", "1990-01-02")), want: "anna sisyphus kelvin"},
		{query: one(sr("birthday", "neq", "1990-01-02")), want: "boris empty sisyphus percent emoji kelvin"},
		{query: one(sr("birthday", "in", "1985-12-31,2000-02-29")), want: "boris sisyphus"},
		{query: one(sr("birthday", "notin", "1985-12-31")), want: "anna boris empty percent emoji kelvin"},
		{query: one(sr("birthday", "isnull", nil)), want: "empty"},
		{query: one(sr("birthday", "isnotnull", nil)), want: "anna boris sisyphus percent emoji kelvin"},
		{query: one(sr("birthday", "gt", "0001-01-01")), want: "anna boris sisyphus percent emoji kelvin"},
		// Today 2026-12-28: 31 December is 3 days on, 1 and 2 January 4
		// and 5 (the year wraps), 28 February 2027 62, which is also 29
		// February's anniversary in a common year, and 1 March 63.
		{query: one(sr("birthday", "ann_in_days", "0")), want: ""},
		{query: one(sr("birthday", "ann_in_days", "3")), want: "sisyphus"},
		{query: one(sr("birthday", "ann_in_days", 5)), want: "anna kelvin sisyphus"},
		{query: one(sr("birthday", "ann_in_days", "61")), want: "anna kelvin sisyphus"},
		{query: one(sr("birthday", "ann_in_days", "62")), want: "anna boris kelvin percent sisyphus"},
		{query: one(sr("birthday", "ann_in_days", "63")), want: "anna boris kelvin percent sisyphus emoji"},
		{query: one(sr("birthday", "ann_in_days", "366")), want: "anna boris kelvin percent sisyphus emoji"},
		{query: one(sr("birthday", "ann_in_days", "0")), today: "2028-02-28", want: "percent"}, // a leap year
		{query: one(sr("birthday", "ann_in_days", "1")), today: "2028-02-28", want: "boris percent"},
		{query: one(sr("birthday", "ann_in_days", "0")), today: "2028-02-29", want: "boris"},
		{query: one(sr("birthday", "ann_in_days", "1")), today: "2028-02-29", want: "boris emoji"},
		{query: one(sr("birthday", "ann_in_days", "0")), today: "2027-02-28", want: "boris percent"}, // a common year
		{query: one(sr("birthday", "ann_in_days", "0")), today: "2027-03-01", want: "emoji"},
		{query: one(sr("birthday", "ann_in_days", "364")), today: "2027-03-01", want: "anna emoji kelvin percent sisyphus"}, // to 2028-02-28
		{query: one(sr("birthday", "ann_in_days", "365")), today: "2027-03-01", want: "anna boris emoji kelvin percent sisyphus"},
		{query: one(sr("birthday", "ann_in_days", "0")), today: "2026-01-01", want: "kelvin"},
		{query: one(sr("birthday", "ann_in_days", "1")), today: "2026-12-31", want: "sisyphus kelvin"},
		{query: one(sr("subscription_options_in", "eq", segOptA)), want: "anna"},
		{query: one(sr("subscription_options_in", "in", []string{segOptA, segOptB})), want: "anna boris"},
		{query: one(sr("subscription_options_in", "notin", []string{segOptA, segOptB})), want: "empty sisyphus percent emoji kelvin"},
		{query: one(sr("subscription_options_in", "eq", segOptC)), want: "emoji"},
		{query: one(sr("subscription_options_out", "in", strings.ToUpper(segOptA))), want: "boris"},
		{query: one(sr("subscription_options_out", "eq", segOptB)), want: "percent"},
		{query: one(sr("subscription_options_out", "neq", segOptA)), want: "anna empty sisyphus percent emoji kelvin"},
		// Groups, strictly left to right.
		{query: segQueryJSON(segGroup{any: true, rules: []segRule{sr("city", "eq", "zürich"), sr("gender", "eq", "male")}}),
			want: "anna boris sisyphus"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich"), sr("gender", "eq", "male")}}), want: "boris"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "OR", rules: []segRule{sr("first_name", "eq", "KELVIN")}}),
			want: "anna boris kelvin"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "AND", rules: []segRule{sr("gender", "eq", "male")}}),
			want: "boris"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "AND NOT", rules: []segRule{sr("gender", "eq", "female")}}),
			want: "boris"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "OR NOT", rules: []segRule{sr("birthday", "isnotnull", nil)}}),
			want: "anna boris empty"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "OR", rules: []segRule{sr("first_name", "eq", "a%b")}},
			segGroup{op: "and not", rules: []segRule{sr("gender", "eq", "female")}}), want: "boris percent"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("city", "eq", "zürich")}}, segGroup{op: "AND NOT", rules: []segRule{sr("gender", "eq", "female")}},
			segGroup{op: "OR", rules: []segRule{sr("first_name", "eq", "kelvin")}}), want: "boris kelvin"},
		// NULL under NOT: the email of empty is NULL, its birthday too.
		{query: segQueryJSON(segGroup{rules: []segRule{sr("first_name", "isnull", nil)}}, segGroup{op: "AND NOT", rules: []segRule{sr("email", "eq", "x@y.de")}}),
			want: "empty"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("first_name", "eq", "nobody")}}, segGroup{op: "OR NOT", rules: []segRule{sr("email", "contains", "a")}}),
			want: "empty sisyphus emoji"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("gender", "isnull", nil)}}, segGroup{op: "AND NOT", rules: []segRule{sr("birthday", "lt", "1980-01-01")}}),
			want: "empty emoji"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("gender", "isnull", nil)}}, segGroup{op: "AND NOT", rules: []segRule{sr("birthday", "ann_in_days", "7")}}),
			want: "empty emoji"},
		{query: segQueryJSON(segGroup{rules: []segRule{sr("gender", "isnull", nil)}}, segGroup{op: "AND NOT", any: true, rules: []segRule{sr("city", "lt", "z"), sr("last_name", "gt", "z")}}),
			want: "empty kelvin"},
		{query: segQueryJSON(segGroup{any: true, rules: []segRule{sr("gender", "neq", "male"), sr("mobile", "isnull", nil)}}),
			want: "anna empty percent emoji kelvin"},
	}
	for _, tc := range tests {
		day := tc.today
		if day == "" {
			day = dec28
		}
		today := *segDate(day)
		q, err := segmentation.Parse([]byte(tc.query))
		if err != nil {
			t.Errorf("Parse(%s): %v", tc.query, err)
			continue
		}
		var want []int32
		for _, n := range strings.Fields(tc.want) {
			want = append(want, people[n].ID)
		}
		slices.Sort(want)
		if want == nil {
			want = []int32{}
		}
		named := func(ids []int32) string {
			var s []string
			for _, id := range ids {
				s = append(s, names[id])
			}
			return "[" + strings.Join(s, " ") + "]"
		}
		got, sql, args := db.selectIDs(t, q, today)
		if m := matchIDs(q, today, cs); !slices.Equal(m, want) {
			t.Errorf("%s (today %s): Match selects %s, want %s", tc.query, day, named(m), named(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s (today %s): PostgreSQL selects %s, want %s\n%s\n%v", tc.query, day, named(got), named(want), sql, args)
		}
	}
}

// Values never become SQL text, and the placeholders follow the
// arguments already there.
func TestSegmentationBindsValues(t *testing.T) {
	t.Parallel()
	evil := `x'); DROP TABLE contacts; --\%_`
	q, err := segmentation.Parse([]byte(segQueryJSON(
		segGroup{rules: []segRule{sr("first_name", "eq", evil), sr("last_name", "in", []string{evil, "b"}), sr("email", "contains", evil),
			sr("city", "lt", evil), sr("birthday", "eq", "1999-12-31"), sr("birthday", "ann_in_days", "7")}},
		segGroup{op: "OR NOT", any: true, rules: []segRule{sr("subscription_options_in", "eq", segOptA), sr("column_50", "startswith", evil)}})))
	if err != nil {
		t.Fatal(err)
	}
	args := []any{"tenant", 2}
	sql, err := compileSegmentation(q, segTestSchema(), *segDate("2026-12-28"), &args)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"drop", "1999", "12-31", "x'", segOptA} {
		if strings.Contains(strings.ToLower(sql), s) {
			t.Errorf("the SQL holds %q:\n%s", s, sql)
		}
	}
	// 2 before, then eq, in, contains, lt, the date, two ranges of
	// ann_in_days (28 December to 4 January) and the membership;
	// column_50 is undefined, so false, without an argument.
	var placeholders []int
	for _, m := range regexp.MustCompile(`\$(\d+)`).FindAllStringSubmatch(sql, -1) {
		n, _ := strconv.Atoi(m[1])
		placeholders = append(placeholders, n)
	}
	slices.Sort(placeholders)
	if want := []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; len(args) != 12 || !slices.Equal(slices.Compact(placeholders), want) {
		t.Errorf("args %v, placeholders %v, want %v, for\n%s", args, placeholders, want, sql)
	}
	if args[0] != "tenant" || args[1] != 2 {
		t.Errorf("the arguments before were changed: %v", args)
	}
	if got := args[4]; got != `%x'); drop table contacts; --\\\%\_%` {
		t.Errorf("contains pattern %q", got)
	}
}

// A Query that Parse could not have made is an error, and leaves the
// arguments as they were.
func TestSegmentationCompileErrors(t *testing.T) {
	t.Parallel()
	s := segTestSchema()
	bad := []segmentation.Query{
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.FirstName, Condition: segmentation.Eq}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.Gender, Condition: segmentation.Contains, Values: []string{"ma"}}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.City, Condition: segmentation.AnnInDays, Days: 3}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.Birthday, Condition: segmentation.Eq, Values: []string{"1999-02-30"}}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.Birthday, Condition: segmentation.AnnInDays, Days: 400}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.City, Condition: "like", Values: []string{"x"}}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.City, Condition: segmentation.In}}}}},
		{Groups: []segmentation.Group{{Rules: []segmentation.Rule{{Field: segmentation.City, Condition: segmentation.IsNull}}},
			{Join: 9, Rules: []segmentation.Rule{{Field: segmentation.City, Condition: segmentation.IsNull}}}}},
	}
	for i, q := range bad {
		args := []any{1}
		if sql, err := compileSegmentation(&q, s, *segDate("2026-01-01"), &args); err == nil {
			t.Errorf("query %d compiled to %s", i, sql)
		}
		if len(args) != 1 {
			t.Errorf("query %d: args %v", i, args)
		}
	}
	noMembers := s
	noMembers.Membership = nil
	q, _ := segmentation.Parse([]byte(one(sr("subscription_options_in", "eq", segOptA))))
	var args []any
	if _, err := compileSegmentation(q, noMembers, *segDate("2026-01-01"), &args); err == nil {
		t.Error("a membership rule compiled without Membership")
	}
	// Empty groups and queries mean what Match makes of them.
	empty := []struct {
		q    segmentation.Query
		want string
	}{
		{segmentation.Query{}, "false"},
		{segmentation.Query{Groups: []segmentation.Group{{}}}, "true"},
		{segmentation.Query{Groups: []segmentation.Group{{Any: true}}}, "false"},
	}
	for _, tc := range empty {
		if got, err := compileSegmentation(&tc.q, s, *segDate("2026-01-01"), &args); err != nil || got != tc.want {
			t.Errorf("%+v compiled to %q, %v; want %s", tc.q, got, err, tc.want)
		}
	}
}

// annivRanges covers exactly the keys of AnniversaryDays, merging runs
// across the ends of months, for every today of two years.
func TestSegmentationAnniversaryRanges(t *testing.T) {
	t.Parallel()
	for d := *segDate("2027-01-01"); d.Year < 2029; d = d.AddDays(1) {
		for _, n := range []int{0, 1, 7, 30, 58, 59, 60, 364, 365, 366} {
			set := segmentation.AnniversaryDays(d, n)
			ranges := annivRanges(set)
			if len(ranges) == 0 || len(ranges) > 3 {
				t.Fatalf("today %s, %d days: %v", d, n, ranges)
			}
			for m := 1; m <= 12; m++ {
				for day := 1; day <= daysOf2000[m]; day++ {
					key := int32(m*100 + day)
					in := false
					for _, r := range ranges {
						in = in || (r[0] <= key && key <= r[1])
					}
					if want := set[m]&(1<<day) != 0; in != want {
						t.Fatalf("today %s, %d days, %d: %v, want %v (%v)", d, n, key, in, want, ranges)
					}
				}
			}
		}
	}
}

// The indexes segmentationIndexes makes are the ones the compiled SQL
// can use: each rule below, planned with sequential scans off, reads its
// index.
func TestSegmentationIndexes(t *testing.T) {
	t.Parallel()
	db := newSegDB(t)
	ctx := context.Background()
	ddl, err := segmentationIndexes("contacts", db.schema, segmentation.Email, segmentation.City, segmentation.Birthday)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ddl {
		if _, err := db.conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := segmentationIndexes("contacts", db.schema, segmentation.ColumnField(9)); err == nil {
		t.Error("an index on an undefined column")
	}
	if _, err := db.conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ query, index string }{
		{one(sr("email", "eq", "Anna@Example.com")), "contacts_seg_email"},
		{one(sr("email", "in", []string{"a@b.c", "d@e.f"})), "contacts_seg_email"},
		{one(sr("email", "startswith", "anna")), "contacts_seg_email"},
		{one(sr("email", "gte", "m")), "contacts_seg_email"},
		{one(sr("city", "startswith", "zü")), "contacts_seg_city"}, // a column of another collation
		{one(sr("city", "lt", "m")), "contacts_seg_city"},
		{one(sr("birthday", "lt", "1990-01-01")), "contacts_seg_birthday"},
		{one(sr("birthday", "ann_in_days", "7")), "contacts_seg_birthday_ann"},
	}
	for _, tc := range tests {
		q, err := segmentation.Parse([]byte(tc.query))
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		where, err := compileSegmentation(q, db.schema, *segDate("2026-12-28"), &args)
		if err != nil {
			t.Fatal(err)
		}
		plan := planOf(t, db.conn, "EXPLAIN", "SELECT id FROM contacts WHERE "+where, args...)
		if !strings.Contains(plan, tc.index) {
			t.Errorf("%s does not use %s:\n%s", tc.query, tc.index, plan)
		}
	}
}

// Generators of the property test.

// segRunes are the characters text is drawn from: case pairs, LIKE's
// wildcards and escape, quotes, and characters whose folding is special.
var segRunes = []rune("aAbBsSkKiI%_\\'\" äÄöÖßẞİıΣσςбБёЁ😀\u212Aſ.@ǅǆ")

var segTexts = []string{"", "a", "A", "ab", "Ab%", "a_b", "O'Brien", `back\slash`, "Zürich", "ZÜRICH", "straße", "STRASSE",
	"ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "istanbul", "ǅ", "😀x", "борис", "БОРИС", "%", "_", `\`, "''", "\u212Aelvin"}

func genSegText() *rapid.Generator[string] {
	return rapid.OneOf(rapid.SampledFrom(segTexts), rapid.StringOfN(rapid.SampledFrom(segRunes), 0, 5, -1))
}

var segMobiles = []string{"+4915112345678", "+4930123456", "+79161234567", "+33612345678", "+14155552671"}

// segPropText are the text fields random contacts fill, and
// segPropFields the fields random queries test (birthday twice, to draw
// it as often as the text fields). column_9 has no column: it is absent
// from every contact.
var segPropText = []segmentation.Field{segmentation.FirstName, segmentation.LastName, segmentation.Email, segmentation.City,
	segmentation.ColumnField(1), segmentation.ColumnField(2), segmentation.ColumnField(3)}

var segPropFields = append(slices.Clone(segPropText), segmentation.Gender, segmentation.Mobile, segmentation.BMobile,
	segmentation.ColumnField(9), segmentation.Birthday, segmentation.Birthday,
	segmentation.SubscriptionOptionsIn, segmentation.SubscriptionOptionsOut)

// genSegBirthday draws birthdays around the hard days: 29 February, the
// end of February, the turn of the year; or any day.
func genSegBirthday(t *rapid.T, label string) msgkit.Date {
	year := rapid.IntRange(1896, 2030).Draw(t, label+" year")
	switch rapid.IntRange(0, 3).Draw(t, label+" kind") {
	case 0:
		leap := year - year%4
		if leap%100 == 0 && leap%400 != 0 {
			leap -= 4
		}
		return msgkit.Date{Year: leap, Month: time.February, Day: 29}
	case 1:
		return msgkit.Date{Year: year, Month: time.February, Day: 27}.AddDays(rapid.IntRange(0, 4).Draw(t, label+" day"))
	case 2:
		return msgkit.Date{Year: year, Month: time.December, Day: 29}.AddDays(rapid.IntRange(0, 5).Draw(t, label+" day"))
	}
	return msgkit.Date{Year: year, Month: time.January, Day: 1}.AddDays(rapid.IntRange(0, 365).Draw(t, label+" day"))
}

func genSegContact(id int32) *rapid.Generator[*segContact] {
	return rapid.Custom(func(t *rapid.T) *segContact {
		c := &segContact{ID: id, Values: map[segmentation.Field]string{}, Null: map[segmentation.Field]bool{},
			Members: map[string]segmentation.Membership{}}
		set := func(f segmentation.Field, v string) {
			c.Values[f] = v
			if v == "" {
				c.Null[f] = rapid.Bool().Draw(t, f.String()+" null")
			}
		}
		for _, f := range segPropText {
			set(f, genSegText().Draw(t, f.String()))
		}
		set(segmentation.Gender, rapid.SampledFrom([]string{"", "male", "Female", "MALE", "fEmale", "other"}).Draw(t, "gender"))
		set(segmentation.Mobile, rapid.SampledFrom(append([]string{""}, segMobiles...)).Draw(t, "mobile"))
		set(segmentation.BMobile, rapid.SampledFrom(append([]string{""}, segMobiles...)).Draw(t, "b_mobile"))
		if rapid.IntRange(0, 4).Draw(t, "birthday absent") > 0 {
			b := genSegBirthday(t, "birthday")
			c.Birthday = &b
		}
		for _, o := range []string{segOptA, segOptB, segOptC} {
			if rapid.Bool().Draw(t, "row "+o) {
				c.Members[o] = segmentation.Membership(rapid.IntRange(0, 2).Draw(t, "status "+o))
			}
		}
		return c
	})
}

// segTextValue draws a value for a text rule: often a piece of a
// contact's value in another case, so that rules hit.
func segTextValue(t *rapid.T, cs []*segContact, f segmentation.Field, label string) string {
	if len(cs) > 0 && rapid.Bool().Draw(t, label+" from a contact") {
		v := []rune(cs[rapid.IntRange(0, len(cs)-1).Draw(t, label+" contact")].Values[f])
		if len(v) > 0 {
			i := rapid.IntRange(0, len(v)-1).Draw(t, label+" from")
			j := rapid.IntRange(i+1, len(v)).Draw(t, label+" to")
			s := string(v[i:j])
			switch rapid.IntRange(0, 2).Draw(t, label+" case") {
			case 1:
				s = strings.ToUpper(s)
			case 2:
				s = strings.ToLower(s)
			}
			return s
		}
	}
	return rapid.StringOfN(rapid.SampledFrom(segRunes), 1, 5, -1).Draw(t, label)
}

// segMobileValue draws a value for a mobile rule as a user writes it.
func segMobileValue(t *rapid.T, cond segmentation.Condition, label string) string {
	digits := rapid.SampledFrom(segMobiles).Draw(t, label)[1:]
	switch cond {
	case segmentation.Contains, segmentation.EndsWith:
		i := rapid.IntRange(0, len(digits)-1).Draw(t, label+" from")
		return digits[i:rapid.IntRange(i+1, len(digits)).Draw(t, label+" to")]
	case segmentation.StartsWith:
		return rapid.SampledFrom([]string{"+", "00", ""}).Draw(t, label+" prefix") +
			digits[:rapid.IntRange(1, len(digits)).Draw(t, label+" len")]
	}
	switch rapid.IntRange(0, 3).Draw(t, label+" form") {
	case 0:
		return "00" + digits
	case 1:
		return digits[:2] + " " + digits[2:5] + "-" + digits[5:]
	case 2:
		return digits
	}
	return "+" + digits
}

func segDateValue(t *rapid.T, cs []*segContact, label string) string {
	if len(cs) > 0 && rapid.Bool().Draw(t, label+" from a contact") {
		if b := cs[rapid.IntRange(0, len(cs)-1).Draw(t, label+" contact")].Birthday; b != nil {
			return b.String()
		}
	}
	if rapid.IntRange(0, 9).Draw(t, label+" extreme") == 0 {
		return rapid.SampledFrom([]string{"0001-01-01", "9999-12-31", "1900-02-28", "2000-02-29"}).Draw(t, label)
	}
	return genSegBirthday(t, label).String()
}

// genSegQuery draws the JSON of a query that Parse accepts, over cs.
func genSegQuery(t *rapid.T, cs []*segContact) string {
	var groups []any
	n := rapid.IntRange(1, 3).Draw(t, "groups")
	for g := 0; g < n; g++ {
		op := rapid.SampledFrom([]string{"AND", "OR", "and", "or", ""}).Draw(t, "rules operator")
		var rules []any
		for r, nr := 0, rapid.IntRange(1, 3).Draw(t, "rules"); r < nr; r++ {
			label := fmt.Sprintf("g%d r%d", g, r)
			f := rapid.SampledFrom(segPropFields).Draw(t, label+" field")
			var conds []segmentation.Condition
			for _, c := range segmentation.Conditions() {
				if f.Kind().Takes(c) {
					conds = append(conds, c)
				}
			}
			cond := rapid.SampledFrom(conds).Draw(t, label+" condition")
			value := func(i int) string {
				l := fmt.Sprintf("%s value %d", label, i)
				switch f.Kind() {
				case segmentation.KindGender:
					return rapid.SampledFrom([]string{"male", "female", "MALE", "Female"}).Draw(t, l)
				case segmentation.KindMobile:
					return segMobileValue(t, cond, l)
				case segmentation.KindDate:
					return segDateValue(t, cs, l)
				case segmentation.KindMembership:
					o := rapid.SampledFrom([]string{segOptA, segOptB, segOptC}).Draw(t, l)
					if rapid.Bool().Draw(t, l+" upper") {
						o = strings.ToUpper(o)
					}
					return o
				}
				return segTextValue(t, cs, f, l)
			}
			rule := map[string]any{"field": f.String(), "condition": string(cond)}
			switch cond {
			case segmentation.IsNull, segmentation.IsNotNull:
				if v := rapid.SampledFrom([]any{nil, "", []string{}}).Draw(t, label+" none"); v != nil {
					rule["value"] = v
				}
			case segmentation.AnnInDays:
				days := rapid.OneOf(rapid.SampledFrom([]int{0, 1, 2, 7, 30, 58, 59, 60, 61, 364, 365, 366}), rapid.IntRange(0, 366)).Draw(t, label+" days")
				if rapid.Bool().Draw(t, label+" as number") {
					rule["value"] = days
				} else {
					rule["value"] = strconv.Itoa(days)
				}
			case segmentation.In, segmentation.NotIn:
				var vs []string
				for i, k := 0, rapid.IntRange(1, 4).Draw(t, label+" values"); i < k; i++ {
					vs = append(vs, value(i))
				}
				joined := strings.Join(vs, ",")
				if rapid.Bool().Draw(t, label+" comma separated") && !strings.Contains(joined, ",,") &&
					slices.IndexFunc(vs, func(v string) bool { return strings.TrimSpace(v) == "" }) < 0 &&
					!slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, ",") }) {
					rule["value"] = joined
				} else {
					rule["value"] = vs
				}
			default:
				rule["value"] = value(0)
			}
			if op != "" && rapid.IntRange(0, 3).Draw(t, label+" operator left out") > 0 {
				rule["operator"] = op
			}
			rules = append(rules, rule)
		}
		group := map[string]any{"rules": rules}
		if g > 0 {
			group["operator"] = rapid.SampledFrom([]string{"OR", "AND", "AND NOT", "OR NOT", "or not", "and  not"}).Draw(t, fmt.Sprintf("g%d join", g))
		}
		groups = append(groups, group)
	}
	b, err := json.Marshal(map[string]any{"segmentation": groups})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// genSegToday draws today near the turn of the year or the end of
// February, in leap and common years, or any day.
func genSegToday(t *rapid.T) msgkit.Date {
	year := rapid.IntRange(2023, 2029).Draw(t, "today year")
	switch rapid.IntRange(0, 2).Draw(t, "today kind") {
	case 0:
		return msgkit.Date{Year: year, Month: time.December, Day: 25}.AddDays(rapid.IntRange(0, 12).Draw(t, "today day"))
	case 1:
		return msgkit.Date{Year: year, Month: time.February, Day: 25}.AddDays(rapid.IntRange(0, 6).Draw(t, "today day"))
	}
	return msgkit.Date{Year: year, Month: time.January, Day: 1}.AddDays(rapid.IntRange(0, 365).Draw(t, "today day"))
}

// THE LAW: for random contacts and random valid queries, PostgreSQL
// selects, through the compiled SQL, exactly the contacts Match selects.
// It runs propCases checks (see propRounds) of a few queries each, the
// rounds at once, each on a table of its own.
func TestSegmentationSQLMatchesMatcher(t *testing.T) {
	t.Parallel()
	const queriesPerCheck = 5
	start := time.Now()
	var queries, some atomic.Int64 // some: queries that selected some contacts, not all
	prop := func(db *segDB, t *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(t, "contacts")
		cs := make([]*segContact, n)
		for i := range cs {
			cs[i] = genSegContact(int32(i+1)).Draw(t, "contact "+strconv.Itoa(i+1))
		}
		db.load(t, cs)
		today := genSegToday(t)
		for k := 0; k < queriesPerCheck; k++ {
			text := genSegQuery(t, cs)
			q, err := segmentation.Parse([]byte(text))
			if err != nil {
				t.Fatalf("the generator made a query Parse refuses: %s: %v", text, err)
			}
			got, sql, args := db.selectIDs(t, q, today)
			want := matchIDs(q, today, cs)
			queries.Add(1)
			if len(want) > 0 && len(want) < len(cs) {
				some.Add(1)
			}
			if !slices.Equal(got, want) {
				var diff []string
				for _, c := range cs {
					if slices.Contains(got, c.ID) != slices.Contains(want, c.ID) {
						diff = append(diff, fmt.Sprintf("%#v (Match %v)", c, slices.Contains(want, c.ID)))
					}
				}
				t.Fatalf("today %s, query %s\nPostgreSQL selects %v, Match %v; they differ on\n%s\nSQL: %s\nargs: %#v",
					today, text, got, want, strings.Join(diff, "\n"), sql, args)
			}
		}
	}
	t.Run("rounds", func(t *testing.T) {
		for i := range propRounds() {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				db := newSegDB(t)
				rapid.Check(t, func(t *rapid.T) { prop(db, t) })
			})
		}
	})
	// A generator whose rules hit nothing or everything would test little.
	t.Logf("%d queries in %v, %d%% of them selecting some contacts but not all",
		queries.Load(), time.Since(start).Round(time.Millisecond), 100*some.Load()/max(queries.Load(), 1))
}

// BenchmarkSegmentationPostgres times segmentation queries over a
// million contacts, with the indexes segmentationIndexes makes: the
// issue's gender eq female AND email contains 'user12' AND birthday
// ann_in_days 7, and contains and startswith alone.
func BenchmarkSegmentationPostgres(b *testing.B) {
	dsn, schema := newTestSchema(b)
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	// A segmentation query is planned for its values, which a generic
	// plan would not see (a LIKE prefix, the anniversary ranges).
	cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatalf("%s is set, so the database must be reachable: %v", envDSN, err)
	}
	b.Cleanup(func() { _ = conn.Close(context.Background()) })
	ident := pgx.Identifier{schema}.Sanitize()
	s := segSchema{Text: map[segmentation.Field]string{}, Dates: map[segmentation.Field]string{segmentation.Birthday: "contacts.birthday"},
		Membership: func(param string, status segmentation.Membership) string { return "false" }}
	for _, f := range []segmentation.Field{segmentation.Gender, segmentation.Email, segmentation.FirstName, segmentation.LastName,
		segmentation.City, segmentation.Mobile} {
		s.Text[f] = "contacts." + f.String()
	}
	start := time.Now()
	// Values are lower case ASCII, so already folded. setseed makes every
	// run the same table.
	setup := `CREATE SCHEMA ` + ident + `; SET search_path TO ` + ident + `;
CREATE TABLE contacts (id int PRIMARY KEY, gender text COLLATE "C", email text COLLATE "C", first_name text COLLATE "C",
	last_name text COLLATE "C", city text COLLATE "C", mobile text COLLATE "C", birthday date);
SELECT setseed(0.42);
INSERT INTO contacts
SELECT i,
	CASE WHEN r1 < 0.05 THEN NULL WHEN r1 < 0.525 THEN 'male' ELSE 'female' END,
	CASE WHEN r2 < 0.05 THEN NULL
		ELSE 'user' || i || '@' || (ARRAY['example.com','gmail.com','yahoo.com','mail.ru','web.de','outlook.com'])[1 + (i * 7) % 6] END,
	(ARRAY['anna','boris','clara','david','eva','frank','greta','hans'])[1 + i % 8],
	'name' || (i % 1000),
	(ARRAY['berlin','zürich','paris','moskva','wien'])[1 + i % 5],
	CASE WHEN r3 < 0.05 THEN NULL ELSE '+49151' || lpad(i::text, 8, '0') END,
	CASE WHEN r4 < 0.05 THEN NULL ELSE date '1940-01-01' + floor(r5 * (date '2010-12-31' - date '1940-01-01' + 1))::int END
FROM (SELECT i, random() r1, random() r2, random() r3, random() r4, random() r5 FROM generate_series(1, 1000000) i) g`
	if _, err := conn.Exec(ctx, setup); err != nil {
		b.Fatal(err)
	}
	ddl, err := segmentationIndexes("contacts", s, segmentation.Gender, segmentation.Email, segmentation.Birthday)
	if err != nil {
		b.Fatal(err)
	}
	for _, stmt := range append(ddl, "VACUUM ANALYZE contacts") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
	b.Logf("a million contacts in %v", time.Since(start).Round(time.Millisecond))
	today := msgkit.Date{Year: 2026, Month: time.December, Day: 28} // the window wraps into January
	for _, bq := range []struct{ name, query string }{
		// The query: the anniversary index narrows it.
		{"gender-contains-ann7", `{"segmentation":[{"rules":[
			{"field":"gender","condition":"eq","value":"female","operator":"AND"},
			{"field":"email","condition":"contains","value":"user12","operator":"AND"},
			{"field":"birthday","condition":"ann_in_days","value":"7","operator":"AND"}]}]}`},
		// contains alone has no index (no pg_trgm): a scan of every row.
		{"contains", `{"segmentation":[{"rules":[{"field":"email","condition":"contains","value":"user12"}]}]}`},
		// startswith reads the COLLATE "C" btree.
		{"startswith", `{"segmentation":[{"rules":[{"field":"email","condition":"startswith","value":"user12345"}]}]}`},
	} {
		b.Run(bq.name, func(b *testing.B) { benchSegmentationQuery(b, conn, s, today, bq.query) })
	}
}

// benchSegmentationQuery logs the plan of one query over the million
// contacts, then times it.
func benchSegmentationQuery(b *testing.B, conn *pgx.Conn, s segSchema, today msgkit.Date, query string) {
	ctx := b.Context()
	q, err := segmentation.Parse([]byte(query))
	if err != nil {
		b.Fatal(err)
	}
	run := func() []int32 {
		var args []any
		where, err := compileSegmentation(q, s, today, &args)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := conn.Query(ctx, "SELECT id FROM contacts WHERE "+where, args...)
		if err != nil {
			b.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			b.Fatal(err)
		}
		return ids
	}
	var args []any
	where, _ := compileSegmentation(q, s, today, &args)
	rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM contacts WHERE "+where, args...)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	// One line, for the testing package keeps only ten lines of a
	// benchmark's log; the anniversary key is shortened to key.
	short := strings.NewReplacer(annivKey("(contacts.birthday)"), "key", "(((EXTRACT(month FROM birthday))::integer * 100) + (EXTRACT(day FROM birthday))::integer)", "key")
	for i, l := range plan {
		plan[i] = short.Replace(strings.TrimSpace(l))
	}
	b.Logf("%d contacts selected; WHERE %s; plan: %s", len(run()), short.Replace(where), strings.Join(plan, " | "))
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		run()
		times = append(times, time.Since(t0))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms/query")
}
