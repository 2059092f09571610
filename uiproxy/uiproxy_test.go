package uiproxy_test

import (
	"bytes"
	"encoding/json"
	"github.com/google/go-cmp/cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
	"pgregory.net/rapid"
)

const tenant msgkit.ServiceUUID = "3f2b6c1e-8d4a-4b7e-9c0f-1a2b3c4d5e6f"

func grid() uiproxy.Component {
	return uiproxy.Component{
		ID: "invoices", Type: uiproxy.Grid, Service: tenant, Token: "s3cret-token",
		URL:   "https://api.customer.example/accounts/{referenceId}/{componentId}?page={pageNumber}&size={pageSize}&sort={sort}&lang={language}&tenant={tenant}",
		Fixed: map[string]string{"tenant": "acme & co"},
		Columns: []uiproxy.Column{
			{Name: "id", Kind: uiproxy.Number, Filterable: true, Sortable: true},
			{Name: "customer", Kind: uiproxy.String, Filterable: true, Sortable: true},
			{Name: "invoiceDate", Kind: uiproxy.Date, Filterable: true, Sortable: true},
			{Name: "createdAt", Kind: uiproxy.DateTime, Filterable: true},
			{Name: "paid", Kind: uiproxy.Boolean, Filterable: true},
			{Name: "url", Kind: uiproxy.String},
		},
	}
}

func fieldNames(t *testing.T, err error) []string {
	t.Helper()
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid {
		t.Fatalf("%v is no Invalid error", err)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Name)
	}
	return out
}

func TestCheck(t *testing.T) {
	if err := grid().Check(); err != nil {
		t.Fatalf("a valid grid: %v", err)
	}
	kpi := uiproxy.Component{ID: "kpi.open", Type: uiproxy.KPI, Service: tenant, URL: "https://api.customer.example/kpi/{referenceId}", TokenHeader: "X-Customer-Token"}
	if err := kpi.Check(); err != nil {
		t.Fatalf("a valid KPI: %v", err)
	}
	bad := grid()
	bad.ID, bad.Type, bad.URL, bad.TokenHeader, bad.Timeout = "in voices", "table", "ftp://x/{colour}", "X Token", -1
	bad.Service, bad.CacheTTL = "3F2B6C1E-8D4A-4B7E-9C0F-1A2B3C4D5E6F", uiproxy.MaxCacheTTL+1
	bad.Fixed = map[string]string{"pageNumber": "1"}
	bad.Columns = append(bad.Columns, uiproxy.Column{Name: "id", Kind: "money"})
	got := fieldNames(t, bad.Check())
	for _, want := range []string{"id", "service", "cache_ttl", "type", "url", "fixed", "token_header", "timeout", "columns[6]"} {
		if !slices.Contains(got, want) {
			t.Errorf("fields %v lack %s", got, want)
		}
	}
	kpi.Columns = grid().Columns
	if got := fieldNames(t, kpi.Check()); !slices.Equal(got, []string{"columns"}) {
		t.Errorf("a KPI with columns: %v", got)
	}
}

