package pgstore

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit/sms"
)

var _ sms.RetentionStore = (*SMSStore)(nil)

// forgetBatch is how many messages one transaction of ForgetFinished
// removes at most: a few thousand rows of four tables, so no lock is held
// long, the WAL grows in small steps, and autovacuum reclaims the space
// between runs.
const forgetBatch = 1000

// forgetPickSQL picks up to $2 finished messages whose parts were all last
// updated before $1 and that have no pending report, and locks their
// parts in key order (as UpdateParts locks parts, so neither deadlocks the
// other): an update of one of them waits for the removal, and then finds
// no part.
//
// The candidates come from each account's sms_messages_account_idx range
// submitted_at < $1, oldest first: a message is submitted before any
// update of its parts, so the range holds every message that can go, and
// little else once retention keeps up (messages that finished after the
// cutoff although submitted before it, and those still open or
// reporting). Each candidate's parts and pending reports are probed by
// key (sms_parts' primary key, sms_reports_part_idx), so a call reads
// about the rows it removes, whatever the tables' size; no index was
// added for it, which would cost every acceptance. It runs after
// walkInOrder, so that each range is walked in submitted_at order and left
// at the limit: a bitmap scan, which the planner prefers for a short
// range, would read the whole range (and probe every message of it)
// before sorting, so a backlog (retention turned on over a long history,
// or a shorter keep time) would cost every call all of it.
const forgetPickSQL = `SELECT p.msg_id FROM sms_parts p
WHERE p.msg_id = ANY (ARRAY(
	SELECT c.id FROM sms_accounts a
	CROSS JOIN LATERAL (
		SELECT m.id FROM sms_messages m
		WHERE m.account = a.username AND m.submitted_at < $1
			AND NOT EXISTS (SELECT FROM sms_parts q WHERE q.msg_id = m.id AND (q.open OR q.updated_at >= $1))
			AND NOT EXISTS (SELECT FROM sms_reports r WHERE r.msg_id = m.id AND r.state = 1)
		ORDER BY m.submitted_at
		LIMIT $2
	) c
	LIMIT $2))
ORDER BY p.msg_id, p.num
FOR UPDATE OF p`

// walkInOrder makes the statements after it in the transaction read
// index ranges in order (index scans), never as bitmaps.
const walkInOrder = "SET LOCAL enable_bitmapscan = off"

// forgetSQL removes the messages $1 whose parts forgetPickSQL locked,
// checking again, on what committed before the locks were granted, that
// each is still finished before $2; with their parts, their reports (none
// pending), their SMPP records and any queue row an update left behind.
// A removed message takes its charge's ledger entry with it (its row is
// the entry; see 0034_sms_ledger.sql), so the same statement writes, per
// account, one carried entry of the removed charges' sum (negative, at
// the latest removed submission), and the balance stays the sum of the
// account's entries. It returns how many messages it removed.
const forgetSQL = `WITH doomed AS (
	SELECT m.id FROM sms_messages m
	WHERE m.id = ANY ($1::text[])
		AND NOT EXISTS (SELECT FROM sms_parts q WHERE q.msg_id = m.id AND (q.open OR q.updated_at >= $2))
		AND NOT EXISTS (SELECT FROM sms_reports r WHERE r.msg_id = m.id AND r.state = 1)
), parts AS (
	DELETE FROM sms_parts p WHERE p.msg_id IN (SELECT id FROM doomed)
), reports AS (
	DELETE FROM sms_reports r WHERE r.msg_id IN (SELECT id FROM doomed) AND r.state <> 1
), submitted AS (
	DELETE FROM smpp_submitted s WHERE s.msg_id IN (SELECT id FROM doomed)
), queued AS (
	DELETE FROM sms_outbound o WHERE o.msg_id IN (SELECT id FROM doomed)
), removed AS (
	DELETE FROM sms_messages m WHERE m.id IN (SELECT id FROM doomed)
	RETURNING m.account, m.currency, m.charged, m.submitted_at
), carried AS (
	INSERT INTO sms_ledger (account, kind, amount, currency, at, actor, note)
	SELECT account, 'carried', -sum(charged), currency, max(submitted_at), '` + sms.ActorRetention + `',
		'charges of ' || count(*) || ' removed messages'
	FROM removed GROUP BY account, currency HAVING sum(charged) <> 0
)
SELECT count(*) FROM removed`

