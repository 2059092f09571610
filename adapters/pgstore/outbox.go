package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// The columns of a message and of its parts as messageRow and partRow
// scan them. The queue's columns of a part are read by key (see
// claimPartsSQL for the LATERAL ... LIMIT), and only for a submitted part
// (state 1): a row an update of the part left behind is not its queue (see
// UpdatePart). UpdatePart reads the parts without them
// (partDeliveryColumns), as its fn needs only their delivery.
const (
	messageColumns = `account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url, custom,
			part_price::text, charged::text, currency, submitted_at, expires_at`
	partDeliveryColumns = `num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port,
			state, error_code, updated_at, NULL::timestamptz, 0, ''`
)

// The queries of Message (sms.go) and UpdatePart.
const (
	messageSQL       = `SELECT ` + messageColumns + ` FROM sms_messages WHERE id = $1`
	partsDeliverySQL = `SELECT ` + partDeliveryColumns + ` FROM sms_parts WHERE msg_id = $1 ORDER BY num`
	partsSQL         = `SELECT p.num, p.text, p.data, p.units, p.udh_ref, p.udh_total, p.udh_seq, p.dst_port, p.src_port,
			p.state, p.error_code, p.updated_at, o.send_at, coalesce(o.attempts, 0), coalesce(o.last_error, '')
		FROM sms_parts p LEFT JOIN LATERAL (
			SELECT send_at, attempts, last_error FROM sms_outbound o
			WHERE o.msg_id = p.msg_id AND o.num = p.num AND p.state = 1 LIMIT 1
		) o ON true
		WHERE p.msg_id = $1 ORDER BY p.num`
)

// UpdatePart runs fn on the part and saves what it returns, in one
// transaction:
//
//   - It locks the part's row (SELECT … FOR UPDATE) and then reads the
//     message with all its parts, so m.Parts has every part (len(m.Parts)
//     is the message's number of parts) and p is the one to update, as
//     committed by the updates before it. Only that row is locked: updates
//     of one part take turns, updates of different parts never wait for
//     each other, and with one lock per transaction they cannot deadlock.
//   - When fn returns changed, it writes the part's state, error code and
//     UpdatedAt, takes it off the outbound queue, and inserts fn's reports (pending, unleased) in their
//     order. Their ids are taken while the part is locked, so the reports
//     of one part are numbered in the order of its updates, which is the
//     order ClaimReports hands them out.
//
// When fn fails its error is returned as it is and nothing is written;
// when it returns changed false nothing is written either. A
// serialization failure (40001: READ COMMITTED, the default, raises none
// here, a stricter default_transaction_isolation may) or a deadlock
// (40P01) runs the whole transaction again, fn included, as inTx does;
// after that it is
// Internal. An unknown message or part is NotFound (part_not_found); text
// PostgreSQL cannot hold and numbers beyond 32 bits in the update are
// Invalid.
func (s *SMSStore) UpdatePart(ctx context.Context, key sms.PartKey, fn func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	what := fmt.Sprintf("part %d of message %s", key.PartNum, key.MsgID)
	if !storable(string(key.MsgID)) || !fitsInt32(key.PartNum) {
		return sms.PartNotFound(key)
	}
	err := inTx(ctx, s.pool, s.log, "part update", func(tx pgx.Tx) error { return updatePart(ctx, tx, key, fn) })
	// What UpdateParts remembers of the message may be out of date now;
	// its compare and set would catch that, at the cost of a batch run
	// again.
	s.recent.forget(key.MsgID)
	if f, ok := errors.AsType[final](err); ok {
		return f.err
	}
	return classify(err, "part", what)
}

