package sms

import (
	"context"
	"errors"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/shopspring/decimal"
)

// MessageRecord is an accepted message as the Store keeps it.
type MessageRecord struct {
	ID          MessageID
	Account     string
	Type        string // "text" or "wsi"
	Sender      Sender
	Receiver    MSISDN
	DCS         gsm.DCS
	Flash       bool
	DLRMask     DLRMask
	DLRURL      string
	Custom      []byte // the submission's custom JSON object, echoed in reports
	PartPrice   decimal.Decimal
	Charged     decimal.Decimal // PartPrice × len(Parts)
	Currency    string
	SubmittedAt time.Time
	ExpiresAt   time.Time
	Parts       []PartRecord
}

// reports reports whether a report of event is queued for m: its mask
// allows the event and there is a URL to send it to.
func (m MessageRecord) reports(event Event) bool {
	return m.DLRMask.Allows(event) && m.DLRURL != ""
}

// PartRecord is one physical SMS of a message and where it is.
type PartRecord struct {
	Num       int // 0-based, as reports number parts
	Text      string
	Data      []byte
	Units     int
	UDH       gsm.UDH
	State     PartState
	ErrorCode DLRError
	UpdatedAt time.Time
	// The outbound queue, while the part is in it: SendAt is when any
	// transmitter may (next) hand the part to the network; while one holds
	// it, that is the end of its lease, when another takes it over.
	// SendAttempts counts the hand-overs that failed and SendError tells
	// the last failure. All three are zero when the part is not queued: it
	// has been handed over, it has ended, or it never was queued.
	SendAt       time.Time
	SendAttempts int
	SendError    string
}

// ReportState is where a queued delivery report is.
type ReportState uint8

// The states of a queued report.
const (
	ReportPending   ReportState = iota + 1 // waiting for its (next) attempt
	ReportDelivered                        // the customer's URL took it
	ReportGivenUp                          // attempts or age ran out, or the URL refused it for good
)

// Report is a delivery report in the outbox: the report body, built
// when the event happened, and where its delivery stands.
type Report struct {
	ID        int64 // assigned by the Store, increasing
	MsgID     MessageID
	PartNum   int
	URL       string
	Body      []byte
	State     ReportState
	Attempts  int
	NextAt    time.Time // when it may be tried (again)
	CreatedAt time.Time
	LastError string
	// AttemptedAt is when the attempt FinishReports records was made (the
	// Dispatcher sets it): a store keeps it in the report's attempts
	// (ReportTrace.Log), not as a field of its own; ClaimReports leaves it
	// zero.
	AttemptedAt time.Time
}

// PartUpdate is what an update of a part may change: its state and error
// code, and the reports to queue with it.
type PartUpdate struct {
	State     PartState
	ErrorCode DLRError
	UpdatedAt time.Time
	Reports   []Report
}

// Check refuses an update no store saves (see Store.UpdatePart): a state
// that is not Valid, or StateSubmitted, which a part has only until its
// first update.
func (u PartUpdate) Check() error {
	if !u.State.Valid() || u.State == StateSubmitted {
		return msgkit.Invalidf(CodePartInvalid, "state", "an update cannot set the state %s (%d)", u.State, int(u.State))
	}
	return nil
}

// PartChange is one change of Store.UpdateParts: the part, and the
// function that decides its update as UpdatePart's fn does.
type PartChange struct {
	Key PartKey
	Fn  func(m MessageRecord, p PartRecord) (PartUpdate, bool, error)
}

// ErrEarlierChangeFailed is in the error of a change of UpdateParts after
// a failed change of the same part, with that change's error, which
// classifies it.
var ErrEarlierChangeFailed = errors.New("an earlier change of the part failed")

// PartKey names one part of one message.
type PartKey struct {
	MsgID   MessageID
	PartNum int
}

