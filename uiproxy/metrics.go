package uiproxy

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
)

// metrics are a Proxy's metrics (Options.Metrics), each child resolved
// once.
type metrics struct {
	ok, badAnswer, timeout, failed prometheus.Counter
	seconds                        prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) *metrics {
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_uiproxy_calls_total",
		Help: "UI proxy calls to customer APIs, by outcome (ok, bad_answer, timeout or error).",
	}, []string{"outcome"})
	seconds := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "msgkit_uiproxy_call_seconds",
		Help: "Seconds a UI proxy call to a customer API took, to its answer parsed or its failure.",
		// Up to MaxTimeout: a component may wait that long.
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	})
	reg.MustRegister(calls, seconds)
	return &metrics{ok: calls.WithLabelValues("ok"), badAnswer: calls.WithLabelValues("bad_answer"),
		timeout: calls.WithLabelValues("timeout"), failed: calls.WithLabelValues("error"), seconds: seconds}
}

// called counts a call begun at began that ended now with err; answered
// says the customer answered 2xx (err is then the answer's parse error).
func (m *metrics) called(began time.Time, clock msgkit.Clock, err error, answered bool) {
	if m == nil {
		return
	}
	m.seconds.Observe(clock.Now().Sub(began).Seconds())
	switch {
	case err == nil:
		m.ok.Inc()
	case answered:
		m.badAnswer.Inc()
	case errors.Is(err, context.DeadlineExceeded):
		m.timeout.Inc()
	default:
		m.failed.Inc()
	}
}
