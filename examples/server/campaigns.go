package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// campaignPage is how many recipients a runner resolves, queues and
// sends at a time.
const campaignPage = 500

// campaignGateway is what the runs need of the bulk SMS gateway: it takes
// the sms campaigns' messages and knows the payers' throughput, their
// default pace. sms.Gateway is one.
type campaignGateway interface {
	campaign.SMSGateway
	campaign.Throughputs
}

// campaignRuns sends the campaigns: a Runner over the campaign and
// contacts stores, sms campaigns through the bulk SMS gateway charged to
// the tenant's payer (campaign.Service.SetPayer, kept in the store), the
// other channels through webhook (-campaign-webhook; without it their
// messages fail, naming the channel), with the lease of -campaign-lease.
// A tenant's campaigns go at the pace the bootstrap section
// campaignRates gives it, else at its payer's throughput, else at
// -campaign-rate (campaign.Pace). The bootstrap section campaignAccounts
// ({"<serviceUuid>": "<bulk SMS username>"}) sets payers at every start,
// and its demo makes the demo bulk SMS account the demo tenant's payer,
// so it comes after the bulk SMS family. An accept-only replica runs no
// runner (it sets the payers all the same: the store is shared).
func campaignRuns(store campaignStore, audience contactsStore, gateway campaignGateway, webhook campaign.Sender, cfg config, reg prometheus.Registerer, logger *slog.Logger) family {
	svc := campaign.NewService(store, audience, nil, nil)
	senders := map[campaign.Channel]campaign.Sender{campaign.SMS: campaign.SMSSender{Gateway: gateway}}
	if webhook != nil {
		for _, ch := range campaign.Channels() {
			if ch != campaign.SMS {
				senders[ch] = webhook
			}
		}
	}
	rates := &tenantRates{}
	opts := campaign.RunnerOptions{Logger: logger, Page: campaignPage, Lease: cfg.campaignLease,
		Rate: rates.rate, Throughputs: gateway, DefaultRate: rate.Limit(cfg.campaignRate), Metrics: reg}
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
		}}, {"campaignRates", func(_ context.Context, raw json.RawMessage, _ secretSource) (int, error) {
			return rates.load(raw)
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

// tenantRates are the paces the bootstrap file sets for tenants, over
// their payers' throughput and -campaign-rate. They are the server's
// configuration, read at every start, not the store's: each server paces
// what it sends.
type tenantRates struct {
	mu sync.Mutex
	m  map[msgkit.ServiceUUID]rate.Limit
}

// rate is the pace set for tenant, 0 for unpaced; ok false when none is.
func (r *tenantRates) rate(tenant msgkit.ServiceUUID) (rate.Limit, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lim, ok := r.m[tenant]
	return lim, ok
}

// load reads the section campaignRates: an object of serviceUuid to
// messages a second, 0 or "unpaced" for no pacing.
func (r *tenantRates) load(raw json.RawMessage) (int, error) {
	var in map[msgkit.ServiceUUID]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return 0, fmt.Errorf("campaignRates: an object of serviceUuid to messages a second: %w", err)
	}
	m := make(map[msgkit.ServiceUUID]rate.Limit, len(in))
	for _, tenant := range slices.Sorted(maps.Keys(in)) {
		lim, err := campaignRate(in[tenant])
		if err != nil {
			return 0, fmt.Errorf("campaignRates[%s]: %w", tenant, err)
		}
		m[tenant] = lim
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m = m
	return len(m), nil
}

// campaignRate reads one tenant's rate: a number of messages a second
// not below 0, or "unpaced" (0).
func campaignRate(raw json.RawMessage) (rate.Limit, error) {
	var word string
	if json.Unmarshal(raw, &word) == nil {
		if word != "unpaced" {
			return 0, fmt.Errorf(`a number of messages a second or "unpaced", not %q`, word)
		}
		return 0, nil
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil || n < 0 || math.IsInf(n, 0) {
		return 0, fmt.Errorf(`a number of messages a second (0: unpaced) or "unpaced", not %s`, raw)
	}
	return rate.Limit(n), nil
}
