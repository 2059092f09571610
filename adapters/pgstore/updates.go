package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit/sms"
)

// UpdateParts applies changes in order in one transaction of two round
// trips, as UpdatePart applies one (see sms.Store), with a few statements
// for the whole batch, each taking its rows as arrays:
//
//   - The first reads each message changed with all its parts, as
//     UpdatePart does, without locking anything; messages the store
//     remembers (recentMessages: those it accepted or updated lately)
//     are not read, and a batch of those only is one round trip.
//   - The changes then run in order in memory, each seeing those before
//     it; the second round trip writes each changed part's last state, in
//     key order, only where the row still holds what the first read (its
//     state, error code and time: compare and set), then the queue rows
//     that leave at expiry and the reports in the changes' order, and
//     commits.
//
// When a part changed between the read and the write (another batch, an
// expiry, a refusal got there first), the write misses it, the
// transaction is rolled back and runs again pessimistically: it first
// locks every part changed (SELECT … FOR UPDATE) in key order, which
// every batch follows, so batches never wait for each other in a cycle
// (and UpdatePart holds one lock only). Concurrent changes of one part
// are rare (the network reports a part's events one after the other), so
// the locks, a statement and a WAL record per part, are usually spared;
// the update's own row locks, taken in key order, order each part's
// reports as the locks did.
//
// A batch costs a transaction, a commit and two round trips instead of one
// each per change, and two to four statements instead of four per change, which
// is what lets the network's reports keep pace with submissions. A
// serialization failure or a deadlock runs it again, functions included;
// any other database error is every change's error and nothing is saved.
func (s *SMSStore) UpdateParts(ctx context.Context, changes []sms.PartChange) []error {
	errs, _ := s.UpdatePartsLeasing(ctx, changes, time.Time{}, 0)
	return errs
}

// UpdatePartsLeasing is UpdateParts that leases, until until, up to limit
// of the reports it queues (see sms.ReportLeasingStore): the insert of the
// reports sets their lease where the report is the first of its part in
// the batch and its part has no pending report stored, and counts them
// (reportsInsertSQL), in the same statement as before. A claim would have
// locked and rewritten each row.
func (s *SMSStore) UpdatePartsLeasing(ctx context.Context, changes []sms.PartChange, until time.Time, limit int) ([]error, []sms.Report) {
	errs := make([]error, len(changes))
	var (
		lock   bool
		msgs   map[sms.MessageID]*sms.MessageRecord
		leased []sms.Report
	)
	lease := reportLease{until: dbTime(until), limit: limit}
	run := func(tx pgx.Tx) (err error) {
		clear(errs)
		msgs, leased, err = updateParts(ctx, tx, changes, errs, lock, s.recent, lease)
		return err
	}
	err := inTx(ctx, s.pool, s.log, "part updates", run)
	if errors.Is(err, errPartsMoved) {
		lock = true
		err = inTx(ctx, s.pool, s.log, "part updates", run)
	}
	if err != nil {
		for i := range errs {
			errs[i] = classify(err, "part", "parts")
		}
		return errs, nil
	}
	for _, m := range msgs { // as committed
		s.recent.put(*m)
	}
	return errs, leased
}

// reportLease is the lease UpdatePartsLeasing gives the reports it
// queues: until when, and at most how many.
type reportLease struct {
	until time.Time
	limit int
}

// errPartsMoved is updateParts' error when a part it writes changed after
// its read: the transaction is rolled back and run again with locks.
var errPartsMoved = errors.New("pgstore: parts changed between their read and their update")

