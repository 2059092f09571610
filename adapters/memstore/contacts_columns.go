package memstore

import (
	"fmt"
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
	names := q.Attrs()
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

// selection is how a listing of q keeps its contacts, and the listing
// query that is left to run over them. When what Selects keeps depends
// on each contact alone (contacts.ContactQuery.SelectionKey), the
// contacts it keeps and that q.List's filters keep are kept as one
// bitmap under the two's key, made now when there is none, and the
// filters leave the listing query: a listing then reads a bitmap and
// its sort column. Otherwise each part of a listing checks Selects on
// the contacts (keep makes its own matchers) and the filters on the
// columns. Listings in parts call keep at once, so it only reads what
// selection made.
func (cs *contactColumns) selection(q *contacts.ContactQuery) (keep func() func(*int32) bool, lq msgkit.ListQuery) {
	sel, ok := q.SelectionKey()
	for _, f := range q.List.Filters {
		_, known := cs.values[f.Attr]
		ok = ok && known // an unknown one is the listing's to refuse
	}
	if !ok {
		return func() func(*int32) bool {
			m := q.Matcher()
			return func(i *int32) bool { return q.Selects(cs.order[*i], m) }
		}, q.List
	}
	key := sel + "|" + filtersKey(q.List.Filters)
	kept := cs.kept[key]
	if kept == nil {
		if len(cs.kept) >= keptSelections {
			clear(cs.kept)
		}
		kept = cs.keptBy(q)
		cs.kept[key] = kept
	}
	lq = q.List
	lq.Filters = nil
	return func() func(*int32) bool { return func(i *int32) bool { return kept[*i] } }, lq
}

// keptBy is, by position, whether q selects each contact and q.List's
// filters hold for it (from the columns, which prepare made).
func (cs *contactColumns) keptBy(q *contacts.ContactQuery) []bool {
	m := q.Matcher()
	kept := make([]bool, len(cs.order))
	for i, c := range cs.order {
		kept[i] = q.Selects(c, m)
	}
	for _, f := range q.List.Filters {
		col := cs.values[f.Attr]
		for i := range kept {
			kept[i] = kept[i] && f.Match(col.value(int32(i)))
		}
	}
	return kept
}

// filtersKey names filters: two lists of one key keep the same values
// (an attribute's values have one type, and a Value's text is exact).
func filtersKey(fs []msgkit.Filter) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s(%q)%d", f.Op, f.Attr, f.Precision)
		for _, v := range f.Values {
			fmt.Fprintf(&b, " %d:%q", v.Type(), v.String())
		}
		b.WriteByte(';')
	}
	return b.String()
}