// A placeholder may fill the path and the query, never the scheme, user
// information, host or port: the caller must not choose where the
// customer token goes.
func TestCheckPlaceholdersStayOutOfTheOrigin(t *testing.T) {
	for _, u := range []string{
		"http://{referenceId}/grid",
		"https://{referenceId}.customer.example/grid",
		"https://customer.example{referenceId}/grid",
		"https://customer.example:{pageSize}/grid",
		"https://{referenceId}@customer.example/grid",
		"https://customer.example{referenceId}",
		"https://customer.example{referenceId}?x=1",
		"http{referenceId}://customer.example/grid",
		"{referenceId}://customer.example/grid",
		"https://{tenant}/grid", // a fixed name is a placeholder too
	} {
		c := grid()
		c.URL = u
		if got := slices.Compact(fieldNames(t, c.Check())); !slices.Equal(got, []string{"url"}) {
			t.Errorf("%s: fields %v, want [url]", u, got)
		}
	}
	for _, u := range []string{
		"https://customer.example/{referenceId}",
		"https://customer.example:8443/a/{referenceId}?p={pageNumber}#{sort}",
		"https://customer.example?r={referenceId}",
		"https://customer.example#{referenceId}",
	} {
		c := grid()
		c.URL = u
		if err := c.Check(); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestParseRequestAndBuild(t *testing.T) {
	c := grid()
	v, _ := url.ParseQuery("reference_id=ACME/42&language=sl&page_number=2&page_size=25&sort=-invoiceDate,id" +
		"&contains(customer)=d%C3%B3o&between(id)=10,20&paid=true&gte(createdAt)=2026-01-01T00:00:00Z&in(customer)=a,b")
	r, err := uiproxy.ParseRequest(c, v)
	if err != nil {
		t.Fatal(err)
	}
	if r.ReferenceID != "ACME/42" || r.PageNumber != 2 || r.PageSize != 25 || len(r.Sort) != 2 || !r.Sort[0].Desc || len(r.Filters) != 5 {
		t.Fatalf("request %+v", r)
	}
	call := uiproxy.Build(c, r)
	u, err := url.Parse(call.URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.EscapedPath() != "/accounts/ACME%2F42/invoices" {
		t.Errorf("path %s: the reference must stay one segment", u.EscapedPath())
	}
	q := u.Query()
	for k, want := range map[string]string{
		"page": "2", "size": "25", "sort": "-invoiceDate,id", "lang": "sl", "tenant": "acme & co",
		"contains(customer)": "dóo", "between(id)": "10,20", "paid": "true", "token": "s3cret-token", "in(customer)": "a,b",
	} {
		if q.Get(k) != want {
			t.Errorf("%s = %q, want %q (URL %s)", k, q.Get(k), want, call.URL)
		}
	}
	if call.TokenHeader != "" {
		t.Errorf("token header %q", call.TokenHeader)
	}
	c.TokenHeader = "X-Customer-Token"
	call = uiproxy.Build(c, r)
	if strings.Contains(call.URL, "s3cret") || call.TokenHeader != "X-Customer-Token" || call.Token != "s3cret-token" {
		t.Errorf("a header token: %+v", call)
	}
	c.TokenHeader, c.URL = "", "https://api.customer.example/{componentType}?t={token}"
	if call = uiproxy.Build(c, r); !strings.HasPrefix(call.URL, "https://api.customer.example/grid?t=s3cret-token&") || strings.Count(call.URL, "s3cret") != 1 {
		t.Errorf("a placed token: %s", call.URL)
	}
	kpi := uiproxy.Component{ID: "k", Type: uiproxy.KPI, URL: "https://x.example/{referenceId}/{locale}"}
	kv, _ := url.ParseQuery("resource_id=7&locale=sl-SI")
	kr, err := uiproxy.ParseRequest(kpi, kv)
	if err != nil || uiproxy.Build(kpi, kr).URL != "https://x.example/7/sl-SI" {
		t.Errorf("KPI: %+v %v", kr, err)
	}
}

func TestParseRequestRefusals(t *testing.T) {
	c := grid()
	for _, tt := range []struct {
		query string
		want  string
	}{
		{"colour=red", "colour"},
		{"contains(id)=1", "contains(id)"}, // a text operator on a number
		{"lt(customer)=b", "lt(customer)"}, // ordering on a string
		{"gt(paid)=true", "gt(paid)"},      // not on booleans
		{"in(createdAt)=2026-01-01T00:00:00Z", "in(createdAt)"},
		{"id=abc", "id"},                          // not a number
		{"invoiceDate=2026-13-01", "invoiceDate"}, // not a date
		{"url=x", "url"},                          // not filterable
		{"sort=url", "sort"},                      // not sortable
		{"page_size=1000", "page_size"},
		{"frobnicate(id)=1", "frobnicate(id)"},
	} {
		v, _ := url.ParseQuery(tt.query)
		_, err := uiproxy.ParseRequest(c, v)
		if err == nil || !slices.Contains(fieldNames(t, err), tt.want) {
			t.Errorf("%s: %v, want it to name %s", tt.query, err, tt.want)
		}
	}
	kpi := uiproxy.Component{ID: "k", Type: uiproxy.KPI, URL: "https://x.example/"}
	if _, err := uiproxy.ParseRequest(kpi, url.Values{"page_number": {"1"}}); err == nil {
		t.Error("a KPI took page_number")
	}
}

// Whatever the values, the built URL parses and gives each value back in
// its place.
func TestBuildEscapes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ref := rapid.String().Draw(t, "ref")
		lang := rapid.String().Draw(t, "lang")
		fixed := rapid.String().Draw(t, "fixed")
		c := uiproxy.Component{ID: "g", Type: uiproxy.KPI, URL: "https://x.example/a/{referenceId}/b?l={language}&f={f}", Fixed: map[string]string{"f": fixed}}
		call := uiproxy.Build(c, uiproxy.Request{ReferenceID: ref, Language: lang})
		u, err := url.Parse(call.URL)
		if err != nil {
			t.Fatalf("%q: %v", call.URL, err)
		}
		seg := strings.TrimSuffix(strings.TrimPrefix(u.EscapedPath(), "/a/"), "/b")
		if got, err := url.PathUnescape(seg); err != nil || got != ref {
			t.Fatalf("reference %q came back %q (%v) from %s", ref, got, err, call.URL)
		}
		if u.Query().Get("l") != lang || u.Query().Get("f") != fixed {
			t.Fatalf("query %v from %q, %q", u.Query(), lang, fixed)
		}
	})
}

