package pgstore

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
)

func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1; no database is needed.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=5", Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded without a server")
	}
	if !errors.Is(err, msgkit.Unavailable) || msgkit.CodeOf(err) != CodeUnavailable {
		t.Fatalf("error %v, want unavailable %s", err, CodeUnavailable)
	}
}

func TestOpenBadDSN(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), "postgres://user:hunter2@127.0.0.1:5432/test?sslmode=bogus", Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a bad DSN")
	}
	if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeOpen {
		t.Fatalf("error %v, want internal %s", err, CodeOpen)
	}
	if e, _ := errors.AsType[*msgkit.Error](err); strings.Contains(e.Message, "hunter2") {
		t.Errorf("message %q shows the password", e.Message)
	}
}

func TestSchemaIsSearchPath(t *testing.T) {
	t.Parallel()
	dsn := testDSN(t)
	// A name that needs quoting, to show it is quoted everywhere.
	schema := "T x_" + strings.ToUpper(hex.EncodeToString(randomBytes(4)))
	t.Cleanup(func() { dropSchema(t, dsn, schema) })
	s := openTestDB(t, dsn, Options{Schema: schema, MaxConns: 2})

	if got := s.pool.Config().MaxConns; got != 2 {
		t.Errorf("MaxConns %d, want 2", got)
	}
	var schemas []string
	// Other tests (other packages too) create schemas of their own at the
	// same time, so only the default schema and ours are looked at.
	rows, err := s.pool.Query(t.Context(),
		"SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name IN ('schema_migrations', 'auth_clients') AND table_schema IN ($1, 'public')", schema)
	if err != nil {
		t.Fatal(err)
	}
	if schemas, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 1 || schemas[0] != schema {
		t.Errorf("tables are in schemas %q, want only %q", schemas, schema)
	}
	// Every pooled connection, not only the first, uses the schema.
	for range 3 {
		c1, err := s.pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var current string
		err = c1.QueryRow(t.Context(), "SELECT current_schema()").Scan(&current)
		c1.Release()
		if err != nil {
			t.Fatal(err)
		}
		if current != schema {
			t.Errorf("current_schema() = %q, want %q", current, schema)
		}
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	s := newTestDB(t)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	s.Close()
	err := s.Ping(t.Context())
	if !errors.Is(err, msgkit.Unavailable) {
		t.Fatalf("Ping after Close = %v, want unavailable", err)
	}
}

func TestOpenWithoutSchemaUsesServerSearchPath(t *testing.T) {
	t.Parallel()
	// Options.Schema empty: the DSN decides, here through its own
	// search_path parameter, so this test still touches only its schema.
	dsn, schema := newTestSchema(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	if strings.Contains(dsn, "://") {
		dsn += sep + "search_path=" + schema
	} else {
		dsn += " search_path=" + schema
	}
	s := openTestDB(t, dsn, Options{})
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'auth_clients'", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("auth_clients is not in the DSN's search_path schema %s", schema)
	}
}
