package sms

import (
	"context"
	"time"

	"github.com/msgkit/msgkit/sms/gsm"
)

// Inbound is one SMS the network hands over that no part of ours sent: a
// message from a phone (mobile-originated), or one part of a long one.
// The networks (the SMPP client, simnet) make it; package inbound keeps
// and routes it.
type Inbound struct {
	// Conn names the connection it arrived on: the SMPP client's
	// Config.Name, or the simulated network's Options.Name. The inbound
	// routing records' sigtran_connect_id matches it.
	Conn string
	// Source is the phone's number and Dest the number it was sent to,
	// digits as the network writes them, without '+'.
	Source, Dest string
	// DCS is gsm.DCSGSM or gsm.DCSUCS; Text is the part's text.
	DCS  gsm.DCS
	Text string
	// Ref, Total and Seq tie a part to its long message (concatenation):
	// the reference, the number of parts and this part's number, 1 to
	// Total. Total 0 or 1 is a whole message.
	Ref        uint16
	Total, Seq uint8
	// At is when the network handed it over.
	At time.Time
}

// InboundSink takes the network's inbound messages. A nil error means it
// has the message (kept, or a part held for its message), and the network
// may acknowledge it; an error means it does not, and the network should
// offer it again (SMPP: a temporary error in deliver_sm_resp).
type InboundSink interface {
	HandleInbound(ctx context.Context, in Inbound) error
}
