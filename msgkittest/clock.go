// Package msgkittest holds test helpers shared by msgkit's packages and
// useful to programs that embed msgkit: a clock that moves only when told,
// and golden files (Golden) with the -update flag that rewrites them.
// Importing the package registers that flag on the command line's flag set.
package msgkittest

import (
	"sync"
	"time"
)

// Clock is a manual clock, safe for concurrent use. Pass its Now method
// wherever a msgkit.Clock is taken; tests move it instead of sleeping.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now tells the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
