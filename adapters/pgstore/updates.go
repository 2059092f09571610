package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// UpdateParts applies changes in order in one transaction of two round
// trips, as UpdatePart applies one (see sms.Store):
//
//   - The first locks every part changed (SELECT … FOR UPDATE), in key
//     order, which every batch follows, so batches never wait for each
//     other in a cycle (and UpdatePart holds one lock only), and then reads
//     each message changed with all its parts, as UpdatePart does: the
//     statements are UpdatePart's, prepared once per connection, sent in
//     one pipeline.
//   - The changes then run in order in memory, each seeing those before
//     it; the second round trip writes each changed part's last state, the
//     queue rows that leave at expiry and the reports in the changes'
//     order, and commits.
//
// A batch costs a transaction, a commit and two round trips instead of one
// each per change, which is what lets the network's reports keep pace
// with submissions. A serialization failure or a deadlock runs it again,
// functions included; any other database error is every change's error
// and nothing is saved.
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
	for _, k := range keys {
		b.Queue(partLockSQL, string(k.MsgID), int32(k.PartNum))
	}
	for _, id := range ids {
		b.Queue(messageSQL, string(id))
		b.Queue(partsDeliverySQL, string(id))
	}
	br := tx.SendBatch(ctx, b)
	locked, msgs, err := readLockedParts(br, keys, ids)
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
	for _, w := range order { // each part's last state
		b.Queue(partUpdateSQL, string(w.key.MsgID), int32(w.key.PartNum), int16(w.State), int32(w.ErrorCode), dbTime(w.UpdatedAt))
	}
	if len(dequeue) > 0 {
		b.Queue(keyedOnly)
		for _, k := range dequeue {
			b.Queue(partDequeueSQL, string(k.MsgID), int32(k.PartNum))
		}
	}
	for _, r := range reports { // in the changes' order, which their ids follow
		queueReport(b, r)
	}
	return tx.SendBatch(ctx, b).Close()
}

// readLockedParts reads the results of the locks of keys and of the
// reads of messages ids: which parts exist (and are now locked) and the
// messages that exist, with their parts.
func readLockedParts(br pgx.BatchResults, keys []sms.PartKey, ids []sms.MessageID) (map[sms.PartKey]bool, map[sms.MessageID]*sms.MessageRecord, error) {
	locked := make(map[sms.PartKey]bool, len(keys))
	for _, k := range keys {
		var one int
		switch err := br.QueryRow().Scan(&one); {
		case err == nil:
			locked[k] = true
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, nil, err
		}
	}
	msgs := make(map[sms.MessageID]*sms.MessageRecord, len(ids))
	for _, id := range ids {
		m, err := scanMessage(br, id)
		switch {
		case errors.Is(err, pgx.ErrNoRows): // no such message: its parts' read is left
			rows, err := br.Query()
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			if err != nil {
				return nil, nil, err
			}
		case err != nil:
			if me, ok := errors.AsType[*msgkit.Error](err); ok { // a corrupt row
				return nil, nil, final{me}
			}
			return nil, nil, err
		default:
			msgs[id] = &m
		}
	}
	return locked, msgs, nil
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
