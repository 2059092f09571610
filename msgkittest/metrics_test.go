package msgkittest_test

import (
	"testing"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/prometheus/client_golang/prometheus"
)

// Metric finds a series by a subset of its labels, of each kind, and
// says when there is none.
func TestMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "c_total", Help: "c"}, []string{"a", "b"})
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "g", Help: "g"})
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h_seconds", Help: "h"})
	reg.MustRegister(c, g, h)
	c.WithLabelValues("x", "y").Add(3)
	c.WithLabelValues("x", "z").Add(5)
	g.Set(7)
	h.Observe(1)
	h.Observe(2)
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
		ok     bool
	}{
		{"c_total", []string{"a", "x", "b", "z"}, 5, true},
		{"c_total", []string{"b", "y"}, 3, true},
		{"c_total", []string{"b", "w"}, 0, false},
		{"g", nil, 7, true},
		{"h_seconds", nil, 2, true},
		{"none", nil, 0, false},
	} {
		if v, ok := msgkittest.Metric(t, reg, tt.name, tt.labels...); v != tt.want || ok != tt.ok {
			t.Errorf("Metric(%s, %v) = %v, %v; want %v, %v", tt.name, tt.labels, v, ok, tt.want, tt.ok)
		}
	}
}