// forgetCallbacksSQL removes up to $2 finished reports of test sessions
// (testSessionReports) queued before $1. Their ids are a range of
// sms_reports_part_idx (msg_id is collated "C", so the range is the
// prefix's), walked by key (keyedOnly): the range holds only the test
// system's callbacks, which are few, and no index was added for it.
const forgetCallbacksSQL = `DELETE FROM sms_reports WHERE id IN (
	SELECT r.id FROM sms_reports r
	WHERE r.msg_id >= '` + testSessionReports + `' AND r.msg_id < '` + testSessionReportsEnd + `'
		AND r.state <> 1 AND r.created_at < $1
	ORDER BY r.msg_id
	LIMIT $2)`

// forgetInboundSQL removes up to $2 inbound messages received before $1
// whose delivery, if any, is no longer pending, with that delivery (a
// report whose msg_id is the message's id, by sms_reports_part_idx).
// The candidates come from inbound_messages_received_idx, oldest first.
const forgetInboundSQL = `WITH doomed AS (
	SELECT m.id FROM inbound_messages m
	WHERE m.received_at < $1
		AND NOT EXISTS (SELECT FROM sms_reports r WHERE r.msg_id = m.id AND r.state = 1)
	ORDER BY m.received_at
	LIMIT $2
), reports AS (
	DELETE FROM sms_reports r WHERE r.msg_id IN (SELECT id FROM doomed) AND r.state <> 1
)
DELETE FROM inbound_messages m WHERE m.id IN (SELECT id FROM doomed)`

// ForgetFinished removes up to limit finished messages whose parts were
// all last updated before before (to the microsecond, as times are kept),
// with their parts, their delivered and given-up reports, their SMPP
// records (smpp_submitted) and any queue row left behind, forgetBatch
// messages per transaction. Each transaction picks its messages and locks
// their parts (forgetPickSQL), then checks them again and deletes
// (forgetSQL); both read by key only (keyedOnly, walkInOrder), so stale
// statistics of the churning tables cannot turn a probe into a scan.
//
// It also removes up to limit of the test system's completed-session
// callbacks that were delivered or given up and queued before before
// (forgetCallbacksSQL): they belong to no message, so no message's
// removal takes them, and the memory store keeps no finished report at
// all. They are not counted in the result, which counts messages. So are
// up to limit inbound messages (package inbound) received before before
// whose delivery is done, with it (forgetInboundSQL).
func (s *SMSStore) ForgetFinished(ctx context.Context, before time.Time, limit int) (int, error) {
	before = dbTime(before)
	if limit > 0 {
		b := &pgx.Batch{}
		b.Queue(keyedOnly) // one implicit transaction with the removal
		b.Queue(forgetCallbacksSQL, before, limit)
		b.Queue(forgetInboundSQL, before, limit)
		if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
			return 0, classify(err, "report", "finished test session callbacks")
		}
	}
	total := 0
	for total < limit {
		batch := min(limit-total, forgetBatch)
		picked, removed := 0, 0
		err := inTx(ctx, s.pool, s.log, "forgetting finished messages", func(tx pgx.Tx) error {
			b := &pgx.Batch{}
			b.Queue(keyedOnly)
			b.Queue(walkInOrder)
			var ids []string
			b.Queue(forgetPickSQL, before, batch).Query(func(rows pgx.Rows) (err error) {
				ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			ids = slices.Compact(ids) // a row per part, in key order
			picked, removed = len(ids), 0
			if picked == 0 {
				return nil
			}
			return tx.QueryRow(ctx, forgetSQL, ids, before).Scan(&removed)
		})
		if err != nil {
			return total, classify(err, "message", "finished messages")
		}
		total += removed
		if picked < batch {
			break
		}
	}
	return total, nil
}
