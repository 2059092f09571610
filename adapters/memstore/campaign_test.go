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
