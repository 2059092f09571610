package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

var _ sms.TraceStore = (*SMSStore)(nil)

// What the store keeps of a message for its trace beside the message
// itself, under the SMSStore's lock: its parts' histories in
// SMSStore.history, and its reports no longer pending (the outbox forgets
// them), with their attempts, in SMSStore.reportsDone. Both are made by
// the message's first update or finished report and leave with the
// message (forgetMessageLocked), so they are bounded as the messages
// are. A history is one slice of compact records of every part (one
// allocation for a message whose parts change once or twice), which
// the heap of a million messages noticed where a slice per part did.
type historyEvent struct {
	at    int64 // Unix microseconds (the store's times are microseconds)
	num   int32 // the part
	code  int32
	state sms.PartState
}

// recordEventLocked appends the update of part p of m to its history,
// bounded as sms.AppendPartEvents bounds it: of more than MaxPartEvents
// of the part's events, its second leaves.
func (s *SMSStore) recordEventLocked(m sms.MessageRecord, p *sms.PartRecord) {
	h := s.history[m.ID]
	if h == nil {
		h = make([]historyEvent, 0, 2*len(m.Parts))
	}
	h = append(h, historyEvent{at: p.UpdatedAt.UnixMicro(), num: int32(p.Num), code: int32(p.ErrorCode), state: p.State})
	n, second := 0, -1
	for i, e := range h {
		if e.num == int32(p.Num) {
			if n++; n == 2 {
				second = i
			}
		}
	}
	if n > sms.MaxPartEvents {
		h = slices.Delete(h, second, second+1)
	}
	s.history[m.ID] = h
}

// partHistory is part num's history in h, oldest first.
func partHistory(h []historyEvent, num int) []sms.PartEvent {
	var out []sms.PartEvent
	for _, e := range h {
		if e.num == int32(num) {
			out = append(out, sms.PartEvent{State: e.state, ErrorCode: sms.DLRError(e.code), At: time.UnixMicro(e.at).UTC()})
		}
	}
	return out
}

// recordAttemptLocked appends the attempt r records to q's attempts, when
// r has more attempts than q had.
func recordAttemptLocked(q *queuedReport, r sms.Report) {
	if r.Attempts > q.Attempts {
		a := sms.AttemptOf(r)
		a.At = storeTime(a.At)
		q.log = sms.AppendReportAttempt(q.log, a)
	}
}

// finishedReportLocked keeps a report that left the outbox for its
// message's trace, while the message is kept.
func (s *SMSStore) finishedReportLocked(q *queuedReport) {
	if _, ok := s.messages.rows[q.MsgID]; !ok {
		return // a report of no message (a test session's callback)
	}
	s.reportsDone[q.MsgID] = append(s.reportsDone[q.MsgID], sms.ReportTrace{Report: q.Report, Log: q.log})
}

// forgetMessageLocked removes message id and what the store keeps of it
// for its trace.
func (s *SMSStore) forgetMessageLocked(id sms.MessageID) {
	delete(s.messages.rows, id)
	delete(s.history, id)
	delete(s.reportsDone, id)
}

// TraceMessages lists the messages of the account or with the id q names
// (sms.CheckTraceQuery), by id unless q sorts them.
func (s *SMSStore) TraceMessages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[sms.MessageSummary], error) {
	if err := sms.CheckTraceQuery(q); err != nil {
		return msgkit.Page[sms.MessageSummary]{}, err
	}
	account, id := sms.TraceScope(q)
	var items []sms.MessageSummary
	s.mu.RLock()
	if id != "" {
		if m, ok := s.messages.rows[id]; ok && (account == "" || m.Account == account) {
			items = append(items, summaryOf(m))
		}
	} else {
		for _, m := range s.messages.rows {
			if m.Account == account {
				items = append(items, summaryOf(m))
			}
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(items, func(a, b sms.MessageSummary) int { return cmp.Compare(a.ID, b.ID) }) // pgstore's order
	return msgkit.Apply(items, q, sms.TraceAttr)
}

// summaryOf is m as a search lists it; it shares nothing with m.
func summaryOf(m sms.MessageRecord) sms.MessageSummary {
	states := make([]sms.PartState, len(m.Parts))
	for i, p := range m.Parts {
		states[i] = p.State
	}
	return sms.MessageSummary{
		ID: m.ID, Account: m.Account, Type: m.Type, Sender: m.Sender, Receiver: m.Receiver,
		SubmittedAt: m.SubmittedAt, ExpiresAt: m.ExpiresAt, Charged: m.Charged, Currency: m.Currency, States: states,
	}
}

// Trace returns message id whole: its parts with their history and the
// SMPP store's records (DB.SMPP), and its reports, finished and pending,
// in id order.
func (s *SMSStore) Trace(ctx context.Context, id sms.MessageID) (sms.MessageTrace, error) {
	s.mu.RLock()
	m, ok := s.messages.rows[id]
	if !ok {
		s.mu.RUnlock()
		return sms.MessageTrace{}, sms.MessageNotFound(id)
	}
	m = cloneMessage(m)
	tr := sms.MessageTrace{Message: m, Parts: make([]sms.PartTrace, len(m.Parts))}
	h := s.history[id]
	for i, p := range m.Parts {
		tr.Parts[i].PartRecord = p
		tr.Parts[i].History = partHistory(h, p.Num)
		for _, q := range s.outbox.parts[sms.PartKey{MsgID: id, PartNum: p.Num}] {
			r := q.Report
			r.Body = slices.Clone(r.Body)
			tr.Reports = append(tr.Reports, sms.ReportTrace{Report: r, Log: slices.Clone(q.log)})
		}
	}
	for _, r := range s.reportsDone[id] {
		r.Body, r.Log = slices.Clone(r.Body), slices.Clone(r.Log)
		tr.Reports = append(tr.Reports, r)
	}
	s.mu.RUnlock()
	slices.SortFunc(tr.Reports, func(a, b sms.ReportTrace) int { return cmp.Compare(a.ID, b.ID) })
	tr.Message.Parts = nil
	if s.smpp == nil {
		return tr, nil
	}
	keys := make([]smpp.PartKey, len(tr.Parts))
	for i, p := range tr.Parts {
		keys[i] = smpp.PartKey{MsgID: id, PartNum: p.Num}
	}
	subs, err := s.smpp.SubmittedParts(ctx, keys)
	if err != nil {
		return sms.MessageTrace{}, err
	}
	for i := range tr.Parts {
		if sub, ok := subs[keys[i]]; ok {
			tr.Parts[i].SMSCConn, tr.Parts[i].SMSCID = sub.Conn, sub.SMSCID
		}
	}
	return tr, nil
}