// updateParts is one run of UpdateParts' transaction; it sets each
// change's error in errs and returns the messages changed, with their
// parts as written, or a database error. With lock it locks the parts
// changed before reading them; without, it takes the messages recent
// remembers as they are and reads the others, writes a part only where
// it still is as read, and returns errPartsMoved when one is not.
func updateParts(ctx context.Context, tx pgx.Tx, changes []sms.PartChange, errs []error, lock bool, recent *recentMessages, lease reportLease) (map[sms.MessageID]*sms.MessageRecord, []sms.Report, error) {
	var keys []sms.PartKey
	var ids []sms.MessageID
	for i, c := range changes {
		if !storable(string(c.Key.MsgID)) || !fitsInt32(c.Key.PartNum) {
			errs[i] = partNotFoundError(c.Key)
			continue
		}
		keys, ids = append(keys, c.Key), append(ids, c.Key.MsgID)
	}
	slices.SortFunc(keys, comparePartKeys)
	keys = slices.Compact(keys)
	slices.Sort(ids) // byte order, as COLLATE "C" and the keys
	ids = slices.Compact(ids)

	msgs := make(map[sms.MessageID]*sms.MessageRecord, len(ids))
	if !lock {
		ids = slices.DeleteFunc(ids, func(id sms.MessageID) bool {
			m, ok := recent.get(id)
			if ok {
				msgs[id] = &m
			}
			return ok
		})
	}
	var locked map[sms.PartKey]bool
	if len(ids) > 0 {
		b := &pgx.Batch{}
		queueReads(b, keys, ids, lock)
		br := tx.SendBatch(ctx, b)
		var (
			read map[sms.MessageID]*sms.MessageRecord
			err  error
		)
		locked, read, err = readLockedParts(br, len(keys), lock)
		if closeErr := br.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(msgs, read)
	}

	var (
		writes  = map[sms.PartKey]int{} // index in order
		order   []partWrite
		dequeue []sms.PartKey
		failed  map[sms.PartKey]error
		reports []sms.Report
		events  = make([]writeEvent, 0, len(changes)) // the history records to append, by write
	)
	for i, c := range changes {
		if errs[i] != nil {
			continue
		}
		if first, ok := failed[c.Key]; ok {
			errs[i] = fmt.Errorf("%w: %w", sms.ErrEarlierChangeFailed, first)
			continue
		}
		m, j := msgs[c.Key.MsgID], -1
		if m != nil && (!lock || locked[c.Key]) {
			j = slices.IndexFunc(m.Parts, func(p sms.PartRecord) bool { return p.Num == c.Key.PartNum })
		}
		var (
			u       sms.PartUpdate
			changed bool
		)
		if j < 0 {
			errs[i] = partNotFoundError(c.Key)
		} else if u, changed, errs[i] = c.Fn(viewOf(*m), m.Parts[j]); errs[i] == nil && changed {
			errs[i] = checkPartUpdate(u)
		}
		if errs[i] != nil {
			if failed == nil {
				failed = map[sms.PartKey]error{}
			}
			failed[c.Key] = errs[i]
			continue
		}
		if !changed {
			continue
		}
		p := &m.Parts[j]
		if p.State == sms.StateSubmitted && !m.ExpiresAt.After(u.UpdatedAt) {
			dequeue = append(dequeue, c.Key) // see updatePart
		}
		w, seen := writes[c.Key]
		if !seen {
			w = len(order)
			writes[c.Key] = w
			order = append(order, partWrite{key: c.Key, read: *p})
		}
		order[w].PartUpdate = sms.PartUpdate{State: u.State, ErrorCode: u.ErrorCode, UpdatedAt: u.UpdatedAt}
		events = append(events, writeEvent{w, order[w].PartUpdate})
		p.State, p.ErrorCode, p.UpdatedAt = u.State, u.ErrorCode, dbTime(u.UpdatedAt) // as a read would see it
		reports = append(reports, u.Reports...)
	}
	if len(order) == 0 {
		return msgs, nil, nil
	}
	historyRecords(order, events)
	// In key order: the update locks the rows as it goes (see UpdateParts).
	slices.SortFunc(order, func(a, b partWrite) int { return comparePartKeys(a.key, b.key) })
	b := &pgx.Batch{}
	if len(ids) == 0 {
		b.Queue(keyedOnly) // as queueReads does, for a batch that read nothing
	}
	var written int64
	queueUpdates(b, order, !lock).Exec(func(ct pgconn.CommandTag) error {
		written = ct.RowsAffected()
		return nil
	})
	if len(dequeue) > 0 {
		for _, k := range dequeue {
			b.Queue(partDequeueSQL, string(k.MsgID), int32(k.PartNum))
		}
	}
	var leased []sms.Report
	if len(reports) > 0 {
		queueReports(b, reports, lease, &leased)
	}
	err := tx.SendBatch(ctx, b).Close()
	if err == nil && written != int64(len(order)) {
		err = errPartsMoved // rolled back by the caller's transaction
	}
	if err != nil {
		return nil, nil, err
	}
	return msgs, leased, nil
}

