package testsystem

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/shopspring/decimal"
)

// SessionStatus is where a test session is.
type SessionStatus string

// The states of a test session: running until every message is judged,
// then complete (and its callback queued). Nothing leaves complete.
const (
	SessionRunning  SessionStatus = "running"
	SessionComplete SessionStatus = "complete"
)

// Session is one test SMS request and its messages.
type Session struct {
	ID          int64
	User        string
	Test        string
	Callback    string
	Status      SessionStatus
	Messages    int
	CreatedAt   time.Time
	CompletedAt time.Time // zero while running
}

// Status is where one test message is.
type Status string

// The states of a test message. queued, sent and received are on the
// way; delivered, not_received and failed are judgements.
const (
	StatusQueued      Status = "queued"       // stored, not yet handed to the gate
	StatusSent        Status = "sent"         // the gate took it
	StatusReceived    Status = "received"     // the handset has it; waiting for the delivery report
	StatusDelivered   Status = "delivered"    // judged: the handset received it
	StatusNotReceived Status = "not_received" // judged: no receipt within the time limit
	StatusFailed      Status = "failed"       // judged: never sent (no handset on the operator, the gate refused it, no upstream)
)

// Judged reports whether s is a judgement: the message is final.
func (s Status) Judged() bool {
	return s == StatusDelivered || s == StatusNotReceived || s == StatusFailed
}

// Check is the outcome of a comparison: unknown until there is something
// to compare.
type Check uint8

// The outcomes of a check.
const (
	Unknown Check = iota
	Yes
	No
)

// String is the check as results spell it: "true", "false", "unknown".
func (c Check) String() string {
	switch c {
	case Yes:
		return "true"
	case No:
		return "false"
	}
	return "unknown"
}

// CheckOf is Yes for true and No for false.
func CheckOf(b bool) Check {
	if b {
		return Yes
	}
	return No
}

// Received is what the test handset received of a message: its parts
// joined, and the service centre that delivered it.
type Received struct {
	At       time.Time // when the last part arrived
	Sender   string
	Text     string
	DCS      gsm.DCS
	Network  string // MCC and MNC the handset is on
	Operator string // name of Network's operator, "" when unknown
	SMSC     string // E.164 with '+'
	// SMSCOperator, SMSCCountry and SMSCNetwork (MCC and MNC) name the
	// service centre's operator from the SMSC table; "" when the table
	// does not know it.
	SMSCOperator, SMSCCountry, SMSCNetwork string
	PDUs                                   [][]byte // one SMS-DELIVER per part, in part order
}

// Result is one test message: what was sent through which gate to which
// operator, what the network reported and what the handset received.
type Result struct {
	MsgID   sms.MessageID
	Session int64
	Seq     int // 1.. within the session
	User    string
	Node    string

	GateID                   int64
	Gate, Category, Supplier string
	OperatorID               int64
	Operator, Country        string
	MCCMNC                   string
	Receiver                 sms.MSISDN // the handset; "" when the operator has none

	DCS      gsm.DCS
	NumParts int
	Sender   string
	Text     string
	Mark     string // the code in Text that matches a receipt to the message
	Price    decimal.Decimal
	Currency string

	Status   Status
	Error    string    // why the message failed
	SentAt   time.Time // the gate took it; zero before
	Deadline time.Time // the time limit: judged by then

	// Parts are the delivery states of the parts (sms.Step over the
	// network's reports); DLRAt is when the report that made the
	// message's state was received; DLRCode its error code.
	Parts   []sms.PartState
	DLRAt   time.Time
	DLRCode sms.DLRError

	Received *Received

	FakeDLR, SenderMatch, TextMatch, EncodingMatch, DirectRoute, NationalSMSC Check
}

// Updated is what an update makes of r: fn applied to a copy of r, with
// r's keys (MsgID, Session, Seq, User) kept, as no update changes them;
// changed is fn's answer, whether to save the copy.
func (r *Result) Updated(fn func(*Result) bool) (updated *Result, changed bool) {
	c := r.Clone()
	if !fn(c) {
		return c, false
	}
	c.MsgID, c.Session, c.Seq, c.User = r.MsgID, r.Session, r.Seq, r.User
	return c, true
}

// Clone copies r deeply, so that what a store hands out (and what an
// UpdateResults function changes) shares nothing with what it keeps. A nil
// slice stays nil and an empty one empty, as a store reads them back.
func (r *Result) Clone() *Result {
	c := *r
	c.Parts = slices.Clone(r.Parts)
	if r.Received != nil {
		rv := *r.Received
		if r.Received.PDUs != nil {
			rv.PDUs = make([][]byte, len(r.Received.PDUs))
			for i, p := range r.Received.PDUs {
				rv.PDUs[i] = slices.Clone(p)
			}
		}
		c.Received = &rv
	}
	return &c
}

