package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

var _ sms.TraceStore = (*SMSStore)(nil)

// partEventSize is the size of one record of sms_parts.history (see
// 0037_sms_trace.sql): state, error code, microseconds.
const partEventSize = 1 + 4 + 8

// appendPartEvent appends the history record of update u to b.
func appendPartEvent(b []byte, u sms.PartUpdate) []byte {
	b = append(b, byte(u.State))
	b = binary.BigEndian.AppendUint32(b, uint32(int32(u.ErrorCode)))
	return binary.BigEndian.AppendUint64(b, uint64(dbTime(u.UpdatedAt).UnixMicro()))
}

// partEvent is the record of update u alone.
func partEvent(u sms.PartUpdate) []byte { return appendPartEvent(make([]byte, 0, partEventSize), u) }

// parsePartHistory reads a part's history column.
func parsePartHistory(b []byte) ([]sms.PartEvent, error) {
	if len(b)%partEventSize != 0 {
		return nil, fmt.Errorf("column history: %d bytes, not a whole number of %d-byte records", len(b), partEventSize)
	}
	if len(b) == 0 {
		return nil, nil
	}
	h := make([]sms.PartEvent, 0, len(b)/partEventSize)
	for ; len(b) > 0; b = b[partEventSize:] {
		h = append(h, sms.PartEvent{
			State:     sms.PartState(b[0]),
			ErrorCode: sms.DLRError(int32(binary.BigEndian.Uint32(b[1:5]))),
			At:        time.UnixMicro(int64(binary.BigEndian.Uint64(b[5:13]))).UTC(),
		})
	}
	return h, nil
}

// traceTable is the listing of a message search (sms.TraceListSpec) of
// a message id; traceAccountTable of an account, whose eq filter is its
// scope: compared in the column's collation, which sms_messages_account_idx
// has (the engine's COLLATE "C" comparison could not use it), that index
// serves the account and the submission times. Receivers are matched in
// the rows the index gives; no index is added for the trace (see the
// package doc). Each page row reads its parts' states by key; the
// count is a statement of its own (CountApart), so a page stops at its
// LIMIT and the states are read for its rows only.
var (
	traceTable = listTable{
		From: "sms_messages m",
		Select: `m.id, m.account, m.type, m.sender, m.sender_numeric, m.receiver, m.submitted_at, m.expires_at,
			m.charged::text, m.currency, (SELECT array_agg(p.state ORDER BY p.num) FROM sms_parts p WHERE p.msg_id = m.id)`,
		Scope: "TRUE",
		Attrs: map[string]listAttr{
			"id": {"m.id", msgkit.AttrString}, "account": {"m.account", msgkit.AttrString},
			"receiver": {"m.receiver", msgkit.AttrString}, "submittedAt": {"m.submitted_at", msgkit.AttrDateTime},
		},
		Order:      "m.id",
		CountApart: true,
	}
	traceAccountTable = func() listTable {
		t := traceTable
		t.Scope = "m.account = $1"
		return t
	}()
)

// TraceMessages lists the messages of the account or with the id q names
// (sms.CheckTraceQuery), by id unless q sorts them, through the listing
// engine.
func (s *SMSStore) TraceMessages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[sms.MessageSummary], error) {
	if err := sms.CheckTraceQuery(q); err != nil {
		return msgkit.Page[sms.MessageSummary]{}, err
	}
	table, scope := &traceTable, []any(nil)
	if account, _ := sms.TraceScope(q); account != "" {
		if !storable(account) {
			return msgkit.Page[sms.MessageSummary]{Items: []sms.MessageSummary{}}, nil // no account holds it
		}
		i := slices.IndexFunc(q.Filters, func(f msgkit.Filter) bool {
			return f.Attr == "account" && f.Op == msgkit.OpEq && len(f.Values) == 1 && f.Values[0].Type() == msgkit.AttrString
		})
		q.Filters = slices.Delete(slices.Clone(q.Filters), i, i+1)
		table, scope = &traceAccountTable, []any{account}
	}
	return listPage(ctx, s.pool, table, q, func(row pgx.CollectableRow) (sms.MessageSummary, error) {
		var (
			m                 sms.MessageSummary
			receiver, charged string
			states            []int16
			c                 conversion
		)
		if err := row.Scan(&m.ID, &m.Account, &m.Type, &m.Sender.Value, &m.Sender.Numeric, &receiver, &m.SubmittedAt,
			&m.ExpiresAt, &charged, &m.Currency, &states); err != nil {
			return sms.MessageSummary{}, err
		}
		m.Receiver = sms.MSISDN(receiver)
		m.SubmittedAt, m.ExpiresAt = m.SubmittedAt.UTC(), m.ExpiresAt.UTC()
		m.Charged = c.numeric("charged", charged)
		m.States = make([]sms.PartState, len(states))
		for i, st := range states {
			m.States[i] = sms.PartState(c.uint8("state", st))
		}
		if c.err != nil {
			return sms.MessageSummary{}, storageError(c.err, "message ", m.ID)
		}
		return m, nil
	}, scope...)
}

