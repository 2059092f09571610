package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/campaign/campaigntest"
)

func TestCampaignRunStoreContract(t *testing.T) {
	t.Parallel()
	campaigntest.RunRunStoreTests(t, func(t *testing.T) campaigntest.RunStores {
		s := newTestDB(t).Campaigns()
		return campaigntest.RunStores{Campaigns: s, Runs: s}
	})
}

func TestCampaignAudienceContract(t *testing.T) {
	t.Parallel()
	campaigntest.RunAudienceTests(t, func(t *testing.T) campaigntest.AudienceStores {
		s := newTestDB(t).Contacts()
		return campaigntest.AudienceStores{Contacts: s, Audience: s}
	})
}