// updatePart is one run of UpdatePart's transaction. Database errors are
// returned as they are, for UpdatePart to retry or classify; every other
// error is wrapped in final.
func updatePart(ctx context.Context, tx pgx.Tx, key sms.PartKey, fn func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error)) error {
	// One round trip. Under READ COMMITTED each statement takes a fresh
	// snapshot, and the reads are sent after the lock, so they run once it
	// is granted and see the part as the previous holder committed it.
	batch := &pgx.Batch{}
	batch.Queue(partLockSQL, string(key.MsgID), int32(key.PartNum))
	batch.Queue(messageSQL, string(key.MsgID))
	batch.Queue(partsDeliverySQL, string(key.MsgID))
	br := tx.SendBatch(ctx, batch)
	var one int
	err := br.QueryRow().Scan(&one)
	var m sms.MessageRecord
	if err == nil {
		m, err = scanMessage(br, key.MsgID)
	}
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		if _, ok := errors.AsType[*msgkit.Error](err); ok { // a corrupt row
			return final{err}
		}
		return err
	}
	i := slices.IndexFunc(m.Parts, func(p sms.PartRecord) bool { return p.Num == key.PartNum })
	if i < 0 { // the row is locked, so the read found it
		return pgx.ErrNoRows
	}

	u, changed, err := fn(m, m.Parts[i])
	if err != nil {
		return final{err}
	}
	if !changed {
		return nil
	}
	if err := checkPartUpdate(u); err != nil {
		return final{err}
	}
	// The update takes the part off the outbound queue (see
	// Store.UpdatePart), mostly without touching the queue: a part's row
	// counts only while the part is submitted, and an updated part never
	// is again (sms.PartUpdate.Check), so a row left behind is no longer
	// its queue to any reader. The network reports a part after its
	// hand-over, which deleted its row, so its reports, most of the
	// queries of a busy store, cost the queue nothing; a row left by a
	// report that overtook the recording of the hand-over, or by a
	// refusal, is deleted by FinishParts or by the claim that reaches it.
	// An update of a submitted part at or after its message's expiry
	// (ExpireDue's, usually of a part never sent) deletes the row at
	// once, as claims pass over the rows of expired messages.
	batch = &pgx.Batch{}
	queuePartWrites(batch, m, m.Parts[i].State, partWrite{key: key, PartUpdate: u})
	return tx.SendBatch(ctx, batch).Close()
}