// writeEvent is a change of the part of order[w] (updateParts), for its
// history.
type writeEvent struct {
	w int
	u sms.PartUpdate
}

// historyRecords sets each write's events: the history records of every
// change of its part in the batch, in order, all in one buffer.
func historyRecords(order []partWrite, events []writeEvent) {
	counts := make([]int, len(order))
	for _, e := range events {
		counts[e.w]++
	}
	buf := make([]byte, 0, partEventSize*len(events))
	for w, n := range counts {
		order[w].events, buf = buf[:0:n*partEventSize], buf[n*partEventSize : cap(buf)][:0]
	}
	for _, e := range events {
		order[e.w].events = appendPartEvent(order[e.w].events, e.u)
	}
}

// The statements of UpdateParts.
const (
	// partsLockSQL locks the parts of the keys given, in key order (the
	// LockRows node runs above the sort), and returns those that exist.
	partsLockSQL = `SELECT p.msg_id, p.num
		FROM unnest($1::text[], $2::integer[]) AS k(msg_id, num)
		JOIN sms_parts p ON p.msg_id = k.msg_id AND p.num = k.num
		ORDER BY p.msg_id, p.num FOR UPDATE OF p`
	messagesSQL = `SELECT id, ` + messageColumns + ` FROM sms_messages WHERE id = ANY($1)`
	// partsOfSQL reads the parts as partsDeliverySQL does, those of every
	// message given.
	partsOfSQL = `SELECT msg_id, ` + partDeliveryColumns + `
		FROM sms_parts WHERE msg_id = ANY($1) ORDER BY msg_id, num`
	partsUpdateSQL = `UPDATE sms_parts AS p SET state = v.state, error_code = v.error_code, updated_at = v.updated_at,
			history = sms_part_history(p.history, v.events)
		FROM unnest($1::text[], $2::integer[], $3::smallint[], $4::integer[], $5::timestamptz[], $6::bytea[])
			AS v(msg_id, num, state, error_code, updated_at, events)
		WHERE p.msg_id = v.msg_id AND p.num = v.num`
	// partsSwapSQL is partsUpdateSQL where the row still holds the state,
	// error code and time given last (as read). Under READ COMMITTED a row
	// another transaction updated meanwhile is checked again as that one
	// left it, so a part that moved is not written.
	partsSwapSQL = `UPDATE sms_parts AS p SET state = v.state, error_code = v.error_code, updated_at = v.updated_at,
			history = sms_part_history(p.history, v.events)
		FROM unnest($1::text[], $2::integer[], $3::smallint[], $4::integer[], $5::timestamptz[], $6::bytea[],
				$7::smallint[], $8::integer[], $9::timestamptz[])
			AS v(msg_id, num, state, error_code, updated_at, events, was_state, was_error_code, was_updated_at)
		WHERE p.msg_id = v.msg_id AND p.num = v.num
			AND p.state = v.was_state AND p.error_code = v.was_error_code AND p.updated_at = v.was_updated_at`
	// reportsInsertSQL inserts the reports in the arrays' order, which
	// their ids follow (they are claimed in id order), and returns each
	// one's id and whether it is leased. A report is leased until $11
	// when the batch marks it a candidate ($10: the first of its part in
	// the batch), its part has no pending report stored (the part's row,
	// updated earlier in the transaction, is locked, so no other
	// transaction queues one for it meanwhile), and fewer than $12
	// reports before it are leased. The pending report is looked for by
	// key (sms_reports_part_idx), candidates only, in a LATERAL subquery
	// with LIMIT: as NOT EXISTS, a plan made while few reports were
	// pending hashed every pending report for each batch.
	reportsInsertSQL = `WITH r AS MATERIALIZED (
			SELECT r.*, r.candidate AND p.pending IS NULL AS eligible
			FROM unnest($1::text[], $2::integer[], $3::text[], $4::bytea[], $5::smallint[], $6::integer[],
				$7::timestamptz[], $8::timestamptz[], $9::text[], $10::boolean[])
				WITH ORDINALITY AS r(msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error,
					candidate, ord)
			LEFT JOIN LATERAL (
				SELECT true AS pending FROM sms_reports o
				WHERE r.candidate AND o.msg_id = r.msg_id AND o.part_num = r.part_num AND o.state = 1 LIMIT 1
			) p ON true
		), counted AS (
			SELECT r.*, count(*) FILTER (WHERE eligible) OVER (ORDER BY ord) AS nth FROM r
		)
		INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error, lease_until)
		SELECT msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error,
			CASE WHEN eligible AND nth <= $12 THEN $11::timestamptz END
		FROM counted
		ORDER BY ord
		RETURNING id, lease_until IS NOT NULL`
)

