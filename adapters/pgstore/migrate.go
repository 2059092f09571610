package pgstore

import (
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

func embeddedMigrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// migrationLockKey is the pg_advisory_lock key that serialises the
// migrations of one schema: replicas of one store take turns, while stores
// in other schemas of the same database (tenants of a test run) migrate at
// once. An empty schema (the search_path decides) has a key of its own.
func migrationLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("msgkit/pgstore/migrate\x00" + schema))
	return int64(h.Sum64())
}

// migration is one file of the migrations directory.
type migration struct {
	version int
	name    string // the file name without version and extension
	sql     string
}

// loadMigrations reads NNNN_name.sql files from the root of fsys, in
// version order. Files not ending in .sql are ignored; a .sql file whose
// name does not follow the pattern, a version below 1 and a version used
// twice are errors.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var migs []migration
	for _, e := range entries {
		file := e.Name()
		if e.IsDir() || path.Ext(file) != ".sql" {
			continue
		}
		num, name, ok := strings.Cut(strings.TrimSuffix(file, ".sql"), "_")
		if !ok || name == "" || len(num) < 4 || strings.Trim(num, "0123456789") != "" {
			return nil, fmt.Errorf("migration %q: want a name like 0001_name.sql", file)
		}
		version, err := strconv.Atoi(num)
		if err != nil || version < 1 {
			return nil, fmt.Errorf("migration %q: version must be a positive number", file)
		}
		body, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		migs = append(migs, migration{version: version, name: name, sql: string(body)})
	}
	slices.SortFunc(migs, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(migs); i++ {
		if migs[i].version == migs[i-1].version {
			return nil, fmt.Errorf("migration version %d is used twice (%s, %s)", migs[i].version, migs[i-1].name, migs[i].name)
		}
	}
	return migs, nil
}

// migrate applies, under the advisory lock, the migrations that
// schema_migrations does not list, each in its own transaction. It creates
// schema (when not empty) and schema_migrations first. A version recorded
// under another name is an error: a renumbered or renamed migration would
// otherwise be silently skipped. Versions recorded but unknown here (a
// newer replica ran first) are logged and left alone.
func migrate(ctx context.Context, conn *pgx.Conn, schema string, migs []migration, log *slog.Logger) (fresh bool, err error) {
	fail := func(err error, msg string) error {
		return msgkit.Wrap(err, msgkit.Internal, CodeMigrate, msg)
	}
	lockKey := migrationLockKey(schema)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return false, msgkit.Wrap(err, msgkit.Unavailable, CodeUnavailable, "cannot lock the database for migrations")
	}
	defer func() {
		// Unlock even when ctx is done; a failure is harmless because the
		// caller closes the connection, which ends the session's locks.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, uerr := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", lockKey); uerr != nil {
			log.WarnContext(ctx, "pgstore: releasing the migration lock", "err", uerr)
		}
	}()

	if schema != "" {
		// Look first: CREATE SCHEMA IF NOT EXISTS needs the CREATE
		// privilege on the database even when the schema exists, and a
		// role that may only use a prepared schema lacks it.
		var exists bool
		err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists)
		if err != nil {
			return false, fail(err, "cannot look up the database schema")
		}
		if !exists {
			if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
				return false, fail(err, "cannot create the database schema")
			}
		}
	}
	const createTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`
	if _, err := conn.Exec(ctx, createTable); err != nil {
		return false, fail(err, "cannot create the migrations table")
	}
	rows, err := conn.Query(ctx, "SELECT version, name FROM schema_migrations")
	if err != nil {
		return false, fail(err, "cannot read applied migrations")
	}
	applied := map[int]string{}
	var (
		v    int
		name string
	)
	if _, err := pgx.ForEachRow(rows, []any{&v, &name}, func() error { applied[v] = name; return nil }); err != nil {
		return false, fail(err, "cannot read applied migrations")
	}

	known := make(map[int]bool, len(migs))
	for _, m := range migs {
		known[m.version] = true
		if got, ok := applied[m.version]; ok {
			if got != m.name {
				return false, fail(fmt.Errorf("migration %04d is recorded as %q but the file is %q", m.version, got, m.name),
					"database migrations do not match the recorded ones")
			}
			continue
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return false, fail(err, fmt.Sprintf("database migration %04d_%s failed", m.version, m.name))
		}
		log.InfoContext(ctx, "pgstore: applied migration", "version", m.version, "name", m.name, "schema", schema)
	}
	for version, name := range applied {
		if !known[version] {
			log.WarnContext(ctx, "pgstore: database has a migration this build does not know", "version", version, "name", name)
		}
	}
	return len(applied) == 0, nil
}

// applyMigration runs m and records it in one transaction. The SQL goes
// through the simple protocol, so a file may hold several statements; it
// must not contain transaction control.
func applyMigration(ctx context.Context, conn *pgx.Conn, m migration) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
		return err
	})
}
