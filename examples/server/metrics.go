package main

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// defaultMetricsAddr is -metrics's default: loopback, so that only this
// machine (or a Prometheus beside it) reads the metrics and, with
// -metrics-pprof, the profiles. 9464 is the port exporters of the
// OpenTelemetry project's Prometheus bridge use.
const defaultMetricsAddr = "127.0.0.1:9464"

// newRegistry is the process's one registry: the Go runtime's and the
// process's collectors and msgkit_build_info; the families add theirs.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	v := httpapi.ReadVersion()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "msgkit_build_info",
		Help:        "Always 1; its labels say the build the server runs: its version, msgkit's, the commit and the Go version.",
		ConstLabels: prometheus.Labels{"version": v.Version, "msgkit": v.Msgkit, "revision": v.Revision, "goversion": v.GoVersion},
	})
	build.Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build)
	return reg
}

// metricsHandler serves GET /metrics from reg and, with withPprof,
// net/http/pprof's profiles under /debug/pprof/. A collector that fails
// (a store that does not answer) leaves its metrics out and the others are
// served: one part's outage does not blind the operator to the rest.
func metricsHandler(reg *prometheus.Registry, withPprof bool, logger *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            reg, // promhttp_metric_handler_errors_total
		MaxRequestsInFlight: 4,
		Timeout:             30 * time.Second,
	}))
	if withPprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	return mux
}