func TestParseGrid(t *testing.T) {
	c := grid()
	for _, body := range []string{
		`{"data":[{"id":1,"customer":"Ana","invoiceDate":"2026-01-02","createdAt":"2026-01-02T09:00:00Z","paid":true,"url":"https://x","secret":"hide"},{"id":2,"customer":null}],
		  "meta":{"pagination":{"total":30,"count":2,"perPage":2,"currentPage":3,"totalPages":15,"links":{"next":"https://c/4","previous":"https://c/2"}}}}`,
		`{"data":[{"id":1,"customer":"Ana","invoiceDate":"2026-01-02","createdAt":"2026-01-02T09:00:00Z","paid":true,"url":"https://x"},{"id":2,"customer":null}],
		  "meta":{"pagination":{"total":30,"per_page":2,"current_page":3,"total_pages":15,"links":{"first":"https://c/1","last":"https://c/15","prev":"https://c/2","next":"https://c/4"}}}}`,
	} {
		page, err := uiproxy.ParseGrid(c, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		p := page.Meta.Pagination
		r := rows(t, page)
		if len(r) != 2 || r[0]["secret"] != nil || r[1]["customer"] != nil || r[0]["paid"] != true || r[0]["id"] != json.Number("1") ||
			p.Total != 30 || p.Count != 2 || p.PerPage != 2 || p.CurrentPage != 3 || p.TotalPages != 15 ||
			p.Links.Next == nil || *p.Links.Next != "https://c/4" || p.Links.Prev == nil || *p.Links.Prev != "https://c/2" {
			t.Errorf("%s:\n%+v %+v", body, page.Data, p)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{`not json`, "malformed JSON"},
		{`[]`, "no grid object"},
		{`{"meta":{}}`, "no data array"},
		{`{"data":[5]}`, "row 0: not an object"},
		{`{"data":[{"id":"one"}]}`, "row 0: column id: not a number"},
		{`{"data":[{"invoiceDate":"02.01.2026"}]}`, "column invoiceDate: not a date"},
		{`{"data":[{"createdAt":"yesterday"}]}`, "column createdAt: not an RFC 3339"},
		{`{"data":[{"paid":"yes"}]}`, "column paid: not true or false"},
		{`{"data":[],"meta":{"pagination":{"total":-1}}}`, "total must be"},
		{`{"data":[],"meta":{"pagination":{"links":[1]}}}`, "links must be"},
	} {
		_, err := uiproxy.ParseGrid(c, []byte(tt.body))
		if msgkit.CodeOf(err) != uiproxy.CodeBadAnswer || msgkit.KindOf(err) != msgkit.Unavailable || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %s saying %q", tt.body, err, uiproxy.CodeBadAnswer, tt.want)
		}
	}
	// A customer's answer is not quoted back.
	_, err := uiproxy.ParseGrid(c, []byte(`{"data":[{"id":"TOPSECRET"}]}`))
	if strings.Contains(err.Error(), "TOPSECRET") {
		t.Errorf("the error quotes the answer: %v", err)
	}
}

func TestParseKPI(t *testing.T) {
	k, err := uiproxy.ParseKPI([]byte(`{"title":"Open","value":"12","footer":"f","link":"https://x.example/a"}`))
	if err != nil || k.Title != "Open" || k.Link != "https://x.example/a" {
		t.Errorf("KPI %+v, %v", k, err)
	}
	for _, body := range []string{`{}`, `{"title":"t"}`, `{"title":"t","value":"v","link":"javascript:alert(1)"}`, `[`, `{"title":1,"value":"v"}`} {
		if _, err := uiproxy.ParseKPI([]byte(body)); msgkit.CodeOf(err) != uiproxy.CodeBadAnswer {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func mockQuery(t *testing.T, query string) msgkit.ListQuery {
	t.Helper()
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	q, err := uiproxy.MockQuery(v)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return q
}

// fataler is the part of testing.TB and *rapid.T the helpers use.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// rows decodes a page's rows, numbers as json.Number.
func rows(t fataler, page uiproxy.GridPage) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(page.Data))
	for i, raw := range page.Data {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&out[i]); err != nil {
			t.Fatalf("row %d %s: %v", i, raw, err)
		}
	}
	return out
}

func mockIDs(t testing.TB, page uiproxy.GridPage) []int64 {
	var ids []int64
	for _, r := range rows(t, page) {
		n, _ := r["id"].(json.Number).Int64()
		ids = append(ids, n)
	}
	return ids
}

func TestMock(t *testing.T) {
	base, _ := url.Parse("/ui/v1/mock/grid/invoices?reference_id=7&page_size=10")
	page, err := uiproxy.MockGrid("invoices", "7", mockQuery(t, "page_number=2&page_size=10"), base)
	if err != nil {
		t.Fatal(err)
	}
	p := page.Meta.Pagination
	if len(page.Data) != 10 || mockIDs(t, page)[0] != 11 || p.Total != uiproxy.MockRows || p.TotalPages != 5 || p.CurrentPage != 2 ||
		*p.Links.Prev != "/ui/v1/mock/grid/invoices?page_number=1&page_size=10&reference_id=7" || p.Links.Next == nil {
		t.Errorf("page 2: %+v %+v", page.Data[0], p)
	}
	last, _ := uiproxy.MockGrid("invoices", "7", mockQuery(t, "page_number=5"), base)
	if len(last.Data) != 2 || last.Meta.Pagination.Links.Next != nil {
		t.Errorf("the last page: %d rows, next %v", len(last.Data), last.Meta.Pagination.Links.Next)
	}
	// The mock does on its side what a customer API does: sort, filter
	// and page.
	for query, want := range map[string][]int64{
		"sort=-id&page_size=3": {42, 41, 40},
		"gt(id)=39":            {40, 41, 42},
		"between(invoiceDate)=2026-01-03,2026-01-05":                 {3, 4, 5},
		"lt(invoiceDateTime)=2026-01-02T12:00:00Z&sort=-invoiceDate": {2, 1},
		"endswith(url)=/7/17":                                        {17},
		"in(id)=5,9&sort=-id":                                        {9, 5},
		"id=12":                                                      {12},
		"isnull(url)=":                                               nil,
	} {
		got, err := uiproxy.MockGrid("invoices", "7", mockQuery(t, query), base)
		total := len(want)
		if strings.Contains(query, "page_size") {
			total = uiproxy.MockRows
		}
		if err != nil || !slices.Equal(mockIDs(t, got), want) || got.Meta.Pagination.Total != total {
			t.Errorf("%s: %v (total %d), %v; want %v", query, mockIDs(t, got), got.Meta.Pagination.Total, err, want)
		}
	}
	// The mock's rows are a grid answer the proxy takes.
	c := uiproxy.Component{ID: "invoices", Type: uiproxy.Grid, Service: tenant, URL: "https://x.example/", Columns: uiproxy.MockColumns()}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	body := mustJSON(t, page)
	if got, err := uiproxy.ParseGrid(c, body); err != nil || len(got.Data) != 10 {
		t.Errorf("the mock page read back: %v", err)
	}
}

// The mock KPI tells of the mock grid's invoices: as many as the grid
// holds, issued from its earliest invoiceDate to its latest, whatever
// the components' ids (a page shows a grid and a KPI of two components).
func TestMockKPIAgreesWithGrid(t *testing.T) {
	base, _ := url.Parse("/ui/v1/mock/grid/invoices?reference_id=7")
	day := func(sort string) string {
		page, err := uiproxy.MockGrid("invoices", "7", mockQuery(t, "page_size=1&sort="+sort), base)
		if err != nil || len(page.Data) != 1 {
			t.Fatalf("sort=%s: %v", sort, err)
		}
		return rows(t, page)[0]["invoiceDate"].(string)
	}
	all, err := uiproxy.MockGrid("invoices", "7", mockQuery(t, ""), base)
	if err != nil {
		t.Fatal(err)
	}
	want := uiproxy.KPIValue{
		Title: "Invoices", Value: strconv.Itoa(all.Meta.Pagination.Total),
		Footer: "issued " + day("invoiceDate") + " to " + day("-invoiceDate"),
		Link:   "https://invoices.example.com/balance/7",
	}
	if got := uiproxy.MockKPI("balance", "7"); got != want {
		t.Errorf("MockKPI = %+v, want %+v", got, want)
	}
	if _, err := uiproxy.ParseKPI(mustJSON(t, uiproxy.MockKPI("balance", "7"))); err != nil {
		t.Errorf("the mock KPI read back: %v", err)
	}
}

// FuzzParseGrid: no answer crashes ParseGrid or ParseKPI, and ParseGrid
// agrees with encoding/json on every answer (TestParseGridLaw).
func FuzzParseGrid(f *testing.F) {
	f.Add([]byte(`{"data":[{"id":1,"customer":"Ana","paid":true}],"meta":{"pagination":{"perPage":2,"links":{"next":"x"}}}}`))
	f.Add([]byte(`{"data":[{"invoiceDate":null,"createdAt":"2026-01-02T09:00:00Z"}]}`))
	f.Add([]byte(`{"data":[{"i\u0064":"x","id":2,"customer":"a\"}b","url":[{"x":"]"}]}]}`))
	c := grid()
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := uiproxy.ParseGrid(c, body)
		if err != nil && msgkit.CodeOf(err) != uiproxy.CodeBadAnswer {
			t.Fatalf("ParseGrid: %v", err)
		}
		if err == nil {
			for _, row := range rows(t, page) {
				for k := range row {
					if !slices.ContainsFunc(c.Columns, func(col uiproxy.Column) bool { return col.Name == k }) {
						t.Fatalf("row kept %q", k)
					}
				}
			}
		}
		agreesWithReference(t, c, body)
		if _, err := uiproxy.ParseKPI(body); err != nil && msgkit.CodeOf(err) != uiproxy.CodeBadAnswer {
			t.Fatalf("ParseKPI: %v", err)
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	f.Add("reference_id=1&page_number=2&sort=-id&contains(customer)=x&between(id)=1,2")
	f.Add("in(customer)=a,b&paid=true&isnull(url)=")
	c := grid()
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		r, err := uiproxy.ParseRequest(c, v)
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("ParseRequest: %v", err)
			}
			return
		}
		if _, err := url.Parse(uiproxy.Build(c, r).URL); err != nil {
			t.Fatalf("Build made an unparsable URL: %v", err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// referenceRows reads a grid answer's rows the plain way, with
// encoding/json into maps: what ParseGrid's one-pass reader must agree
// with. ok is false where ParseGrid must refuse the answer.
func referenceRows(c uiproxy.Component, body []byte) (rows []map[string]any, ok bool) {
	if !json.Valid(body) || !utf8.Valid(body) {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		return nil, false
	}
	var data []any
	dec := json.NewDecoder(bytes.NewReader(top["data"]))
	dec.UseNumber()
	if top["data"] == nil || dec.Decode(&data) != nil || data == nil {
		return nil, false
	}
	if meta, has := top["meta"]; has {
		var m struct {
			Pagination map[string]json.RawMessage `json:"pagination"`
		}
		if json.Unmarshal(meta, &m) != nil {
			return nil, false
		}
	}
	rows = []map[string]any{}
	for _, r := range data {
		m, isObject := r.(map[string]any)
		if !isObject {
			return nil, false
		}
		row := map[string]any{}
		for _, col := range c.Columns {
			v, has := m[col.Name]
			if !has {
				continue
			}
			if v != nil {
				switch col.Kind {
				case uiproxy.Number:
					_, ok = v.(json.Number)
				case uiproxy.Boolean:
					_, ok = v.(bool)
				default:
					s, isString := v.(string)
					ok = isString
					if isString && col.Kind == uiproxy.Date {
						_, err := time.Parse(time.DateOnly, s)
						ok = err == nil
					}
					if isString && col.Kind == uiproxy.DateTime {
						_, err := time.Parse(time.RFC3339, s)
						ok = err == nil
					}
				}
				if !ok {
					return nil, false
				}
			}
			row[col.Name] = v
		}
		rows = append(rows, row)
	}
	return rows, true
}

// agreesWithReference checks ParseGrid against referenceRows on body.
func agreesWithReference(t fataler, c uiproxy.Component, body []byte) {
	t.Helper()
	want, ok := referenceRows(c, body)
	page, err := uiproxy.ParseGrid(c, body)
	if !ok {
		if err == nil {
			t.Fatalf("ParseGrid took %q, which the reference refuses", body)
		}
		return
	}
	if err != nil {
		if msgkit.CodeOf(err) == uiproxy.CodeBadAnswer && strings.Contains(err.Error(), "pagination") {
			return // the reference does not read the pagination's members
		}
		t.Fatalf("ParseGrid refused %q: %v", body, err)
	}
	for i, raw := range page.Data {
		if !json.Valid(raw) {
			t.Fatalf("row %d is not JSON: %s", i, raw)
		}
	}
	if got := rows(t, page); !cmp.Equal(got, want) {
		t.Fatalf("%q:\n%s", body, cmp.Diff(want, got))
	}
}

// TestParseGridLaw: the one-pass reader of grid answers agrees with
// encoding/json on every answer: the same answers refused, the same rows
// kept, whatever the spacing, escapes, nesting, repeated members and
// members of no column.
func TestParseGridLaw(t *testing.T) {
	c := grid()
	names := []string{"id", "customer", "invoiceDate", "createdAt", "paid", "url", "other", "i\\u0064", "Id"}
	values := []string{`1`, `-2.5e3`, `"Ana"`, `"A\"n\\a\u00e9"`, `"2026-01-02"`, `"2026-01-02T09:00:00+01:00"`, `"2026-02-30"`, `true`, `false`, `null`,
		`{"a":[1,{"b":"}"}]}`, `[1,"]",[]]`, `"\u0032026-01-02"`, `""`, `"ščž 😀"`}
	rapid.Check(t, func(rt *rapid.T) {
		sp := func() string { return rapid.SampledFrom([]string{"", " ", "\n\t ", "\r\n"}).Draw(rt, "space") }
		var b strings.Builder
		b.WriteString(sp() + "{" + sp())
		if rapid.Bool().Draw(rt, "meta first") {
			b.WriteString(`"meta":{"pagination":{"total":3}},` + sp())
		}
		b.WriteString(`"data"` + sp() + ":" + sp() + "[")
		for r := range rapid.IntRange(0, 4).Draw(rt, "rows") {
			if r > 0 {
				b.WriteString("," + sp())
			}
			if rapid.IntRange(0, 20).Draw(rt, "non-object") == 0 {
				b.WriteString(rapid.SampledFrom(values).Draw(rt, "row"))
				continue
			}
			b.WriteString("{" + sp())
			for m := range rapid.IntRange(0, 6).Draw(rt, "members") {
				if m > 0 {
					b.WriteString("," + sp())
				}
				b.WriteString(`"` + rapid.SampledFrom(names).Draw(rt, "name") + `"` + sp() + ":" + sp() + rapid.SampledFrom(values).Draw(rt, "value") + sp())
			}
			b.WriteString("}")
		}
		b.WriteString(sp() + "]" + sp() + "}" + sp())
		agreesWithReference(rt, c, []byte(b.String()))
	})
}
