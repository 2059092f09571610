package inbound

import "github.com/prometheus/client_golang/prometheus"

// outcome is what became of a message kept, msgkit_inbound_messages_total's
// label.
type outcome int

const (
	outcomeBinds      outcome = iota // routed to an account's SMPP binds
	outcomeHTTP                      // routed to an account's InboundURL
	outcomeNoRoute                   // unroutable: no record of its connection
	outcomeNoAccount                 // unroutable: the record's account does not exist
	outcomeSuspended                 // unroutable: the record's account is suspended
	outcomeNoURL                     // unroutable: the account has no InboundURL
	outcomeIncomplete                // parts missing after the wait
	numOutcomes
)

var outcomeLabels = [numOutcomes]string{"routed_binds", "routed_http", "no_route", "no_account", "account_suspended", "no_inbound_url", "incomplete"}

// metrics are a Router's; a nil *metrics counts nothing.
type metrics struct {
	messages [numOutcomes]prometheus.Counter
	failures prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, gathering func() int) *metrics {
	if reg == nil {
		return nil
	}
	msgs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_inbound_messages_total",
		Help: "Inbound (mobile-originated) messages kept, by outcome: routed_binds (queued for an account's SMPP binds), routed_http (queued for an account's inbound URL), no_route, no_account, account_suspended, no_inbound_url (kept as unroutable, for that reason), incomplete (parts missing after the wait).",
	}, []string{"outcome"})
	failures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "msgkit_inbound_failures_total",
		Help: "Inbound messages not kept because reading the routes or an account, or keeping the message, failed: the network offers them again.",
	})
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "msgkit_inbound_parts_gathering",
		Help: "Parts of long inbound messages waiting in this process for the rest of their message.",
	}, func() float64 { return float64(gathering()) })
	reg.MustRegister(msgs, failures, held)
	m := &metrics{failures: failures}
	for i := range m.messages {
		m.messages[i] = msgs.WithLabelValues(outcomeLabels[i])
	}
	return m
}

func (m *metrics) kept(o outcome) {
	if m != nil {
		m.messages[o].Inc()
	}
}

func (m *metrics) failed() {
	if m != nil {
		m.failures.Inc()
	}
}
