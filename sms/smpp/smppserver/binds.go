package smppserver

import (
	"time"

	"github.com/msgkit/msgkit/sms"
)

// MaxSystemID and MaxPassword bound a bind's system_id and password, in
// octets before the NUL: the longest username and password a bulk SMS
// account has, so that every account binds, where SMPP 3.4 allows 15 and
// 8 (see the package doc).
const (
	MaxSystemID = sms.MaxUsernameBytes
	MaxPassword = sms.MaxPasswordBytes
)

// bindOverdue reports whether the connection is still not bound at now,
// BindTimeout or more after it was accepted. A bind refused does not
// restart the wait.
func (c *session) bindOverdue(now time.Time) bool {
	c.mu.Lock()
	bound := c.mode != 0
	c.mu.Unlock()
	return !bound && now.Sub(c.opened) >= c.s.opts.BindTimeout
}
