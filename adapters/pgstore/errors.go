package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit"
)

// CodeStorage is the code of storage failures a caller cannot fix.
const CodeStorage = "storage_error"

// SQLSTATE codes the store tells apart.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

// classify turns a database error about one kind of record into a
// *msgkit.Error. thing names the record in codes ("client" gives
// client_not_found, client_exists, client_invalid_reference) and what
// words it in messages ("client c1"). No rows is NotFound, a unique
// violation Conflict, a foreign key violation Invalid; anything else is
// Internal with a generic message: the cause, with its SQL details, is kept
// for logs only.
func classify(err error, thing, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return msgkit.New(msgkit.NotFound, thing+"_not_found", what+" not found")
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pgErr.Code {
		case uniqueViolation:
			return msgkit.Wrap(err, msgkit.Conflict, thing+"_exists", what+" exists")
		case foreignKeyViolation:
			return msgkit.Wrap(err, msgkit.Invalid, thing+"_invalid_reference", what+" refers to a record that does not exist")
		}
	}
	return storageError(err)
}

// storageError is a failure the caller cannot fix: Unavailable when the
// database cannot be reached (see unreachable), so that callers answer
// "try again later"; otherwise Internal, with a generic message, the cause
// (its SQL details included) kept for logs. context, when given, says
// what was being read or written ("account shop") in the cause.
func storageError(err error, context ...any) error {
	if len(context) > 0 {
		err = fmt.Errorf("%s: %w", fmt.Sprint(context...), err)
	}
	if unreachable(err) {
		return msgkit.Wrap(err, msgkit.Unavailable, msgkit.CodeUnavailable, "the database is unavailable; try again later")
	}
	return msgkit.Wrap(err, msgkit.Internal, CodeStorage, "storage error")
}

// unreachable reports whether err says the database could not be reached
// or went away: no connection could be made, a connection broke, or the
// server is shutting down, starting up or out of connections (SQLSTATE
// class 08, 57P01 to 57P03, 53300). Such a failure ends when the
// database is back; nothing about the request was wrong.
func unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", pgErr.Code == "53300":
			return true
		}
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		pgconn.SafeToRetry(err) || connClosed(err)
}

// connClosed reports pgx's error for a connection that closed under a
// query, which has no type of its own.
func connClosed(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if msg := err.Error(); msg == "conn closed" || strings.HasSuffix(msg, ": conn closed") {
			return true
		}
	}
	return false
}

// storable reports whether PostgreSQL can hold s in a text column: valid
// UTF-8 without NUL bytes. The store checks keys before a lookup, so a key
// that could never have been stored is NotFound, as in memstore, rather
// than a server error.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// invalidText returns an Invalid error naming field when one of vals
// cannot be held in a text column, else nil.
func invalidText[T ~string](thing, field string, vals ...T) error {
	for _, v := range vals {
		if !storable(string(v)) {
			return msgkit.Invalidf(thing+"_invalid", field, "%s must be valid UTF-8 without NUL characters", field)
		}
	}
	return nil
}