// Store is what the Gateway needs of storage: accounts, the atomic
// acceptance of a message, the shared throughput count, and the parts'
// delivery with its report outbox. Absent records are msgkit.NotFound,
// duplicates msgkit.Conflict. Every method is safe for replicas sharing
// one store.
type Store interface {
	CreateAccount(ctx context.Context, a Account) error
	Account(ctx context.Context, username string) (Account, error)
	// Accept charges m.Charged to the account and saves m with each
	// submitted part queued for sending at its SendAt (a part without one,
	// or in another state, is not queued; a SendAt to come is how a
	// gateway leases parts to its own transmitter), atomically: under any concurrency the balance never goes below zero,
	// no saved message is uncharged and no charged part is missing from the
	// queue. A balance below the charge is 113 (RC_NO_CREDIT) with nothing
	// changed.
	Accept(ctx context.Context, m MessageRecord) error
	// Message returns the message with its parts ordered by Num, or
	// NotFound. The gateway reads it when a submission with an
	// idempotency key is tried again after its first try may have been
	// accepted (see Gateway.Submit).
	Message(ctx context.Context, id MessageID) (MessageRecord, error)
	// TakeThroughput counts one submission of the account in the second
	// of now and reports whether it stays within limit per second. Replicas
	// sharing a store share the count.
	TakeThroughput(ctx context.Context, username string, now time.Time, limit int) (bool, error)
	// UpdatePart loads the message with all its parts and calls fn with
	// the part to update; when fn returns changed, that part's new state
	// (appended to its history, AppendPartEvents, in the same write)
	// and fn's reports are saved atomically. fn may run more than once. An
	// unknown message or part is NotFound. fn sees the parts' delivery;
	// their queue fields are zero. A saved update also takes the part off
	// the outbound queue (SendAt becomes zero and a claim on it is lost):
	// a part's delivery state moves only once the network has it or when
	// it ends, and either way it must not be sent again. So an update never
	// returns a part to StateSubmitted, the one state of a queued part: an
	// update to it, or to a state that is not Valid, is Invalid
	// (part_invalid) and nothing is saved.
	UpdatePart(ctx context.Context, key PartKey, fn func(m MessageRecord, p PartRecord) (PartUpdate, bool, error)) error
	// UpdateParts applies changes in their order as UpdatePart called for
	// each in turn would, each change seeing those before it (of the same
	// part too), and saves them together, in one transaction where the
	// store has them: the network's reports come by the thousand. It
	// returns one error per change: nil, or what UpdatePart would have
	// returned for it. A change after a failed change of the same part
	// fails too (ErrEarlierChangeFailed), so that a part's updates are
	// never saved out of order. When the store itself fails, every change
	// gets its error and none is saved.
	UpdateParts(ctx context.Context, changes []PartChange) []error
	// ExpiredParts lists up to limit parts that are not final and whose
	// message expired at or before now, oldest first; parts still queued
	// for sending are among them.
	ExpiredParts(ctx context.Context, now time.Time, limit int) ([]PartKey, error)
}

// OutboxStore is what the Dispatcher needs of storage: the report outbox's
// claim and finish. Every method is safe for replicas sharing one store.
type OutboxStore interface {
	// ClaimReports leases up to limit pending reports due at or before now
	// whose lease is free, for lease long. Of each part it claims only the
	// oldest pending report, so reports of a part go out in order.
	ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Report, error)
	// FinishReports records attempts, as if each report were finished on
	// its own in the slice's order (the same report twice included): the
	// report's new State, Attempts, NextAt and LastError; the lease ends.
	// A report no longer pending (another replica finished it after this
	// one's lease ran out) is NotFound, so a late claimer cannot queue a
	// delivered report again. A report finished with more Attempts than
	// stored records an attempt in the same row write (AttemptOf, bounded
	// by AppendReportAttempt); one given back with its Attempts as claimed
	// records none. It returns one error per report, nil for
	// those recorded. A dispatcher finishes reports by the batch: one
	// transaction each would not keep pace on PostgreSQL.
	FinishReports(ctx context.Context, rs []Report) []error
	// OutboxBacklog tells how many reports are pending and, of those a
	// claim at now would take (due, lease free, their part's oldest
	// pending report), the earliest NextAt: the dispatcher's metrics read
	// it at each scrape, so it costs what is pending, not the outbox's
	// history.
	OutboxBacklog(ctx context.Context, now time.Time) (Backlog, error)
}

