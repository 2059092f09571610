package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/campaign/campaigntest"
)

func TestCampaignStore(t *testing.T) {
	campaigntest.RunStoreTests(t, func(t *testing.T) campaign.Store { return memstore.New().Campaigns() })
}

func TestCampaignRunStore(t *testing.T) {
	campaigntest.RunRunStoreTests(t, func(t *testing.T) campaigntest.RunStores {
		s := memstore.New().Campaigns()
		return campaigntest.RunStores{Campaigns: s, Runs: s}
	})
}

func TestCampaignAudience(t *testing.T) {
	campaigntest.RunAudienceTests(t, func(t *testing.T) campaigntest.AudienceStores {
		s := memstore.New().Contacts()
		return campaigntest.AudienceStores{Contacts: s, Audience: s}
	})
}

func TestCampaignRunner(t *testing.T) {
	campaigntest.RunRunnerTests(t, func(t *testing.T) (campaigntest.RunnerStores, func() campaigntest.RunnerStores) {
		db := memstore.New()
		stores := campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()}
		return stores, func() campaigntest.RunnerStores { return stores }
	})
}
