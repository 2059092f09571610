package smppserver

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// The waits of a delivery held for want of a receiving bind: a fresh one
// is looked at again soon, an old one seldom, so that an ESME away for
// hours costs its replicas little and one that rebinds soon gets its
// receipts soon.
const (
	minHold = 2 * time.Second
	maxHold = time.Minute
)

// PostReport delivers what the outbox holds for an account's binds
// (sms.BindURL): it is an sms.ReportPoster for those URLs. The body, an
// sms.BindDelivery, becomes a deliver_sm sent over a receiver or
// transceiver bind of the account on this server (the binds take turns),
// and PostReport returns once the ESME answered it:
//
//   - ESME_ROK: delivered (nil);
//   - ESME_RX_P_APPN: the ESME refuses it for good (msgkit.Invalid: given
//     up);
//   - any other status, no answer within ctx, or the bind closing: an
//     error, retried with backoff;
//   - no receiving bind of the account here: an *sms.HoldError, so the
//     dispatcher puts it off without counting an attempt (another replica,
//     or this one after a bind, takes it);
//   - past its ExpiresAt (the message's validity): msgkit.Invalid, given
//     up.
func (s *Server) PostReport(ctx context.Context, url string, body []byte) error {
	account, ok := sms.BindAccount(url)
	if !ok {
		return msgkit.Invalidf("not_a_bind", "url", "smpp server: %q is not an account's binds", url)
	}
	var d sms.BindDelivery
	if err := json.Unmarshal(body, &d); err != nil {
		return msgkit.Wrap(err, msgkit.Invalid, "bad_delivery", "smpp server: the delivery does not read")
	}
	now := s.opts.Clock.Now()
	if d.ExpiresAt != 0 && now.Unix() > d.ExpiresAt {
		return msgkit.Invalidf("expired", "expiresAt", "smpp server: no bind of %s took it within its validity", account)
	}
	p, err := deliverOf(d)
	if err != nil {
		return msgkit.Wrap(err, msgkit.Invalid, "bad_delivery", "smpp server: the delivery cannot be written as deliver_sm")
	}
	c := s.receiver(account)
	if c == nil {
		age := now.Sub(time.Unix(d.DoneTime, 0))
		s.m.delivered(d.Kind, deliveryHeld)
		return &sms.HoldError{After: min(max(age/10, minHold), maxHold), Reason: "no receiver or transceiver bind of " + account + " on this server"}
	}
	st, err := c.deliver(ctx, p)
	switch {
	case err != nil:
		s.m.delivered(d.Kind, deliveryFailed)
		return err
	case st == pdu.ESME_ROK:
		s.m.delivered(d.Kind, deliveredOK)
		return nil
	}
	s.m.delivered(d.Kind, deliveryRefused)
	if st == pdu.ESME_RX_P_APPN {
		return msgkit.Invalidf("esme_refused", "", "smpp server: the ESME refused the deliver_sm for good (%s)", st)
	}
	return msgkit.Errorf(msgkit.Unavailable, "esme_status", "smpp server: the ESME answered deliver_sm %s", st)
}

// errBindClosed is a delivery whose bind closed before its answer.
var errBindClosed = msgkit.New(msgkit.Unavailable, "bind_closed", "smpp server: the bind closed before the ESME answered")

