package sms

import (
	"context"
	"time"
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
	DCS       DCS
	Flash     bool // class 0: shown at once, not stored by the phone
	Text      string
	Data      []byte // DCSBinary parts
	UDH       UDH
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

// Upstream is the mobile network (an SMSC connection, or simnet). Send
// takes the parts of accepted messages; the network reports what becomes
// of each part to the StatusSink it was built with, asynchronously.
type Upstream interface {
	Send(ctx context.Context, parts []OutboundPart) error
}