// Backlog is how much a queue holds and how late its most overdue item
// is, as the metrics of the outbound queue and the report outbox show
// them.
type Backlog struct {
	// Len counts the items queued: those due, leased and backing off.
	Len int
	// OldestDue is the earliest due time of the items a claim at the
	// given time would take; zero when there is none.
	OldestDue time.Time
}

// ReportLeasingStore is a Store that leases the reports its part updates
// queue to the caller in the same call, so that a dispatcher of the same
// process sends them without claiming them (GatewayOptions.Dispatcher):
// a claim costs a store like PostgreSQL a lock and a row version per
// report, as much as queueing it. Both stores of this module implement it.
type ReportLeasingStore interface {
	// UpdatePartsLeasing is UpdateParts that also leases, until until, up
	// to limit of the reports the changes queue: in queueing order, each
	// one that is its part's oldest pending report (no report of the part
	// queued before it, in an earlier call or earlier in this one, is
	// pending), so that reports of a part still go out in order. It
	// returns UpdateParts' errors and the reports leased, with their ids,
	// in queueing order. A leased report is pending like any other: no
	// claim takes it until its lease has run out, and FinishReports ends
	// the lease. A limit of zero or less leases nothing.
	UpdatePartsLeasing(ctx context.Context, changes []PartChange, until time.Time, limit int) ([]error, []Report)
}

// QueuedPart is a part claimed from the outbound queue: what the network
// needs, and the claim.
type QueuedPart struct {
	OutboundPart
	Attempts   int       // hand-overs that failed before this claim
	LeaseUntil time.Time // the claim's end (the part's SendAt); FinishParts quotes it
}

// SendResult is the outcome of one attempt at handing a claimed part to
// the network.
type SendResult struct {
	Key        PartKey
	LeaseUntil time.Time // the claim's, as ClaimParts gave it
	// Handed says the network took the part: it leaves the queue.
	// Otherwise it waits for NextAt (required), with Attempts and
	// LastError.
	Handed    bool
	Attempts  int
	NextAt    time.Time
	LastError string
}

// TransmitterStore is what the Transmitter needs of storage: the outbound
// queue's claim and finish, and UpdatePart for the parts the network
// refuses for good. Every method is safe for replicas sharing one store.
type TransmitterStore interface {
	// ClaimParts leases up to limit queued parts that are due (SendAt at
	// or before now) and whose message has not expired (ExpiresAt after
	// now), oldest SendAt first, until now + lease: their SendAt moves to
	// that time, so that no other claim gets them while the lease runs and
	// any claim may take them over once it has run out (their claimer
	// died). It returns them by message id and part number.
	ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]QueuedPart, error)
	// FinishParts records the results of attempts and ends their leases.
	// A result is recorded only while its claim holds (the part is still
	// queued and its SendAt is the LeaseUntil the result quotes); one
	// whose claim was lost, to an update that took the part off the queue
	// or to another claimer after the lease ran out, changes nothing. It
	// returns how many were recorded. A result that is not handed over
	// and has no NextAt is Invalid, and then nothing is recorded.
	FinishParts(ctx context.Context, results []SendResult) (int, error)
	// OutboundBacklog tells how many parts are queued and, of those a
	// claim at now would take (due, message not expired), the earliest
	// SendAt: the transmitter's metrics read it at each scrape, so it
	// costs the queue's length at most, not the history. A store that
	// deletes a part's queue entry lazily (pgstore: when a claim or a
	// finish reaches it) may count for that long a part an update took
	// off the queue while a lease or a retry's wait held it.
	OutboundBacklog(ctx context.Context, now time.Time) (Backlog, error)
	UpdatePart(ctx context.Context, key PartKey, fn func(m MessageRecord, p PartRecord) (PartUpdate, bool, error)) error
}
