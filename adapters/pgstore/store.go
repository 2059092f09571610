package pgstore

import (
	"context"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
)

// Options configure Open. The zero value is usable.
type Options struct {
	// Schema, when set, is the search_path of every connection (it
	// overrides a search_path in the DSN); Open creates it if missing and
	// all tables live there. Empty leaves the search_path to the DSN or
	// the server (normally "$user", public).
	Schema string
	// Logger receives migration progress; nil discards.
	Logger *slog.Logger
	// MaxConns caps the pool; zero or less keeps pgxpool's default
	// (the larger of 4 and the number of CPUs) or pool_max_conns in the DSN.
	MaxConns int32
	// AcceptWorkers is how many batches of sms Accepts may be written at
	// once, each in its own transaction on a pooled connection; an
	// account's messages always go to the same worker. Zero or less means
	// 4, or half the pool's connections if that is fewer (at least 1).
	// See the package doc's group commit.
	AcceptWorkers int
	// AcceptMaxBatch caps the messages of one batch; zero or less means
	// 128.
	AcceptMaxBatch int
	// Metrics is where the DB registers its metrics: the pool's
	// statistics, the transactions' retries and the statements' errors
	// (the package doc's Metrics); nil: none, at no cost. Registering two
	// DBs on one registry panics: a process opens one.
	Metrics prometheus.Registerer
	// RecentMessages is how many messages with parts still open the sms
	// store remembers after accepting or updating them, so that the
	// network's reports of each cost no read (see UpdateParts); about 1 KB
	// each. Zero means 32,768; negative remembers none, and every batch
	// of reports reads its messages.
	RecentMessages int
}

// DB is the PostgreSQL database: one connection pool shared by one store
// per domain (Auth, SMS), so no domain's methods are visible on another's.
// It is safe for concurrent use; Close it when done.
type DB struct {
	pool *pgxpool.Pool
	log  *storeLog
	auth *AuthStore
	sms  *SMSStore
	// fresh: this Open found no migration applied and applied them all.
	fresh bool
}

// Codes of the errors Open and Ping return.
const (
	CodeOpen        = "pgstore_open"
	CodeMigrate     = "pgstore_migrate"
	CodeUnavailable = "pgstore_unavailable"
)

// Open connects to the database at dsn (a URL or key=value string as
// pgx accepts), applies the embedded migrations that are not yet applied,
// and returns a Store whose pool has been pinged. A database that cannot be
// reached is Unavailable; a bad DSN or a failed migration is Internal.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	return open(ctx, dsn, opts, embeddedMigrations())
}

// open is Open with the migrations taken from fsys, so tests can pass
// their own.
func open(ctx context.Context, dsn string, opts Options, fsys fs.FS) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	migs, err := loadMigrations(fsys)
	if err != nil {
		return nil, msgkit.Wrap(err, msgkit.Internal, CodeMigrate, "invalid database migrations")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error may quote the DSN, password included; it stays
		// in the cause, which is for logs only.
		return nil, msgkit.Wrap(err, msgkit.Internal, CodeOpen, "invalid database DSN")
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	storeLog := &storeLog{Logger: log}
	var tracer *errorTracer
	if opts.Metrics != nil {
		storeLog.retries, tracer = newRetries(), newErrorTracer()
	}

	// Migrations run on a connection of their own, closed afterwards: the
	// advisory lock is a session lock, so closing the connection releases
	// it even if the explicit unlock could not be sent.
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, msgkit.Wrap(err, msgkit.Unavailable, CodeUnavailable, "database unavailable")
	}
	fresh, err := migrate(ctx, conn, opts.Schema, migs, log)
	closeErr := conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	if closeErr != nil {
		log.WarnContext(ctx, "pgstore: closing the migration connection", "err", closeErr)
	}

	if tracer != nil {
		// After the migrations, whose connection is not the pool's.
		cfg.ConnConfig.Tracer = tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, msgkit.Wrap(err, msgkit.Internal, CodeOpen, "cannot create database pool")
	}
	db := &DB{pool: pool, log: storeLog, auth: &AuthStore{pool: pool}, fresh: fresh}
	if err := db.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	recent := opts.RecentMessages
	if recent == 0 {
		recent = defaultRecentMessages
	}
	db.sms = &SMSStore{pool: pool, log: db.log, recent: newRecentMessages(recent)}
	db.sms.accepts = newAcceptBatcher(db.sms, opts.AcceptWorkers, opts.AcceptMaxBatch)
	if opts.Metrics != nil {
		opts.Metrics.MustRegister(storeLog.retries, tracer.errors, newPoolCollector(pool))
	}
	return db, nil
}

// Fresh reports whether this Open made msgkit's tables: the schema had
// none of them (no migration was recorded), so the database is empty of
// msgkit's data. Of replicas opening an empty database at once, exactly
// one sees it fresh (migrations run under a lock). A server can take it as
// its first start, e.g. to create demo data once.
func (db *DB) Fresh() bool { return db.fresh }

// Auth is the store of API clients, users, tokens and API keys.
func (db *DB) Auth() *AuthStore { return db.auth }

// SMS is the store of bulk SMS accounts, messages and delivery reports.
func (db *DB) SMS() *SMSStore { return db.sms }

// Close answers every Accept already queued (writing its batch), refuses
// those that come after, and closes every connection, waiting for those
// in use to be returned. Calling it again does nothing.
func (db *DB) Close() {
	db.sms.accepts.close()
	db.pool.Close()
}

// Ping checks that the database answers, for readiness probes. A failure
// is Unavailable.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return msgkit.Wrap(err, msgkit.Unavailable, CodeUnavailable, "database unavailable")
	}
	return nil
}
