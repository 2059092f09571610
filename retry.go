package msgkit

import (
	"math/rand/v2"
	"time"
)

// Backoff is the wait before work that failed is tried again (a delivery
// report, an outbound part): Base after the first failure, doubled after
// each one that follows up to Max, and each wait drawn between half and
// all of that, so that work which failed together does not come back
// together. Every queue of leased, retried work uses it; its zero value
// never waits.
type Backoff struct {
	Base, Max time.Duration
	// Jitter returns a number in [0, 1); nil draws from math/rand/v2.
	// Tests pass a constant.
	Jitter func() float64
}

// Wait is the wait after the given number of failed attempts (1 after the
// first; less counts as 1).
func (b Backoff) Wait(attempts int) time.Duration {
	wait := b.Base
	// Doubling stops at Max, so it never overflows.
	for i := 1; i < attempts && wait < b.Max; i++ {
		wait *= 2
	}
	wait = min(wait, b.Max)
	jitter := b.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return wait/2 + time.Duration(jitter()*float64(wait/2))
}
