package campaign

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// scrapeTimeout bounds the store read of a scrape, so that a database
// that does not answer fails the scrape's gauges instead of holding it.
const scrapeTimeout = 5 * time.Second

// runnerMetrics are a Runner's metrics (RunnerOptions.Metrics): the
// messages whose outcome the runner recorded, counted as the store took
// them (a page whose lease was lost meanwhile is counted by the runner
// that records it), and the backlog read from the store at each scrape.
type runnerMetrics struct {
	sent, failed prometheus.Counter
}

// newRunnerMetrics registers a runner's metrics on reg.
func newRunnerMetrics(reg prometheus.Registerer, store RunStore) *runnerMetrics {
	messages := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_campaign_messages_total",
		Help: "Campaign messages handed to their channel, by outcome (sent or failed).",
	}, []string{"outcome"})
	reg.MustRegister(messages, &backlogCollector{store: store,
		tasks: prometheus.NewDesc("msgkit_campaign_tasks", "Campaign tasks not finished, by state (pending or running).", []string{"state"}, nil),
		pending: prometheus.NewDesc("msgkit_campaign_messages_pending",
			"Campaign messages queued by the tasks not finished and not yet handed to their channel.", nil, nil),
	})
	return &runnerMetrics{sent: messages.WithLabelValues("sent"), failed: messages.WithLabelValues("failed")}
}

// finished counts the outcomes of msgs, a page the store recorded.
func (m *runnerMetrics) finished(msgs []Message) {
	if m == nil {
		return
	}
	sent := 0
	for i := range msgs {
		if msgs[i].Status == MessageSent {
			sent++
		}
	}
	m.sent.Add(float64(sent))
	m.failed.Add(float64(len(msgs) - sent))
}

// backlogCollector reads the store's Backlog at each scrape: the gauges
// are the store's, shared by every runner on it, not one process's.
type backlogCollector struct {
	store          RunStore
	tasks, pending *prometheus.Desc
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.tasks
	ch <- c.pending
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	b, err := c.store.Backlog(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.tasks, err)
		ch <- prometheus.NewInvalidMetric(c.pending, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(b.Pending), string(TaskPending))
	ch <- prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(b.Running), string(TaskRunning))
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(b.Messages))
}
