package memstore

import (
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// contactColumns are what listings read most of a tenant's contacts, by
// position in store order, in arrays: whether each is deleted, and the
// values of the attributes listings filter and sort by, each column made
// when a listing first reads its attribute. A listing over a million
// contacts then reads a few contiguous arrays instead of a million
// records scattered over the heap (the records' fields cost a cache miss
// each, which is what made memory slower than PostgreSQL's indexes). A
// write to the tenant's contacts drops them (tenantContacts.changed).
type contactColumns struct {
	order   []*contacts.Contact
	pos     []int32 // 0 to len(order)-1: what a listing runs over
	deleted []bool
	values  map[string][]msgkit.Value
}

// newContactColumns are the columns of order, none of values yet.
func newContactColumns(order []*contacts.Contact) *contactColumns {
	cs := &contactColumns{order: order, pos: make([]int32, len(order)), deleted: make([]bool, len(order)), values: map[string][]msgkit.Value{}}
	for i, c := range order {
		cs.pos[i] = int32(i)
		cs.deleted[i] = !c.Deleted.IsZero()
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
			cs.values[name] = column(cs.order, get)
		}
	}
}

// column is the values get reads of order, their strings copied into
// one block of memory, in order, so that comparing them reads memory in
// sequence too.
func column(order []*contacts.Contact, get msgkit.Accessor[*contacts.Contact]) []msgkit.Value {
	vals := make([]msgkit.Value, len(order))
	size := 0
	for i := range order {
		vals[i], _ = get(&order[i])
		size += len(vals[i].Str())
	}
	if size == 0 {
		return vals
	}
	var b strings.Builder
	b.Grow(size)
	for i := range vals {
		b.WriteString(vals[i].Str())
	}
	block, off := b.String(), 0
	for i := range vals {
		if n := len(vals[i].Str()); vals[i].Type() == msgkit.AttrString {
			vals[i] = msgkit.StringValue(block[off : off+n])
			off += n
		}
	}
	return vals
}

// attr reads an attribute from its column (prepare made it), by
// position.
func (cs *contactColumns) attr(name string) (msgkit.Accessor[int32], bool) {
	col, ok := cs.values[name]
	if !ok {
		return nil, false
	}
	return func(i *int32) (msgkit.Value, bool) { return col[*i], true }, true
}

// keep is what q selects beside q.List, by position: from the deleted
// column when that is all it reads, from the contact otherwise.
func (cs *contactColumns) keep(q *contacts.ContactQuery) func(*int32) bool {
	if q.SelectsDeletionOnly() {
		if q.ShowDeleted {
			return nil
		}
		return func(i *int32) bool { return !cs.deleted[*i] }
	}
	m := q.Matcher()
	return func(i *int32) bool { return q.Selects(cs.order[*i], m) }
}
