package testsystem

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/sms"
)

// metrics are a System's metrics (Options.Metrics), each child resolved
// once.
type metrics struct {
	sessionsStarted, sessionsCompleted prometheus.Counter
	judgements                         map[Status]prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	started := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "msgkit_testsystem_sessions_started_total",
		Help: "Test sessions started: test SMS requests accepted.",
	})
	completed := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "msgkit_testsystem_sessions_completed_total",
		Help: "Test sessions completed: every message of the session judged.",
	})
	judged := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_testsystem_messages_judged_total",
		Help: "Test messages judged, by judgement (delivered, not_received or failed).",
	}, []string{"judgement"})
	reg.MustRegister(started, completed, judged)
	m := &metrics{sessionsStarted: started, sessionsCompleted: completed, judgements: map[Status]prometheus.Counter{}}
	for _, s := range []Status{StatusDelivered, StatusNotReceived, StatusFailed} {
		m.judgements[s] = judged.WithLabelValues(string(s))
	}
	return m
}

func (m *metrics) started() {
	if m != nil {
		m.sessionsStarted.Inc()
	}
}

// completed counts a session CompleteSession reports completed now.
func (m *metrics) completed(now bool) {
	if m != nil && now {
		m.sessionsCompleted.Inc()
	}
}

// verdicts are the judgements one UpdateResults made, by message. A
// store that runs the update again (a retried transaction) calls the
// function again for each message, which forgets and judges it anew, so
// a message counts once, and only when the update is stored. nil when
// there are no metrics: nothing is kept.
type verdicts map[sms.MessageID]Status

func (m *metrics) verdicts() verdicts {
	if m == nil {
		return nil
	}
	return verdicts{}
}

func (v verdicts) forget(r *Result) { delete(v, r.MsgID) }

func (v verdicts) judged(r *Result) {
	if v != nil {
		v[r.MsgID] = r.Status
	}
}

// count adds the judgements of a stored update.
func (m *metrics) count(v verdicts) {
	if m == nil {
		return
	}
	for _, s := range v {
		m.judgements[s].Inc()
	}
}