// queueReads queues the reads of the messages ids with all their parts,
// after the lock of the parts keys (sorted) when lock is set.
func queueReads(b *pgx.Batch, keys []sms.PartKey, ids []sms.MessageID, lock bool) {
	msgIDs, nums := make([]string, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		msgIDs[i], nums[i] = string(k.MsgID), int32(k.PartNum)
	}
	strIDs := make([]string, len(ids))
	for i, id := range ids {
		strIDs[i] = string(id)
	}
	// Every statement of the batch reads by key. Each takes its rows as
	// arrays, which a generic plan made while the tables were small would
	// read by scanning them, and keep: the whole transaction runs without
	// sequential scans (keyedOnly), generic plans included.
	b.Queue(keyedOnly)
	if lock {
		b.Queue(partsLockSQL, msgIDs, nums)
	}
	b.Queue(messagesSQL, strIDs)
	b.Queue(partsOfSQL, strIDs)
}

// readLockedParts reads the results of queueReads: with lock, which parts
// exist (and are now locked); and the messages that exist, with their
// parts. A corrupt row is final.
func readLockedParts(br pgx.BatchResults, keys int, lock bool) (map[sms.PartKey]bool, map[sms.MessageID]*sms.MessageRecord, error) {
	var (
		locked map[sms.PartKey]bool
		id     string
		num    int32
	)
	if _, err := br.Exec(); err != nil { // keyedOnly
		return nil, nil, err
	}
	if lock {
		locked = make(map[sms.PartKey]bool, keys)
		rows, err := br.Query()
		if err != nil {
			return nil, nil, err
		}
		if _, err := pgx.ForEachRow(rows, []any{&id, &num}, func() error {
			locked[sms.PartKey{MsgID: sms.MessageID(id), PartNum: int(num)}] = true
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}

	msgs := make(map[sms.MessageID]*sms.MessageRecord)
	var (
		c  conversion
		ms messageRow
		ps partRow
	)
	rows, err := br.Query()
	if err != nil {
		return nil, nil, err
	}
	if _, err := pgx.ForEachRow(rows, append([]any{&id}, ms.dest()...), func() error {
		m := ms.record(sms.MessageID(id), &c)
		msgs[m.ID] = &m
		return nil
	}); err != nil {
		return nil, nil, err
	}
	if rows, err = br.Query(); err != nil {
		return nil, nil, err
	}
	if _, err := pgx.ForEachRow(rows, append([]any{&id}, ps.dest()...), func() error {
		if m := msgs[sms.MessageID(id)]; m != nil {
			m.Parts = append(m.Parts, ps.record(&c))
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	if c.err != nil {
		return nil, nil, final{storageError(c.err, "messages")}
	}
	return locked, msgs, nil
}

// queueUpdates queues the writes of each part's last state, one
// statement; with swap, only where the part still is as read.
func queueUpdates(b *pgx.Batch, order []partWrite, swap bool) *pgx.QueuedQuery {
	n := len(order)
	msgIDs, nums, states, codes, times := make([]string, n), make([]int32, n), make([]int16, n), make([]int32, n), make([]time.Time, n)
	events := make([][]byte, n)
	for i, w := range order {
		msgIDs[i], nums[i], states[i], codes[i], times[i] = string(w.key.MsgID), int32(w.key.PartNum), int16(w.State), int32(w.ErrorCode), dbTime(w.UpdatedAt)
		events[i] = w.events
	}
	if !swap {
		return b.Queue(partsUpdateSQL, msgIDs, nums, states, codes, times, events)
	}
	wasStates, wasCodes, wasTimes := make([]int16, n), make([]int32, n), make([]time.Time, n)
	for i, w := range order {
		wasStates[i], wasCodes[i], wasTimes[i] = int16(w.read.State), int32(w.read.ErrorCode), w.read.UpdatedAt
	}
	return b.Queue(partsSwapSQL, msgIDs, nums, states, codes, times, events, wasStates, wasCodes, wasTimes)
}

// queueReports queues the insert of reports, in their order, leasing
// those it may (see reportsInsertSQL); when the batch is read, leased
// holds them as stored, with their ids, in order.
func queueReports(b *pgx.Batch, reports []sms.Report, lease reportLease, leased *[]sms.Report) {
	n := len(reports)
	var (
		msgIDs, urls, lastErrors = make([]string, n), make([]string, n), make([]string, n)
		nums, attempts           = make([]int32, n), make([]int32, n)
		bodies                   = make([][]byte, n)
		states                   = make([]int16, n)
		nextAt, createdAt        = make([]time.Time, n), make([]time.Time, n)
		candidates               = make([]bool, n)
		first                    map[sms.PartKey]bool // the parts with a candidate, when leasing
	)
	if lease.limit > 0 {
		first = make(map[sms.PartKey]bool, n)
	}
	for i, r := range reports {
		msgIDs[i], nums[i], urls[i], bodies[i], states[i] = string(r.MsgID), int32(r.PartNum), r.URL, r.Body, int16(r.State)
		attempts[i], nextAt[i], createdAt[i], lastErrors[i] = int32(r.Attempts), dbTime(r.NextAt), dbTime(r.CreatedAt), r.LastError
		if k := (sms.PartKey{MsgID: r.MsgID, PartNum: r.PartNum}); first != nil && !first[k] {
			first[k], candidates[i] = true, true
		}
	}
	b.Queue(reportsInsertSQL, msgIDs, nums, urls, bodies, states, attempts, nextAt, createdAt, lastErrors, candidates,
		lease.until, int64(max(lease.limit, 0))).Query(func(rows pgx.Rows) error {
		type inserted struct {
			id     int64
			leased bool
		}
		ins, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (i inserted, err error) {
			return i, row.Scan(&i.id, &i.leased)
		})
		if err != nil {
			return err
		}
		if len(ins) != n {
			return fmt.Errorf("pgstore: %d reports inserted of %d", len(ins), n)
		}
		// RETURNING has no order; the ids follow the reports' order.
		slices.SortFunc(ins, func(a, b inserted) int { return cmp.Compare(a.id, b.id) })
		for i, in := range ins {
			if in.leased {
				r := reports[i]
				r.ID, r.NextAt, r.CreatedAt = in.id, dbTime(r.NextAt), dbTime(r.CreatedAt)
				*leased = append(*leased, r)
			}
		}
		return nil
	})
}

func partNotFoundError(k sms.PartKey) error {
	return classify(pgx.ErrNoRows, "part", fmt.Sprintf("part %d of message %s", k.PartNum, k.MsgID))
}

// comparePartKeys orders parts by message id (byte order) and number.
func comparePartKeys(a, b sms.PartKey) int {
	return cmp.Or(strings.Compare(string(a.MsgID), string(b.MsgID)), cmp.Compare(a.PartNum, b.PartNum))
}

// viewOf is m for a change's function, with its own parts, so that what
// the function does with them leaves the batch's state alone.
func viewOf(m sms.MessageRecord) sms.MessageRecord {
	m.Parts = slices.Clone(m.Parts)
	return m
}