// DLRStatus is the message's delivery report status: DELIVERED when every
// part is delivered, REJECTED or UNDELIVERED when a part is, else the
// furthest report of a part on its way (BUFFERED, SENT_TO_SMSC), "" before
// any report.
func (r *Result) DLRStatus() string {
	if len(r.Parts) == 0 {
		return ""
	}
	delivered, best := 0, sms.PartState(0)
	for _, s := range r.Parts {
		switch s {
		case sms.StateRejected:
			return sms.EventRejected.String()
		case sms.StateUndelivered:
			return sms.EventUndelivered.String()
		case sms.StateDelivered:
			delivered++
		}
		if s != sms.StateDelivered && s > best {
			best = s
		}
	}
	switch {
	case delivered == len(r.Parts):
		return sms.EventDelivered.String()
	case best == sms.StateBuffered:
		return sms.EventBuffered.String()
	case best == sms.StateSentToSMSC || delivered > 0:
		return sms.EventSentToSMSC.String()
	}
	return ""
}

// DLRFinal reports whether the report stream of the message is over:
// every part delivered, or one failed.
func (r *Result) DLRFinal() bool {
	switch r.DLRStatus() {
	case sms.EventDelivered.String(), sms.EventRejected.String(), sms.EventUndelivered.String():
		return true
	}
	return false
}

// Quota is a user's use of the daily limit of test SMS requests.
type Quota struct {
	Limit     int
	Used      int
	ResetsAt  time.Time // the next midnight UTC
	Remaining int
}

// QuotaAt is the quota of used requests out of limit on the day of now.
func QuotaAt(limit, used int, now time.Time) Quota {
	y, m, d := now.UTC().Date()
	return Quota{Limit: limit, Used: used, Remaining: max(limit-used, 0), ResetsAt: time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)}
}

// ResetIn is the time from now to the reset, at least 0.
func (q Quota) ResetIn(now time.Time) time.Duration { return max(q.ResetsAt.Sub(now), 0) }

// CodeRateLimit is the code of a test SMS request beyond the daily limit.
const CodeRateLimit = "GATE_TEST_SYSTEM:RATE_LIMIT_REACHED"

// LimitReached is the error of a request beyond the daily limit.
func LimitReached(q Quota) error {
	return msgkit.Errorf(msgkit.RateLimited, CodeRateLimit,
		"the daily limit of %d test SMS requests is reached; it resets at midnight UTC", q.Limit)
}

// CodeSessionNotFound is the code of a session the user does not have
// (NotFound).
const CodeSessionNotFound = "session_not_found"

// SessionNotFound is the error of a session the user does not have.
func SessionNotFound(id int64) error {
	return msgkit.Errorf(msgkit.NotFound, CodeSessionNotFound, "test session %d not found", id)
}

// Callback is a body queued for a session's callback_api.
type Callback struct {
	URL  string
	Body []byte
}

// Sessions keeps test sessions and their messages. Every method is one
// atomic operation.
type Sessions interface {
	// CreateSession counts one request of s.User on the UTC day of
	// s.CreatedAt and stores s (giving it an id) with its results, whose
	// Session it sets; when the user has made limit requests that day it
	// stores nothing and returns a RateLimited error (LimitReached) with
	// the quota. Replicas sharing the store share the count.
	CreateSession(ctx context.Context, s Session, rs []Result, limit int) (Session, Quota, error)
	// Quota is user's use of the limit on the UTC day of now.
	Quota(ctx context.Context, user string, now time.Time, limit int) (Quota, error)
	// Session returns user's session id; NotFound (SessionNotFound) for a
	// session of another user.
	Session(ctx context.Context, user string, id int64) (Session, error)
	// Results lists the results of user's session id by Seq, paged by q's
	// page number and size.
	Results(ctx context.Context, user string, id int64, q msgkit.ListQuery) (msgkit.Page[Result], error)
	// UpdateResults applies fn to each stored result of ids under a lock
	// and saves those it reports changed. Unknown ids are skipped.
	UpdateResults(ctx context.Context, ids []sms.MessageID, fn func(r *Result) bool) error
	// Pending returns up to limit results not judged yet, of any session,
	// by message id after after.
	Pending(ctx context.Context, after sms.MessageID, limit int) ([]Result, error)
	// CompleteSession marks session id complete at at when every result
	// of it is judged, and queues the callback that body builds from the
	// session and its results (by Seq) with it, delivered as delivery
	// reports are; body sees the session completed (Status complete,
	// CompletedAt at). It reports whether the session completed now: false
	// when a result is not judged or it was complete already.
	CompleteSession(ctx context.Context, id int64, at time.Time, body func(Session, []Result) (Callback, error)) (bool, error)
}

// Store is what the test system keeps: the reference lists and the
// sessions.
type Store interface {
	Catalog
	Sessions
	Limits
}

// seconds formats a delay in seconds with millisecond precision.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
