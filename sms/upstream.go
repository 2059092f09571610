package sms

import (
	"context"
	"fmt"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
)

// MessageID identifies an accepted message; it is the msgId of the 202
// answer and of every delivery report.
type MessageID string

// OutboundPart is one physical SMS handed to the network.
type OutboundPart struct {
	MsgID     MessageID
	PartNum   int // 0 .. NumParts-1, as delivery reports number parts
	NumParts  int
	Sender    Sender
	Receiver  MSISDN
	DCS       gsm.DCS
	Flash     bool // class 0: shown at once, not stored by the phone
	Text      string
	Data      []byte // DCSBinary parts
	UDH       gsm.UDH
	ExpiresAt time.Time // end of the validity period
}

// Status is what the network says of a part.
type Status uint8

// The network statuses (what triggers the delivery states).
const (
	StatusAccepted         Status = iota + 1 // the SMSC accepted the part
	StatusDelivered                          // the phone confirmed delivery
	StatusTemporaryFailure                   // absent subscriber, memory full, ...: retried within validity
	StatusPermanentFailure                   // unknown subscriber, no route, ...: final
	StatusRejected                           // the SMSC refused the part after acceptance
	StatusExpired                            // the validity period ended without delivery
)

var statusNames = [...]string{"", "accepted", "delivered", "temporary failure", "permanent failure", "rejected", "expired"}

// String names the status.
func (s Status) String() string {
	if int(s) < len(statusNames) && s != 0 {
		return statusNames[s]
	}
	return "unknown"
}

// StatusEvent is one report of the network about one part.
type StatusEvent struct {
	MsgID     MessageID
	PartNum   int
	Status    Status
	ErrorCode DLRError // for failures and rejections; 0 otherwise
	At        time.Time
}

// StatusSink receives the network's events. The gateway implements it; a
// network calls it from its own goroutines, possibly more than once for the
// same event and in any order across parts.
type StatusSink interface {
	HandleStatus(ctx context.Context, ev StatusEvent) error
}

// StatusBatchSink is a StatusSink that also takes events by the batch,
// saving them together; the gateway implements it. It returns one error
// per event, and the events of a part that follow a failed one fail with
// it, so a network gives a part's events again in their order.
type StatusBatchSink interface {
	StatusSink
	HandleStatuses(ctx context.Context, evs []StatusEvent) []error
}

// Upstream is the mobile network (an SMSC connection, or simnet). Send
// hands parts over and says what became of each: it returns nil when the
// network took every part, or one error per part, in the order given, nil
// for each part it took. An error of kind msgkit.Invalid means the network
// refused the part for good (a *Refusal says with which report error
// code); any other error (Unavailable when the connection is down,
// RateLimited when the network throttles, ctx's error when the call timed
// out) means the part may be tried again. The network reports what becomes
// of each part it took to the StatusSink it was built with,
// asynchronously.
type Upstream interface {
	Send(ctx context.Context, parts []OutboundPart) []error
}

// Refusal is the error an Upstream gives for a part it refused for good:
// the part ends REJECTED with Code as its report's errorCode (0 means
// DLRSupplierRejected, 989). It is of kind msgkit.Invalid.
type Refusal struct {
	Code   DLRError
	Reason string // for logs
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("refused for good (%d %s): %s", r.code(), r.code().Text(), r.Reason)
}

// Unwrap gives the kind, so that msgkit.KindOf and errors.Is classify a
// Refusal as Invalid.
func (r *Refusal) Unwrap() error { return msgkit.Invalid }

func (r *Refusal) code() DLRError {
	if r.Code == DLRNoError {
		return DLRSupplierRejected
	}
	return r.Code
}

// FailAll is the answer of an Upstream whose call failed as a whole (the
// connection is down, the call timed out): err for each of n parts.
func FailAll(n int, err error) []error {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}
