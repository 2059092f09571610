package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
)

var _ idempotency.Store = (*IdempotencyStore)(nil)

// IdempotencyStore keeps the records of idempotency keys
// (0024_idempotency.sql). Create inserts unless the key has a row, and
// replaces only an expired row; Replace and Release are conditional on
// the row's ref, attempt and state, so that replicas sharing the
// database agree on which request holds a key without locks held between
// statements.
type IdempotencyStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// Idempotency is the store of idempotency keys and the answers they give
// again.
func (db *DB) Idempotency() *IdempotencyStore { return &IdempotencyStore{pool: db.pool, log: db.log} }

const idemColumns = `scope, key, fingerprint, ref, attempt, state, status, header, body, created_at, lease_until, expires_at`

func idemArgs(r idempotency.Record) ([]any, error) {
	var header []byte
	if len(r.Answer.Header) > 0 {
		var err error
		if header, err = json.Marshal(r.Answer.Header); err != nil {
			return nil, storageError(err, "idempotency header")
		}
	}
	var body []byte
	if len(r.Answer.Body) > 0 {
		body = r.Answer.Body
	}
	return []any{r.Scope, string(r.Key), r.Fingerprint[:], r.Ref, int32(r.Attempt), int16(r.State),
		int32(r.Answer.Status), header, body, dbTime(r.Created), dbTime(r.LeaseUntil), dbTime(r.Expires)}, nil
}

// idemRow is a row of idemColumns as it is scanned.
type idemRow struct {
	scope, key, ref          string
	fingerprint, header, bod []byte
	attempt, status          int32
	state                    int16
	created, lease, expires  time.Time
}

func (r *idemRow) dest() []any {
	return []any{&r.scope, &r.key, &r.fingerprint, &r.ref, &r.attempt, &r.state, &r.status, &r.header, &r.bod,
		&r.created, &r.lease, &r.expires}
}

func (r *idemRow) record() (idempotency.Record, error) {
	rec := idempotency.Record{
		Scope: r.scope, Key: idempotency.Key(r.key), Ref: r.ref, Attempt: int(r.attempt),
		State: idempotency.State(r.state), Answer: idempotency.Answer{Status: int(r.status)},
		Created: r.created.UTC(), LeaseUntil: r.lease.UTC(), Expires: r.expires.UTC(),
	}
	if copy(rec.Fingerprint[:], r.fingerprint) != len(rec.Fingerprint) {
		return idempotency.Record{}, storageError(errors.New("a fingerprint of the wrong length"), "idempotency key ", r.key)
	}
	if len(r.header) > 0 {
		if err := json.Unmarshal(r.header, &rec.Answer.Header); err != nil {
			return idempotency.Record{}, storageError(err, "idempotency key ", r.key)
		}
	}
	if len(r.bod) > 0 {
		rec.Answer.Body = r.bod
	}
	return rec, nil
}

// createTries bounds Create's rounds: a live row it did not replace may
// be deleted before it is read (released or purged), or replaced by
// another Create, and the insert is tried again.
const createTries = 4

