package pgstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// claimPartsSQL leases queued parts in one statement, as claimSQL leases
// reports: due picks the parts ($1 is now) whose send_at has come (the
// condition implies send_at IS NOT NULL, so sms_parts_send_idx serves it,
// in send_at order), that are not final, whose lease is free and whose
// message has not expired, and locks them FOR UPDATE SKIP LOCKED, passing
// over the rows another claim is leasing right now; a row leased after
// this statement's snapshot is re-checked as committed and passed over
// too. So while a lease runs no other claim gets its part. claimed sets
// the lease ($2), and the last SELECT adds what the network needs of the
// message, the number of its parts included, in send_at order.
const claimPartsSQL = `WITH due AS (
	SELECT p.msg_id, p.num FROM sms_parts p JOIN sms_messages m ON m.id = p.msg_id
	WHERE p.send_at <= $1 AND p.state IN (1, 2, 3)
		AND (p.send_lease IS NULL OR p.send_lease <= $1)
		AND m.expires_at > $1
	ORDER BY p.send_at
	LIMIT $3
	FOR UPDATE OF p SKIP LOCKED
), claimed AS (
	UPDATE sms_parts p SET send_lease = $2
	FROM due WHERE p.msg_id = due.msg_id AND p.num = due.num
	RETURNING p.msg_id, p.num, p.text, p.data, p.udh_ref, p.udh_total, p.udh_seq, p.dst_port, p.src_port,
		p.send_at, p.send_attempts
)
SELECT c.msg_id, c.num, (SELECT count(*) FROM sms_parts a WHERE a.msg_id = c.msg_id),
	m.sender, m.sender_numeric, m.receiver, m.dcs, m.flash, m.expires_at,
	c.text, c.data, c.udh_ref, c.udh_total, c.udh_seq, c.dst_port, c.src_port, c.send_attempts
FROM claimed c JOIN sms_messages m ON m.id = c.msg_id
ORDER BY c.send_at, c.msg_id COLLATE "C", c.num`

// ClaimParts leases, until now + lease, up to limit queued parts due at or
// before now whose lease is free and whose message has not expired, and
// returns them by SendAt (then message id and part number). Concurrent
// claims, from any replica, never get the same part while its lease runs
// (see claimPartsSQL); one may return fewer than limit parts while
// another holds rows it would have taken. A limit of zero or less claims
// nothing.
func (s *SMSStore) ClaimParts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]sms.QueuedPart, error) {
	until := dbTime(now.Add(lease))
	return claimLeased(ctx, s, claimPartsSQL, "part", "parts", now, until, limit, func(row pgx.CollectableRow, c *conversion) (q sms.QueuedPart, err error) {
		var (
			receiver                   string
			dcs, ref, total, seq       int16
			numParts                   int64
			dstPort, srcPort, attempts int32
		)
		err = row.Scan(&q.MsgID, &q.PartNum, &numParts, &q.Sender.Value, &q.Sender.Numeric, &receiver, &dcs, &q.Flash, &q.ExpiresAt,
			&q.Text, &q.Data, &ref, &total, &seq, &dstPort, &srcPort, &attempts)
		q.NumParts, q.Receiver, q.DCS = int(numParts), sms.MSISDN(receiver), sms.DCS(c.uint8("dcs", dcs))
		q.UDH = c.udh(ref, total, seq, dstPort, srcPort)
		q.ExpiresAt, q.Attempts, q.LeaseUntil = q.ExpiresAt.UTC(), int(attempts), until
		return q, err
	})
}

// claimLeased runs a claim statement of a leased queue (claimSQL, claimPartsSQL)
// with now ($1), the lease's end ($2) and limit ($3), and scans its rows.
// A limit of zero or less claims nothing. A row that does not convert
// fails the claim; its lease, taken, runs out as any other does.
func claimLeased[T any](ctx context.Context, s *SMSStore, sql, thing, what string, now, until time.Time, limit int,
	scan func(pgx.CollectableRow, *conversion) (T, error)) ([]T, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, sql, dbTime(now), until, int64(limit))
	if err != nil {
		return nil, classify(err, thing, what)
	}
	var c conversion
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) { return scan(row, &c) })
	if err != nil {
		return nil, classify(err, thing, what)
	}
	if c.err != nil {
		return nil, storageError(c.err, "claimed ", what)
	}
	return out, nil
}

