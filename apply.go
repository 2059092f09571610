package msgkit

import (
	"slices"
)

// Getter returns the value of attribute attr of item. It returns ok=false
// for an attribute it does not know (a programming error, which Apply
// reports) and the null Value for an attribute that is known but unset. The
// Value must have the attribute's type (see Filter.Match for what happens
// otherwise).
type Getter[T any] func(item T, attr string) (v Value, ok bool)

// Apply runs q over items in memory, as the in-memory stores do: it keeps
// the items that satisfy every filter, sorts them stably by q.Sort (nulls
// after every value ascending and before them descending, as PostgreSQL
// orders by default; ties keep the input order), and returns the page that
// q asks for with the number of items that passed the filters. A page past
// the end has no items and the right Total; Items is never nil, so it
// encodes as a JSON array. items is not modified.
//
// A malformed q (unknown operator, wrong number of filter values, negative
// page) or a Getter that does not know an attribute is an Internal error
// with code CodeInvalidListSpec: ParseListQuery never produces such a query.
func Apply[T any](items []T, q ListQuery, get Getter[T]) (Page[T], error) {
	return ApplyAttrs(items, nil, q, func(attr string) (Accessor[T], bool) {
		return func(it *T) (Value, bool) { return get(*it, attr) }, true
	})
}

// Accessor reads one attribute of an item: its Value, or ok=false when
// the attribute turns out unknown for this item (as a Getter says).
type Accessor[T any] func(item *T) (v Value, ok bool)

// Attrs resolves an attribute's name to the Accessor that reads it, or
// ok=false for a name it does not know. ApplyAttrs resolves each attribute
// of a query once, so a store in memory reads a row's attribute with one
// call instead of a lookup by name per row and per comparison.
type Attrs[T any] func(attr string) (get Accessor[T], ok bool)

// ApplyAttrs is Apply over the items keep keeps (every item when keep is
// nil), with the query's attributes resolved by attrs once, before any
// item is read. keep holds what a store selects beside q (scope, soft
// deletion), so a store passes its own records without gathering the
// kept ones first, and each item is read once. Items are read through
// pointers into items (never copied but for the page's), so an Accessor
// may read a large item in place. An attribute attrs does not know is
// Apply's Internal error, reported whether or not any item is read.
func ApplyAttrs[T any](items []T, keep func(*T) bool, q ListQuery, attrs Attrs[T]) (Page[T], error) {
	if err := checkQuery(q); err != nil {
		return Page[T]{}, err
	}
	a, err := compile(q, keep, attrs)
	if err != nil {
		return Page[T]{}, err
	}
	offset, size := q.Offset(), q.PageSize
	inPage := func(pos int) bool { return pos >= offset && (size == 0 || pos-offset < size) }

	if len(q.Sort) == 0 {
		out := []T{}
		total := 0
		for i := range items {
			ok, err := a.match(&items[i])
			if err != nil {
				return Page[T]{}, err
			}
			if !ok {
				continue
			}
			if inPage(total) {
				out = append(out, items[i])
			}
			total++
		}
		return Page[T]{Items: out, Total: total}, nil
	}

	if size > 0 && offset <= topKLimit-size {
		return a.topK(items, offset+size)
	}
	// Keep the positions of the matching items and their sort values, one
	// row of len(q.Sort) values per match, then sort the rows.
	nk := len(q.Sort)
	var pos []int
	var keys []Value
	for i := range items {
		it := &items[i]
		ok, err := a.match(it)
		if err != nil {
			return Page[T]{}, err
		}
		if !ok {
			continue
		}
		keys = slices.Grow(keys, nk)[:len(keys)+nk]
		if err := a.sortKeys(it, keys[len(keys)-nk:]); err != nil {
			return Page[T]{}, err
		}
		pos = append(pos, i)
	}
	order := make([]int, len(pos))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		kx, ky := keys[x*nk:x*nk+nk], keys[y*nk:y*nk+nk]
		for j, k := range q.Sort {
			c := kx[j].Compare(ky[j])
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmpInt(x, y) // input order breaks ties, so the sort is stable
	})
	out := []T{}
	for p, o := range order {
		if inPage(p) {
			out = append(out, items[pos[o]])
		}
	}
	return Page[T]{Items: out, Total: len(pos)}, nil
}

// applier is a query with its attributes resolved: the filters, the
// search's filters and the sort keys, each with its Accessor.
type applier[T any] struct {
	q       ListQuery
	keep    func(*T) bool
	filters []resolved[T]
	search  []resolved[T]
	sort    []Accessor[T]
}

// resolved is a filter and the Accessor of its attribute.
type resolved[T any] struct {
	f   Filter
	get Accessor[T]
}

