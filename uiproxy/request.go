package uiproxy

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
)

// Request is what a UI component asks for, checked against its
// configuration.
type Request struct {
	ReferenceID      string
	Language, Locale string
	// Grids only: the page, the sort and the filters, each filter the
	// query parameter as the UI sent it (operator(column)=value or
	// column=value), forwarded as is.
	PageNumber, PageSize int
	Sort                 []msgkit.SortKey
	Filters              url.Values
}

// The query parameters of a component's data request besides paging,
// sort and filters.
const (
	ParamReferenceID = "reference_id"
	ParamResourceID  = "resource_id" // the mock's other name of reference_id
	ParamLanguage    = "language"
	ParamLocale      = "locale"
)

// operators are the filter operators that fit each column kind: null and
// empty checks, equality and sets for every kind; text operators for
// strings; order and ranges for numbers and times.
var operators = map[ColumnKind][]msgkit.Op{
	String:   {msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty, msgkit.OpEq, msgkit.OpNeq, msgkit.OpIn, msgkit.OpNotIn, msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain},
	Number:   {msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpEq, msgkit.OpNeq, msgkit.OpIn, msgkit.OpNotIn, msgkit.OpLt, msgkit.OpLte, msgkit.OpGt, msgkit.OpGte, msgkit.OpBetween, msgkit.OpNotBetween},
	Date:     {msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpEq, msgkit.OpNeq, msgkit.OpIn, msgkit.OpNotIn, msgkit.OpLt, msgkit.OpLte, msgkit.OpGt, msgkit.OpGte, msgkit.OpBetween, msgkit.OpNotBetween},
	DateTime: {msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpEq, msgkit.OpNeq, msgkit.OpLt, msgkit.OpLte, msgkit.OpGt, msgkit.OpGte, msgkit.OpBetween, msgkit.OpNotBetween},
	Boolean:  {msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpEq, msgkit.OpNeq},
}

// Operators are the filter operators that fit a column kind, in a fixed
// order; none for an unknown kind.
func Operators(kind ColumnKind) []msgkit.Op { return slices.Clone(operators[kind]) }

var kindTypes = map[ColumnKind]msgkit.AttrType{
	String: msgkit.AttrString, Number: msgkit.AttrNumber, Date: msgkit.AttrDate, DateTime: msgkit.AttrDateTime, Boolean: msgkit.AttrBool,
}

// spec is the listing a grid's columns allow.
func (c Component) spec() msgkit.ListSpec {
	s := msgkit.ListSpec{Filter: map[string]msgkit.AttrType{},
		Ignore: []string{ParamReferenceID, ParamResourceID, ParamLanguage, ParamLocale}}
	for _, col := range c.Columns {
		if col.Filterable {
			s.Filter[col.Name] = kindTypes[col.Kind]
		}
		if col.Sortable {
			s.Sort = append(s.Sort, col.Name)
		}
	}
	return s
}

// ParseRequest reads a UI's query parameters for component c: the
// general ones (reference_id or resource_id, language, locale) for every
// component; for grids page_number, page_size (or paging), sort on the
// sortable columns and filters on the filterable ones with an operator
// that fits the column's kind. Anything else is refused before any call
// to the customer, each parameter named.
func ParseRequest(c Component, v url.Values) (Request, error) {
	r := Request{
		ReferenceID: first(v, ParamReferenceID, first(v, ParamResourceID, "")),
		Language:    first(v, ParamLanguage, ""), Locale: first(v, ParamLocale, ""),
	}
	if c.Type == KPI {
		for key := range v {
			if !slices.Contains(c.spec().Ignore, key) {
				return Request{}, msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "a KPI takes reference_id, language and locale only, not %q", key)
			}
		}
		return r, nil
	}
	q, err := c.listQuery(v)
	if err != nil {
		return Request{}, err
	}
	r.PageNumber, r.PageSize, r.Sort = q.PageNumber, q.PageSize, q.Sort
	r.Filters = url.Values{}
	for key, vals := range v {
		switch key {
		case ParamReferenceID, ParamResourceID, ParamLanguage, ParamLocale, msgkit.ParamPageNumber, msgkit.ParamPageSize, msgkit.ParamPaging, msgkit.ParamSort:
			continue
		}
		r.Filters[key] = slices.Clone(vals)
	}
	return r, nil
}

// listQuery reads a grid's paging, sort and filters against its columns:
// ParseListQuery, and an operator that fits each filtered column's kind.
func (c Component) listQuery(v url.Values) (msgkit.ListQuery, error) {
	q, err := msgkit.ParseListQuery(v, c.spec())
	if err != nil {
		return msgkit.ListQuery{}, err
	}
	kinds := map[string]ColumnKind{}
	for _, col := range c.Columns {
		kinds[col.Name] = col.Kind
	}
	for _, f := range q.Filters {
		if !slices.Contains(operators[kinds[f.Attr]], f.Op) {
			return msgkit.ListQuery{}, msgkit.Invalidf(msgkit.CodeInvalidQuery, string(f.Op)+"("+f.Attr+")",
				"the operator %s does not fit the %s column %s", f.Op, kinds[f.Attr], f.Attr)
		}
	}
	return q, nil
}

func first(v url.Values, key, def string) string {
	if vals := v[key]; len(vals) > 0 {
		return vals[0]
	}
	return def
}

// Call is a request to the customer API: its URL, and the header that
// carries the token when the component says so.
type Call struct {
	URL         string
	TokenHeader string
	Token       string
}

// Build makes the customer call of request r to component c: the URL
// template's placeholders replaced (path-escaped before its '?',
// query-escaped after), the sort as "column1,-column2", the grid's
// filters appended as query parameters, and the token where the
// component puts it.
func Build(c Component, r Request) Call {
	vars := map[string]string{
		"referenceId": r.ReferenceID, "componentId": c.ID, "componentType": string(c.Type),
		"language": r.Language, "locale": r.Locale, "token": c.Token,
	}
	if c.Type == Grid {
		vars["pageNumber"], vars["pageSize"] = strconv.Itoa(r.PageNumber), strconv.Itoa(r.PageSize)
		sort := make([]string, len(r.Sort))
		for i, k := range r.Sort {
			sort[i] = k.Attr
			if k.Desc {
				sort[i] = "-" + k.Attr
			}
		}
		vars["sort"] = strings.Join(sort, ",")
	}
	maps.Copy(vars, c.Fixed)
	path, query, hasQuery := strings.Cut(c.URL, "?")
	out := fill(path, vars, url.PathEscape)
	var extra []string
	if hasQuery {
		extra = append(extra, fill(query, vars, url.QueryEscape))
	}
	if c.Type == Grid && len(r.Filters) > 0 {
		extra = append(extra, r.Filters.Encode())
	}
	call := Call{}
	switch {
	case c.TokenHeader != "":
		call.TokenHeader, call.Token = c.TokenHeader, c.Token
	case c.Token != "" && !slices.Contains(placeholders(c.URL), "token"):
		extra = append(extra, "token="+url.QueryEscape(c.Token))
	}
	extra = slices.DeleteFunc(extra, func(s string) bool { return s == "" })
	if len(extra) > 0 {
		out += "?" + strings.Join(extra, "&")
	}
	call.URL = out
	return call
}

// fill replaces the {name} placeholders of tmpl with escape(vars[name]).
func fill(tmpl string, vars map[string]string, escape func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(escape(vars[tmpl[i+1:i+j]]))
		tmpl = tmpl[i+j+1:]
	}
}
