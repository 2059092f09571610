package sms

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/msgkit/msgkit"
)

// ReportState is where a queued delivery report is.
type ReportState uint8

// The states of a queued report.
const (
	ReportPending   ReportState = iota + 1 // waiting for its (next) attempt
	ReportDelivered                        // the customer's URL took it
	ReportGivenUp                          // attempts or age ran out, or the URL refused it for good
)

// Report is a delivery report in the outbox: the body of section 2.2, built
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
}

// ReportBody is the JSON of a delivery report (document 3, section 2.2),
// with the send and report times and the submission's custom object, which
// customers asked for.
type ReportBody struct {
	MsgID        MessageID       `json:"msgId"`
	Event        string          `json:"event"`
	ErrorCode    int             `json:"errorCode"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	PartNum      int             `json:"partNum"`
	NumParts     int             `json:"numParts"`
	AccountName  string          `json:"accountName"`
	SendTime     int64           `json:"sendTime"` // Unix seconds of the submission
	DLRTime      int64           `json:"dlrTime"`  // Unix seconds of the event
	Custom       json.RawMessage `json:"custom,omitempty"`
}

// PartUpdate is what an update of a part may change: its state and error
// code, and the reports to queue with it.
type PartUpdate struct {
	State     PartState
	ErrorCode DLRError
	UpdatedAt time.Time
	Reports   []Report
}

// PartKey names one part of one message.
type PartKey struct {
	MsgID   MessageID
	PartNum int
}

// OutboxStore is the part of the Store that follows delivery and keeps the
// report outbox. Every method is safe for replicas sharing one store.
type OutboxStore interface {
	// UpdatePart loads the message with all its parts and calls fn with
	// the part to update; when fn returns changed, that part's new state
	// and fn's reports are saved atomically. fn may run more than once. An
	// unknown message or part is NotFound.
	UpdatePart(ctx context.Context, key PartKey, fn func(m MessageRecord, p PartRecord) (PartUpdate, bool, error)) error
	// ExpiredParts lists up to limit parts that are not final and whose
	// message expired at or before now, oldest first.
	ExpiredParts(ctx context.Context, now time.Time, limit int) ([]PartKey, error)
	// ClaimReports leases up to limit pending reports due at or before now
	// whose lease is free, for lease long. Of each part it claims only the
	// oldest pending report, so reports of a part go out in order.
	ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Report, error)
	// FinishReport records an attempt: the report's new State, Attempts,
	// NextAt and LastError; the lease ends. A report no longer pending
	// (another replica finished it after this one's lease ran out) is
	// NotFound, so a late claimer cannot queue a delivered report again.
	FinishReport(ctx context.Context, r Report) error
	// ReportCounts counts reports by state.
	ReportCounts(ctx context.Context) (map[ReportState]int, error)
}

// HandleStatus applies a network event to its part (the StatusSink of the
// Upstream): the state moves as Step says and, when the message's mask
// allows the event, a report is queued with it, atomically. Duplicate and
// late events change nothing. Events of unknown messages are dropped with a
// warning: a network may report what another system sent.
func (g *Gateway) HandleStatus(ctx context.Context, ev StatusEvent) error {
	err := g.store.UpdatePart(ctx, PartKey{ev.MsgID, ev.PartNum}, func(m MessageRecord, p PartRecord) (PartUpdate, bool, error) {
		next, event, changed := Step(p.State, ev.Status)
		if !changed {
			return PartUpdate{}, false, nil
		}
		at := ev.At
		if at.IsZero() {
			at = g.opts.Clock.Now()
		}
		code := ErrorCodeFor(ev)
		u := PartUpdate{State: next, ErrorCode: code, UpdatedAt: at.UTC()}
		if m.DLRMask.Allows(event) && m.DLRURL != "" {
			body, err := json.Marshal(ReportBody{
				MsgID: m.ID, Event: event.String(), ErrorCode: int(code), ErrorMessage: code.Text(),
				PartNum: p.Num, NumParts: len(m.Parts), AccountName: m.Account,
				SendTime: m.SubmittedAt.Unix(), DLRTime: at.Unix(), Custom: m.Custom,
			})
			if err != nil {
				return PartUpdate{}, false, msgkit.Wrap(err, msgkit.Internal, "report", "encoding a report failed")
			}
			u.Reports = []Report{{MsgID: m.ID, PartNum: p.Num, URL: m.DLRURL, Body: body, State: ReportPending, NextAt: at.UTC(), CreatedAt: at.UTC()}}
		}
		return u, true, nil
	})
	if errors.Is(err, msgkit.NotFound) {
		g.opts.Logger.WarnContext(ctx, "status of an unknown part", "msgId", ev.MsgID, "partNum", ev.PartNum)
		return nil
	}
	return err
}

// ExpireDue ends every part whose validity has passed without a final
// answer: UNDELIVERED with error 996, reported as the mask asks. Servers
// call it periodically; it returns how many parts it ended.
func (g *Gateway) ExpireDue(ctx context.Context) (int, error) {
	now := g.opts.Clock.Now()
	n := 0
	for {
		keys, err := g.store.ExpiredParts(ctx, now, 500)
		if err != nil || len(keys) == 0 {
			return n, err
		}
		for _, k := range keys {
			if err := g.HandleStatus(ctx, StatusEvent{MsgID: k.MsgID, PartNum: k.PartNum, Status: StatusExpired, ErrorCode: DLRValidityExpired, At: now}); err != nil {
				return n, err
			}
			n++
		}
		if len(keys) < 500 {
			return n, nil
		}
	}
}
