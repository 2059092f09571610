package simnet

import (
	"context"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// DefaultName is a network's Options.Name by default.
const DefaultName = "simnet"

// Name is the network's connection name (Options.Name).
func (n *Network) Name() string { return n.opts.Name }

// Originate sends text from the phone from to the number to, as a phone
// sends a message (mobile-originated): split as a phone splits it (in
// the GSM alphabet when every character is in it, else UCS-2; a long
// text in parts tied by an 8-bit reference, a new one per long message),
// each part handed to sink in order as an sms.Inbound of the network's
// Name, at the Clock's time. It returns the first error of the sink; the
// parts before it were taken, and a test sends the message again as a
// phone would. A text that cannot be split (empty, not UTF-8, more than
// 255 parts) is the splitter's error, and nothing is sent.
func (n *Network) Originate(ctx context.Context, sink sms.InboundSink, from sms.MSISDN, to, text string) error {
	n.mu.Lock()
	n.moRef++
	ref := n.moRef
	n.mu.Unlock()
	msg, err := gsm.SplitText(text, gsm.DCSAuto, ref)
	if err != nil {
		return err
	}
	now := n.opts.Clock.Now()
	for i, p := range msg.Parts {
		in := sms.Inbound{Conn: n.opts.Name, Source: from.Digits(), Dest: to, DCS: msg.DCS, Text: p.Text, At: now}
		if len(msg.Parts) > 1 {
			in.Ref, in.Total, in.Seq = uint16(ref), uint8(len(msg.Parts)), uint8(i+1)
		}
		if err := sink.HandleInbound(ctx, in); err != nil {
			return err
		}
	}
	return nil
}
