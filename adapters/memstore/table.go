package memstore

import (
	"sync"

	"github.com/msgkit/msgkit"
)

// table is one kind of record keyed by K, the building block of every
// domain's store: lookups of absent keys are NotFound (<thing>_not_found)
// and inserts of present keys Conflict (<thing>_exists), worded as pgstore
// words them, and records are copied on the way in (in) and out (out), so
// no caller can change what the store holds through a slice it passed in
// or got back. A nil in or out keeps the value as it is (out may stay nil
// where a record is read on every request and the store promises callers
// do not modify it).
//
// The tables of one domain share its lock (mu), so an operation over
// several of them (charge an account and save a message) holds it once and
// works on rows directly.
type table[K comparable, V any] struct {
	mu      *sync.RWMutex
	rows    map[K]V
	in, out func(V) V
	thing   string         // names the record in error codes: "client"
	what    func(K) string // words the record in messages: "client c1"
}

func newTable[K comparable, V any](mu *sync.RWMutex, thing string, what func(K) string, in, out func(V) V) *table[K, V] {
	return &table[K, V]{mu: mu, rows: map[K]V{}, thing: thing, what: what, in: in, out: out}
}

func (t *table[K, V]) notFound(k K) error {
	return msgkit.New(msgkit.NotFound, t.thing+"_not_found", t.what(k)+" not found")
}

func (t *table[K, V]) exists(k K) error {
	return msgkit.New(msgkit.Conflict, t.thing+"_exists", t.what(k)+" exists")
}

func (t *table[K, V]) copyIn(v V) V {
	if t.in != nil {
		return t.in(v)
	}
	return v
}

func (t *table[K, V]) copyOut(v V) V {
	if t.out != nil {
		return t.out(v)
	}
	return v
}

// get returns a copy of the record at k, or notFound.
func (t *table[K, V]) get(k K) (V, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v, ok := t.rows[k]
	if !ok {
		var zero V
		return zero, t.notFound(k)
	}
	return t.copyOut(v), nil
}

// insert stores a copy of v at k, or answers exists when k is taken.
func (t *table[K, V]) insert(k K, v V) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.insertLocked(k, v)
}

// insertLocked is insert for a caller holding mu.
func (t *table[K, V]) insertLocked(k K, v V) error {
	if _, ok := t.rows[k]; ok {
		return t.exists(k)
	}
	t.rows[k] = t.copyIn(v)
	return nil
}

// update runs fn on the record at k under the lock and keeps what fn left
// when it returns nil; absent keys are notFound. fn works on the stored
// value itself, so it must not keep references to it.
func (t *table[K, V]) update(k K, fn func(*V) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.updateLocked(k, fn)
}

// updateLocked is update for a caller holding mu.
func (t *table[K, V]) updateLocked(k K, fn func(*V) error) error {
	v, ok := t.rows[k]
	if !ok {
		return t.notFound(k)
	}
	if err := fn(&v); err != nil {
		return err
	}
	t.rows[k] = v
	return nil
}

// delete removes the record at k, or answers notFound.
func (t *table[K, V]) delete(k K) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.rows[k]; !ok {
		return t.notFound(k)
	}
	delete(t.rows, k)
	return nil
}
