package sms

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// bindScheme starts the report URL of an account's SMPP binds.
const bindScheme = "smpp:"

// BindURL is the report URL of an account's SMPP binds: what the outbox
// holds for it (delivery receipts of the messages the account submitted
// over SMPP, messages from the network routed to it) goes out as
// deliver_sm over a receiver or transceiver bind of the account, on
// whichever replica holds one. The HTTP interface takes only http and
// https URLs, so a customer cannot name it.
func BindURL(account string) string { return bindScheme + account }

// BindAccount is the account of a BindURL; false for any other URL.
func BindAccount(url string) (string, bool) {
	if !strings.HasPrefix(url, bindScheme) || len(url) == len(bindScheme) {
		return "", false
	}
	return url[len(bindScheme):], true
}

// The kinds of a BindDelivery.
const (
	BindReceipt = "receipt" // a delivery receipt of a part
	BindMessage = "message" // a message from the network
)

// BindDelivery is the body the outbox holds for an account's binds
// (BindURL): everything the SMPP server needs to write its deliver_sm,
// decided when the event happened.
type BindDelivery struct {
	Kind  string    `json:"kind"`
	MsgID MessageID `json:"msgId"`
	// Source and Dest are deliver_sm's addresses: for a receipt, the
	// message's receiver and sender; numbers without their +, as SMPP
	// 3.4 writes international ones.
	Source string `json:"source"`
	Dest   string `json:"dest"`
	// DestAlpha says Dest is an alphanumeric sender, not a number.
	DestAlpha bool `json:"destAlpha,omitempty"`
	// Event, ErrorCode, PartNum and NumParts are a receipt's, as the
	// HTTP delivery report has them.
	Event     string `json:"event,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	PartNum   int    `json:"partNum,omitempty"`
	NumParts  int    `json:"numParts,omitempty"`
	// SubmitTime and DoneTime are Unix seconds of the submission and of
	// the event (a receipt's submit date and done date).
	SubmitTime int64 `json:"submitTime,omitempty"`
	DoneTime   int64 `json:"doneTime,omitempty"`
	// Text is a receipt's first characters of its part (ReceiptTextLen),
	// or a message's whole text, in DCS ("GSM" or "UCS").
	Text string `json:"text,omitempty"`
	DCS  string `json:"dcs,omitempty"`
	// ExpiresAt (Unix seconds) is when it is given up if no bind took it:
	// a receipt's message's validity.
	ExpiresAt int64 `json:"expiresAt"`
}

// ReceiptTextLen is how many characters of a part a receipt quotes, as
// SMPP 3.4's receipt format (Appendix B) does.
const ReceiptTextLen = 20

// HoldError is a poster's answer that a report cannot go now for a reason
// of this replica, not of its destination (no SMPP bind of the account
// here): the Dispatcher puts it off for After without counting an
// attempt, so that it waits for a bind, within MaxAge, rather than
// running out of attempts.
type HoldError struct {
	After  time.Duration
	Reason string
}

func (e *HoldError) Error() string { return e.Reason }

// holdOf is err's HoldError, if it is one.
func holdOf(err error) (*HoldError, bool) {
	var h *HoldError
	return h, errors.As(err, &h)
}

// receiptOf is the BindDelivery of a receipt of part p of m for event at.
func receiptOf(m MessageRecord, p PartRecord, event Event, code DLRError, at time.Time) BindDelivery {
	text, n := p.Text, 0
	for i := range text {
		if n == ReceiptTextLen {
			text = text[:i]
			break
		}
		n++
	}
	if !utf8.ValidString(text) {
		text = ""
	}
	return BindDelivery{
		Kind: BindReceipt, MsgID: m.ID, Source: strings.TrimPrefix(string(m.Receiver), "+"), Dest: m.Sender.Value, DestAlpha: !m.Sender.Numeric,
		Event: event.String(), ErrorCode: int(code), PartNum: p.Num, NumParts: len(m.Parts),
		SubmitTime: m.SubmittedAt.Unix(), DoneTime: at.Unix(), Text: text, ExpiresAt: m.ExpiresAt.Unix(),
	}
}

// ReportRouter posts each report by its URL: to an account's binds
// (BindURL) through Binds, an SMPP server's, and to any other through
// HTTP. Without Binds, a report to binds is held (HoldError) for
// maxHoldWithoutBinds: another replica may serve ESMEs.
type ReportRouter struct {
	HTTP, Binds ReportPoster
}

const maxHoldWithoutBinds = time.Minute

// PostReport posts body to url through the poster its URL names.
func (r *ReportRouter) PostReport(ctx context.Context, url string, body []byte) error {
	if _, binds := BindAccount(url); binds {
		if r.Binds == nil {
			return &HoldError{After: maxHoldWithoutBinds, Reason: "this replica serves no ESMEs"}
		}
		return r.Binds.PostReport(ctx, url, body)
	}
	return r.HTTP.PostReport(ctx, url, body)
}
