package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"golang.org/x/time/rate"
)

// campaignAccounts says which bulk SMS account pays for each tenant's
// sms campaigns: the bootstrap section campaignAccounts
// ({"<serviceUuid>": "<bulk SMS username>"}) and the demo fill it. It is
// kept in memory: give it in the bootstrap file at every start.
type campaignAccounts struct {
	mu sync.RWMutex
	m  map[msgkit.ServiceUUID]string
}

func (a *campaignAccounts) set(tenant msgkit.ServiceUUID, account string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m[tenant] = account
}

func (a *campaignAccounts) account(tenant msgkit.ServiceUUID) (string, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	acct, ok := a.m[tenant]
	return acct, ok
}

// campaignPage is how many recipients a runner resolves, queues and
// sends at a time: its lease is renewed once a page (see campaignPace).
const campaignPage = 500

// campaignRuns sends the campaigns: a Runner over the campaign and
// contacts stores, sms campaigns through the bulk SMS gateway charged to
// the tenant's account (campaignAccounts), the other channels through
// webhook (-campaign-webhook; without it their messages fail, naming the
// channel), with the lease and pace of -campaign-lease and -campaign-rate
// (zero: the runner's defaults). Its demo makes the demo tenant's
// campaigns pay with the demo bulk SMS account, so it comes after the bulk
// SMS family. An accept-only replica runs no runner.
func campaignRuns(store campaign.RunStore, audience campaign.Audience, gateway campaign.SMSGateway, webhook campaign.Sender, cfg config, logger *slog.Logger) family {
	accounts := &campaignAccounts{m: map[msgkit.ServiceUUID]string{}}
	senders := map[campaign.Channel]campaign.Sender{campaign.SMS: campaign.SMSSender{Gateway: gateway, Account: accounts.account}}
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
		sections: []section{{"campaignAccounts", func(_ context.Context, raw json.RawMessage, _ secretSource) (int, error) {
			var m map[msgkit.ServiceUUID]string
			if err := json.Unmarshal(raw, &m); err != nil {
				return 0, fmt.Errorf("campaignAccounts: an object of serviceUuid to bulk SMS username: %w", err)
			}
			for tenant, acct := range m {
				accounts.set(tenant, acct)
			}
			return len(m), nil
		}}},
		demo: func(_ context.Context, d *demoCredentials) error {
			accounts.set(d.Service, d.SMSUser)
			return nil
		},
	}
	if !cfg.smsSend {
		f.jobs = nil
	}
	return f
}
