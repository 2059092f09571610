package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit/sms"
)

// UpdateParts applies changes in order in one transaction of two round
// trips, as UpdatePart applies one (see sms.Store), with a few statements
// for the whole batch, each taking its rows as arrays:
//
//   - The first locks every part changed (SELECT … FOR UPDATE), in key
//     order, which every batch follows, so batches never wait for each
//     other in a cycle (and UpdatePart holds one lock only), and then reads
//     each message changed with all its parts, as UpdatePart does.
//   - The changes then run in order in memory, each seeing those before
//     it; the second round trip writes each changed part's last state, the
//     queue rows that leave at expiry and the reports in the changes'
//     order, and commits.
//
// A batch costs a transaction, a commit and two round trips instead of one
// each per change, and five statements instead of four per change, which
// is what lets the network's reports keep pace with submissions. A
// serialization failure or a deadlock runs it again, functions included;
// any other database error is every change's error and nothing is saved.
func (s *SMSStore) UpdateParts(ctx context.Context, changes []sms.PartChange) []error {
	errs := make([]error, len(changes))
	err := inTx(ctx, s.pool, s.log, "part updates", func(tx pgx.Tx) error {
		clear(errs)
		return updateParts(ctx, tx, changes, errs)
	})
	if err != nil {
		for i := range errs {
			errs[i] = classify(err, "part", "parts")
		}
	}
	return errs
}

// updateParts is one run of UpdateParts' transaction; it sets each
// change's error in errs and returns database errors.
func updateParts(ctx context.Context, tx pgx.Tx, changes []sms.PartChange, errs []error) error {
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

	b := &pgx.Batch{}
	queueReads(b, keys, ids)
	br := tx.SendBatch(ctx, b)
	locked, msgs, err := readLockedParts(br, len(keys))
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}

	var (
		writes  = map[sms.PartKey]int{} // index in order
		order   []partWrite
		dequeue []sms.PartKey
		failed  map[sms.PartKey]error
		reports []sms.Report
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
		if m != nil && locked[c.Key] {
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
			order = append(order, partWrite{key: c.Key})
		}
		order[w].PartUpdate = sms.PartUpdate{State: u.State, ErrorCode: u.ErrorCode, UpdatedAt: u.UpdatedAt}
		p.State, p.ErrorCode, p.UpdatedAt = u.State, u.ErrorCode, dbTime(u.UpdatedAt) // as a read would see it
		reports = append(reports, u.Reports...)
	}
	if len(order) == 0 {
		return nil
	}
	b = &pgx.Batch{}
	queueUpdates(b, order)
	if len(dequeue) > 0 {
		for _, k := range dequeue {
			b.Queue(partDequeueSQL, string(k.MsgID), int32(k.PartNum))
		}
	}
	if len(reports) > 0 {
		queueReports(b, reports)
	}
	return tx.SendBatch(ctx, b).Close()
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
	partsUpdateSQL = `UPDATE sms_parts AS p SET state = v.state, error_code = v.error_code, updated_at = v.updated_at
		FROM unnest($1::text[], $2::integer[], $3::smallint[], $4::integer[], $5::timestamptz[])
			AS v(msg_id, num, state, error_code, updated_at)
		WHERE p.msg_id = v.msg_id AND p.num = v.num`
	// reportsInsertSQL inserts the reports in the arrays' order, which
	// their ids follow (they are claimed in id order).
	reportsInsertSQL = `INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		SELECT msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error
		FROM unnest($1::text[], $2::integer[], $3::text[], $4::bytea[], $5::smallint[], $6::integer[],
			$7::timestamptz[], $8::timestamptz[], $9::text[])
			WITH ORDINALITY AS r(msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error, ord)
		ORDER BY ord`
)

// queueReads queues the lock of the parts keys (sorted) and the reads of
// the messages ids with all their parts.
func queueReads(b *pgx.Batch, keys []sms.PartKey, ids []sms.MessageID) {
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
	b.Queue(partsLockSQL, msgIDs, nums)
	b.Queue(messagesSQL, strIDs)
	b.Queue(partsOfSQL, strIDs)
}

// readLockedParts reads the results of queueReads: which parts exist (and
// are now locked) and the messages that exist, with their parts. A corrupt
// row is final.
func readLockedParts(br pgx.BatchResults, keys int) (map[sms.PartKey]bool, map[sms.MessageID]*sms.MessageRecord, error) {
	locked := make(map[sms.PartKey]bool, keys)
	var (
		id  string
		num int32
	)
	if _, err := br.Exec(); err != nil { // keyedOnly
		return nil, nil, err
	}
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

	msgs := make(map[sms.MessageID]*sms.MessageRecord)
	var (
		c  conversion
		ms messageRow
		ps partRow
	)
	if rows, err = br.Query(); err != nil {
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

// queueUpdates queues the writes of each part's last state.
func queueUpdates(b *pgx.Batch, order []partWrite) {
	n := len(order)
	msgIDs, nums, states, codes, times := make([]string, n), make([]int32, n), make([]int16, n), make([]int32, n), make([]time.Time, n)
	for i, w := range order {
		msgIDs[i], nums[i], states[i], codes[i], times[i] = string(w.key.MsgID), int32(w.key.PartNum), int16(w.State), int32(w.ErrorCode), dbTime(w.UpdatedAt)
	}
	b.Queue(partsUpdateSQL, msgIDs, nums, states, codes, times)
}

// queueReports queues the insert of reports, in their order.
func queueReports(b *pgx.Batch, reports []sms.Report) {
	n := len(reports)
	var (
		msgIDs, urls, lastErrors = make([]string, n), make([]string, n), make([]string, n)
		nums, attempts           = make([]int32, n), make([]int32, n)
		bodies                   = make([][]byte, n)
		states                   = make([]int16, n)
		nextAt, createdAt        = make([]time.Time, n), make([]time.Time, n)
	)
	for i, r := range reports {
		msgIDs[i], nums[i], urls[i], bodies[i], states[i] = string(r.MsgID), int32(r.PartNum), r.URL, r.Body, int16(r.State)
		attempts[i], nextAt[i], createdAt[i], lastErrors[i] = int32(r.Attempts), dbTime(r.NextAt), dbTime(r.CreatedAt), r.LastError
	}
	b.Queue(reportsInsertSQL, msgIDs, nums, urls, bodies, states, attempts, nextAt, createdAt, lastErrors)
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