// Create saves rec unless a record of its scope and key is live at
// rec.Created, which it returns instead. A new key is one INSERT. A key
// met again (a retry, the commonest other case) is an INSERT that does
// nothing and a SELECT: neither writes nor locks the row, so a replay
// costs no commit to disk. Only an expired row is replaced, by an UPDATE
// conditional on its expiry.
func (s *IdempotencyStore) Create(ctx context.Context, rec idempotency.Record) (idempotency.Record, bool, error) {
	if err := rec.Check(); err != nil {
		return idempotency.Record{}, false, err
	}
	args, err := idemArgs(rec)
	if err != nil {
		return idempotency.Record{}, false, err
	}
	const insert = `INSERT INTO idempotency_keys (` + idemColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (scope, key) DO NOTHING`
	const replace = `UPDATE idempotency_keys SET fingerprint = $3, ref = $4, attempt = $5, state = $6, status = $7,
			header = $8, body = $9, created_at = $10, lease_until = $11, expires_at = $12
		WHERE scope = $1 AND key = $2 AND expires_at <= $10`
	for range createTries {
		tag, err := s.pool.Exec(ctx, insert, args...)
		if err != nil {
			return idempotency.Record{}, false, storageError(err, "creating idempotency key ", rec.Key)
		}
		if tag.RowsAffected() == 1 {
			return rec, true, nil
		}
		var row idemRow
		err = s.pool.QueryRow(ctx, `SELECT `+idemColumns+` FROM idempotency_keys WHERE scope = $1 AND key = $2`,
			rec.Scope, string(rec.Key)).Scan(row.dest()...)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return idempotency.Record{}, false, storageError(err, "reading idempotency key ", rec.Key)
		}
		got, err := row.record()
		if err != nil {
			return idempotency.Record{}, false, err
		}
		if got.Live(rec.Created) {
			return got, false, nil
		}
		if tag, err = s.pool.Exec(ctx, replace, args...); err != nil {
			return idempotency.Record{}, false, storageError(err, "replacing idempotency key ", rec.Key)
		}
		if tag.RowsAffected() == 1 {
			return rec, true, nil
		}
	}
	return idempotency.Record{}, false, msgkit.Errorf(msgkit.Unavailable, CodeUnavailable,
		"the record of idempotency key %q changed %d times while it was read", rec.Key, createTries)
}

// Replace saves next in place of the pending record held names.
func (s *IdempotencyStore) Replace(ctx context.Context, held, next idempotency.Record) (bool, error) {
	if err := next.Check(); err != nil {
		return false, err
	}
	if next.Scope != held.Scope || next.Key != held.Key {
		return false, msgkit.Invalidf(idempotency.CodeInvalid, "key", "a record keeps its scope and key")
	}
	args, err := idemArgs(next)
	if err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET fingerprint = $3, ref = $4, attempt = $5, state = $6,
			status = $7, header = $8, body = $9, created_at = $10, lease_until = $11, expires_at = $12
		WHERE scope = $1 AND key = $2 AND ref = $13 AND attempt = $14 AND state = $15`,
		append(args, held.Ref, int32(held.Attempt), int16(idempotency.Pending))...)
	if err != nil {
		return false, storageError(err, "replacing idempotency key ", held.Key)
	}
	return tag.RowsAffected() == 1, nil
}

// Release deletes the pending record held names.
func (s *IdempotencyStore) Release(ctx context.Context, held idempotency.Record) (bool, error) {
	if !storable(held.Scope) || !storable(string(held.Key)) || !storable(held.Ref) {
		return false, nil // never stored
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys
		WHERE scope = $1 AND key = $2 AND ref = $3 AND attempt = $4 AND state = $5`,
		held.Scope, string(held.Key), held.Ref, int32(held.Attempt), int16(idempotency.Pending))
	if err != nil {
		return false, storageError(err, "releasing idempotency key ", held.Key)
	}
	return tag.RowsAffected() == 1, nil
}

// purgeBatch bounds the rows one statement of Purge deletes, so that a
// backlog is deleted in short transactions.
const purgeBatch = 10_000

// Purge deletes the records expired at or before now.
func (s *IdempotencyStore) Purge(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
			SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2))`, dbTime(now), purgeBatch)
		if err != nil {
			return total, storageError(err, "purging idempotency keys")
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			return total, nil
		}
	}
}

// Record returns the record of a scope and key, expired or not, for
// inspection; NotFound when there is none.
func (s *IdempotencyStore) Record(ctx context.Context, scope string, key idempotency.Key) (idempotency.Record, error) {
	if !storable(scope) || !storable(string(key)) {
		return idempotency.Record{}, idempotency.NotFound(scope, key)
	}
	var row idemRow
	err := s.pool.QueryRow(ctx, `SELECT `+idemColumns+` FROM idempotency_keys WHERE scope = $1 AND key = $2`,
		scope, string(key)).Scan(row.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return idempotency.Record{}, idempotency.NotFound(scope, key)
	}
	if err != nil {
		return idempotency.Record{}, storageError(err, "reading idempotency key ", key)
	}
	return row.record()
}
