package msgkit

import (
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Codes of the errors of this file.
const (
	// CodeInvalidQuery is the Code of the Invalid error ParseListQuery
	// returns for bad listing parameters; its Fields name each parameter.
	CodeInvalidQuery = "invalid_query"
	// CodeInvalidListSpec is the Code of the Internal error returned when a
	// ListSpec or a hand-built ListQuery is malformed: a programming error,
	// never the caller's fault.
	CodeInvalidListSpec = "invalid_list_spec"
)

// The page sizes used when a ListSpec leaves them zero. The interface
// documents give 10 as the default everywhere; they give a maximum only for
// finance documents (50), so 100 is our choice for the rest.
const (
	DefaultPageSize    = 10
	DefaultMaxPageSize = 100
)

// The reserved query parameters of every listing.
const (
	ParamPageNumber = "page_number"
	ParamPageSize   = "page_size"
	ParamPaging     = "paging" // page_num,page_size in one parameter
	ParamSort       = "sort"
	ParamSearch     = "q" // a listing's text search, where its spec has Search
)

// ListSpec is what one listing endpoint allows: the attributes that may be
// filtered (with the type their values parse as), the attributes that may
// be sorted, the page sizes, and the parameters the endpoint reads itself.
// The filter and sort lists are separate because the interface documents
// give them separately (finance sorts by attributes it cannot filter).
type ListSpec struct {
	// Filter maps each filterable attribute to its type.
	Filter map[string]AttrType
	// Sort lists the attributes that may appear in sort.
	Sort []string
	// MaxPageSize is the largest page_size accepted; 0 means
	// DefaultMaxPageSize.
	MaxPageSize int
	// DefaultPageSize is the page_size when none is given; 0 means
	// DefaultPageSize (10).
	DefaultPageSize int
	// Search lists the attributes that q searches: a listing keeps the
	// items where any string attribute of them contains q's text,
	// case-insensitively, or any number attribute of them equals q's
	// text read as a decimal number (an id is found whole, not by its
	// digits). Without it q is no parameter of the listing (unless
	// ignored).
	Search []string
	// Ignore lists query parameters (exact names, such as q, owner, token,
	// language) that the endpoint handles itself. They are skipped before
	// anything else, even when they are reserved names or filterable
	// attributes.
	Ignore []string
	// TimePrecision is the precision the listing shows its date-time
	// attributes at (time.Second for RFC 3339 without a fraction). Their
	// filters compare an item's instant truncated to it (Filter.Precision),
	// so gt(updated_dt)=T never selects an item shown with updated_dt T.
	// Zero compares instants as stored. Sorting is by the stored instant.
	TimePrecision time.Duration
}

// pageSizes resolves the spec's defaults and checks them.
func (s ListSpec) pageSizes() (def, maxSize int, err error) {
	def, maxSize = s.DefaultPageSize, s.MaxPageSize
	if def == 0 {
		def = DefaultPageSize
	}
	if maxSize == 0 {
		maxSize = DefaultMaxPageSize
	}
	if def < 1 || maxSize < 1 || def > maxSize {
		return 0, 0, Errorf(Internal, CodeInvalidListSpec,
			"list spec: default page size %d must be between 1 and the maximum %d", def, maxSize)
	}
	if s.TimePrecision < 0 {
		return 0, 0, Errorf(Internal, CodeInvalidListSpec, "list spec: negative time precision %v", s.TimePrecision)
	}
	for _, a := range s.Search {
		if t := s.Filter[a]; t != AttrString && t != AttrNumber {
			return 0, 0, Errorf(Internal, CodeInvalidListSpec, "list spec: searched attribute %q is no string or number attribute of Filter", a)
		}
	}
	return def, maxSize, nil
}

// search is q=text over the spec's searched attributes, split by type.
func (s ListSpec) search(text string) Search {
	q := Search{Text: text}
	for _, a := range s.Search {
		if s.Filter[a] == AttrNumber {
			q.Numbers = append(q.Numbers, a)
		} else {
			q.Attrs = append(q.Attrs, a)
		}
	}
	return q
}

// ListQuery is a parsed listing request: which page, in which order, and
// which filters (all of which must hold). PageNumber counts from 1. A zero
// PageSize means no paging, for listings built in code (ParseListQuery
// never returns it), so the zero ListQuery selects everything.
type ListQuery struct {
	PageNumber int
	PageSize   int
	Sort       []SortKey
	Filters    []Filter
	Search     Search
}

// Attrs are the attributes q reads, in its order: those of its filters,
// of its search, then of its sort (an attribute may repeat). A store
// readies what these need (columns, joins) before it lists.
func (q ListQuery) Attrs() []string {
	var names []string
	for _, f := range q.Filters {
		names = append(names, f.Attr)
	}
	for _, f := range q.Search.Filters() {
		names = append(names, f.Attr)
	}
	for _, k := range q.Sort {
		names = append(names, k.Attr)
	}
	return names
}

// Search is q: the items where any of Attrs (string attributes) contains
// Text, case-insensitively, as the contains operator compares, or any of
// Numbers (number attributes) equals Text read as a decimal number. An
// empty Text searches nothing.
type Search struct {
	Text    string
	Attrs   []string
	Numbers []string
}

// Filters are the filters of the search, one per attribute (contains for
// Attrs; eq for Numbers, none of them when Text is no decimal number): an
// item matches the search when it matches any of them. None without Text.
func (s Search) Filters() []Filter {
	if s.Text == "" {
		return nil
	}
	fs := make([]Filter, 0, len(s.Attrs)+len(s.Numbers))
	for _, a := range s.Attrs {
		fs = append(fs, Filter{Op: OpContains, Attr: a, Values: []Value{StringValue(s.Text)}})
	}
	if n, err := NumberValue(s.Text); err == nil {
		for _, a := range s.Numbers {
			fs = append(fs, Filter{Op: OpEq, Attr: a, Values: []Value{n}})
		}
	}
	return fs
}

// SortKey is one attribute of the sort order; Desc is the `-` prefix.
type SortKey struct {
	Attr string
	Desc bool
}

// Offset returns how many items precede the page: (PageNumber-1)*PageSize,
// with a PageNumber below 1 taken as 1, and math.MaxInt instead of an
// overflow.
func (q ListQuery) Offset() int {
	if q.PageNumber <= 1 || q.PageSize <= 0 {
		return 0
	}
	if q.PageNumber-1 > math.MaxInt/q.PageSize {
		return math.MaxInt
	}
	return (q.PageNumber - 1) * q.PageSize
}

// Page is one page of a listing and the number of items across all pages
// (after filtering), which the pagination envelopes of every API family
// report.
type Page[T any] struct {
	Items []T
	Total int
}

// PageInfo is what a listing's answer tells of its page; each API family
// spells it its own way.
type PageInfo struct {
	Total   int // the items selected in all
	Count   int // the items on this page
	PerPage int // the page size; 0 without paging
	Number  int // this page's number, from 1
	Pages   int // the pages the items fill: none without items
}

// Info tells p's page as selected by q. Without paging (a zero PageSize)
// every item is on page 1.
func (p Page[T]) Info(q ListQuery) PageInfo {
	in := PageInfo{Total: p.Total, Count: len(p.Items), PerPage: max(q.PageSize, 0), Number: max(q.PageNumber, 1)}
	switch {
	case p.Total <= 0:
	case q.PageSize > 0:
		in.Pages = (p.Total-1)/q.PageSize + 1
	default:
		in.Pages = 1
	}
	return in
}

// MapItems is the items of p, each made into what f returns (an API's
// wire shape); never nil, so an empty page is an empty array.
func MapItems[T, W any](p Page[T], f func(T) W) []W {
	out := make([]W, len(p.Items))
	for i := range p.Items {
		out[i] = f(p.Items[i])
	}
	return out
}

// ParseListQuery reads the listing parameters of v according to spec:
// page_number, page_size, paging, sort, and filters in the forms attr=value
// and operator(attr)=value. Parameters named in spec.Ignore are skipped;
// every other parameter must be one of these. All problems are reported
// together in one Invalid *Error with code CodeInvalidQuery, whose Fields
// name each parameter as the caller spelled it. The package documentation
// lists the rules. v is not modified.
func ParseListQuery(v url.Values, spec ListSpec) (ListQuery, error) {
	def, maxSize, err := spec.pageSizes()
	if err != nil {
		return ListQuery{}, err
	}
	p := queryParser{spec: spec, maxSize: maxSize}
	q := ListQuery{PageNumber: 1, PageSize: def}
	var pageNumber, pageSize, pagingNumber, pagingSize int // 0: not given or bad

	for _, key := range slices.Sorted(maps.Keys(v)) {
		vals := v[key]
		if len(vals) == 0 || slices.Contains(spec.Ignore, key) {
			continue
		}
		switch key {
		case ParamPageNumber:
			if raw, ok := p.single(key, vals); ok {
				pageNumber = p.pageNumber(key, raw)
			}
		case ParamPageSize:
			if raw, ok := p.single(key, vals); ok {
				pageSize = p.pageSize(key, raw)
			}
		case ParamPaging:
			if raw, ok := p.single(key, vals); ok {
				num, size, found := strings.Cut(raw, ",")
				if !found {
					p.add(key, "must be two comma-separated integers page_num,page_size, got "+quote(raw), "")
					break
				}
				pagingNumber = p.pageNumber(key, num)
				pagingSize = p.pageSize(key, size)
			}
		case ParamSort:
			if raw, ok := p.single(key, vals); ok {
				q.Sort = p.sort(key, raw)
			}
		case ParamSearch:
			if len(spec.Search) == 0 {
				p.add(key, "this listing has no text search", "")
				break
			}
			if raw, ok := p.single(key, vals); ok && raw != "" {
				q.Search = spec.search(raw)
			}
		default:
			if len(vals) > 1 {
				vals = slices.Sorted(slices.Values(vals)) // deterministic, and v stays as given
			}
			for _, raw := range vals {
				f, ok, err := p.filter(key, raw)
				if err != nil {
					return ListQuery{}, err
				}
				if ok {
					q.Filters = append(q.Filters, f)
				}
			}
		}
	}

	if pagingNumber > 0 {
		if pageNumber > 0 && pageNumber != pagingNumber {
			p.add(ParamPaging, "page number "+strconv.Itoa(pagingNumber)+" disagrees with page_number "+strconv.Itoa(pageNumber), "")
		}
		pageNumber = pagingNumber
	}
	if pagingSize > 0 {
		if pageSize > 0 && pageSize != pagingSize {
			p.add(ParamPaging, "page size "+strconv.Itoa(pagingSize)+" disagrees with page_size "+strconv.Itoa(pageSize), "")
		}
		pageSize = pagingSize
	}
	if pageNumber > 0 {
		q.PageNumber = pageNumber
	}
	if pageSize > 0 {
		q.PageSize = pageSize
	}
	if q.PageNumber-1 > math.MaxInt/q.PageSize {
		name := ParamPageNumber
		if pagingNumber > 0 {
			name = ParamPaging
		}
		p.add(name, "page number "+strconv.Itoa(q.PageNumber)+" is too large", "")
	}
	if err := p.err(); err != nil {
		return ListQuery{}, err
	}
	return q, nil
}

// queryParser collects the problems of one ParseListQuery call.
type queryParser struct {
	spec     ListSpec
	maxSize  int
	problems []FieldError
}

func (p *queryParser) add(name, message, description string) {
	p.problems = append(p.problems, FieldError{Name: name, Message: message, Description: description})
}

func (p *queryParser) err() error {
	if len(p.problems) == 0 {
		return nil
	}
	first := p.problems[0]
	msg := "invalid list query: " + first.Name + ": " + first.Message
	if n := len(p.problems) - 1; n == 1 {
		msg += " (and 1 more problem)"
	} else if n > 1 {
		msg += " (and " + strconv.Itoa(n) + " more problems)"
	}
	return &Error{Kind: Invalid, Code: CodeInvalidQuery, Message: msg, Fields: p.problems}
}

// single returns the one value of a parameter that may appear once.
func (p *queryParser) single(key string, vals []string) (string, bool) {
	if len(vals) != 1 {
		p.add(key, "must be given at most once, got "+strconv.Itoa(len(vals))+" values", "")
		return "", false
	}
	return vals[0], true
}

// pageNumber parses an integer >= 1 and returns 0 after reporting a problem.
func (p *queryParser) pageNumber(key, raw string) int {
	n, ok := positive(raw)
	if !ok {
		p.add(key, "page number must be an integer of at least 1, got "+quote(raw), "")
		return 0
	}
	return n
}

// pageSize parses an integer from 1 to the maximum. A size above the
// maximum is refused, not clamped, so that a client never silently gets
// fewer items per page than it asked for.
func (p *queryParser) pageSize(key, raw string) int {
	n, ok := positive(raw)
	if !ok || n > p.maxSize {
		p.add(key, "page size must be an integer from 1 to "+strconv.Itoa(p.maxSize)+", got "+quote(raw),
			"the maximum page size of this listing is "+strconv.Itoa(p.maxSize))
		return 0
	}
	return n
}

// positive parses ASCII digits (no sign, no spaces) as an int >= 1.
func positive(s string) (int, bool) {
	if s == "" || !allDigits(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

func (p *queryParser) sort(key, raw string) []SortKey {
	if raw == "" {
		return nil // an empty sort is no sort, as grids send when no column is chosen
	}
	var keys []SortKey
	for item := range strings.SplitSeq(raw, ",") {
		k := SortKey{Attr: item}
		if strings.HasPrefix(item, "-") {
			k = SortKey{Attr: item[1:], Desc: true}
		}
		switch {
		case k.Attr == "":
			p.add(key, "empty attribute in "+quote(raw), "want attribute names separated by commas, each optionally prefixed with - for descending")
		case !slices.Contains(p.spec.Sort, k.Attr):
			p.add(key, "cannot sort by "+quote(k.Attr), listing("sortable attributes: ", p.spec.Sort))
		case slices.ContainsFunc(keys, func(o SortKey) bool { return o.Attr == k.Attr }):
			p.add(key, "attribute "+quote(k.Attr)+" appears more than once", "")
		default:
			keys = append(keys, k)
		}
	}
	return keys
}

// filter parses one filter parameter. ok is false when a problem was
// reported; err is an Internal error for a malformed spec.
func (p *queryParser) filter(key, raw string) (f Filter, ok bool, err error) {
	f = Filter{Op: OpEq, Attr: key}
	if open := strings.IndexByte(key, '('); open >= 0 && strings.HasSuffix(key, ")") {
		f = Filter{Op: Op(key[:open]), Attr: key[open+1 : len(key)-1]}
	}
	arity, opOK := f.Op.arity()
	typ, attrOK := p.spec.Filter[f.Attr]
	if !opOK {
		p.add(key, "unknown operator "+quote(string(f.Op)), "operators: "+opNames)
	}
	if !attrOK {
		p.add(key, "cannot filter by "+quote(f.Attr), listing("filterable attributes: ", slices.Sorted(maps.Keys(p.spec.Filter))))
	}
	if !opOK || !attrOK {
		return Filter{}, false, nil
	}
	if !typ.valid() {
		return Filter{}, false, Errorf(Internal, CodeInvalidListSpec, "list spec: attribute %q has no valid type (%d)", f.Attr, typ)
	}
	if !f.Op.appliesTo(typ) {
		p.add(key, "operator "+string(f.Op)+" does not apply to "+typ.String()+" attribute "+quote(f.Attr), "")
		return Filter{}, false, nil
	}
	if typ == AttrDateTime {
		f.Precision = p.spec.TimePrecision
	}

	var texts []string
	switch arity {
	case 0:
		if raw != "" && raw != "true" {
			p.add(key, "takes no value: give it empty or \"true\", got "+quote(raw), "")
			return Filter{}, false, nil
		}
		return f, true, nil
	case 1:
		texts = []string{raw}
	case 2:
		lo, hi, found := strings.Cut(raw, ",")
		if !found || strings.Contains(hi, ",") {
			p.add(key, "takes exactly two comma-separated values low,high, got "+quote(raw), "")
			return Filter{}, false, nil
		}
		texts = []string{lo, hi}
	default:
		texts = strings.Split(raw, ",")
	}

	f.Values = make([]Value, 0, len(texts))
	ok = true
	for _, t := range texts {
		v, why := parseValue(typ, t)
		if why != "" {
			p.add(key, why, "")
			ok = false
			continue
		}
		f.Values = append(f.Values, v)
	}
	if ok && arity == 2 && f.Values[0].Compare(f.Values[1]) > 0 {
		p.add(key, "low bound "+quote(texts[0])+" is above high bound "+quote(texts[1]), "")
		ok = false
	}
	if !ok {
		return Filter{}, false, nil
	}
	return f, true, nil
}

// opNames is the operator list that error descriptions show; a test keeps
// it in step with Ops.
const opNames = "isnull, isnotnull, isempty, isnotempty, eq, neq, startswith, contains, endswith, doesnotcontain, lt, lte, gt, gte, in, notin, between, notbetween"

// parseValue parses query text as a Value of type t, or says why it cannot.
func parseValue(t AttrType, s string) (Value, string) {
	switch t {
	case AttrString:
		return StringValue(s), ""
	case AttrNumber:
		if c, ok := canonicalDecimal(s); ok {
			return Value{typ: AttrNumber, s: c}, ""
		}
		return Value{}, quote(s) + " is not a number: want digits with an optional leading - and . fraction"
	case AttrDate:
		if d, ok := parseDate(s); ok {
			return DateValue(d), ""
		}
		return Value{}, quote(s) + " is not a date: want an existing date YYYY-MM-DD"
	case AttrDateTime:
		if tm, ok := parseDateTime(s); ok {
			return TimeValue(tm), ""
		}
		return Value{}, quote(s) + " is not a date-time: want RFC 3339, such as 2026-01-31T09:30:00Z or 2026-01-31T09:30:00+02:00"
	case AttrBool:
		switch s {
		case "true":
			return BoolValue(true), ""
		case "false":
			return BoolValue(false), ""
		}
		return Value{}, quote(s) + " is not a boolean: want true or false"
	}
	return Value{}, "attribute has no type"
}

// parseDateTime parses RFC 3339. A space where a positive offset's + sign
// belongs is read as +, because an unencoded + in a query string decodes to
// a space and clients forget to encode it.
func parseDateTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	if n := len(s); n > 6 && s[n-6] == ' ' {
		if t, err := time.Parse(time.RFC3339, s[:n-6]+"+"+s[n-5:]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// listing describes the allowed names for an error's description.
func listing(intro string, names []string) string {
	if len(names) == 0 {
		return "this listing allows none"
	}
	return intro + strings.Join(names, ", ")
}

// quote quotes user text for a message, cut to a readable length.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}
