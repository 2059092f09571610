package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
	"github.com/msgkit/msgkit/msgkittest"
)

// A DB opened with metrics reports its pool, counts a transaction run
// again after a serialization failure, and counts statements' failures
// by kind, leaving out a caller's cancellation.
func TestMetrics(t *testing.T) {
	ctx := t.Context()
	dsn, schema := newTestSchema(t)
	reg := prometheus.NewRegistry()
	db := openTestDB(t, dsn, Options{Schema: schema, MaxConns: 3, Metrics: reg})

	if got := msgkittest.MustMetric(t, reg, "msgkit_pg_pool_max_connections"); got != 3 {
		t.Errorf("max connections %v, want 3", got)
	}
	before := msgkittest.MustMetric(t, reg, "msgkit_pg_pool_acquires_total")
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := msgkittest.MustMetric(t, reg, "msgkit_pg_pool_acquires_total"); got != before+1 {
		t.Errorf("acquires %v after a ping, want %v", got, before+1)
	}
	if n := testutil.CollectAndCount(reg, "msgkit_pg_pool_acquired_connections", "msgkit_pg_pool_idle_connections", "msgkit_pg_pool_connections",
		"msgkit_pg_pool_empty_acquires_total", "msgkit_pg_pool_canceled_acquires_total", "msgkit_pg_pool_acquire_seconds_total",
		"msgkit_pg_pool_empty_acquire_wait_seconds_total"); n != 7 {
		t.Errorf("%d pool metrics, want 7", n)
	}

	runs := 0
	err := inTx(ctx, db.pool, db.log, "a test", func(tx pgx.Tx) error {
		if runs++; runs == 1 {
			return &pgconn.PgError{Code: serializationFailure}
		}
		return nil
	})
	if err != nil || runs != 2 {
		t.Fatalf("inTx: %v after %d runs", err, runs)
	}

	s := db.Contacts()
	l := contacts.List{UUID: contactstest.ListUUID(1), Name: "L", Status: "active", Created: time.Unix(0, 0), Updated: time.Unix(0, 0)}
	if _, err := s.CreateList(ctx, contactstest.TenantA, l); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateList(ctx, contactstest.TenantA, l); err == nil {
		t.Fatal("a list created twice")
	}
	if _, err := db.pool.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("a division by zero")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.pool.Exec(canceled, "SELECT 1"); err == nil {
		t.Fatal("a canceled statement")
	}
	want := `
# HELP msgkit_store_errors_total PostgreSQL statements and connection acquires that failed, by the msgkit kind of the failure.
# TYPE msgkit_store_errors_total counter
msgkit_store_errors_total{kind="conflict"} 1
msgkit_store_errors_total{kind="internal"} 1
msgkit_store_errors_total{kind="invalid"} 0
msgkit_store_errors_total{kind="unavailable"} 0
# HELP msgkit_store_tx_retries_total PostgreSQL transactions run again after a serialization failure or a deadlock.
# TYPE msgkit_store_tx_retries_total counter
msgkit_store_tx_retries_total 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "msgkit_store_errors_total", "msgkit_store_tx_retries_total"); err != nil {
		t.Error(err)
	}
}

// The tracer gives each failure the kind classify gives it, and leaves
// out cancellations and what a transaction retries.
func TestErrorTracerKinds(t *testing.T) {
	tr := newErrorTracer()
	ctx := t.Context()
	tr.TraceAcquireEnd(ctx, nil, pgxpool.TraceAcquireEndData{Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}})
	tr.TraceBatchEnd(ctx, nil, pgx.TraceBatchEndData{Err: &pgconn.PgError{Code: foreignKeyViolation}})
	tr.TraceCopyFromEnd(ctx, nil, pgx.TraceCopyFromEndData{Err: &pgconn.PgError{Code: uniqueViolation}})
	tr.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{Err: &pgconn.PgError{Code: deadlockDetected}})
	tr.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{Err: fmt.Errorf("query: %w", context.Canceled)})
	tr.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{})
	for kind, want := range map[string]float64{"unavailable": 1, "invalid": 1, "conflict": 1, "internal": 0} {
		if got := testutil.ToFloat64(tr.errors.WithLabelValues(kind)); got != want {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
}
