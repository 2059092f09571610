package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

// ClaimDue makes the task of every due occurrence and advances its
// campaign, under the lock.
func (s *CampaignStore) ClaimDue(_ context.Context, now time.Time, limit int, advance func(c *campaign.Campaign)) ([]campaign.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type due struct {
		tenant msgkit.ServiceUUID
		id     string
		next   time.Time
	}
	var all []due
	for tenant, cs := range s.tenants {
		for id, c := range cs {
			if c.Status == campaign.Active && !c.Next.IsZero() && !c.Next.After(now) {
				all = append(all, due{tenant, id, c.Next})
			}
		}
	}
	slices.SortFunc(all, func(a, b due) int { return cmp.Or(a.next.Compare(b.next), cmp.Compare(a.id, b.id)) })
	var made []campaign.Task
	for _, d := range all[:min(len(all), max(limit, 0))] {
		c := cloneCampaign(s.tenants[d.tenant][d.id])
		key := runKey{d.tenant, d.id, c.Next}
		if _, ok := s.byRun[key]; !ok {
			s.lastID++
			t := &campaignTask{
				Task:     campaign.Task{ID: s.lastID, Tenant: d.tenant, Campaign: d.id, ScheduledAt: c.Next, State: campaign.TaskPending, Created: storeTime(now)},
				messages: map[string]*campaign.Message{}, addresses: map[string]bool{}, queued: map[string]bool{},
			}
			s.tasks[t.ID], s.byRun[key] = t, t.ID
			made = append(made, t.Task)
		}
		advance(&c)
		c.UUID = d.id
		s.tenants[d.tenant][d.id] = cloneCampaign(c)
	}
	return made, nil
}

// ClaimTasks leases tasks whose lease has ended.
func (s *CampaignStore) ClaimTasks(_ context.Context, now time.Time, lease time.Duration, limit int) ([]campaign.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var free []*campaignTask
	for _, t := range s.tasks {
		if (t.State == campaign.TaskPending || t.State == campaign.TaskRunning) && !t.LeaseUntil.After(now) {
			free = append(free, t)
		}
	}
	slices.SortFunc(free, func(a, b *campaignTask) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	out := make([]campaign.Task, 0, min(len(free), max(limit, 0)))
	for _, t := range free[:min(len(free), max(limit, 0))] {
		t.LeaseUntil = storeTime(now.Add(lease))
		out = append(out, t.Task)
	}
	return out, nil
}

// heldLocked is the stored task of t, when t's lease is still its lease.
func (s *CampaignStore) heldLocked(t campaign.Task) (*campaignTask, error) {
	st, ok := s.tasks[t.ID]
	if !ok || !st.LeaseUntil.Equal(storeTime(t.LeaseUntil)) || st.State == campaign.TaskDone || st.State == campaign.TaskStopped {
		return nil, msgkit.Errorf(msgkit.Conflict, campaign.CodeLeaseLost, "task %d is held by another runner", t.ID)
	}
	return st, nil
}

// QueueMessages stores new messages of a held task and its progress.
func (s *CampaignStore) QueueMessages(_ context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.heldLocked(t)
	if err != nil {
		return campaign.Task{}, err
	}
	for _, m := range msgs {
		if st.messages[m.Contact] != nil || st.addresses[m.Address] {
			continue
		}
		m.Task, m.Status, m.Updated = t.ID, campaign.MessageQueued, storeTime(m.Updated)
		st.messages[m.Contact], st.addresses[m.Address], st.queued[m.Contact] = &m, true, true
		st.Recipients++
	}
	st.Cursor, st.Exhausted, st.State = t.Cursor, t.Exhausted, campaign.TaskRunning
	st.LeaseUntil = storeTime(until)
	return st.Task, nil
}

// QueuedMessages lists a task's queued messages by contact.
func (s *CampaignStore) QueuedMessages(_ context.Context, task int64, limit int) ([]campaign.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, ok := s.tasks[task]
	if !ok {
		return nil, nil
	}
	contacts := make([]string, 0, len(st.queued))
	for c := range st.queued {
		contacts = append(contacts, c)
	}
	slices.Sort(contacts)
	out := make([]campaign.Message, 0, min(len(contacts), max(limit, 0)))
	for _, c := range contacts[:min(len(contacts), max(limit, 0))] {
		out = append(out, *st.messages[c])
	}
	return out, nil
}

// FinishMessages records outcomes of a held task's queued messages.
func (s *CampaignStore) FinishMessages(_ context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.heldLocked(t)
	if err != nil {
		return campaign.Task{}, err
	}
	for _, m := range msgs {
		cur := st.messages[m.Contact]
		if cur == nil || cur.Status != campaign.MessageQueued || m.Status == campaign.MessageQueued {
			continue
		}
		cur.Status, cur.MsgID, cur.Error, cur.Updated = m.Status, m.MsgID, m.Error, storeTime(m.Updated)
		delete(st.queued, m.Contact)
		if m.Status == campaign.MessageSent {
			st.Sent++
		} else {
			st.Failed++
		}
	}
	st.LeaseUntil = storeTime(until)
	return st.Task, nil
}

// EndTask ends a held task, or gives it back until at.
func (s *CampaignStore) EndTask(_ context.Context, t campaign.Task, state campaign.TaskState, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.heldLocked(t)
	if err != nil {
		return err
	}
	switch state {
	case campaign.TaskDone, campaign.TaskStopped:
		st.State, st.Finished, st.LeaseUntil = state, storeTime(at), time.Time{}
	default:
		st.LeaseUntil, st.Attempts = storeTime(at), t.Attempts
	}
	return nil
}

// Tasks lists a campaign's tasks by scheduled time.
func (s *CampaignStore) Tasks(_ context.Context, tenant msgkit.ServiceUUID, id string) ([]campaign.Task, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.tenants[tenant][id]; !ok {
		return nil, campaign.NotFound(id)
	}
	out := []campaign.Task{}
	for _, t := range s.tasks {
		if t.Tenant == tenant && t.Campaign == id {
			out = append(out, t.Task)
		}
	}
	slices.SortFunc(out, func(a, b campaign.Task) int {
		return cmp.Or(a.ScheduledAt.Compare(b.ScheduledAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Messages lists a campaign's messages by task and contact.
func (s *CampaignStore) Messages(ctx context.Context, tenant msgkit.ServiceUUID, id string, limit int) ([]campaign.Message, error) {
	tasks, err := s.Tasks(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []campaign.Message{}
	for _, t := range tasks {
		ms := make([]campaign.Message, 0, len(s.tasks[t.ID].messages))
		for _, m := range s.tasks[t.ID].messages {
			ms = append(ms, *m)
		}
		slices.SortFunc(ms, func(a, b campaign.Message) int { return strings.Compare(a.Contact, b.Contact) })
		out = append(out, ms[:min(len(ms), max(limit-len(out), 0))]...)
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// Backlog counts the tasks not finished and their queued messages.
func (s *CampaignStore) Backlog(_ context.Context) (campaign.Backlog, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var b campaign.Backlog
	for _, t := range s.tasks {
		switch t.State {
		case campaign.TaskPending:
			b.Pending++
		case campaign.TaskRunning:
			b.Running++
		default:
			continue
		}
		b.Messages += t.Recipients - t.Sent - t.Failed
	}
	return b, nil
}
