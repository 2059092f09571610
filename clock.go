package msgkit

import "time"

// Clock tells the time. Services take one in their options so that tests
// control time instead of sleeping; a nil Clock reads the system clock.
type Clock func() time.Time

// Now returns the current time from c, or from the system when c is nil.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c()
}
