package pgstore

import (
	"testing"

	"github.com/msgkit/msgkit/campaign/campaigntest"
)

// The campaign contract on pgstore, each runner of the runner suite's
// two-runner and crash tests on a replica (a DB of its own over one
// schema).
func TestCampaignContract(t *testing.T) {
	t.Parallel()
	campaigntest.Run(t, func(t *testing.T) campaigntest.Stores {
		dsn, schema := newTestSchema(t)
		open := func() campaigntest.RunnerStores {
			db := openTestDB(t, dsn, Options{Schema: schema})
			return campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()}
		}
		return campaigntest.Stores{RunnerStores: open(), Reopen: open}
	})
}
