package campaign_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/campaign/campaigntest"
)

// The runner's metrics follow a run of the world's sms campaign: a task
// pending before it, the three numbers sent and the German one failed
// (no price) after it, the backlog empty again.
func TestRunnerMetrics(t *testing.T) {
	ctx := t.Context()
	db := memstore.New()
	w := campaigntest.NewWorld(t, campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()})
	reg := prometheus.NewRegistry()
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{Metrics: reg})
	w.Create(t, nil)
	if _, err := db.Campaigns().ClaimDue(ctx, w.Clock.Now(), 10, func(c *campaign.Campaign) { c.Ran(w.Clock.Now()) }); err != nil {
		t.Fatal(err)
	}
	want := func(text string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(text), "msgkit_campaign_tasks", "msgkit_campaign_messages_pending", "msgkit_campaign_messages_total"); err != nil {
			t.Error(err)
		}
	}
	want(`
# HELP msgkit_campaign_messages_pending Campaign messages queued by the tasks not finished and not yet handed to their channel.
# TYPE msgkit_campaign_messages_pending gauge
msgkit_campaign_messages_pending 0
# HELP msgkit_campaign_messages_total Campaign messages handed to their channel, by outcome (sent or failed).
# TYPE msgkit_campaign_messages_total counter
msgkit_campaign_messages_total{outcome="failed"} 0
msgkit_campaign_messages_total{outcome="sent"} 0
# HELP msgkit_campaign_tasks Campaign tasks not finished, by state (pending or running).
# TYPE msgkit_campaign_tasks gauge
msgkit_campaign_tasks{state="pending"} 1
msgkit_campaign_tasks{state="running"} 0
`)
	if _, err := r.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	want(`
# HELP msgkit_campaign_messages_pending Campaign messages queued by the tasks not finished and not yet handed to their channel.
# TYPE msgkit_campaign_messages_pending gauge
msgkit_campaign_messages_pending 0
# HELP msgkit_campaign_messages_total Campaign messages handed to their channel, by outcome (sent or failed).
# TYPE msgkit_campaign_messages_total counter
msgkit_campaign_messages_total{outcome="failed"} 1
msgkit_campaign_messages_total{outcome="sent"} 3
# HELP msgkit_campaign_tasks Campaign tasks not finished, by state (pending or running).
# TYPE msgkit_campaign_tasks gauge
msgkit_campaign_tasks{state="pending"} 0
msgkit_campaign_tasks{state="running"} 0
`)
}

// backlogFails is a run store whose Backlog fails.
type backlogFails struct{ campaign.RunStore }

func (backlogFails) Backlog(context.Context) (campaign.Backlog, error) {
	return campaign.Backlog{}, errors.New("the database is down")
}

// A store that cannot tell its backlog fails the scrape's gauges with
// its error; the counter is still gathered.
func TestRunnerMetricsStoreFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	campaign.NewRunner(backlogFails{memstore.New().Campaigns()}, nil, nil, campaign.RunnerOptions{Metrics: reg})
	mfs, err := reg.Gather()
	if err == nil || !strings.Contains(err.Error(), "the database is down") {
		t.Errorf("Gather: %v, want the store's error", err)
	}
	if len(mfs) != 1 || mfs[0].GetName() != "msgkit_campaign_messages_total" {
		t.Errorf("gathered %v, want the counter only", mfs)
	}
}
