package smppserver

import (
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// MaxSystemID and MaxPassword bound a bind's system_id and password, in
// octets before the NUL: the longest username and password a bulk SMS
// account has, so that every account binds, where SMPP 3.4 allows 15 and
// 8 (see the package doc).
const (
	MaxSystemID = sms.MaxUsernameBytes
	MaxPassword = sms.MaxPasswordBytes
)

// esmeDecoder reads an ESME's PDUs: SMPP 3.4's codec, its binds with an
// account's bounds.
var esmeDecoder = pdu.Decoder{MaxSystemID: MaxSystemID, MaxPassword: MaxPassword}

// bindOverdue reports whether the connection is still not bound at now,
// BindTimeout or more after it was accepted. A bind refused does not
// restart the wait.
func (c *session) bindOverdue(now time.Time) bool {
	c.mu.Lock()
	bound := c.mode != 0
	c.mu.Unlock()
	return !bound && now.Sub(c.opened) >= c.s.opts.BindTimeout
}