// The queries of Trace, sent in one batch: each reads by key (the
// message's and its parts' primary keys, sms_reports_part_idx,
// smpp_submitted's primary key).
const (
	traceReportsSQL = `SELECT id, part_num, url, body, state, attempts, next_at, created_at, last_error,
			attempt_at, attempt_errors
		FROM sms_reports WHERE msg_id = $1 ORDER BY id`
	traceHistorySQL = `SELECT num, history FROM sms_parts WHERE msg_id = $1 ORDER BY num`
	traceSMPPSQL    = `SELECT part_num, conn, smsc_id FROM smpp_submitted WHERE msg_id = $1`
)

// Trace returns message id whole, in one round trip of one snapshot per
// statement: the message and its parts as Message reads them, the
// parts' histories, its reports with their attempts, and the SMPP
// records of its parts (smpp_submitted, the SMPPStore's table).
func (s *SMSStore) Trace(ctx context.Context, id sms.MessageID) (sms.MessageTrace, error) {
	if !storable(string(id)) {
		return sms.MessageTrace{}, sms.MessageNotFound(id)
	}
	b := &pgx.Batch{}
	b.Queue(messageSQL, string(id))
	b.Queue(partsSQL, string(id))
	b.Queue(traceHistorySQL, string(id))
	b.Queue(traceReportsSQL, string(id))
	b.Queue(traceSMPPSQL, string(id))
	br := s.pool.SendBatch(ctx, b)
	tr, err := scanTrace(br, id)
	if closeErr := br.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return sms.MessageTrace{}, sms.MessageNotFound(id)
	case err != nil:
		if _, ok := errors.AsType[*msgkit.Error](err); ok {
			return sms.MessageTrace{}, err
		}
		return sms.MessageTrace{}, classify(err, "message", "message "+string(id))
	}
	return tr, nil
}

// scanTrace reads the results of Trace's batch.
func scanTrace(br pgx.BatchResults, id sms.MessageID) (sms.MessageTrace, error) {
	m, err := scanMessage(br, id)
	if err != nil {
		return sms.MessageTrace{}, err
	}
	tr := sms.MessageTrace{Message: m, Parts: make([]sms.PartTrace, len(m.Parts))}
	byNum := make(map[int]*sms.PartTrace, len(m.Parts))
	for i, p := range m.Parts {
		tr.Parts[i].PartRecord = p
		byNum[p.Num] = &tr.Parts[i]
	}
	tr.Message.Parts = nil
	corrupt := func(err error) error { return storageError(err, "message ", id) }

	var (
		num     int32
		history []byte
	)
	rows, err := br.Query()
	if err != nil {
		return sms.MessageTrace{}, err
	}
	if _, err := pgx.ForEachRow(rows, []any{&num, &history}, func() error {
		h, err := parsePartHistory(history)
		if err != nil {
			return corrupt(err)
		}
		if p := byNum[int(num)]; p != nil {
			p.History = h
		}
		return nil
	}); err != nil {
		return sms.MessageTrace{}, err
	}

	var (
		r        sms.ReportTrace
		state    int16
		at       []pgtype.Timestamptz
		errs     []string
		c        conversion
		partNum  int32
		attempts int32
	)
	if rows, err = br.Query(); err != nil {
		return sms.MessageTrace{}, err
	}
	if _, err := pgx.ForEachRow(rows, []any{&r.ID, &partNum, &r.URL, &r.Body, &state, &attempts, &r.NextAt, &r.CreatedAt,
		&r.LastError, &at, &errs}, func() error {
		if len(at) != len(errs) {
			return corrupt(fmt.Errorf("report %d: %d attempt times but %d errors", r.ID, len(at), len(errs)))
		}
		rep := r
		rep.MsgID, rep.PartNum, rep.Attempts = id, int(partNum), int(attempts)
		rep.State = sms.ReportState(c.uint8("state", state))
		rep.NextAt, rep.CreatedAt = rep.NextAt.UTC(), rep.CreatedAt.UTC()
		rep.Log = nil
		for i := range at {
			rep.Log = append(rep.Log, sms.ReportAttempt{At: fromNullTime(at[i]), Error: errs[i]})
		}
		tr.Reports = append(tr.Reports, rep)
		r.Body = nil // the next row scans into a fresh slice
		return nil
	}); err != nil {
		return sms.MessageTrace{}, err
	}
	if c.err != nil {
		return sms.MessageTrace{}, corrupt(c.err)
	}

	var conn string
	var smscID []byte
	if rows, err = br.Query(); err != nil {
		return sms.MessageTrace{}, err
	}
	if _, err := pgx.ForEachRow(rows, []any{&num, &conn, &smscID}, func() error {
		if p := byNum[int(num)]; p != nil {
			p.SMSCConn, p.SMSCID = conn, string(smscID)
		}
		return nil
	}); err != nil {
		return sms.MessageTrace{}, err
	}
	return tr, nil
}

// attemptColumns are the attempt time (microseconds since 1970; 0 when
// zero, NULL in the row) and error of each report of rs for
// finishReportsSQL: what sms.AttemptOf makes of it, which the statement
// appends where the report's attempts grew.
func attemptColumns(rs []sms.Report, round []int) ([]int64, []string) {
	at, errs := make([]int64, len(round)), make([]string, len(round))
	for j, i := range round {
		a := sms.AttemptOf(rs[i])
		if !a.At.IsZero() {
			at[j] = dbTime(a.At).UnixMicro()
		}
		errs[j] = a.Error
	}
	return at, errs
}
