package memstore

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

// CampaignStore keeps the tenants' campaigns, their payers and their
// runs: tasks and messages, under the same lock.
type CampaignStore struct {
	mu      sync.RWMutex
	tenants map[msgkit.ServiceUUID]map[string]campaign.Campaign
	payers  map[msgkit.ServiceUUID]string
	tasks   map[int64]*campaignTask
	byRun   map[runKey]int64 // a campaign's task of an occurrence
	lastID  int64
}

// campaignTask is a task with its messages.
type campaignTask struct {
	campaign.Task
	messages  map[string]*campaign.Message // by contact
	addresses map[string]bool
	queued    map[string]bool // contacts whose message is queued
}

type runKey struct {
	tenant   msgkit.ServiceUUID
	campaign string
	at       time.Time
}

var (
	_ campaign.Store    = (*CampaignStore)(nil)
	_ campaign.RunStore = (*CampaignStore)(nil)
)

func newCampaignStore() *CampaignStore {
	return &CampaignStore{tenants: map[msgkit.ServiceUUID]map[string]campaign.Campaign{}, payers: map[msgkit.ServiceUUID]string{}, tasks: map[int64]*campaignTask{}, byRun: map[runKey]int64{}}
}

// cloneCampaign copies c with its times as stored.
func cloneCampaign(c campaign.Campaign) campaign.Campaign {
	c.Lists = slices.Clone(c.Lists)
	c.Created, c.Updated, c.Next, c.Last = storeTime(c.Created), storeTime(c.Updated), storeTime(c.Next), storeTime(c.Last)
	return c
}

// Create stores a campaign.
func (s *CampaignStore) Create(_ context.Context, tenant msgkit.ServiceUUID, c campaign.Campaign) (campaign.Campaign, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenants[tenant]
	if t == nil {
		t = map[string]campaign.Campaign{}
		s.tenants[tenant] = t
	}
	if _, ok := t[c.UUID]; ok {
		return campaign.Campaign{}, campaign.Exists(c.UUID)
	}
	c = cloneCampaign(c)
	t[c.UUID] = c
	return cloneCampaign(c), nil
}

// Campaign returns a campaign of the tenant.
func (s *CampaignStore) Campaign(_ context.Context, tenant msgkit.ServiceUUID, id string) (campaign.Campaign, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.tenants[tenant][id]
	if !ok {
		return campaign.Campaign{}, campaign.NotFound(id)
	}
	return cloneCampaign(c), nil
}

// Campaigns lists the tenant's campaigns.
func (s *CampaignStore) Campaigns(_ context.Context, tenant msgkit.ServiceUUID, q msgkit.ListQuery) (msgkit.Page[campaign.Campaign], error) {
	s.mu.RLock()
	cs := make([]campaign.Campaign, 0, len(s.tenants[tenant]))
	for _, c := range s.tenants[tenant] {
		cs = append(cs, cloneCampaign(c))
	}
	s.mu.RUnlock()
	slices.SortFunc(cs, func(a, b campaign.Campaign) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.UUID, b.UUID))
	})
	return msgkit.Apply(cs, q, campaignAttr)
}

// campaignAttr is the getter of campaign.ListSpec()'s attributes.
func campaignAttr(c campaign.Campaign, attr string) (msgkit.Value, bool) {
	switch attr {
	case "name":
		return msgkit.StringValue(c.Name), true
	case "status":
		return msgkit.StringValue(string(c.Status)), true
	case "sending_type":
		return msgkit.StringValue(string(c.Channel)), true
	case "schedule_type":
		return msgkit.StringValue(string(c.Schedule.Type)), true
	case "created_dt":
		return msgkit.TimeValue(c.Created), true
	case "updated_dt":
		return msgkit.TimeValue(c.Updated), true
	case "next_dt":
		return optionalTime(c.Next), true
	case "last_dt":
		return optionalTime(c.Last), true
	}
	return msgkit.Value{}, false
}

// Update applies fn to a campaign under the lock.
func (s *CampaignStore) Update(_ context.Context, tenant msgkit.ServiceUUID, id string, fn func(c *campaign.Campaign) error) (campaign.Campaign, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.tenants[tenant][id]
	if !ok {
		return campaign.Campaign{}, campaign.NotFound(id)
	}
	c := cloneCampaign(cur)
	if err := fn(&c); err != nil {
		return campaign.Campaign{}, err
	}
	c.UUID = cur.UUID
	c = cloneCampaign(c)
	s.tenants[tenant][id] = c
	return cloneCampaign(c), nil
}

// Delete deletes a campaign.
func (s *CampaignStore) Delete(_ context.Context, tenant msgkit.ServiceUUID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tenants[tenant][id]; !ok {
		return campaign.NotFound(id)
	}
	delete(s.tenants[tenant], id)
	return nil
}

// optionalTime is t, or null for the zero time.
func optionalTime(t time.Time) msgkit.Value {
	if t.IsZero() {
		return msgkit.Null()
	}
	return msgkit.TimeValue(t)
}

// SetPayer keeps account as the tenant's payer; "" removes it.
func (s *CampaignStore) SetPayer(_ context.Context, tenant msgkit.ServiceUUID, account string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if account == "" {
		delete(s.payers, tenant)
		return nil
	}
	s.payers[tenant] = account
	return nil
}

// Payer returns the tenant's payer, "" when it has none.
func (s *CampaignStore) Payer(_ context.Context, tenant msgkit.ServiceUUID) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.payers[tenant], nil
}
