package pgstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// claimPartsSQL leases queued parts in one statement, as claimSQL leases
// reports: due picks the rows of sms_outbound ($1 is now) whose send_at
// has come and whose message has not expired, in send_at order
// (sms_outbound_due_idx), and locks them FOR UPDATE SKIP LOCKED, passing
// over the rows another claim is leasing right now; a row leased after
// this statement's snapshot is re-checked as committed and passed over
// too. A row is live while its part is still submitted; the others were
// left behind by an update of the part (see UpdatePart), and stale
// deletes them. claimed moves the live rows' send_at to the lease's end
// ($2): while the lease runs the part is not due, so no other claim gets
// it, and a claim that is not finished by then is taken over. It finds
// the rows by the ctid the lock returned, which the lock keeps from
// changing. The last SELECT adds what the network needs of the part and
// its message, in send_at order, reading them row by row by primary key:
// a LATERAL subquery with LIMIT is never turned into a join, so a planner
// misled by stale statistics cannot hash whole tables for a few rows.
// The 1 is sms.StateSubmitted.
const claimPartsSQL = `WITH due AS (
	SELECT o.ctid, coalesce(p.submitted, false) AS live
	FROM sms_outbound o
	LEFT JOIN LATERAL (
		SELECT p.state = 1 AS submitted FROM sms_parts p WHERE p.msg_id = o.msg_id AND p.num = o.num LIMIT 1
	) p ON true
	WHERE o.send_at <= $1 AND o.expires_at > $1
	ORDER BY o.send_at
	LIMIT $3
	FOR UPDATE OF o SKIP LOCKED
), stale AS (
	DELETE FROM sms_outbound WHERE ctid = ANY (ARRAY(SELECT ctid FROM due WHERE NOT live))
), claimed AS (
	UPDATE sms_outbound SET send_at = $2
	WHERE ctid = ANY (ARRAY(SELECT ctid FROM due WHERE live))
	RETURNING msg_id, num, attempts, num_parts, expires_at
)
SELECT c.msg_id, c.num, c.num_parts, m.sender, m.sender_numeric, m.receiver, m.dcs, m.flash, c.expires_at,
	p.text, p.data, p.udh_ref, p.udh_total, p.udh_seq, p.dst_port, p.src_port, c.attempts
FROM claimed c
CROSS JOIN LATERAL (SELECT * FROM sms_parts p WHERE p.msg_id = c.msg_id AND p.num = c.num LIMIT 1) p
CROSS JOIN LATERAL (SELECT * FROM sms_messages m WHERE m.id = c.msg_id LIMIT 1) m
ORDER BY c.msg_id COLLATE "C", c.num`

// ClaimParts leases, until now + lease, up to limit queued parts due at or
// before now whose message has not expired, oldest first, and returns
// them by message id and part number. Concurrent
// claims, from any replica, never get the same part while its lease runs
// (see claimPartsSQL); one may return fewer than limit parts while
// another holds rows it would have taken. A limit of zero or less claims
// nothing.
func (s *SMSStore) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	until := dbTime(now.Add(lease))
	return claimLeased(ctx, s, claimPartsSQL, "part", "parts", now, until, limit, true, func(row pgx.CollectableRow, c *conversion) (q sms.QueuedPart, err error) {
		var (
			receiver                   string
			dcs, ref, total, seq       int16
			numParts, dstPort, srcPort int32
			attempts                   int32
		)
		err = row.Scan(&q.MsgID, &q.PartNum, &numParts, &q.Sender.Value, &q.Sender.Numeric, &receiver, &dcs, &q.Flash, &q.ExpiresAt,
			&q.Text, &q.Data, &ref, &total, &seq, &dstPort, &srcPort, &attempts)
		q.NumParts, q.Receiver, q.DCS = int(numParts), sms.MSISDN(receiver), gsm.DCS(c.uint8("dcs", dcs))
		q.UDH = c.udh(ref, total, seq, dstPort, srcPort)
		q.ExpiresAt, q.Attempts, q.LeaseUntil = q.ExpiresAt.UTC(), int(attempts), until
		return q, err
	})
}

