package contactstest

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// Heap is what a function held of the process's heap while it ran
// (MeasureHeap), in bytes above the heap in use before it.
type Heap struct {
	// Peak is the most heap in use while it ran.
	Peak uint64
	// Kept is the heap in use after it, once collected: what it left
	// reachable (a store's new contents, say).
	Kept uint64
}

// Transient is what it held at its peak beyond what it kept: the
// memory of the work itself.
func (h Heap) Transient() uint64 {
	if h.Peak < h.Kept {
		return 0
	}
	return h.Peak - h.Kept
}

// measureGCPercent is the collector's target while measuring: a
// collection at every 10 % of growth, so that the heap in use follows
// what the function holds, not the garbage that waits for a collection
// (whose amount is GOGC's, an operator's setting).
const measureGCPercent = 5

// MeasureHeap runs fn and measures its heap: the heap in use (HeapAlloc)
// sampled every millisecond, with the collector at measureGCPercent. The
// heap is the process's: call it from a test that is not parallel, and
// have built fn's input before.
func MeasureHeap(fn func()) Heap {
	var ms runtime.MemStats
	collect()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	defer debug.SetGCPercent(debug.SetGCPercent(measureGCPercent))
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var top uint64
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-done:
				peak <- top
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	top := <-peak
	collect()
	runtime.ReadMemStats(&ms)
	over := func(v uint64) uint64 {
		if v < base {
			return 0
		}
		return v - base
	}
	return Heap{Peak: over(top), Kept: over(ms.HeapAlloc)}
}

// collect collects twice: what sync.Pools hold (pgx's buffers, say) goes
// at the second collection after its last use.
func collect() {
	runtime.GC()
	runtime.GC()
}

// runImportMemoryTest holds an import to its memory budget. A body of
// ImportBody contacts (100,000 of about 128 bytes, 13 MB; 20,000 with
// -short, 10,000 with the race detector) is read and imported into an
// empty list of a store from newStores, with the calls the HTTP handler
// makes (ReadImport, then Import), measured by MeasureHeap. At its peak
// the import may hold 4 times the body beyond what the store keeps
// (Heap.Transient); the smaller bodies 2 MiB more, what an import holds
// whatever its size (a chunk's items and contacts, the reading buffers,
// the collector's margin). After it, the heap may keep (Heap.Kept) what
// the store keeps of the same contacts created one by one (CreateContact,
// from copies that share nothing), 2 % and 1 MiB more: Stores.InHeap says
// the store keeps its contacts in the process's heap (memstore); otherwise
// that is nothing. The heap is the process's: call it from a top-level
// test that is not parallel.
func runImportMemoryTest(t *testing.T, newStores func(testing.TB) Stores) {
	const full = 100_000
	n := full
	switch {
	case raceEnabled:
		n = 10_000
	case testing.Short():
		n = 20_000
	}
	ctx := context.Background()
	body := ImportBody(0, n)
	newList := func(s ImportStore) string {
		l, err := s.CreateList(ctx, TenantA, contacts.List{UUID: ListUUID(1), Name: "memory", Status: "active", Created: at(0), Updated: at(0)})
		if err != nil {
			t.Fatal(err)
		}
		return l.UUID
	}
	st := newStores(t)
	s := st.Contacts
	list := newList(s)
	o, err := contacts.ParseImportQuery(mustValues("list_uuid=" + list))
	if err != nil {
		t.Fatal(err)
	}
	seq := 0
	var r contacts.ImportResult
	h := MeasureHeap(func() {
		items, err := contacts.ReadImport(bytes.NewReader(body), o)
		if err != nil {
			t.Fatal(err)
		}
		r, err = s.Import(ctx, TenantA, contacts.ImportBatch{Options: o, Items: items, Now: at(1),
			NewUUID: func() string { seq++; return uuidN(0x67000000, seq) }})
		if err != nil {
			t.Fatal(err)
		}
	})
	runtime.KeepAlive(s)    // what it keeps is measured after the import,
	runtime.KeepAlive(body) // and what was there before stays
	if r.Created != n || r.Total() != n {
		t.Fatalf("result %+v, want %d created", r, n)
	}
	var keeps uint64 // what the store keeps of the contacts created one by one
	if st.InHeap {
		page, err := s.Contacts(ctx, TenantA, contacts.ContactQuery{ListUUIDs: []string{list}, List: msgkit.ListQuery{PageNumber: 1, PageSize: n}})
		if err != nil || len(page.Items) != n {
			t.Fatalf("Contacts: %d, %v", len(page.Items), err)
		}
		one := newStores(t).Contacts
		newList(one)
		keeps = MeasureHeap(func() {
			for _, c := range page.Items {
				if _, err := one.CreateContact(ctx, TenantA, detached(c)); err != nil {
					t.Fatal(err)
				}
			}
		}).Kept
		runtime.KeepAlive(one)
		runtime.KeepAlive(page)
	}
	size := uint64(len(body))
	t.Logf("body %d B; peak %d B, transient %d B (%.2f per body byte); kept %d B, one by one %d B",
		size, h.Peak, h.Transient(), float64(h.Transient())/float64(size), h.Kept, keeps)
	limit := 4 * size
	if n < full {
		limit += 2 << 20
	}
	if h.Transient() > limit {
		t.Errorf("the import held %d B at its peak beyond what it kept, over its %d B (4 times the body's %d B)", h.Transient(), limit, size)
	}
	if limit := keeps + keeps/50 + 1<<20; h.Kept > limit {
		t.Errorf("the import kept %d B, over the %d B the store keeps of its contacts created one by one (and a margin: %d B)", h.Kept, keeps, limit)
	}
}

// detached is c with its own copy of each text, sharing none with c: a
// contact as a store keeps it when created from a body of its own.
func detached(c contacts.Contact) contacts.Contact {
	d := c.Clone()
	for _, f := range segmentation.Fields() {
		if v := c.Value(f); v != "" {
			d.Restore(f, strings.Clone(v))
		}
	}
	d.UUID, d.ListUUID = strings.Clone(c.UUID), strings.Clone(c.ListUUID)
	d.MobileRaw, d.BMobileRaw = strings.Clone(c.MobileRaw), strings.Clone(c.BMobileRaw)
	d.Telegram.Identifier = strings.Clone(c.Telegram.Identifier)
	return d
}
