package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RouteUnmatched is the route label of requests that reached no route of
// their family: unknown paths, and methods a path does not allow.
const RouteUnmatched = "unmatched"

// Metrics are the HTTP kit's Prometheus metrics, shared by every family
// of a server: requests by family, route and status, their duration by
// family and route, and requests in flight by family. The route label is
// the route's ServeMux pattern ("GET /news/v1/services/{serviceUuid}/cds/contacts"),
// so the labels are bounded by the route tables, never by what callers
// send. A nil *Metrics measures nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
}

// NewMetrics registers the HTTP metrics on reg. Give one *Metrics to every
// family of a server (Options.Metrics): registering a second on the same
// reg panics, as the names are taken. A nil reg is no metrics (nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	if reg == nil {
		return nil
	}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "msgkit_http_requests_total",
			Help: "HTTP requests answered, by API family, route and status.",
		}, []string{"family", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "msgkit_http_request_seconds",
			Help:    "Time from a request's arrival to its answer's end, by API family and route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"family", "route"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "msgkit_http_requests_in_flight",
			Help: "HTTP requests being served, by API family.",
		}, []string{"family"}),
	}
	reg.MustRegister(m.requests, m.duration, m.inFlight)
	return m
}

// routeMetrics are one route's children, resolved when the route is
// mounted, so that a request costs atomic adds and no label lookup.
type routeMetrics struct {
	family, route string
	requests      *prometheus.CounterVec
	duration      prometheus.Observer
	byStatus      sync.Map // int -> prometheus.Counter
}

func (m *Metrics) route(family, pattern string) *routeMetrics {
	return &routeMetrics{family: family, route: pattern, requests: m.requests,
		duration: m.duration.WithLabelValues(family, pattern)}
}

func (rm *routeMetrics) observe(status int, d time.Duration) {
	c, ok := rm.byStatus.Load(status)
	if !ok {
		c, _ = rm.byStatus.LoadOrStore(status, rm.requests.WithLabelValues(rm.family, rm.route, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
	rm.duration.Observe(d.Seconds())
}

// FamilyMetrics measure one family's requests: Measure wraps the family's
// handler, Route each of its routes. A nil *FamilyMetrics measures
// nothing.
type FamilyMetrics struct {
	m         *Metrics
	name      string
	inFlight  prometheus.Gauge
	unmatched *routeMetrics
	mu        sync.Mutex
	routes    map[string]*routeMetrics // by pattern; written while routes are mounted
}

// Family returns the measures of the family named name (its label). A nil
// m returns nil.
func (m *Metrics) Family(name string) *FamilyMetrics {
	if m == nil {
		return nil
	}
	return &FamilyMetrics{m: m, name: name, inFlight: m.inFlight.WithLabelValues(name),
		unmatched: m.route(name, RouteUnmatched), routes: map[string]*routeMetrics{}}
}

// Route names pattern as the route of the requests h serves. It must wrap
// the route's handler inside Measure's, with nothing between them that
// replaces the ResponseWriter.
func (f *FamilyMetrics) Route(pattern string, h http.Handler) http.Handler {
	if f == nil {
		return h
	}
	rm := f.routeOf(pattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sw, ok := w.(*statusWriter); ok {
			sw.route = rm
		}
		h.ServeHTTP(w, r)
	})
}

func (f *FamilyMetrics) routeOf(pattern string) *routeMetrics {
	f.mu.Lock()
	defer f.mu.Unlock()
	rm, ok := f.routes[pattern]
	if !ok {
		rm = f.m.route(f.name, pattern)
		f.routes[pattern] = rm
	}
	return rm
}

// Measure counts the requests h serves when its answer ends, by the route
// that Route named, and keeps them in flight meanwhile. A request refused
// before it reached a route (authentication, a body too large) counts
// under the route pattern that resolve returns for it, when resolve is
// not nil and finds one, else under RouteUnmatched.
func (f *FamilyMetrics) Measure(h http.Handler, resolve func(*http.Request) string) http.Handler {
	if f == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := asStatusWriter(w)
		start := sw.start
		if start.IsZero() { // not behind AccessLog
			start = time.Now()
		}
		f.inFlight.Inc()
		completed := false
		defer func() {
			f.inFlight.Dec()
			status := sw.status
			if status == 0 {
				// A handler that wrote nothing answered 200; one that
				// panicked past Recover answered nothing: the server
				// closes the connection, counted as 500.
				status = http.StatusInternalServerError
				if completed {
					status = http.StatusOK
				}
			}
			rm := sw.route
			if rm == nil {
				rm = f.unmatched
				if resolve != nil {
					if p := resolve(r); p != "" {
						rm = f.routeOf(p)
					}
				}
			}
			rm.observe(status, time.Since(start))
		}()
		h.ServeHTTP(sw, r)
		completed = true
	})
}
