package memstore

import (
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// contactColumns are what listings read most of a tenant's contacts, by
// position in store order, in arrays: which contacts a selection keeps
// (contacts.ContactQuery.SelectionKey), and the values of the attributes
// listings filter and sort by, each made when a listing first reads it. A listing over a million
// contacts then reads a few contiguous arrays instead of a million
// records scattered over the heap (the records' fields cost a cache miss
// each, which is what made memory slower than PostgreSQL's indexes). A
// write to the tenant's contacts drops them (tenantContacts.changed).
type contactColumns struct {
	order  []*contacts.Contact
	pos    []int32 // 0 to len(order)-1: what a listing runs over
	kept   map[string][]bool
	values map[string]textColumn
}

// keptSelections bounds the selections kept: queries by contact uuids
// each have their own, and a tenant's memory should not grow with them.
const keptSelections = 16

// newContactColumns are the columns of order, none made yet.
func newContactColumns(order []*contacts.Contact) *contactColumns {
	cs := &contactColumns{order: order, pos: make([]int32, len(order)), kept: map[string][]bool{}, values: map[string]textColumn{}}
	for i := range order {
		cs.pos[i] = int32(i)
	}
	return cs
}

// prepare makes the columns of the attributes q reads that are not made
// yet; an attribute the listing does not know is left to the listing to
// refuse. Listings in parts read the columns concurrently, so they are
// all made before.
func (cs *contactColumns) prepare(q msgkit.ListQuery) {
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
	for _, name := range names {
		if _, ok := cs.values[name]; ok {
			continue
		}
		if get, ok := contacts.ContactAttr(name); ok {
			cs.values[name] = newTextColumn(cs.order, get)
		}
	}
}

// textColumn is an attribute's values by position: those that are
// strings or null in strs and null (the strings in one block of memory,
// in order, so that comparing them reads memory in sequence too), any
// other column in vals, a Value being four times a string's size.
type textColumn struct {
	strs []string
	null []bool
	vals []msgkit.Value
}

// newTextColumn is the column of the values get reads of order.
func newTextColumn(order []*contacts.Contact, get msgkit.Accessor[*contacts.Contact]) textColumn {
	vals := make([]msgkit.Value, len(order))
	size := 0
	text := true
	for i := range order {
		vals[i], _ = get(&order[i])
		size += len(vals[i].Str())
		text = text && (vals[i].IsNull() || vals[i].Type() == msgkit.AttrString)
	}
	if !text {
		return textColumn{vals: vals}
	}
	var b strings.Builder
	b.Grow(size)
	for i := range vals {
		b.WriteString(vals[i].Str())
	}
	block, off := b.String(), 0
	col := textColumn{strs: make([]string, len(vals)), null: make([]bool, len(vals))}
	for i := range vals {
		n := len(vals[i].Str())
		col.strs[i], col.null[i] = block[off:off+n], vals[i].IsNull()
		off += n
	}
	return col
}

// value is the value at position i.
func (c *textColumn) value(i int32) msgkit.Value {
	switch {
	case c.vals != nil:
		return c.vals[i]
	case c.null[i]:
		return msgkit.Null()
	}
	return msgkit.StringValue(c.strs[i])
}

// attr reads an attribute from its column (prepare made it), by
// position.
func (cs *contactColumns) attr(name string) (msgkit.Accessor[int32], bool) {
	col, ok := cs.values[name]
	if !ok {
		return nil, false
	}
	return func(i *int32) (msgkit.Value, bool) { return col.value(*i), true }, true
}

// keep is what q selects beside q.List, by position: from the selection
// kept under its key, made now when there is none, or from the contact
// when q has no key. Listings in parts call it at once, so it only reads
// what prepareKeep made.
func (cs *contactColumns) keep(q *contacts.ContactQuery) func(*int32) bool {
	if key, ok := q.SelectionKey(); ok {
		kept := cs.kept[key]
		return func(i *int32) bool { return kept[*i] }
	}
	m := q.Matcher()
	return func(i *int32) bool { return q.Selects(cs.order[*i], m) }
}

// prepareKeep makes the selection of q's key if it has one and it is
// not kept yet.
func (cs *contactColumns) prepareKeep(q *contacts.ContactQuery) {
	key, ok := q.SelectionKey()
	if !ok || cs.kept[key] != nil {
		return
	}
	if len(cs.kept) >= keptSelections {
		clear(cs.kept)
	}
	m := q.Matcher()
	kept := make([]bool, len(cs.order))
	for i, c := range cs.order {
		kept[i] = q.Selects(c, m)
	}
	cs.kept[key] = kept
}