// The statements of a part's update.
const (
	partLockSQL   = `SELECT 1 FROM sms_parts WHERE msg_id = $1 AND num = $2 FOR UPDATE`
	partUpdateSQL = `UPDATE sms_parts SET state = $3, error_code = $4, updated_at = $5, history = sms_part_history(history, $6)
		WHERE msg_id = $1 AND num = $2`
	partDequeueSQL  = `DELETE FROM sms_outbound WHERE msg_id = $1 AND num = $2`
	reportInsertSQL = `INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
)

// queuePartWrites queues the writes of update u of a part of m that was
// in state was: its new state, leaving the queue at expiry (see
// updatePart), and its reports, a statement each in the slice's order, so
// their ids follow it, as reports are claimed in id order.
func queuePartWrites(b *pgx.Batch, m sms.MessageRecord, was sms.PartState, u partWrite) {
	b.Queue(partUpdateSQL, string(u.key.MsgID), int32(u.key.PartNum), int16(u.State), int32(u.ErrorCode), dbTime(u.UpdatedAt),
		partEvent(u.PartUpdate))
	if was == sms.StateSubmitted && !m.ExpiresAt.After(u.UpdatedAt) {
		b.Queue(keyedOnly)
		b.Queue(partDequeueSQL, string(u.key.MsgID), int32(u.key.PartNum))
	}
	for _, r := range u.Reports {
		queueReport(b, r)
	}
}

// queueReport queues the insert of report r.
func queueReport(b *pgx.Batch, r sms.Report) {
	b.Queue(reportInsertSQL, string(r.MsgID), int32(r.PartNum), r.URL, r.Body, int16(r.State), int32(r.Attempts),
		dbTime(r.NextAt), dbTime(r.CreatedAt), r.LastError)
}

// partWrite is an update of the part key.
type partWrite struct {
	key sms.PartKey
	sms.PartUpdate
	read   sms.PartRecord // the part as read, before the batch's changes (UpdateParts)
	events []byte         // the history records of the batch's changes of the part (UpdateParts; see trace.go)
}

// checkPartUpdate refuses what sms_parts and sms_reports cannot hold.
func checkPartUpdate(u sms.PartUpdate) error {
	if err := u.Check(); err != nil {
		return err
	}
	if !fitsInt32(int(u.ErrorCode)) {
		return msgkit.Invalidf(sms.CodePartInvalid, "errorCode", "errorCode is out of range")
	}
	for i, r := range u.Reports {
		texts := []struct{ name, v string }{{"msgId", string(r.MsgID)}, {"url", r.URL}, {"lastError", r.LastError}}
		for _, t := range texts {
			if !storable(t.v) {
				return msgkit.Invalidf(sms.CodeReportInvalid, "reports", "reports[%d].%s must be valid UTF-8 without NUL characters", i, t.name)
			}
		}
		if !fitsInt32(r.PartNum) || !fitsInt32(r.Attempts) {
			return msgkit.Invalidf(sms.CodeReportInvalid, "reports", "reports[%d] has a number out of range", i)
		}
	}
	return nil
}

// expiredPartsSQL drives from the open parts (sms_parts_open_idx: its
// predicate is the same column, open: states 1, 2, 3) and joins their messages by
// primary key, so it reads the parts in flight and nothing of the
// history; see 0003_outbox.sql.
const expiredPartsSQL = `SELECT p.msg_id, p.num
	FROM sms_parts p JOIN sms_messages m ON m.id = p.msg_id
	WHERE p.open AND m.expires_at <= $1
	ORDER BY m.expires_at, p.msg_id, p.num
	LIMIT $2`

// ExpiredParts lists up to limit parts that are submitted, sent to SMSC
// or buffered and whose message expired at or before now, by expiry, then
// message id, then part number. A limit of zero or less lists nothing.
func (s *SMSStore) ExpiredParts(ctx context.Context, now time.Time, limit int) ([]sms.PartKey, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, expiredPartsSQL, dbTime(now), int64(limit))
	if err != nil {
		return nil, classify(err, "part", "expired parts")
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (k sms.PartKey, err error) {
		return k, row.Scan(&k.MsgID, &k.PartNum)
	})
	if err != nil {
		return nil, classify(err, "part", "expired parts")
	}
	return keys, nil
}

// claimSQL leases reports in one statement, so replicas can claim at
// once. due picks the reports to lease: pending ($1 is now), due, not
// leased or leased until now at the latest, and the oldest pending report
// of their part (no pending report of the part with a smaller id, whether
// leased or not, so a part's reports go out one after the other, in
// order). FOR UPDATE SKIP LOCKED passes over the rows another claim is
// leasing right now; and when another claim leased a row after this
// statement's snapshot was taken, PostgreSQL re-checks the conditions on
// the row as committed before locking it, finds the lease, and passes over
// it too. So while a lease runs no other claim gets its report. claimed
// sets the lease ($2) and returns the rows, sorted by the last SELECT
// because RETURNING has no order.
const claimSQL = `WITH due AS (
	SELECT r.id FROM sms_reports r
	WHERE r.state = 1 AND r.next_at <= $1
		AND (r.lease_until IS NULL OR r.lease_until <= $1)
		AND NOT EXISTS (
			SELECT 1 FROM sms_reports o
			WHERE o.msg_id = r.msg_id AND o.part_num = r.part_num AND o.state = 1 AND o.id < r.id)
	ORDER BY r.next_at, r.id
	LIMIT $3
	FOR UPDATE OF r SKIP LOCKED
), claimed AS (
	UPDATE sms_reports r SET lease_until = $2
	FROM due WHERE r.id = due.id
	RETURNING r.id, r.msg_id, r.part_num, r.url, r.body, r.state, r.attempts, r.next_at, r.created_at, r.last_error
)
SELECT * FROM claimed ORDER BY next_at, id`

// ClaimReports leases up to limit pending reports due at or before now,
// whose lease is free (never leased, finished since, or leased until now
// at the latest), until now + lease, and returns them by NextAt, then ID.
// Of each part (msg_id, part_num) only the oldest pending report is
// claimed; the next one waits until that one is finished as delivered or
// given up. Concurrent claims, from any replica, never get the same
// report while its lease runs (see claimSQL); one may return fewer than
// limit reports while another holds rows it would have taken. A limit of
// zero or less claims nothing.
func (s *SMSStore) ClaimReports(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.Report, error) {
	return claimLeased(ctx, s, claimSQL, "report", "reports", now, dbTime(now.Add(lease)), limit, false, func(row pgx.CollectableRow, c *conversion) (r sms.Report, err error) {
		var state int16
		err = row.Scan(&r.ID, &r.MsgID, &r.PartNum, &r.URL, &r.Body, &state, &r.Attempts, &r.NextAt, &r.CreatedAt, &r.LastError)
		r.State = sms.ReportState(c.uint8("state", state))
		r.NextAt, r.CreatedAt = r.NextAt.UTC(), r.CreatedAt.UTC()
		return r, err
	})
}

// FinishReport records an attempt at r (found by r.ID): its State,
// Attempts, NextAt and LastError, and ends its lease; the other fields are
// kept as queued. Only a pending report can be finished: an unknown id,
// and a report already delivered or given up, are NotFound
// (report_not_found), as in memstore, which forgets finished reports. So
// a claimer whose lease ran out while another delivered the report
// cannot queue it again. The lease itself is not checked. A LastError
// PostgreSQL cannot hold (invalid UTF-8, NUL bytes) and Attempts beyond
// 32 bits are Invalid.
func (s *SMSStore) FinishReport(ctx context.Context, r sms.Report) error {
	return s.FinishReports(ctx, []sms.Report{r})[0]
}

// finishReportsSQL records the attempts at the reports with the ids of
// $1, each with the state, attempts, next_at and last_error at the same
// position of the other arrays, in one statement; it returns the ids of
// the reports it found pending, which are those it finished.
//
// Where the attempts grew, the attempt ($6, $7: its time in microseconds
// since 1970, 0 for none, and its error; integers cost pgx no allocation
// per element) is
// appended to the report's attempts, which keep the first and the latest
// 15 (sms.AppendReportAttempt; see 0037_sms_trace.sql): in the same row
// write, so the trace costs no tuple.
const finishReportsSQL = `UPDATE sms_reports r
	SET state = u.state, attempts = u.attempts, next_at = u.next_at, last_error = u.last_error, lease_until = NULL,
		attempt_at = CASE WHEN u.attempts <= r.attempts THEN r.attempt_at
			WHEN cardinality(r.attempt_at) < 16 THEN array_append(r.attempt_at, u.attempt_at)
			ELSE array_append(r.attempt_at[1:1] || r.attempt_at[3:], u.attempt_at) END,
		attempt_errors = CASE WHEN u.attempts <= r.attempts THEN r.attempt_errors
			WHEN cardinality(r.attempt_errors) < 16 THEN array_append(r.attempt_errors, u.attempt_error)
			ELSE array_append(r.attempt_errors[1:1] || r.attempt_errors[3:], u.attempt_error) END
	FROM (SELECT u.*, CASE WHEN u.attempt_us <> 0 THEN timestamptz 'epoch' + u.attempt_us * interval '1 microsecond' END AS attempt_at
		FROM unnest($1::bigint[], $2::smallint[], $3::integer[], $4::timestamptz[], $5::text[], $6::bigint[], $7::text[])
			AS u(id, state, attempts, next_at, last_error, attempt_us, attempt_error)) AS u
	WHERE r.id = u.id AND r.state = 1
	RETURNING r.id`

// FinishReports records attempts as FinishReport records each, in one
// statement (and one transaction) instead of a transaction each, which
// held a dispatcher to a few thousand reports a second. The ids are sent
// sorted, so batches of replicas that share rows (a lease ran out) mostly
// lock them in the same order; a deadlock runs the batch again. A report
// given twice is recorded twice, in order, by a statement per repetition
// in one transaction. Any other database error is every report's error
// and nothing is saved.
func (s *SMSStore) FinishReports(ctx context.Context, rs []sms.Report) []error {
	errs := make([]error, len(rs))
	var rounds [][]int // indexes into rs; round k has the k-th finish of each report
	seen := map[int64]int{}
	for i, r := range rs {
		if err := invalidText("report", "lastError", r.LastError); err != nil {
			errs[i] = err
			continue
		}
		if !fitsInt32(r.Attempts) {
			errs[i] = msgkit.Invalidf(sms.CodeReportInvalid, "attempts", "attempts is out of range")
			continue
		}
		k := seen[r.ID]
		seen[r.ID]++
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], i)
	}
	if len(rounds) == 0 {
		return errs
	}
	found := make([]bool, len(rs))
	run := func(q listQuerier) error {
		clear(found)
		for _, round := range rounds {
			if err := finishRound(ctx, q, rs, round, found); err != nil {
				return err
			}
		}
		return nil
	}
	err := retrying(ctx, s.log, "report finishes", retryable, func() error {
		if len(rounds) == 1 {
			return run(s.pool)
		}
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return run(tx) })
	})
	for _, round := range rounds {
		for _, i := range round {
			switch {
			case err != nil:
				errs[i] = classify(err, "report", "reports")
			case !found[i]:
				errs[i] = classify(pgx.ErrNoRows, "report", "report "+strconv.FormatInt(rs[i].ID, 10))
			}
		}
	}
	return errs
}

// finishRound runs finishReportsSQL on the reports rs[i] of round, whose
// ids differ, and marks in found those it finished.
func finishRound(ctx context.Context, q listQuerier, rs []sms.Report, round []int, found []bool) error {
	slices.SortFunc(round, func(a, b int) int { return cmp.Compare(rs[a].ID, rs[b].ID) })
	var (
		ids      = make([]int64, len(round))
		states   = make([]int16, len(round))
		attempts = make([]int32, len(round))
		nextAt   = make([]time.Time, len(round))
		lastErr  = make([]string, len(round))
		at       = make(map[int64]int, len(round))
	)
	for j, i := range round {
		r := rs[i]
		ids[j], states[j], attempts[j], nextAt[j], lastErr[j] = r.ID, int16(r.State), int32(r.Attempts), dbTime(r.NextAt), r.LastError
		at[r.ID] = i
	}
	attemptAt, attemptErr := attemptColumns(rs, round)
	rows, err := q.Query(ctx, finishReportsSQL, ids, states, attempts, nextAt, lastErr, attemptAt, attemptErr)
	if err != nil {
		return err
	}
	var id int64
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		found[at[id]] = true
		return nil
	})
	return err
}

// ReportCounts counts the reports by state; states without reports are
// absent. It reads the whole table, history included: it is meant for
// tests and occasional metrics, not for every request.
func (s *SMSStore) ReportCounts(ctx context.Context) (map[sms.ReportState]int, error) {
	rows, err := s.pool.Query(ctx, "SELECT state, count(*) FROM sms_reports GROUP BY state")
	if err != nil {
		return nil, classify(err, "report", "reports")
	}
	counts := map[sms.ReportState]int{}
	var (
		state int16
		n     int64
		c     conversion
	)
	_, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error {
		counts[sms.ReportState(c.uint8("state", state))] = int(n)
		return nil
	})
	if err != nil {
		return nil, classify(err, "report", "reports")
	}
	if c.err != nil {
		return nil, storageError(c.err, "report counts")
	}
	return counts, nil
}

// outboxBacklogSQL counts the pending reports (sms_reports_due_idx holds
// them, and no other) and finds the earliest next_at of those a claim at
// $1 would take, with claimSQL's conditions, walking the same index in
// order: it costs what is pending, not the outbox's history. The 1 is
// sms.ReportPending.
const outboxBacklogSQL = `SELECT (SELECT count(*) FROM sms_reports WHERE state = 1),
	(SELECT r.next_at FROM sms_reports r
	WHERE r.state = 1 AND r.next_at <= $1
		AND (r.lease_until IS NULL OR r.lease_until <= $1)
		AND NOT EXISTS (
			SELECT 1 FROM sms_reports o
			WHERE o.msg_id = r.msg_id AND o.part_num = r.part_num AND o.state = 1 AND o.id < r.id)
	ORDER BY r.next_at, r.id LIMIT 1)`

// OutboxBacklog counts the pending reports and finds the earliest NextAt
// of those a claim at now would take, for the dispatcher's metrics.
func (s *SMSStore) OutboxBacklog(ctx context.Context, now time.Time) (sms.Backlog, error) {
	var (
		n      int64
		oldest pgtype.Timestamptz
	)
	if err := s.pool.QueryRow(ctx, outboxBacklogSQL, dbTime(now)).Scan(&n, &oldest); err != nil {
		return sms.Backlog{}, classify(err, "report", "outbox backlog")
	}
	out := sms.Backlog{Len: int(n)}
	if oldest.Valid {
		out.OldestDue = oldest.Time.UTC()
	}
	return out, nil
}
