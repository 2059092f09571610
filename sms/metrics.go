package sms

import (
	"context"
	"errors"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/prometheus/client_golang/prometheus"
)

// The results a submission is counted by (msgkit_sms_submissions_total's
// code): the three that are not submission error codes, then one per
// code of the table, in order.
const (
	resultAccepted = iota
	resultReplayed
	resultConflict
	resultFirstCode
	numResults = resultFirstCode + int(lastCode-firstCode) + 1
)

// resultLabel is the code label of result i.
func resultLabel(i int) string {
	switch i {
	case resultAccepted:
		return "accepted"
	case resultReplayed:
		return "replayed"
	case resultConflict:
		return "conflict"
	}
	return (firstCode + Code(i-resultFirstCode)).String()
}

// The events a part is counted by (msgkit_sms_parts_total's event).
const (
	partAccepted = iota
	partQueued
	partHandedOver
	partFailed
	partRetried
	numPartEvents
)

var partEventLabels = [numPartEvents]string{"accepted", "queued", "handed_over", "failed", "retried"}

// gatewayMetrics are a Gateway's counters, each resolved to its label
// values once, so that counting is an atomic add. A nil *gatewayMetrics
// counts nothing.
type gatewayMetrics struct {
	submissions      [numResults]prometheus.Counter
	accepted, queued prometheus.Counter
}

func newGatewayMetrics(reg prometheus.Registerer) *gatewayMetrics {
	if reg == nil {
		return nil
	}
	subs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_sms_submissions_total",
		Help: "Bulk SMS submissions answered, by result code: accepted, replayed (an idempotency key's acceptance answered again), conflict (an idempotency key or message id in use), or the rejection's submission error code 101 to 115 (101 also for internal failures answered 5xx).",
	}, []string{"code"})
	reg.MustRegister(subs)
	m := &gatewayMetrics{}
	for i := range m.submissions {
		m.submissions[i] = subs.WithLabelValues(resultLabel(i))
	}
	parts := sharedPartsCounter(reg)
	m.accepted, m.queued = parts.WithLabelValues(partEventLabels[partAccepted]), parts.WithLabelValues(partEventLabels[partQueued])
	return m
}

// answered counts a submission's answer: acc, or err's code.
func (m *gatewayMetrics) answered(acc Accepted, err error) {
	if m == nil {
		return
	}
	m.submissions[resultOf(acc, err)].Inc()
}

// resultOf is the result a submission is counted by.
func resultOf(acc Accepted, err error) int {
	switch {
	case err == nil && acc.Replayed:
		return resultReplayed
	case err == nil:
		return resultAccepted
	}
	if msgkit.KindOf(err) == msgkit.Conflict {
		return resultConflict
	}
	return resultFirstCode + int(CodeOf(err)-firstCode)
}

// acceptedParts counts the n parts of an accepted message, and whether
// they were queued for a claim rather than handed to the gateway's
// transmitter in memory.
func (m *gatewayMetrics) acceptedParts(n int, queued bool) {
	if m == nil {
		return
	}
	m.accepted.Add(float64(n))
	if queued {
		m.queued.Add(float64(n))
	}
}

// sharedPartsCounter is msgkit_sms_parts_total on reg: the gateway counts
// its accepted and queued parts in it, the transmitter what became of
// them, so whichever of the two registers it first makes it and the other
// counts in the same one.
func sharedPartsCounter(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_sms_parts_total",
		Help: "Bulk SMS parts by event: accepted (charged with their message), queued (of those, left in the outbound queue for a claim rather than handed to this process's transmitter in memory), handed_over (taken by the network), failed (refused by the network for good), retried (a hand-over failed and waits for its next attempt).",
	}, []string{"event"})
	if err := reg.Register(c); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

// transmitterMetrics are a Transmitter's counters; nil counts nothing.
type transmitterMetrics struct {
	handed, failed, retried prometheus.Counter
}

func newTransmitterMetrics(reg prometheus.Registerer, store TransmitterStore, clock func() time.Time) *transmitterMetrics {
	if reg == nil {
		return nil
	}
	reg.MustRegister(&backlogCollector{
		read:  store.OutboundBacklog,
		clock: clock,
		count: prometheus.NewDesc("msgkit_sms_queue_parts",
			"Parts in the bulk SMS outbound queue (due, leased to a transmitter or waiting for a retry), read from the store at scrape time.", nil, nil),
		oldest: prometheus.NewDesc("msgkit_sms_queue_oldest_seconds",
			"Seconds since the earliest due time among the outbound queue's parts a transmitter may claim now (0 when none is due), read from the store at scrape time.", nil, nil),
	})
	parts := sharedPartsCounter(reg)
	return &transmitterMetrics{
		handed:  parts.WithLabelValues(partEventLabels[partHandedOver]),
		failed:  parts.WithLabelValues(partEventLabels[partFailed]),
		retried: parts.WithLabelValues(partEventLabels[partRetried]),
	}
}

// round counts what became of a round's parts.
func (m *transmitterMetrics) round(handed, failed, retried int) {
	if m == nil {
		return
	}
	m.handed.Add(float64(handed))
	m.failed.Add(float64(failed))
	m.retried.Add(float64(retried))
}

