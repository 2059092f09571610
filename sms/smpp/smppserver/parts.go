package smppserver

import (
	"sync"
	"time"

	"github.com/msgkit/msgkit/sms"
)

// partKey names a long message being gathered: the account, its
// addresses and its concatenation reference and size. The account, not
// the bind: an ESME may send the parts of one message over several binds.
type partKey struct {
	account, source, dest string
	ref                   uint16
	total                 uint8
}

// gathering is a long message whose parts are arriving.
type gathering struct {
	id      sms.MessageID // answered to every part
	first   message       // its addresses, coding and registered_delivery
	parts   [][]byte      // by part number - 1; nil while missing
	have    int
	started time.Time
}

// assembler gathers the parts of long messages until all arrived, at most
// maxPerAccount messages of one account at once, each for at most
// timeout.
type assembler struct {
	maxPerAccount int
	timeout       time.Duration

	mu       sync.Mutex
	m        map[partKey]*gathering
	accounts map[string]int // messages being gathered, by account
}

func newAssembler(maxPerAccount int, timeout time.Duration) *assembler {
	return &assembler{maxPerAccount: maxPerAccount, timeout: timeout, m: map[partKey]*gathering{}, accounts: map[string]int{}}
}

// added is what add did with a part.
type added struct {
	id       sms.MessageID // the message's, answered to every part
	done     *gathering    // the message, taken out, when this part completed it
	full     bool          // the account has maxPerAccount messages gathering; this one is not taken
	mismatch bool          // the part's coding differs from the first part's; not taken
	expired  *gathering    // a message of the same key past its timeout, dropped for this one
	fresh    bool          // with onlyGathering: the part would start a message; not taken
}

// add files part msg of a long message at now. A part sent again
// replaces the one received. With onlyGathering, a part of no message
// gathering is not taken (fresh).
func (a *assembler) add(k partKey, msg message, now time.Time, newID func() sms.MessageID, onlyGathering bool) added {
	a.mu.Lock()
	defer a.mu.Unlock()
	var r added
	g, ok := a.m[k]
	if ok && now.Sub(g.started) >= a.timeout {
		r.expired, ok = g, false
		a.removeLocked(k)
	}
	if !ok {
		if onlyGathering {
			r.fresh = true
			return r
		}
		if a.accounts[k.account] >= a.maxPerAccount {
			r.full = true
			return r
		}
		g = &gathering{id: newID(), first: msg, parts: make([][]byte, k.total), started: now}
		a.m[k] = g
		a.accounts[k.account]++
	}
	r.id = g.id
	if msg.coding != g.first.coding {
		r.mismatch = true
		return r
	}
	i := int(msg.concat.seq) - 1
	if g.parts[i] == nil {
		g.have++
	}
	g.parts[i] = append([]byte{}, msg.data...) // the PDU's buffer is not ours to keep
	// Receipts asked of any part are asked of the message: ESMEs ask on
	// every part, on the first or on the last.
	g.first.registeredDelivery |= msg.registeredDelivery
	if g.have == len(g.parts) {
		a.removeLocked(k)
		r.done = g
	}
	return r
}

// restore puts back a message taken out complete whose submission the
// gateway refused for a while (throttling, an outage), so that the ESME's
// resend of its last part completes it again.
func (a *assembler) restore(k partKey, g *gathering) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.m[k]; ok {
		return // a new message of the same reference began meanwhile
	}
	a.m[k] = g
	a.accounts[k.account]++
}

func (a *assembler) removeLocked(k partKey) {
	delete(a.m, k)
	if a.accounts[k.account]--; a.accounts[k.account] <= 0 {
		delete(a.accounts, k.account)
	}
}

// sweep drops the messages gathering for timeout or longer at now and
// returns them.
func (a *assembler) sweep(now time.Time) map[partKey]*gathering {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out map[partKey]*gathering
	for k, g := range a.m {
		if now.Sub(g.started) >= a.timeout {
			if out == nil {
				out = map[partKey]*gathering{}
			}
			out[k] = g
			a.removeLocked(k)
		}
	}
	return out
}

// pending is how many messages are gathering.
func (a *assembler) pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m)
}

// joined is the message's user data, its parts in order.
func (g *gathering) joined() []byte {
	n := 0
	for _, p := range g.parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range g.parts {
		out = append(out, p...)
	}
	return out
}
