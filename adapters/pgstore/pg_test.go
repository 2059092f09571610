package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// envDSN names the variable holding the test database's DSN. Unset, the
// database tests skip; set, a server that cannot be reached fails them.
const envDSN = "MSGKIT_TEST_PG"

// testDSN returns the test database's DSN or skips tb.
func testDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(envDSN)
	if dsn == "" {
		tb.Skipf("%s is not set; skipping PostgreSQL tests", envDSN)
	}
	return dsn
}

// newTestSchema returns the test DSN and the name of a schema no other
// test uses, dropped with everything in it when tb ends. The schema is
// not created; Open creates it.
func newTestSchema(tb testing.TB) (dsn, schema string) {
	tb.Helper()
	dsn = testDSN(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("%s is set, so the database must be reachable: %v", envDSN, err)
	}
	_ = conn.Close(ctx)
	schema = "t_" + hex.EncodeToString(randomBytes(8))
	tb.Cleanup(func() { dropSchema(tb, dsn, schema) })
	return dsn, schema
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return b
}

// dropSchema runs in cleanups, after the test's context is cancelled.
func dropSchema(tb testing.TB, dsn, schema string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Errorf("dropping schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		tb.Errorf("dropping schema %s: %v", schema, err)
	}
}

// newTestDB opens a DB on a fresh schema, closed and dropped when tb
// ends. It fails tb when the database cannot be reached.
func newTestDB(tb testing.TB) *DB {
	tb.Helper()
	dsn, schema := newTestSchema(tb)
	return openTestDB(tb, dsn, Options{Schema: schema})
}

// openTestDB opens a DB closed when tb ends (before the schema is
// dropped: cleanups run last registered, first run).
func openTestDB(tb testing.TB, dsn string, opts Options) *DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, dsn, opts)
	if err != nil {
		tb.Fatalf("Open (%s is set, so the database must be reachable): %v", envDSN, err)
	}
	tb.Cleanup(db.Close)
	return db
}

// newTestStore is newTestDB's sms store, which most tests here exercise.
func newTestStore(tb testing.TB) *SMSStore {
	tb.Helper()
	return newTestDB(tb).SMS()
}

// openTestStore is openTestDB's sms store.
func openTestStore(tb testing.TB, dsn string, opts Options) *SMSStore {
	tb.Helper()
	return openTestDB(tb, dsn, opts).SMS()
}
