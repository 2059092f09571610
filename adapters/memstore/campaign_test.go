package memstore_test

import (
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign/campaigntest"
)

func TestCampaignContract(t *testing.T) {
	campaigntest.Run(t, func(t *testing.T) campaigntest.Stores {
		db := memstore.New()
		return campaigntest.Stores{RunnerStores: campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()}}
	})
}
