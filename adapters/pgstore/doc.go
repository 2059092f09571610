// Package pgstore is the PostgreSQL implementation of every msgkit domain
// Store (auth today; the other domains join it), through pgx v5 and a
// pgxpool connection pool. It behaves as memstore does; each domain's
// contract suite (<domain>test.RunStoreTests) runs against both.
//
// # Opening
//
// Open parses a DSN, applies the schema migrations, and pings the pool.
// With Options.Schema set, every connection uses that schema as its
// search_path and Open creates the schema if it is missing, so several
// independent stores (or test runs) can share one database. Ping is the
// readiness check.
//
// # Migrations
//
// The schema is defined by the SQL files embedded from migrations/, named
// NNNN_name.sql (at least four digits, version 1 upwards, each version
// once). Open applies those not yet listed in the table schema_migrations
// (version, name, applied_at), in version order, each in its own
// transaction together with its schema_migrations row, so a failing
// migration leaves nothing behind and Open fails with it. The whole run
// holds a PostgreSQL session advisory lock on one dedicated connection,
// so replicas starting at once take turns and each migration is applied
// exactly once; a later Open finds nothing to do. The rules for writing
// one:
//   - Never edit or renumber a migration that has been released; add a
//     new one. A recorded version whose name differs from its file fails
//     Open; versions recorded by a newer build are logged and ignored.
//   - A file may hold several statements (it is sent with the simple query
//     protocol) but no transaction control, and nothing that cannot run in
//     a transaction (CREATE INDEX CONCURRENTLY).
//   - Table names are unqualified: they land in the search_path's schema.
//
// # Errors
//
// Every method returns *msgkit.Error. A missing row is NotFound
// (<thing>_not_found), a unique violation (SQLSTATE 23505) Conflict
// (<thing>_exists), a foreign key violation (23503) Invalid
// (<thing>_invalid_reference), and anything else Internal (storage_error)
// with a generic message; the database error, SQL details included, is
// only reachable as the cause, for logs. Text PostgreSQL cannot hold
// (invalid UTF-8, NUL bytes) is refused as Invalid when writing and is
// NotFound when looking up, as in memstore, instead of a server error.
// A database that cannot be reached at Open or Ping is Unavailable.
//
// # Values
//
// timestamptz keeps microseconds, so every time is truncated to the
// microsecond when written (the same truncation memstore applies) and read
// back in UTC. DeleteExpiredTokens therefore compares at microsecond
// precision too. Network prefixes are stored as text (netip.Prefix.String)
// and parsed back; an invalid prefix is refused. Array columns are NULL for
// a nil slice and empty for an empty one, so both round-trip.
package pgstore
