package msgkit

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// q is the text search of a listing whose spec names searched attributes:
// an item matches when any of them contains the text, case-insensitively,
// on top of the filters.
func TestSearch(t *testing.T) {
	spec := ListSpec{Filter: map[string]AttrType{"name": AttrString, "city": AttrString, "n": AttrNumber}, Search: []string{"name", "city"}}
	q, err := ParseListQuery(url.Values{"q": {"LJU"}, "gt(n)": {"1"}}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Search{Text: "LJU", Attrs: []string{"name", "city"}}); !cmp.Equal(q.Search, want) {
		t.Fatalf("Search = %+v, want %+v", q.Search, want)
	}
	type row struct {
		name, city string
		n          int64
	}
	rows := []row{{"Ljubljana shop", "Maribor", 2}, {"Shop", "Ljubljana", 3}, {"Shop", "ljubno", 1}, {"Shop", "Celje", 5}, {"", "", 9}}
	get := func(r row, attr string) (Value, bool) {
		switch attr {
		case "name":
			return StringValue(r.name), true
		case "city":
			return StringValue(r.city), true
		case "n":
			return IntValue(r.n), true
		}
		return Value{}, false
	}
	page, err := Apply(rows, q, get)
	if err != nil {
		t.Fatal(err)
	}
	if want := rows[:2]; !cmp.Equal(page.Items, want, cmp.AllowUnexported(row{})) || page.Total != 2 {
		t.Errorf("Apply = %+v, want %+v", page, want)
	}
	// An empty q searches nothing; q where the spec has no search, or
	// twice, is refused; a searched attribute must be a string one.
	if q, err := ParseListQuery(url.Values{"q": {""}}, spec); err != nil || q.Search.Text != "" {
		t.Errorf("empty q: %+v, %v", q.Search, err)
	}
	for _, tt := range []struct {
		v    url.Values
		spec ListSpec
		kind Kind
	}{
		{url.Values{"q": {"a"}}, ListSpec{Filter: spec.Filter}, Invalid},
		{url.Values{"q": {"a", "b"}}, spec, Invalid},
		{url.Values{}, ListSpec{Filter: map[string]AttrType{"d": AttrDate}, Search: []string{"d"}}, Internal},
	} {
		if _, err := ParseListQuery(tt.v, tt.spec); err == nil || KindOf(err) != tt.kind {
			t.Errorf("ParseListQuery(%v, search %v): %v, want %s", tt.v, tt.spec.Search, err, tt.kind)
		}
	}
}

// A number attribute among the searched ones matches q when q is that
// number (an id is found whole: 12 does not find 112), and never when q
// is no number.
func TestSearchNumbers(t *testing.T) {
	spec := ListSpec{Filter: map[string]AttrType{"name": AttrString, "owner": AttrNumber}, Search: []string{"name", "owner"}}
	type row struct {
		name  string
		owner int64
	}
	rows := []row{{"Shop 12", 7}, {"Kiosk", 12}, {"Bar", 112}, {"Cafe", 0}}
	get := func(r row, attr string) (Value, bool) {
		switch attr {
		case "name":
			return StringValue(r.name), true
		case "owner":
			return IntValue(r.owner), true
		}
		return Value{}, false
	}
	for _, tt := range []struct {
		q    string
		want []row
	}{
		{"12", []row{{"Shop 12", 7}, {"Kiosk", 12}}},
		{"12.0", []row{{"Kiosk", 12}}},
		{"kio", []row{{"Kiosk", 12}}},
		{"1", []row{{"Shop 12", 7}}},
		{"x1", nil},
	} {
		q, err := ParseListQuery(url.Values{"q": {tt.q}}, spec)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Search{Text: tt.q, Attrs: []string{"name"}, Numbers: []string{"owner"}}); !cmp.Equal(q.Search, want) {
			t.Fatalf("Search = %+v, want %+v", q.Search, want)
		}
		page, err := Apply(rows, q, get)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(page.Items, tt.want, cmp.AllowUnexported(row{}), cmpopts.EquateEmpty()) {
			t.Errorf("q=%s: %+v, want %+v", tt.q, page.Items, tt.want)
		}
	}
}
