package contactstest

import (
	"runtime"
	"runtime/debug"
	"time"
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
const measureGCPercent = 10

// MeasureHeap runs fn and measures its heap: the heap in use (HeapAlloc)
// sampled every millisecond, with the collector at measureGCPercent. The
// heap is the process's: call it from a test that is not parallel, and
// have built fn's input before.
func MeasureHeap(fn func()) Heap {
	var ms runtime.MemStats
	runtime.GC()
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
	runtime.GC()
	runtime.ReadMemStats(&ms)
	over := func(v uint64) uint64 {
		if v < base {
			return 0
		}
		return v - base
	}
	return Heap{Peak: over(top), Kept: over(ms.HeapAlloc)}
}
