package smppserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// metrics are the server's collectors; a nil *metrics counts nothing.
type metrics struct {
	binds    *prometheus.GaugeVec
	refusals *prometheus.CounterVec
	submits  *prometheus.CounterVec
	dropped  prometheus.Counter
	delivers *prometheus.CounterVec
}

// newMetrics registers the server's metrics on reg; nil for a nil reg.
// A second server on one registry is a wiring mistake: it panics.
func newMetrics(reg prometheus.Registerer) *metrics {
	if reg == nil {
		return nil
	}
	m := &metrics{
		binds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "msgkit_smpp_server_binds",
			Help: "ESME binds bound now, by mode."}, []string{"mode"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "msgkit_smpp_server_bind_refusals_total",
			Help: "Binds refused, by the command_status that answered them."}, []string{"command_status"}),
		submits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "msgkit_smpp_server_submits_total",
			Help: "submit_sm and data_sm answered (each part of a long message), by command and command_status."}, []string{"command", "command_status"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "msgkit_smpp_server_incomplete_messages_total",
			Help: "Long messages dropped because their parts did not all come within the parts timeout."}),
		delivers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "msgkit_smpp_server_deliveries_total",
			Help: "deliver_sm to ESMEs (kind receipt or message) by outcome: delivered (ESME_ROK), refused (another command_status), failed (no answer, the bind closed), held (no receiving bind of the account on this server)."},
			[]string{"kind", "outcome"}),
	}
	reg.MustRegister(m.binds, m.refusals, m.submits, m.dropped, m.delivers)
	// The series known ahead, at zero, so that a dashboard sees them
	// before the first bind.
	for _, mode := range []pdu.BindMode{pdu.Transmitter, pdu.Receiver, pdu.Transceiver} {
		m.binds.WithLabelValues(mode.String())
	}
	for _, st := range []pdu.Status{pdu.ESME_RINVSYSID, pdu.ESME_RINVPASWD, pdu.ESME_RBINDFAIL, pdu.ESME_RSYSERR} {
		m.refusals.WithLabelValues(statusLabel(st))
	}
	for _, cmd := range []pdu.CommandID{pdu.CmdSubmitSM, pdu.CmdDataSM} {
		m.submits.WithLabelValues(cmd.String(), statusLabel(pdu.ESME_ROK))
	}
	for _, kind := range []string{sms.BindReceipt, sms.BindMessage} {
		for _, o := range []string{deliveredOK, deliveryRefused, deliveryFailed, deliveryHeld} {
			m.delivers.WithLabelValues(kind, o)
		}
	}
	return m
}

// The outcomes of a delivery (msgkit_smpp_server_deliveries_total).
const (
	deliveredOK     = "delivered"
	deliveryRefused = "refused"
	deliveryFailed  = "failed"
	deliveryHeld    = "held"
)

func (m *metrics) delivered(kind, outcome string) {
	if m != nil && (kind == sms.BindReceipt || kind == sms.BindMessage) {
		m.delivers.WithLabelValues(kind, outcome).Inc()
	}
}

func (m *metrics) bound(mode pdu.BindMode, d float64) {
	if m != nil {
		m.binds.WithLabelValues(mode.String()).Add(d)
	}
}

func (m *metrics) bindRefused(st pdu.Status) {
	if m != nil {
		m.refusals.WithLabelValues(statusLabel(st)).Inc()
	}
}

func (m *metrics) submitted(cmd pdu.CommandID, st pdu.Status) {
	if m != nil {
		m.submits.WithLabelValues(cmd.String(), statusLabel(st)).Inc()
	}
}

func (m *metrics) incomplete() {
	if m != nil {
		m.dropped.Inc()
	}
}
