package pgstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
)

// storeLog is what a store reports to: its logger and, with
// Options.Metrics, the count of its transactions' retries. Every store of
// a DB shares the DB's.
type storeLog struct {
	*slog.Logger
	retries prometheus.Counter // nil: not counted
}

// retried counts a transaction run again.
func (l *storeLog) retried() {
	if l.retries != nil {
		l.retries.Inc()
	}
}

// newRetries is the counter of storeLog.retries.
func newRetries() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{
		Name: "msgkit_store_tx_retries_total",
		Help: "PostgreSQL transactions run again after a serialization failure or a deadlock.",
	})
}

// poolCollector reads pgxpool's statistics at each scrape: they are
// counters and gauges the pool keeps already, so the store pays nothing
// between scrapes.
type poolCollector struct {
	pool                                    *pgxpool.Pool
	acquired, idle, total, max              *prometheus.Desc
	acquires, emptyAcquires, canceled       *prometheus.Desc
	acquireSeconds, emptyAcquireWaitSeconds *prometheus.Desc
}

func newPoolCollector(pool *pgxpool.Pool) *poolCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &poolCollector{pool: pool,
		acquired:       d("msgkit_pg_pool_acquired_connections", "PostgreSQL pool connections in use."),
		idle:           d("msgkit_pg_pool_idle_connections", "PostgreSQL pool connections idle."),
		total:          d("msgkit_pg_pool_connections", "PostgreSQL pool connections open: in use, idle and being made."),
		max:            d("msgkit_pg_pool_max_connections", "Most connections the PostgreSQL pool opens."),
		acquires:       d("msgkit_pg_pool_acquires_total", "Connections acquired from the PostgreSQL pool."),
		emptyAcquires:  d("msgkit_pg_pool_empty_acquires_total", "Connections acquired from the PostgreSQL pool after waiting, none being idle."),
		canceled:       d("msgkit_pg_pool_canceled_acquires_total", "Acquires from the PostgreSQL pool given up by their caller."),
		acquireSeconds: d("msgkit_pg_pool_acquire_seconds_total", "Seconds spent acquiring connections from the PostgreSQL pool."),
		emptyAcquireWaitSeconds: d("msgkit_pg_pool_empty_acquire_wait_seconds_total",
			"Seconds acquires waited for a PostgreSQL pool connection, none being idle."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.total, c.max, c.acquires, c.emptyAcquires,
		c.canceled, c.acquireSeconds, c.emptyAcquireWaitSeconds} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(c.acquired, float64(s.AcquiredConns()))
	gauge(c.idle, float64(s.IdleConns()))
	gauge(c.total, float64(s.TotalConns()))
	gauge(c.max, float64(s.MaxConns()))
	counter(c.acquires, float64(s.AcquireCount()))
	counter(c.emptyAcquires, float64(s.EmptyAcquireCount()))
	counter(c.canceled, float64(s.CanceledAcquireCount()))
	counter(c.acquireSeconds, s.AcquireDuration().Seconds())
	counter(c.emptyAcquireWaitSeconds, s.EmptyAcquireWaitTime().Seconds())
}

// errorTracer counts the failures of the pool's statements (queries,
// batches, copies) and acquires by the msgkit kind the store gives them
// (classify): the one place every database error passes, whichever store
// method met it. Not counted: a caller's cancellation, and serialization
// failures and deadlocks, which the transaction retries (see
// msgkit_store_tx_retries_total). A missing row is no statement's
// failure: pgx reports it to the caller only.
type errorTracer struct {
	errors *prometheus.CounterVec
	byKind map[msgkit.Kind]prometheus.Counter
}

func newErrorTracer() *errorTracer {
	t := &errorTracer{errors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_store_errors_total",
		Help: "PostgreSQL statements and connection acquires that failed, by the msgkit kind of the failure.",
	}, []string{"kind"}), byKind: map[msgkit.Kind]prometheus.Counter{}}
	// The kinds classify gives.
	for _, k := range []msgkit.Kind{msgkit.Internal, msgkit.Invalid, msgkit.Conflict, msgkit.Unavailable} {
		t.byKind[k] = t.errors.WithLabelValues(k.String())
	}
	return t
}

// failed counts err, when it is one.
func (t *errorTracer) failed(err error) {
	if err == nil || errors.Is(err, context.Canceled) || retryable(err) {
		return
	}
	if c := t.byKind[msgkit.KindOf(classify(err, "record", "record"))]; c != nil {
		c.Inc()
	}
}

func (t *errorTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (t *errorTracer) TraceQueryEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	t.failed(d.Err)
}

func (t *errorTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (t *errorTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd counts a batch's failure once, however many of its
// statements it failed.
func (t *errorTracer) TraceBatchEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchEndData) {
	t.failed(d.Err)
}

func (t *errorTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return ctx
}

func (t *errorTracer) TraceCopyFromEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceCopyFromEndData) {
	t.failed(d.Err)
}

func (t *errorTracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return ctx
}

func (t *errorTracer) TraceAcquireEnd(_ context.Context, _ *pgxpool.Pool, d pgxpool.TraceAcquireEndData) {
	t.failed(d.Err)
}
