package pgstore

import (
	"context"
	"encoding/hex"
	"errors"
	"slices"
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

// Options.Schema decides where the tables live, whatever schema the DSN's
// search_path names: the store's tables are all in its schema and the
// DSN's schema is left as it was, also when that schema already holds
// msgkit's tables, as public does in a database a server has run on.
func TestSchemaIsSearchPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		used bool // a store was opened on the DSN's schema first
	}{
		{"the DSN's schema is empty", false},
		{"the DSN's schema has a server's tables", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The DSN's schema stands in for public, so this test touches
			// only schemas of its own while others run.
			base, other := newTestSchema(t)
			createSchema(t, base, other)
			dsn := withSearchPath(base, other)
			if tt.used {
				openTestDB(t, dsn, Options{}).Close()
			}
			otherBefore := tableNames(t, base, other)
			if tt.used != slices.Contains(otherBefore, "auth_clients") {
				t.Fatalf("before Open, the DSN's schema %s has the tables %q", other, otherBefore)
			}

			// A name that needs quoting, to show it is quoted everywhere.
			schema := "T x_" + strings.ToUpper(hex.EncodeToString(randomBytes(4)))
			t.Cleanup(func() { dropSchema(t, base, schema) })
			s := openTestDB(t, dsn, Options{Schema: schema, MaxConns: 2})

			if got := s.pool.Config().MaxConns; got != 2 {
				t.Errorf("MaxConns %d, want 2", got)
			}
			if got := tableNames(t, base, other); !slices.Equal(got, otherBefore) {
				t.Errorf("Open changed the DSN's schema %s: tables %q, were %q", other, got, otherBefore)
			}
			got := tableNames(t, base, schema)
			for _, want := range []string{"schema_migrations", "auth_clients", "sms_messages"} {
				if !slices.Contains(got, want) {
					t.Errorf("%s is missing from the schema %q (tables %q)", want, schema, got)
				}
			}
			if tt.used && !slices.Equal(got, otherBefore) {
				t.Errorf("the schema %q has the tables %q, the server's schema %q", schema, got, otherBefore)
			}
			migs, err := loadMigrations(embeddedMigrations())
			if err != nil {
				t.Fatal(err)
			}
			var applied int
			if err := s.pool.QueryRow(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
				t.Fatal(err)
			}
			if applied != len(migs) {
				t.Errorf("the schema %q records %d migrations, want %d", schema, applied, len(migs))
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
		})
	}
}

// withSearchPath returns dsn (a URL or key=value string) with the
// search_path parameter set to schema, a name that needs no quoting.
func withSearchPath(dsn, schema string) string {
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + schema
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&search_path=" + schema
	}
	return dsn + "?search_path=" + schema
}

// createSchema creates schema in the database at dsn.
func createSchema(t *testing.T, dsn, schema string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
}

// tableNames returns the names of the tables in schema, sorted.
func tableNames(t *testing.T, dsn, schema string) []string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename COLLATE \"C\"", schema)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
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
	createSchema(t, dsn, schema)
	dsn = withSearchPath(dsn, schema)
	s := openTestDB(t, dsn, Options{})
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'auth_clients'", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("auth_clients is not in the DSN's search_path schema %s", schema)
	}
}