// finishPartsSQL records results ($1..$7, one array per field) whose claim
// holds: the part is still queued and leased until the lease the result
// quotes. A hand-over takes the part off the queue; a failed attempt
// moves it to its next time.
const finishPartsSQL = `UPDATE sms_parts p SET
	send_at = CASE WHEN r.handed THEN NULL ELSE r.next_at END,
	send_attempts = r.attempts, send_error = r.last_error, send_lease = NULL
FROM unnest($1::text[], $2::integer[], $3::timestamptz[], $4::boolean[], $5::integer[], $6::timestamptz[], $7::text[])
	AS r(msg_id, num, lease, handed, attempts, next_at, last_error)
WHERE p.msg_id = r.msg_id AND p.num = r.num AND p.send_lease = r.lease AND p.send_at IS NOT NULL`

// FinishParts records the results whose claims hold, in one statement,
// and returns how many it recorded; see sms.TransmitterStore. A result
// not handed over without a NextAt, a LastError PostgreSQL cannot hold
// and numbers beyond 32 bits are Invalid, and then nothing is recorded.
// The rows are locked in key order, and a deadlock (with a claimer whose
// lease ran out) runs the statement again, as inTx does.
func (s *SMSStore) FinishParts(ctx context.Context, results []sms.SendResult) (int, error) {
	for i, r := range results {
		switch {
		case !r.Handed && r.NextAt.IsZero():
			return 0, msgkit.Invalidf("send_result_invalid", "nextAt", "results[%d] is not handed over and has no nextAt", i)
		case !storable(r.LastError):
			return 0, msgkit.Invalidf("send_result_invalid", "lastError", "results[%d].lastError must be valid UTF-8 without NUL characters", i)
		case !fitsInt32(r.Attempts):
			return 0, msgkit.Invalidf("send_result_invalid", "attempts", "results[%d].attempts is out of range", i)
		}
	}
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(a, b sms.SendResult) int {
		return cmp.Or(strings.Compare(string(a.Key.MsgID), string(b.Key.MsgID)), cmp.Compare(a.Key.PartNum, b.Key.PartNum))
	})
	n := len(sorted)
	var (
		ids, lastErrors = make([]string, 0, n), make([]string, 0, n)
		nums, attempts  = make([]int32, 0, n), make([]int32, 0, n)
		leases, next    = make([]time.Time, 0, n), make([]pgtype.Timestamptz, 0, n)
		handedOver      = make([]bool, 0, n)
	)
	for _, r := range sorted {
		if !storable(string(r.Key.MsgID)) || !fitsInt32(r.Key.PartNum) {
			continue // no such part is stored: its claim cannot hold
		}
		ids, nums, leases = append(ids, string(r.Key.MsgID)), append(nums, int32(r.Key.PartNum)), append(leases, dbTime(r.LeaseUntil))
		handedOver, attempts = append(handedOver, r.Handed), append(attempts, int32(r.Attempts))
		next, lastErrors = append(next, nullTime(r.NextAt)), append(lastErrors, r.LastError)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	var recorded int64
	err := retrying(ctx, s.log, "finishing parts", retryable, func() error {
		tag, err := s.pool.Exec(ctx, finishPartsSQL, ids, nums, leases, handedOver, attempts, next, lastErrors)
		recorded = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, classify(err, "part", "parts")
	}
	return int(recorded), nil
}

// nullTime is t as a nullable timestamptz: NULL when zero, else truncated
// to the microsecond as dbTime does.
func nullTime(t time.Time) pgtype.Timestamptz {
	if t.IsZero() {
		return pgtype.Timestamptz{}
	}
	return pgtype.Timestamptz{Time: dbTime(t), Valid: true}
}

// fromNullTime reads a nullable timestamptz back: zero for NULL, else in
// UTC.
func fromNullTime(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
