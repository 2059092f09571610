package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

var _ sms.TraceStore = (*SMSStore)(nil)

// messageTrace is what the store keeps of a message for its trace beside
// the message itself, under the SMSStore's lock: each part's history, in
// the order of the message's parts (by number), and its reports no
// longer pending (the outbox forgets them), with their attempts. It is
// made by the message's first update and leaves with the message
// (forgetMessageLocked), so it is bounded as the messages are.
type messageTrace struct {
	history  [][]sms.PartEvent
	finished []sms.ReportTrace
}

// traceLocked is the trace record of message id (of parts parts), made
// when create is set.
func (s *SMSStore) traceLocked(id sms.MessageID, parts int, create bool) *messageTrace {
	t := s.traces[id]
	if t == nil && create {
		t = &messageTrace{history: make([][]sms.PartEvent, parts)}
		s.traces[id] = t
	}
	return t
}

// recordEventLocked appends an update of part p of m to its history.
func (s *SMSStore) recordEventLocked(m sms.MessageRecord, p *sms.PartRecord) {
	t := s.traceLocked(m.ID, len(m.Parts), true)
	i := slices.IndexFunc(m.Parts, func(q sms.PartRecord) bool { return q.Num == p.Num })
	t.history[i] = sms.AppendPartEvents(t.history[i], sms.PartEvent{State: p.State, ErrorCode: p.ErrorCode, At: p.UpdatedAt})
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
	m, ok := s.messages.rows[q.MsgID]
	if !ok {
		return // a report of no message (a test session's callback)
	}
	t := s.traceLocked(q.MsgID, len(m.Parts), true)
	t.finished = append(t.finished, sms.ReportTrace{Report: q.Report, Log: q.log})
}

// forgetMessageLocked removes message id and what the store keeps of it
// for its trace.
func (s *SMSStore) forgetMessageLocked(id sms.MessageID) {
	delete(s.messages.rows, id)
	delete(s.traces, id)
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
	t := s.traces[id]
	for i, p := range m.Parts {
		tr.Parts[i].PartRecord = p
		if t != nil {
			tr.Parts[i].History = slices.Clone(t.history[i])
		}
		for _, q := range s.outbox.parts[sms.PartKey{MsgID: id, PartNum: p.Num}] {
			r := q.Report
			r.Body = slices.Clone(r.Body)
			tr.Reports = append(tr.Reports, sms.ReportTrace{Report: r, Log: slices.Clone(q.log)})
		}
	}
	if t != nil {
		for _, r := range t.finished {
			r.Body, r.Log = slices.Clone(r.Body), slices.Clone(r.Log)
			tr.Reports = append(tr.Reports, r)
		}
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