// compile resolves every attribute q reads, once: the search's filters
// too, which are made here and not per item.
func compile[T any](q ListQuery, keep func(*T) bool, attrs Attrs[T]) (*applier[T], error) {
	a := &applier[T]{q: q, keep: keep}
	resolve := func(fs []Filter) ([]resolved[T], error) {
		out := make([]resolved[T], len(fs))
		for i, f := range fs {
			get, ok := attrs(f.Attr)
			if !ok {
				return nil, unknownAttr(f.Attr)
			}
			out[i] = resolved[T]{f: f, get: get}
		}
		return out, nil
	}
	var err error
	if a.filters, err = resolve(q.Filters); err != nil {
		return nil, err
	}
	if a.search, err = resolve(q.Search.Filters()); err != nil {
		return nil, err
	}
	for _, k := range q.Sort {
		get, ok := attrs(k.Attr)
		if !ok {
			return nil, unknownAttr(k.Attr)
		}
		a.sort = append(a.sort, get)
	}
	return a, nil
}

// match reports whether it is kept and satisfies every filter of the
// query, and the search.
func (a *applier[T]) match(it *T) (bool, error) {
	if a.keep != nil && !a.keep(it) {
		return false, nil
	}
	if ok, err := a.found(it); !ok || err != nil {
		return false, err
	}
	for i := range a.filters {
		r := &a.filters[i]
		v, ok := r.get(it)
		if !ok {
			return false, unknownAttr(r.f.Attr)
		}
		if !r.f.Match(v) {
			return false, nil
		}
	}
	return true, nil
}

func unknownAttr(attr string) error {
	return Errorf(Internal, CodeInvalidListSpec, "list query: the getter knows no attribute %q", attr)
}

// checkQuery refuses a ListQuery that ParseListQuery could not have made.
func checkQuery(q ListQuery) error {
	if q.PageNumber < 0 || q.PageSize < 0 {
		return Errorf(Internal, CodeInvalidListSpec, "list query: negative page number %d or size %d", q.PageNumber, q.PageSize)
	}
	for _, f := range q.Filters {
		n, ok := f.Op.arity()
		if !ok || (n >= 0 && len(f.Values) != n) || (n < 0 && len(f.Values) == 0) {
			return Errorf(Internal, CodeInvalidListSpec, "list query: malformed filter %s(%s) with %d values", f.Op, f.Attr, len(f.Values))
		}
	}
	return nil
}

// found reports whether it matches the search: one of its filters.
func (a *applier[T]) found(it *T) (bool, error) {
	for i := range a.search {
		r := &a.search[i]
		v, ok := r.get(it)
		if !ok {
			return false, unknownAttr(r.f.Attr)
		}
		if r.f.Match(v) {
			return true, nil
		}
	}
	return len(a.search) == 0, nil
}

// topKLimit bounds the pages Apply selects with a heap: up to this many
// items before the page's end it keeps only those, and does not sort every
// match (page 1 of a million matches compares each once with the heap's
// worst instead of sorting them all).
const topKLimit = 10_000

// ranked is a match kept for the page: its position and its sort values.
type ranked struct {
	pos  int
	keys []Value
}

// before is the sort order of Apply: the keys by q.Sort, then the input
// order.
func (a *applier[T]) before(x, y *ranked) bool {
	for j, k := range a.q.Sort {
		c := x.keys[j].Compare(y.keys[j])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return x.pos < y.pos
}

// topK is Apply for a sorted page ending at item end (the first end
// items in order, of which the page is the tail): a heap of the end best
// matches, the worst at its root.
func (a *applier[T]) topK(items []T, end int) (Page[T], error) {
	nk := len(a.q.Sort)
	heap := make([]ranked, 0, min(end, 64))
	scratch := ranked{keys: make([]Value, nk)}
	total := 0
	for i := range items {
		it := &items[i]
		ok, err := a.match(it)
		if err != nil {
			return Page[T]{}, err
		}
		if !ok {
			continue
		}
		total++
		scratch.pos = i
		if err := a.sortKeys(it, scratch.keys); err != nil {
			return Page[T]{}, err
		}
		switch {
		case len(heap) < end:
			heap = append(heap, ranked{pos: i, keys: slices.Clone(scratch.keys)})
			a.siftUp(heap, len(heap)-1)
		case a.before(&scratch, &heap[0]):
			copy(heap[0].keys, scratch.keys)
			heap[0].pos = i
			a.siftDown(heap, 0)
		}
	}
	slices.SortFunc(heap, func(x, y ranked) int {
		if a.before(&x, &y) {
			return -1
		}
		return 1
	})
	out := []T{}
	for p := end - a.q.PageSize; p < len(heap); p++ {
		out = append(out, items[heap[p].pos])
	}
	return Page[T]{Items: out, Total: total}, nil
}

// siftUp and siftDown keep h a heap whose root comes last in the order.
func (a *applier[T]) siftUp(h []ranked, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !a.before(&h[p], &h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (a *applier[T]) siftDown(h []ranked, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && a.before(&h[worst], &h[l]) {
			worst = l
		}
		if r < len(h) && a.before(&h[worst], &h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// sortKeys writes it's values of the sort attributes into dst.
func (a *applier[T]) sortKeys(it *T, dst []Value) error {
	for j, get := range a.sort {
		v, known := get(it)
		if !known {
			return unknownAttr(a.q.Sort[j].Attr)
		}
		dst[j] = v
	}
	return nil
}
