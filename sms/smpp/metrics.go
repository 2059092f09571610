package smpp

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// The outcomes of msgkit_smpp_receipts_total.
const (
	receiptMatched     = "matched"
	receiptRedelivered = "redelivered"
	receiptUnmatched   = "unmatched"
	receiptUnreadable  = "unreadable"
)

// collectors are the vectors of one registry, shared by the clients of
// every connection registered on it; conns are the connections' names
// taken, so that two clients cannot count into one connection's series.
type collectors struct {
	bindsUp   *prometheus.GaugeVec
	window    *prometheus.GaugeVec
	submit    *prometheus.HistogramVec
	throttled *prometheus.CounterVec
	receipts  *prometheus.CounterVec

	mu    sync.Mutex
	conns map[string]bool
}

func newCollectors() *collectors {
	conn := []string{"connection"}
	return &collectors{
		bindsUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "msgkit_smpp_binds_up",
			Help: "SMPP binds currently bound (transceivers, transmitters and receivers), per SMSC connection."}, conn),
		window: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "msgkit_smpp_window_in_use",
			Help: "SMPP submit_sm in the windows of the connection's binds: sent and not answered yet."}, conn),
		submit: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "msgkit_smpp_submit_seconds",
			Help:    "Time from queuing a submit_sm on a bind to reading its submit_sm_resp, whatever its status.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}}, conn),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "msgkit_smpp_throttled_total",
			Help: "SMPP submit_sm answered ESME_RTHROTTLED or ESME_RMSGQFUL, each resting its bind."}, conn),
		receipts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "msgkit_smpp_receipts_total",
			Help: "SMPP delivery receipts read, by outcome: matched to their part, redelivered for a part already finished, unmatched (no part within the timeout) or unreadable."},
			[]string{"connection", "outcome"}),
		conns: map[string]bool{},
	}
}

func (c *collectors) Describe(ch chan<- *prometheus.Desc) {
	c.bindsUp.Describe(ch)
	c.window.Describe(ch)
	c.submit.Describe(ch)
	c.throttled.Describe(ch)
	c.receipts.Describe(ch)
}

func (c *collectors) Collect(ch chan<- prometheus.Metric) {
	c.bindsUp.Collect(ch)
	c.window.Collect(ch)
	c.submit.Collect(ch)
	c.throttled.Collect(ch)
	c.receipts.Collect(ch)
}

// metrics are one client's children of its registry's vectors, resolved
// once, so that counting is an atomic add; finished tells repeats from
// first receipts.
type metrics struct {
	bindsUp, window                             prometheus.Gauge
	submit                                      prometheus.Observer
	throttled                                   prometheus.Counter
	matched, redelivered, unmatched, unreadable prometheus.Counter
	finished                                    *finishedParts
}

// newMetrics registers the vectors on reg, or takes those a client of
// another connection registered there, and resolves conn's children. A
// second client of conn on reg is a wiring mistake: it panics.
func newMetrics(reg prometheus.Registerer, conn string) *metrics {
	cs := newCollectors()
	if err := reg.Register(cs); err != nil {
		var are prometheus.AlreadyRegisteredError
		existing, ok := (*collectors)(nil), false
		if errors.As(err, &are) {
			existing, ok = are.ExistingCollector.(*collectors)
		}
		if !ok {
			panic(fmt.Sprintf("smpp: registering metrics: %v", err))
		}
		cs = existing
	}
	cs.mu.Lock()
	taken := cs.conns[conn]
	cs.conns[conn] = true
	cs.mu.Unlock()
	if taken {
		panic(fmt.Sprintf("smpp: a second client of connection %q registers metrics on one registry", conn))
	}
	return &metrics{
		bindsUp:     cs.bindsUp.WithLabelValues(conn),
		window:      cs.window.WithLabelValues(conn),
		submit:      cs.submit.WithLabelValues(conn),
		throttled:   cs.throttled.WithLabelValues(conn),
		matched:     cs.receipts.WithLabelValues(conn, receiptMatched),
		redelivered: cs.receipts.WithLabelValues(conn, receiptRedelivered),
		unmatched:   cs.receipts.WithLabelValues(conn, receiptUnmatched),
		unreadable:  cs.receipts.WithLabelValues(conn, receiptUnreadable),
		finished:    newFinishedParts(finishedMemory),
	}
}

// submitAnswered counts the answer of a submit_sm queued at sent.
func (m *metrics) submitAnswered(sent time.Time, st pdu.Status) {
	m.submit.Observe(time.Since(sent).Seconds())
	if st == pdu.ESME_RTHROTTLED || st == pdu.ESME_RMSGQFUL {
		m.throttled.Inc()
	}
}

// matchedReceipt counts a receipt whose part was found, as a repeat when
// the part had finished, and remembers the part finished when ev ends it.
// It reports whether it did, so that a receipt whose event was not stored
// can be forgotten (forget).
func (m *metrics) matchedReceipt(key PartKey, ev sms.StatusEvent) (remembered bool) {
	next, _, _ := sms.Step(sms.StateSentToSMSC, ev.Status)
	repeat, remembered := m.finished.note(key, next.Final())
	if repeat {
		m.redelivered.Inc()
	} else {
		m.matched.Inc()
	}
	return remembered
}

// finishedMemory is how many finished parts a client remembers to tell a
// repeated receipt: SMSCs repeat a receipt within minutes, when its
// acknowledgement was late or lost.
const finishedMemory = 4096

// finishedParts are the last parts a client saw a final receipt of, the
// oldest forgotten first.
type finishedParts struct {
	mu   sync.Mutex
	at   map[PartKey]int // the slot of ring holding the part
	ring []PartKey
	next int
}

func newFinishedParts(n int) *finishedParts {
	return &finishedParts{at: make(map[PartKey]int, n), ring: make([]PartKey, n)}
}

// note reports whether key finished before; if not and final, it
// remembers it.
func (f *finishedParts) note(key PartKey, final bool) (repeat, remembered bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.at[key]; ok {
		return true, false
	}
	if !final {
		return false, false
	}
	if old := f.ring[f.next]; f.at[old] == f.next {
		delete(f.at, old) // the oldest, unless forgotten and noted again since
	}
	f.ring[f.next], f.at[key] = key, f.next
	f.next = (f.next + 1) % len(f.ring)
	return false, true
}

// forget drops key: its final event was not stored, so the SMSC offers
// the receipt again and that is no repeat.
func (f *finishedParts) forget(key PartKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.at, key)
}
