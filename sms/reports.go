package sms

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/msgkit/msgkit"
)

// ReportBody is the JSON of a delivery report as the bulk SMS interface defines it,
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

// HandleStatus applies a network event to its part (the StatusSink of the
// Upstream): the state moves as Step says and, when the message's mask
// allows the event, a report is queued with it, atomically. Duplicate and
// late events change nothing. Events of unknown messages are dropped with a
// warning: a network may report what another system sent.
func (g *Gateway) HandleStatus(ctx context.Context, ev StatusEvent) error {
	return applyStatus(ctx, g.store, g.opts.Clock, g.opts.Logger, ev)
}

// partUpdater is the store method that applying an event needs.
type partUpdater interface {
	UpdatePart(ctx context.Context, key PartKey, fn func(m MessageRecord, p PartRecord) (PartUpdate, bool, error)) error
}

// HandleStatuses applies events as HandleStatus applies each, in their
// order, saved together (Store.UpdateParts): a network's reports come by
// the thousand, and one transaction each would not keep pace on
// PostgreSQL. With GatewayOptions.Dispatcher the reports they queue are
// leased to it in the same call and handed over in memory. It returns one
// error per event, nil for those applied or dropped; an event that failed
// may be given again, and so may the events after it of the same part,
// which fail with it.
func (g *Gateway) HandleStatuses(ctx context.Context, evs []StatusEvent) []error {
	changes := make([]PartChange, len(evs))
	for i, ev := range evs {
		changes[i] = PartChange{Key: PartKey{ev.MsgID, ev.PartNum}, Fn: statusChange(ev, g.opts.Clock)}
	}
	var errs []error
	if n, until := g.reserveReports(); n > 0 {
		var leased []Report
		errs, leased = g.leasing.UpdatePartsLeasing(ctx, changes, until, n)
		g.opts.Dispatcher.handOver(leased, n, until)
	} else {
		errs = g.store.UpdateParts(ctx, changes)
	}
	for i, err := range errs {
		errs[i] = unknownPartDropped(ctx, g.opts.Logger, evs[i], err)
	}
	return errs
}

// reserveReports is how many of the reports of a HandleStatuses call the
// gateway's dispatcher takes in memory, and the end of their lease; zero
// without a dispatcher and a store that leases.
func (g *Gateway) reserveReports() (int, time.Time) {
	if g.leasing == nil {
		return 0, time.Time{}
	}
	return g.opts.Dispatcher.reserve()
}

// applyStatus is HandleStatus over any store with UpdatePart: the one
// path by which a part's state moves and its reports are queued, for the
// network's events, validity expiry and the parts the network refuses at
// hand-over (Transmitter).
func applyStatus(ctx context.Context, store partUpdater, clock msgkit.Clock, log *slog.Logger, ev StatusEvent) error {
	err := store.UpdatePart(ctx, PartKey{ev.MsgID, ev.PartNum}, statusChange(ev, clock))
	return unknownPartDropped(ctx, log, ev, err)
}

// unknownPartDropped drops, with a warning, the event of a part the store
// does not know: a network may report what another system sent.
func unknownPartDropped(ctx context.Context, log *slog.Logger, ev StatusEvent, err error) error {
	if errors.Is(err, msgkit.NotFound) {
		log.WarnContext(ctx, "status of an unknown part", "msgId", ev.MsgID, "partNum", ev.PartNum)
		return nil
	}
	return err
}

// statusChange is the update of a part that ev makes: the state moves as
// Step says, and a report is queued when the message's mask allows the
// event. An event without a time happens at the clock's.
//
// An acceptance nobody asked to hear about (the mask leaves SENT_TO_SMSC
// out, or there is no report URL) is not recorded: the part stays
// submitted until the network's next word. Every part passes through
// that state, so this spares a third of the writes of a part's life, and
// nothing after it differs: from submitted and from sent to SMSC every
// later status of the network leads to the same state (Step); only a
// refusal at hand-over, which comes before any acceptance, tells them
// apart. See the package doc's delivery states.
func statusChange(ev StatusEvent, clock msgkit.Clock) func(m MessageRecord, p PartRecord) (PartUpdate, bool, error) {
	return func(m MessageRecord, p PartRecord) (PartUpdate, bool, error) {
		next, event, changed := Step(p.State, ev.Status)
		if !changed || next == StateSentToSMSC && !m.reports(event) {
			return PartUpdate{}, false, nil
		}
		at := ev.At
		if at.IsZero() {
			at = clock.Now()
		}
		code := ErrorCodeFor(ev)
		u := PartUpdate{State: next, ErrorCode: code, UpdatedAt: at.UTC()}
		if m.reports(event) {
			var body []byte
			var err error
			if _, binds := BindAccount(m.DLRURL); binds {
				body, err = json.Marshal(receiptOf(m, p, event, code, at))
			} else {
				body, err = json.Marshal(ReportBody{
					MsgID: m.ID, Event: event.String(), ErrorCode: int(code), ErrorMessage: code.Text(),
					PartNum: p.Num, NumParts: len(m.Parts), AccountName: m.Account,
					SendTime: m.SubmittedAt.Unix(), DLRTime: at.Unix(), Custom: m.Custom,
				})
			}
			if err != nil {
				return PartUpdate{}, false, msgkit.Wrap(err, msgkit.Internal, "report", "encoding a report failed")
			}
			u.Reports = []Report{{MsgID: m.ID, PartNum: p.Num, URL: m.DLRURL, Body: body, State: ReportPending, NextAt: at.UTC(), CreatedAt: at.UTC()}}
		}
		return u, true, nil
	}
}

// ExpireDue ends every part whose validity has passed without a final
// answer, parts never handed to the network included: UNDELIVERED with
// error 996, reported as the mask asks, and off the outbound queue.
// Servers call it periodically; it returns how many parts it ended.
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