// heldPartsSQL lists the parts the network holds: open (states 1, 2, 3:
// sms_parts_open_idx, walked in key order from $2, $3), not queued (a
// submitted part without a row of sms_outbound), of messages not expired
// at $1, at most $4. The queue and the message are read by key, in
// LATERAL subqueries with LIMIT (see claimPartsSQL).
const heldPartsSQL = `SELECT p.msg_id, p.num,
	(SELECT count(*) FROM sms_parts c WHERE c.msg_id = p.msg_id), m.sender, m.sender_numeric, m.receiver, m.dcs, m.flash,
	m.expires_at, p.text, p.data, p.udh_ref, p.udh_total, p.udh_seq, p.dst_port, p.src_port
FROM sms_parts p
CROSS JOIN LATERAL (SELECT * FROM sms_messages m WHERE m.id = p.msg_id LIMIT 1) m
LEFT JOIN LATERAL (
	SELECT true AS queued FROM sms_outbound o WHERE o.msg_id = p.msg_id AND o.num = p.num AND p.state = 1 LIMIT 1
) q ON true
WHERE p.open AND (p.msg_id, p.num) > ($2, $3) AND m.expires_at > $1 AND q.queued IS NULL
ORDER BY p.msg_id, p.num
LIMIT $4`

// HandedParts lists up to limit parts the network holds (handed over, so
// off the queue, and not final) of messages not expired at now, after the
// key after in (message id, part number) order; a simulated network calls
// it when it starts. It reads sms_outbound by key only (keyedOnly).
func (s *SMSStore) HandedParts(ctx context.Context, now time.Time, after sms.PartKey, limit int) ([]sms.OutboundPart, error) {
	if limit <= 0 || !storable(string(after.MsgID)) || !fitsInt32(after.PartNum) {
		return nil, nil
	}
	var (
		c   conversion
		out []sms.OutboundPart
	)
	b := &pgx.Batch{}
	b.Queue(keyedOnly)
	b.Queue(heldPartsSQL, dbTime(now), string(after.MsgID), int32(after.PartNum), int64(limit)).Query(func(rows pgx.Rows) (err error) {
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (q sms.OutboundPart, err error) {
			var (
				receiver             string
				dcs, ref, total, seq int16
				dstPort, srcPort     int32
				numParts             int64
			)
			err = row.Scan(&q.MsgID, &q.PartNum, &numParts, &q.Sender.Value, &q.Sender.Numeric, &receiver, &dcs, &q.Flash, &q.ExpiresAt,
				&q.Text, &q.Data, &ref, &total, &seq, &dstPort, &srcPort)
			q.NumParts, q.Receiver, q.DCS = int(numParts), sms.MSISDN(receiver), gsm.DCS(c.uint8("dcs", dcs))
			q.UDH, q.ExpiresAt = c.udh(ref, total, seq, dstPort, srcPort), q.ExpiresAt.UTC()
			return q, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, classify(err, "part", "handed parts")
	}
	if c.err != nil {
		return nil, storageError(c.err, "handed parts")
	}
	return out, nil
}

// claimLeased runs a claim statement of a leased queue (claimSQL, claimPartsSQL)
// with now ($1), the lease's end ($2) and limit ($3), and scans its rows.
// A limit of zero or less claims nothing. A row that does not convert
// fails the claim; its lease, taken, runs out as any other does. The
// claim runs after keyedOnly when its table needs it.
func claimLeased[T any](ctx context.Context, s *SMSStore, sql, thing, what string, now, until time.Time, limit int,
	keyed bool, scan func(pgx.CollectableRow, *conversion) (T, error)) ([]T, error) {
	if limit <= 0 {
		return nil, nil
	}
	var (
		c   conversion
		out []T
	)
	b := &pgx.Batch{}
	if keyed {
		b.Queue(keyedOnly)
	}
	b.Queue(sql, dbTime(now), until, int64(limit)).Query(func(rows pgx.Rows) (err error) {
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) { return scan(row, &c) })
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, classify(err, thing, what)
	}
	if c.err != nil {
		return nil, storageError(c.err, "claimed ", what)
	}
	return out, nil
}

// keyedOnly makes the statements after it in the same transaction (a
// batch, or an explicit one) find the rows of sms_outbound through its
// indexes, never by reading the table: the table is small and churns (a
// part is usually one insert and one delete), so between two autovacuum
// runs its statistics say "a few rows" while its pages are full of dead
// ones, and a plan made then, generic plans kept for the connection
// included, would scan them all for every part. It is set_config's local
// form rather than SET LOCAL, which does the same but, in a batch sent
// without BEGIN (one implicit transaction), makes the server log a
// warning each time.
const keyedOnly = "SELECT set_config('enable_seqscan', 'off', true)"

// The statements of FinishParts: each records results (one array per
// field) whose claim holds: the part still queued with send_at at the
// lease's end the result quotes, and still submitted (a row an update of
// the part left behind is no claim; see UpdatePart). A hand-over deletes
// the part's row, left behind or not, and counts the live ones; a failed
// attempt moves a live row to its next time. Each finds its rows one by
// one by key, and then deletes or updates them by ctid: as in
// claimPartsSQL, a LATERAL subquery with LIMIT is never turned into a
// join, so no plan scans the table. The 1 is sms.StateSubmitted.
const (
	handedPartsSQL = `WITH handed AS (
		DELETE FROM sms_outbound WHERE ctid = ANY (ARRAY(
			SELECT o.ctid FROM unnest($1::text[], $2::integer[], $3::timestamptz[]) AS r(msg_id, num, lease)
			CROSS JOIN LATERAL (
				SELECT ctid FROM sms_outbound o WHERE o.msg_id = r.msg_id AND o.num = r.num AND o.send_at = r.lease LIMIT 1
			) o))
		RETURNING msg_id, num
	)
	SELECT count(*) FROM handed h
	CROSS JOIN LATERAL (SELECT 1 FROM sms_parts p WHERE p.msg_id = h.msg_id AND p.num = h.num AND p.state = 1 LIMIT 1) p`
	retryPartsSQL = `UPDATE sms_outbound o SET send_at = r.next_at, attempts = r.attempts, last_error = r.last_error
		FROM unnest($1::text[], $2::integer[], $3::timestamptz[], $4::timestamptz[], $5::integer[], $6::text[])
			AS r(msg_id, num, lease, next_at, attempts, last_error)
		CROSS JOIN LATERAL (
			SELECT ctid FROM sms_outbound q WHERE q.msg_id = r.msg_id AND q.num = r.num AND q.send_at = r.lease LIMIT 1
		) q
		CROSS JOIN LATERAL (
			SELECT 1 FROM sms_parts p WHERE p.msg_id = r.msg_id AND p.num = r.num AND p.state = 1 LIMIT 1
		) p
		WHERE o.ctid = q.ctid`
)

// FinishParts records the results whose claims hold and returns how many
// it recorded; see sms.TransmitterStore. The hand-overs and the retries
// are one statement each, sent together (one round trip, one
// transaction). A result not handed over without a NextAt, a LastError
// PostgreSQL cannot hold and numbers beyond 32 bits are Invalid, and then
// nothing is recorded. The rows are locked in key order, and a deadlock
// (with a claimer whose lease ran out) runs the statements again, as inTx
// does.
func (s *SMSStore) FinishParts(ctx context.Context, results []sms.SendResult) (int, error) {
	if err := sms.CheckSendResults(results); err != nil {
		return 0, err
	}
	for i, r := range results {
		switch {
		case !storable(r.LastError):
			return 0, msgkit.Invalidf(sms.CodeSendResultInvalid, "lastError", "results[%d].lastError must be valid UTF-8 without NUL characters", i)
		case !fitsInt32(r.Attempts):
			return 0, msgkit.Invalidf(sms.CodeSendResultInvalid, "attempts", "results[%d].attempts is out of range", i)
		}
	}
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(a, b sms.SendResult) int {
		return cmp.Or(strings.Compare(string(a.Key.MsgID), string(b.Key.MsgID)), cmp.Compare(a.Key.PartNum, b.Key.PartNum))
	})
	var handed, retried struct {
		ids, lastErrors []string
		nums, attempts  []int32
		leases, next    []time.Time
	}
	for _, r := range sorted {
		if !storable(string(r.Key.MsgID)) || !fitsInt32(r.Key.PartNum) {
			continue // no such part is stored: its claim cannot hold
		}
		c := &handed
		if !r.Handed {
			c = &retried
			c.next, c.attempts, c.lastErrors = append(c.next, dbTime(r.NextAt)), append(c.attempts, int32(r.Attempts)), append(c.lastErrors, r.LastError)
		}
		c.ids, c.nums, c.leases = append(c.ids, string(r.Key.MsgID)), append(c.nums, int32(r.Key.PartNum)), append(c.leases, dbTime(r.LeaseUntil))
	}
	if len(handed.ids)+len(retried.ids) == 0 {
		return 0, nil
	}
	var recorded int64
	err := retrying(ctx, s.log, "finishing parts", retryable, func() error {
		recorded = 0
		b := &pgx.Batch{}
		b.Queue(keyedOnly)
		count := func(ct pgconn.CommandTag) error {
			recorded += ct.RowsAffected()
			return nil
		}
		if len(handed.ids) > 0 {
			b.Queue(handedPartsSQL, handed.ids, handed.nums, handed.leases).QueryRow(func(row pgx.Row) error {
				var live int64
				err := row.Scan(&live)
				recorded += live
				return err
			})
		}
		if len(retried.ids) > 0 {
			b.Queue(retryPartsSQL, retried.ids, retried.nums, retried.leases, retried.next, retried.attempts, retried.lastErrors).Exec(count)
		}
		return s.pool.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return 0, classify(err, "part", "parts")
	}
	return int(recorded), nil
}

// fromNullTime reads a nullable timestamptz back: zero for NULL, else in
// UTC.
func fromNullTime(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// outboundBacklogSQL counts the rows of sms_outbound, and finds the
// earliest send_at of those a claim at $1 would take (due, message not
// expired, part still submitted: claimPartsSQL's rows), walking
// sms_outbound_due_idx in order: it costs the queue's rows, whatever the
// history, and the rows a claim would pass over. The 1 is
// sms.StateSubmitted.
const outboundBacklogSQL = `SELECT (SELECT count(*) FROM sms_outbound),
	(SELECT o.send_at FROM sms_outbound o
	WHERE o.send_at <= $1 AND o.expires_at > $1
		AND EXISTS (SELECT 1 FROM sms_parts p WHERE p.msg_id = o.msg_id AND p.num = o.num AND p.state = 1)
	ORDER BY o.send_at LIMIT 1)`

// OutboundBacklog counts the rows of the outbound queue and finds the
// earliest SendAt of the parts a claim at now would take, for the
// transmitter's metrics. The count includes, until a claim or a finish
// deletes it, the row an update of the part left behind (see UpdatePart):
// checking each row's part would cost a backlog a look-up per part at
// every scrape. It runs after keyedOnly, so that stale statistics cannot
// make it read the table's dead pages.
func (s *SMSStore) OutboundBacklog(ctx context.Context, now time.Time) (sms.Backlog, error) {
	var (
		n      int64
		oldest pgtype.Timestamptz
	)
	b := &pgx.Batch{}
	b.Queue(keyedOnly)
	b.Queue(outboundBacklogSQL, dbTime(now)).QueryRow(func(row pgx.Row) error { return row.Scan(&n, &oldest) })
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return sms.Backlog{}, classify(err, "part", "outbound backlog")
	}
	out := sms.Backlog{Len: int(n)}
	if oldest.Valid {
		out.OldestDue = oldest.Time.UTC()
	}
	return out, nil
}