// The outcomes of an attempt at a report (msgkit_sms_report_attempts_total).
const (
	attemptDelivered = iota
	attemptRetried
	attemptRefused
	attemptGivenUp
	numAttemptOutcomes
)

var attemptOutcomeLabels = [numAttemptOutcomes]string{"delivered", "retried", "refused", "given_up"}

// Why reports are given back unattempted (msgkit_sms_reports_put_off_total).
const (
	putOffLineFull = iota
	putOffLeaseRunningOut
	putOffStopping
	putOffHeld
	numPutOffReasons
)

var putOffReasonLabels = [numPutOffReasons]string{"line_full", "lease_running_out", "stopping", "held"}

// dispatcherMetrics are a Dispatcher's counters; nil counts nothing.
type dispatcherMetrics struct {
	attempts [numAttemptOutcomes]prometheus.Counter
	putOff   [numPutOffReasons]prometheus.Counter
}

func newDispatcherMetrics(reg prometheus.Registerer, d *Dispatcher) *dispatcherMetrics {
	if reg == nil {
		return nil
	}
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_sms_report_attempts_total",
		Help: "Attempts at delivering a report to a customer's URL, by outcome: delivered, retried (failed, tried again after a backoff), refused (the URL refused it for good, so it was given up), given_up (failed with its attempts or age spent).",
	}, []string{"outcome"})
	putOff := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_sms_reports_put_off_total",
		Help: "Delivery reports a dispatcher gave back unattempted, to be claimed again later, by reason: line_full (their receiving host's line was full), lease_running_out (they waited too long behind slow attempts), stopping (the dispatcher stopped), held (their destination cannot take them on this replica now: no SMPP bind of the account).",
	}, []string{"reason"})
	reg.MustRegister(attempts, putOff, &backlogCollector{
		read:  d.store.OutboxBacklog,
		clock: d.opts.Clock.Now,
		count: prometheus.NewDesc("msgkit_sms_report_outbox_reports",
			"Delivery reports pending in the outbox (due, leased to a dispatcher or waiting for a retry), read from the store at scrape time.", nil, nil),
		oldest: prometheus.NewDesc("msgkit_sms_report_outbox_oldest_seconds",
			"Seconds since the earliest due time among the outbox's reports a dispatcher may claim now (0 when none is due), read from the store at scrape time.", nil, nil),
	}, newLinesCollector(d))
	m := &dispatcherMetrics{}
	for i := range m.attempts {
		m.attempts[i] = attempts.WithLabelValues(attemptOutcomeLabels[i])
	}
	for i := range m.putOff {
		m.putOff[i] = putOff.WithLabelValues(putOffReasonLabels[i])
	}
	return m
}

// attempted counts an attempt's outcome.
func (m *dispatcherMetrics) attempted(outcome int) {
	if m == nil {
		return
	}
	m.attempts[outcome].Inc()
}

// gaveBack counts n reports given back for reason.
func (m *dispatcherMetrics) gaveBack(reason, n int) {
	if m == nil {
		return
	}
	m.putOff[reason].Add(float64(n))
}

// scrapeTimeout bounds a scrape's read of the store: a store that does
// not answer makes the metric invalid, not the scrape hang.
const scrapeTimeout = 5 * time.Second

// backlogCollector reads a queue's Backlog from the store at each scrape:
// its length, and how long its most overdue item has been due. A store
// error makes both metrics invalid for that scrape.
type backlogCollector struct {
	read          func(ctx context.Context, now time.Time) (Backlog, error)
	clock         func() time.Time
	count, oldest *prometheus.Desc
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.count
	ch <- c.oldest
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	now := c.clock()
	b, err := c.read(ctx, now)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.count, err)
		ch <- prometheus.NewInvalidMetric(c.oldest, err)
		return
	}
	age := 0.0
	if !b.OldestDue.IsZero() && b.OldestDue.Before(now) {
		age = now.Sub(b.OldestDue).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(b.Len))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
}

// linesCollector tells, at each scrape, how many receiving hosts' lines
// of a dispatcher are full, holding back their hosts' further reports,
// and how many reports those lines hold: per host would be a label
// without bound.
type linesCollector struct {
	d           *Dispatcher
	lines, held *prometheus.Desc
}

func newLinesCollector(d *Dispatcher) *linesCollector {
	return &linesCollector{d: d,
		lines: prometheus.NewDesc("msgkit_sms_report_lines_held_back",
			"Receiving hosts whose line in a dispatcher is full, so that their further reports are put off until it drains.", nil, nil),
		held: prometheus.NewDesc("msgkit_sms_report_held_back_reports",
			"Delivery reports a dispatcher holds (in flight or waiting) in the lines of held-back receiving hosts.", nil, nil),
	}
}

func (c *linesCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lines
	ch <- c.held
}

func (c *linesCollector) Collect(ch chan<- prometheus.Metric) {
	lines, reports := c.d.heldBack()
	ch <- prometheus.MustNewConstMetric(c.lines, prometheus.GaugeValue, float64(lines))
	ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(reports))
}
