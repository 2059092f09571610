package pgstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SQLSTATE codes after which a transaction simply runs again.
const (
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

// txRetries is how many times a transaction runs again after a
// serialization failure or a deadlock. Five retries wait up to 62 ms in
// all: three (up to 14 ms) were once too few on a loaded 2-core machine,
// where the transaction a retry collides with had not yet committed.
const txRetries = 5

// retryBackoff is the longest wait before a transaction's first retry; it
// doubles for each retry after it. The wait is random, from half of it up
// to it: a transaction run again at once would most likely meet the one
// it failed with, still running, and fail again.
const retryBackoff = 2 * time.Millisecond

// final marks an error a transaction's function returns that is not the
// database's: its own error, or a refusal already worded. It is never
// retried, and the caller unwraps it to return it as it is.
type final struct{ err error }

func (f final) Error() string { return f.err.Error() }
func (f final) Unwrap() error { return f.err }

// retryable reports whether err is a serialization failure or a deadlock
// of the database, after which a transaction may simply run again.
func retryable(err error) bool {
	if _, ok := errors.AsType[final](err); ok {
		return false
	}
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && (pgErr.Code == serializationFailure || pgErr.Code == deadlockDetected)
}

// retrying runs attempt, and again after a short random wait while its
// error satisfies again, at most txRetries more times. It returns the last
// error, which is the database's: the caller classifies it. When ctx ends
// during a wait, the error that caused the wait comes back.
func retrying(ctx context.Context, log *storeLog, what string, again func(error) bool, attempt func() error) error {
	var err error
	for retry := 0; ; retry++ {
		err = attempt()
		if err == nil || retry == txRetries || !again(err) {
			return err
		}
		log.DebugContext(ctx, "pgstore: retrying "+what, "retry", retry+1, "err", err)
		log.retried()
		if !sleep(ctx, jitter(retryBackoff<<retry)) {
			return err
		}
	}
}

// inTx runs fn in a transaction, committed when fn returns nil, and runs
// it again (fn included) after a serialization failure (40001) or a
// deadlock (40P01), as retrying says. fn wraps its own errors in final so
// that they are never retried.
func inTx(ctx context.Context, pool *pgxpool.Pool, log *storeLog, what string, fn func(pgx.Tx) error) error {
	return retrying(ctx, log, what, retryable, func() error { return pgx.BeginFunc(ctx, pool, fn) })
}

// jitter returns a random duration from d/2 up to d.
func jitter(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }

// sleep waits for d and reports true, or reports false as soon as ctx is
// done.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