// deliver sends p over the bind, within the window of the server's own
// requests, and waits for its answer.
func (c *session) deliver(ctx context.Context, p *pdu.DeliverSM) (pdu.Status, error) {
	select {
	case c.outWin <- struct{}{}:
	case <-c.done:
		return 0, errBindClosed
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-c.outWin }()
	seq := c.nextSeq()
	answer := make(chan pdu.Status, 1)
	c.pmu.Lock()
	c.pending[seq] = answer
	c.pmu.Unlock()
	defer func() {
		c.pmu.Lock()
		delete(c.pending, seq)
		c.pmu.Unlock()
	}()
	if !c.send(outgoing{p: pdu.PDU{Seq: seq, Body: p}}) {
		return 0, errBindClosed
	}
	select {
	case st := <-answer:
		return st, nil
	case <-c.done:
		return 0, errBindClosed
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// answered passes the ESME's answer to a deliver_sm of the server's to
// its waiting delivery; an answer nobody waits for is ignored.
func (c *session) answered(p pdu.PDU) {
	c.pmu.Lock()
	ch, ok := c.pending[p.Seq]
	c.pmu.Unlock()
	if ok {
		select {
		case ch <- p.Status:
		default:
		}
	}
}

// deliverOf writes d as its deliver_sm: a receipt (esm_class 0x04) with
// SMPP 3.4's Appendix B text and receipted_message_id, message_state and,
// for a failure, network_error_code; or a message in the coding its DCS
// names, in short_message when it fits, else in message_payload.
func deliverOf(d sms.BindDelivery) (*pdu.DeliverSM, error) {
	p := &pdu.DeliverSM{}
	m := &p.ShortMessage
	m.Source = number(d.Source)
	if d.DestAlpha {
		m.Dest = pdu.Address{TON: 5, NPI: 0, Addr: d.Dest}
	} else {
		m.Dest = number(d.Dest)
	}
	switch d.Kind {
	case sms.BindReceipt:
		ev, ok := sms.ParseEvent(d.Event)
		if !ok {
			return nil, fmt.Errorf("a receipt of event %q", d.Event)
		}
		state := receiptState(ev, sms.DLRError(d.ErrorCode))
		r := smpp.Receipt{
			ID: string(d.MsgID), Sub: 1, Dlvrd: 0,
			SubmitDate: time.Unix(d.SubmitTime, 0).UTC().Truncate(time.Minute),
			DoneDate:   time.Unix(d.DoneTime, 0).UTC().Truncate(time.Minute),
			State:      state, Err: fmt.Sprintf("%03d", d.ErrorCode), Text: receiptText(d.Text),
		}
		if ev == sms.EventDelivered {
			r.Dlvrd = 1
		}
		m.ESMClass = pdu.ESMClassReceipt
		m.Message = smpp.FormatReceiptText(r)
		m.TLVs = pdu.TLVs{pdu.CStr(pdu.TagReceiptedMessageID, string(d.MsgID)), pdu.U8(pdu.TagMessageState, byte(state))}
		if d.ErrorCode != 0 {
			// GSM as the network type, msgkit's error code (the HTTP
			// reports' errorCode) as the error.
			v := binary.BigEndian.AppendUint16([]byte{3}, uint16(d.ErrorCode))
			m.TLVs = append(m.TLVs, pdu.TLV{Tag: pdu.TagNetworkErrorCode, Value: v})
		}
	case sms.BindMessage:
		var data []byte
		switch strings.ToUpper(d.DCS) {
		case "UCS", "UCS2", "UCS-2":
			m.DataCoding = codingUCS2
			for _, u := range utf16.Encode([]rune(d.Text)) {
				data = binary.BigEndian.AppendUint16(data, u)
			}
		default:
			var err error
			if data, err = gsm.AppendCodes(nil, d.Text); err != nil {
				return nil, err
			}
		}
		if len(data) <= 254 {
			m.Message = data
		} else {
			m.TLVs = pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: data}}
		}
	default:
		return nil, errors.New("a delivery of kind " + d.Kind)
	}
	// What does not encode (an address too long for SMPP 3.4) is refused
	// here rather than by the bind's writer.
	if _, err := pdu.Append(nil, pdu.PDU{Seq: 1, Body: p}); err != nil {
		return nil, err
	}
	return p, nil
}

// number is an address of digits: international (TON 1) when it is long
// enough to hold a country code, else unknown (TON 0), both ISDN (NPI 1).
func number(s string) pdu.Address {
	if len(s) >= 8 {
		return pdu.Address{TON: 1, NPI: 1, Addr: s}
	}
	return pdu.Address{TON: 0, NPI: 1, Addr: s}
}

// receiptState is the message_state of a receipt of ev.
func receiptState(ev sms.Event, code sms.DLRError) smpp.MessageState {
	switch ev {
	case sms.EventDelivered:
		return smpp.StateDelivered
	case sms.EventUndelivered:
		if code == sms.DLRValidityExpired {
			return smpp.StateExpired
		}
		return smpp.StateUndeliverable
	case sms.EventRejected:
		return smpp.StateRejected
	case sms.EventSentToSMSC:
		return smpp.StateAccepted
	}
	return smpp.StateEnroute // buffered: the network still tries
}

// receiptText is a receipt's quote of its part in the characters every
// ESME reads alike: ASCII but for those the GSM alphabet puts elsewhere,
// others written '?'.
func receiptText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7E || strings.ContainsRune("@$_`[]\\^{}|~", r) {
			return '?'
		}
		return r
	}, s)
}
