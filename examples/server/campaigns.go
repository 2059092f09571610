package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"golang.org/x/time/rate"
)

// campaignPage is how many recipients a runner resolves, queues and
// sends at a time: its lease is renewed once a page (see campaignPace).
const campaignPage = 500

// campaignRuns sends the campaigns: a Runner over the campaign and
// contacts stores, sms campaigns through the bulk SMS gateway charged to
// the tenant's payer (campaign.Service.SetPayer, kept in the store), the
// other channels through webhook (-campaign-webhook; without it their
// messages fail, naming the channel), with the lease and pace of
// -campaign-lease and -campaign-rate (zero: the runner's defaults). The
// bootstrap section campaignAccounts ({"<serviceUuid>": "<bulk SMS
// username>"}) sets payers at every start, and its demo makes the demo
// bulk SMS account the demo tenant's payer, so it comes after the bulk SMS
// family. An accept-only replica runs no runner (it sets the payers all
// the same: the store is shared).
func campaignRuns(store campaignStore, audience contactsStore, gateway campaign.SMSGateway, webhook campaign.Sender, cfg config, logger *slog.Logger) family {
	svc := campaign.NewService(store, audience, nil, nil)
	senders := map[campaign.Channel]campaign.Sender{campaign.SMS: campaign.SMSSender{Gateway: gateway}}
	if webhook != nil {
		for _, ch := range campaign.Channels() {
			if ch != campaign.SMS {
				senders[ch] = webhook
			}
		}
	}
	opts := campaign.RunnerOptions{Logger: logger, Page: campaignPage, Lease: cfg.campaignLease}
	if cfg.campaignRate > 0 {
		opts.Rate = func(msgkit.ServiceUUID) rate.Limit { return rate.Limit(cfg.campaignRate) }
	}
	runner := campaign.NewRunner(store, audience, senders, opts)
	f := family{
		name: "campaign runs",
		jobs: []func(context.Context){runner.Run},
		sections: []section{{"campaignAccounts", func(ctx context.Context, raw json.RawMessage, _ secretSource) (int, error) {
			var m map[msgkit.ServiceUUID]string
			if err := json.Unmarshal(raw, &m); err != nil {
				return 0, fmt.Errorf("campaignAccounts: an object of serviceUuid to bulk SMS username: %w", err)
			}
			set := 0
			for _, tenant := range slices.Sorted(maps.Keys(m)) {
				if err := svc.SetPayer(ctx, tenant, m[tenant]); err != nil {
					return set, fmt.Errorf("campaignAccounts[%s]: %w", tenant, err)
				}
				set++
			}
			return set, nil
		}}},
		demo: func(ctx context.Context, d *demoCredentials) error {
			return svc.SetPayer(ctx, d.Service, d.SMSUser)
		},
	}
	if !cfg.smsSend {
		f.jobs = nil
	}
	return f
}
