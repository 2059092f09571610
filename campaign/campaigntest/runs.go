package campaigntest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// runStores are a campaign store and its run store, over one database.
type runStores struct {
	Campaigns campaign.Store
	Runs      campaign.RunStore
}

// runRunStoreTests runs the contract of campaign.RunStore against stores
// newStores makes, each empty.
func runRunStoreTests(t *testing.T, newStores func(t *testing.T) runStores) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, runStores)
	}{
		{"claim due occurrences once", testClaimDue},
		{"claim due concurrently", testClaimDueConcurrent},
		{"leases", testLeases},
		{"messages", testMessages},
		{"end and give back", testEndTask},
		{"backlog", testBacklog},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStores(t)) })
	}
}

// due stores an active sms campaign whose next run is at when.
func due(t *testing.T, s runStores, tenant msgkit.ServiceUUID, id string, status campaign.Status, when time.Time) campaign.Campaign {
	t.Helper()
	c := Sample(t, id, 0, campaign.SMS, campaign.Active)
	c.Status, c.Next, c.NextSeq = status, when, 1
	if status != campaign.Active {
		c.Next, c.NextSeq = time.Time{}, 0
	}
	if _, err := s.Campaigns.Create(t.Context(), tenant, c); err != nil {
		t.Fatal(err)
	}
	return c
}

func testClaimDue(t *testing.T, s runStores) {
	ctx := t.Context()
	now := at.Add(time.Hour)
	a := due(t, s, tenantA, "c1000000-0000-4000-8000-000000000001", campaign.Active, at)
	due(t, s, tenantA, "c1000000-0000-4000-8000-000000000002", campaign.Active, now.Add(time.Second)) // not yet
	due(t, s, tenantA, "c1000000-0000-4000-8000-000000000003", campaign.Stopped, at)
	b := due(t, s, tenantB, "c1000000-0000-4000-8000-000000000004", campaign.Active, at.Add(time.Minute))
	advanced := 0
	advance := func(c *campaign.Campaign) { advanced++; c.Ran(now) }
	tasks, err := s.Runs.ClaimDue(ctx, now, 10, advance)
	if err != nil || len(tasks) != 2 || advanced != 2 {
		t.Fatalf("ClaimDue = %+v, %v (advanced %d)", tasks, err, advanced)
	}
	slices.SortFunc(tasks, func(x, y campaign.Task) int { return x.ScheduledAt.Compare(y.ScheduledAt) })
	if tk := tasks[0]; tk.Tenant != tenantA || tk.Campaign != a.UUID || !tk.ScheduledAt.Equal(at) || tk.State != campaign.TaskPending || tk.ID == 0 {
		t.Errorf("task %+v", tk)
	}
	if tk := tasks[1]; tk.Tenant != tenantB || tk.Campaign != b.UUID {
		t.Errorf("task %+v", tk)
	}
	got, _ := s.Campaigns.Campaign(ctx, tenantA, a.UUID)
	if !got.Last.Equal(at) || !got.Next.After(now) || got.LastSeq != 1 {
		t.Errorf("the advanced campaign: last %v #%d next %v", got.Last, got.LastSeq, got.Next)
	}
	if tasks, err = s.Runs.ClaimDue(ctx, now, 10, advance); err != nil || len(tasks) != 0 {
		t.Errorf("claiming again: %+v, %v", tasks, err)
	}
	// An occurrence whose task exists is not made again, even when the
	// campaign is due for it again (a replica that read it before).
	if _, err := s.Campaigns.Update(ctx, tenantA, a.UUID, func(c *campaign.Campaign) error { c.Next, c.NextSeq = at, 1; return nil }); err != nil {
		t.Fatal(err)
	}
	if tasks, _ = s.Runs.ClaimDue(ctx, now, 10, advance); len(tasks) != 0 {
		t.Errorf("a second task for one occurrence: %+v", tasks)
	}
	list, err := s.Runs.Tasks(ctx, tenantA, a.UUID)
	if err != nil || len(list) != 1 {
		t.Errorf("Tasks = %+v, %v", list, err)
	}
	if _, err := s.Runs.Tasks(ctx, tenantB, a.UUID); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("another tenant's tasks: %v", err)
	}
	if tasks, _ := s.Runs.ClaimDue(ctx, now.Add(time.Hour), 0, advance); len(tasks) != 0 {
		t.Errorf("a limit of 0 claimed %d", len(tasks))
	}
}

func testClaimDueConcurrent(t *testing.T, s runStores) {
	ctx := t.Context()
	for i := range 5 {
		due(t, s, tenantA, fmt.Sprintf("c2000000-0000-4000-8000-%012d", i), campaign.Active, at)
	}
	now := at.Add(time.Minute)
	var mu sync.Mutex
	var all []campaign.Task
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			tasks, err := s.Runs.ClaimDue(ctx, now, 10, func(c *campaign.Campaign) { c.Ran(now) })
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			all = append(all, tasks...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(all) != 5 {
		t.Errorf("%d tasks for 5 occurrences claimed by 4 at once", len(all))
	}
}

// claimed is a campaign's task claimed at now.
func claimed(t *testing.T, s runStores, now time.Time) campaign.Task {
	t.Helper()
	due(t, s, tenantA, "c3000000-0000-4000-8000-000000000001", campaign.Active, at)
	if _, err := s.Runs.ClaimDue(t.Context(), now, 10, func(c *campaign.Campaign) { c.Ran(now) }); err != nil {
		t.Fatal(err)
	}
	tasks, err := s.Runs.ClaimTasks(t.Context(), now, time.Minute, 10)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("ClaimTasks = %+v, %v", tasks, err)
	}
	return tasks[0]
}

func wantLeaseLost(t *testing.T, err error, what string) {
	t.Helper()
	if msgkit.KindOf(err) != msgkit.Conflict || msgkit.CodeOf(err) != campaign.CodeLeaseLost {
		t.Errorf("%s: %v, want Conflict %s", what, err, campaign.CodeLeaseLost)
	}
}

func testLeases(t *testing.T, s runStores) {
	ctx := t.Context()
	now := at.Add(time.Hour)
	tk := claimed(t, s, now)
	if !tk.LeaseUntil.Equal(now.Add(time.Minute)) {
		t.Errorf("lease until %v", tk.LeaseUntil)
	}
	if tasks, _ := s.Runs.ClaimTasks(ctx, now.Add(59*time.Second), time.Minute, 10); len(tasks) != 0 {
		t.Errorf("claimed while leased: %+v", tasks)
	}
	later := now.Add(time.Minute)
	taken, err := s.Runs.ClaimTasks(ctx, later, time.Minute, 10)
	if err != nil || len(taken) != 1 || taken[0].ID != tk.ID || !taken[0].LeaseUntil.Equal(later.Add(time.Minute)) {
		t.Fatalf("taking over after the lease: %+v, %v", taken, err)
	}
	_, err = s.Runs.QueueMessages(ctx, tk, nil, later.Add(time.Minute))
	wantLeaseLost(t, err, "queueing under a lost lease")
	_, err = s.Runs.FinishMessages(ctx, tk, nil, later.Add(time.Minute))
	wantLeaseLost(t, err, "finishing under a lost lease")
	wantLeaseLost(t, s.Runs.EndTask(ctx, tk, campaign.TaskDone, later), "ending under a lost lease")
	got, err := s.Runs.QueueMessages(ctx, taken[0], nil, later.Add(2*time.Minute))
	if err != nil || !got.LeaseUntil.Equal(later.Add(2*time.Minute)) || got.State != campaign.TaskRunning {
		t.Errorf("the new holder renews: %+v, %v", got, err)
	}
}

func testMessages(t *testing.T, s runStores) {
	ctx := t.Context()
	now := at.Add(time.Hour)
	tk := claimed(t, s, now)
	msg := func(contact, addr string) campaign.Message {
		return campaign.Message{Task: tk.ID, Contact: contact, Address: addr, Status: campaign.MessageQueued, Updated: now}
	}
	tk.Cursor, tk.Exhausted, tk.State = "cursor-1", false, campaign.TaskRunning
	got, err := s.Runs.QueueMessages(ctx, tk, []campaign.Message{
		msg("b0000000-0000-4000-8000-000000000002", "+38640000002"), msg("b0000000-0000-4000-8000-000000000001", "+38640000001"),
		msg("b0000000-0000-4000-8000-000000000003", "+38640000001"), // the same address
	}, now.Add(time.Minute))
	if err != nil || got.Recipients != 2 || got.Cursor != "cursor-1" || got.Exhausted {
		t.Fatalf("QueueMessages = %+v, %v", got, err)
	}
	tk = got
	tk.Cursor, tk.Exhausted = "cursor-2", true
	if tk, err = s.Runs.QueueMessages(ctx, tk, []campaign.Message{
		msg("b0000000-0000-4000-8000-000000000001", "+38640000099"), // the same contact
		msg("b0000000-0000-4000-8000-000000000004", "+38640000004"),
	}, now.Add(time.Minute)); err != nil || tk.Recipients != 3 || !tk.Exhausted || tk.Cursor != "cursor-2" {
		t.Fatalf("a second page: %+v, %v", tk, err)
	}
	queued, err := s.Runs.QueuedMessages(ctx, tk.ID, 2)
	if err != nil || len(queued) != 2 || queued[0].Contact != "b0000000-0000-4000-8000-000000000001" || queued[0].Address != "+38640000001" ||
		queued[1].Contact != "b0000000-0000-4000-8000-000000000002" {
		t.Fatalf("QueuedMessages = %+v, %v", queued, err)
	}
	queued[0].Status, queued[0].MsgID = campaign.MessageSent, "msg-1"
	queued[1].Status, queued[1].Error = campaign.MessageFailed, "no route"
	if tk, err = s.Runs.FinishMessages(ctx, tk, queued, now.Add(time.Minute)); err != nil || tk.Sent != 1 || tk.Failed != 1 {
		t.Fatalf("FinishMessages = %+v, %v", tk, err)
	}
	if tk, err = s.Runs.FinishMessages(ctx, tk, queued, now.Add(time.Minute)); err != nil || tk.Sent != 1 || tk.Failed != 1 {
		t.Errorf("finishing the same messages again counts them again: %+v, %v", tk, err)
	}
	if left, _ := s.Runs.QueuedMessages(ctx, tk.ID, 10); len(left) != 1 || left[0].Contact != "b0000000-0000-4000-8000-000000000004" {
		t.Errorf("queued after finishing two: %+v", left)
	}
	all, err := s.Runs.Messages(ctx, tenantA, tk.Campaign, 10)
	if err != nil || len(all) != 3 || all[0].MsgID != "msg-1" || all[0].Status != campaign.MessageSent || all[1].Error != "no route" || all[2].Status != campaign.MessageQueued {
		t.Errorf("Messages = %+v, %v", all, err)
	}
	if few, _ := s.Runs.Messages(ctx, tenantA, tk.Campaign, 2); len(few) != 2 {
		t.Errorf("Messages with a limit of 2: %d", len(few))
	}
	if _, err := s.Runs.Messages(ctx, tenantB, tk.Campaign, 10); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("another tenant's messages: %v", err)
	}
}

func testEndTask(t *testing.T, s runStores) {
	ctx := t.Context()
	now := at.Add(time.Hour)
	tk := claimed(t, s, now)
	tk.Attempts = 3
	if err := s.Runs.EndTask(ctx, tk, campaign.TaskRunning, now.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if tasks, _ := s.Runs.ClaimTasks(ctx, now.Add(9*time.Minute), time.Minute, 10); len(tasks) != 0 {
		t.Errorf("a task given back was claimed before its time: %+v", tasks)
	}
	tasks, err := s.Runs.ClaimTasks(ctx, now.Add(10*time.Minute), time.Minute, 10)
	if err != nil || len(tasks) != 1 || tasks[0].Attempts != 3 {
		t.Fatalf("the task given back: %+v, %v", tasks, err)
	}
	end := now.Add(11 * time.Minute)
	if err := s.Runs.EndTask(ctx, tasks[0], campaign.TaskDone, end); err != nil {
		t.Fatal(err)
	}
	if tasks, _ := s.Runs.ClaimTasks(ctx, end.Add(time.Hour), time.Minute, 10); len(tasks) != 0 {
		t.Errorf("a done task was claimed: %+v", tasks)
	}
	list, _ := s.Runs.Tasks(ctx, tenantA, tk.Campaign)
	if len(list) != 1 || list[0].State != campaign.TaskDone || !list[0].Finished.Equal(end) || !list[0].LeaseUntil.IsZero() {
		t.Errorf("the done task: %+v", list)
	}
	wantLeaseLost(t, s.Runs.EndTask(ctx, tasks[0], campaign.TaskStopped, end), "ending a done task")
}

// testBacklog follows the backlog through two tasks' lives: pending,
// running with messages queued, some finished, one stopped with messages
// left queued (no longer counted).
func testBacklog(t *testing.T, s runStores) {
	ctx := t.Context()
	now := at.Add(time.Hour)
	backlog := func(want campaign.Backlog, when string) {
		t.Helper()
		if got, err := s.Runs.Backlog(ctx); err != nil || got != want {
			t.Errorf("%s: Backlog = %+v, %v; want %+v", when, got, err, want)
		}
	}
	backlog(campaign.Backlog{}, "empty")
	due(t, s, tenantA, "c4000000-0000-4000-8000-000000000001", campaign.Active, at)
	due(t, s, tenantB, "c4000000-0000-4000-8000-000000000002", campaign.Active, at)
	if _, err := s.Runs.ClaimDue(ctx, now, 10, func(c *campaign.Campaign) { c.Ran(now) }); err != nil {
		t.Fatal(err)
	}
	backlog(campaign.Backlog{Pending: 2}, "two tasks made")
	tasks, err := s.Runs.ClaimTasks(ctx, now, time.Minute, 10)
	if err != nil || len(tasks) != 2 {
		t.Fatalf("ClaimTasks = %+v, %v", tasks, err)
	}
	backlog(campaign.Backlog{Pending: 2}, "two tasks leased, none queued")
	for i, tk := range tasks {
		var msgs []campaign.Message
		for j := range 3 + i {
			msgs = append(msgs, campaign.Message{Task: tk.ID, Contact: fmt.Sprintf("b4000000-0000-4000-8000-%012d", j),
				Address: fmt.Sprintf("+3864000%04d", j), Status: campaign.MessageQueued, Updated: now})
		}
		tk.State = campaign.TaskRunning
		if tasks[i], err = s.Runs.QueueMessages(ctx, tk, msgs, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	backlog(campaign.Backlog{Running: 2, Messages: 7}, "3 and 4 messages queued")
	queued, err := s.Runs.QueuedMessages(ctx, tasks[0].ID, 2)
	if err != nil || len(queued) != 2 {
		t.Fatalf("QueuedMessages = %+v, %v", queued, err)
	}
	queued[0].Status, queued[0].MsgID = campaign.MessageSent, "msg-1"
	queued[1].Status, queued[1].Error = campaign.MessageFailed, "no route"
	if tasks[0], err = s.Runs.FinishMessages(ctx, tasks[0], queued, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	backlog(campaign.Backlog{Running: 2, Messages: 5}, "one sent, one failed")
	if err := s.Runs.EndTask(ctx, tasks[1], campaign.TaskStopped, now); err != nil {
		t.Fatal(err)
	}
	backlog(campaign.Backlog{Running: 1, Messages: 1}, "the task of 4 stopped")
	if err := s.Runs.EndTask(ctx, tasks[0], campaign.TaskDone, now); err != nil {
		t.Fatal(err)
	}
	backlog(campaign.Backlog{}, "both ended")
}

// audienceStores are a contacts store and its Audience.
type audienceStores struct {
	Contacts contacts.Store
	Audience campaign.Audience
}

// runAudienceTests runs the contract of campaign.Audience against stores
// newStores makes, each empty: every channel's rule (campaign.Address),
// lists, the segmentation query, paging.
func runAudienceTests(t *testing.T, newStores func(t *testing.T) audienceStores) {
	s := newStores(t)
	ctx := t.Context()
	lists := []string{"a1000000-0000-4000-8000-000000000001", "a1000000-0000-4000-8000-000000000002", "a1000000-0000-4000-8000-000000000003"}
	for _, l := range lists {
		if _, err := s.Contacts.CreateList(ctx, tenantA, contacts.List{UUID: l, Name: l[:8] + l[35:], Status: contacts.ListActive, Created: at, Updated: at}); err != nil {
			t.Fatal(err)
		}
	}
	var all []contacts.Contact
	opts := []string{"in", "out", ""}
	cities := []string{"Ljubljana", "Maribor"}
	for i := range 60 {
		c := contacts.Contact{UUID: fmt.Sprintf("e0000000-0000-4000-8000-%012d", i), Created: at.Add(time.Duration(i%7) * time.Second)}
		c.Updated = c.Created
		list, city := lists[i%3], cities[i%2]
		in := contacts.Input{ListUUID: &list, Values: map[string]*string{"city": &city}}
		if o := opts[i%3]; o != "" {
			in.OptStatus = &o
		}
		if i%4 != 0 {
			mobile := fmt.Sprintf("+3864%07d", i%23) // some numbers repeat
			in.Values["mobile"] = &mobile
		}
		if i%5 != 0 {
			email := fmt.Sprintf("u%d@example.com", i)
			in.Values["email"] = &email
		}
		if err := contacts.Fill(&c, in, true); err != nil {
			t.Fatal(err)
		}
		c.OptStatusWebpush = contacts.OptStatus(opts[(i/2)%3])
		c.OptStatusWhatsApp = contacts.OptStatus(opts[(i/4)%3])
		if i%6 == 1 {
			c.Telegram = contacts.Channel{Identifier: fmt.Sprintf("@u%d", i), OptStatus: contacts.OptStatus(opts[(i/6)%2])}
		}
		if i%11 == 3 {
			c.Member = contacts.Unsubscribed
		}
		stored, err := s.Contacts.CreateContact(ctx, tenantA, c)
		if err != nil {
			t.Fatal(err)
		}
		if i%13 == 5 {
			if err := s.Contacts.DeleteContact(ctx, tenantA, c.UUID, false, at.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			stored.Deleted = at.Add(time.Hour)
		}
		all = append(all, stored)
	}
	q, err := segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range campaign.Channels() {
		for _, sel := range []campaign.Selection{
			{Lists: lists, Channel: ch},
			{Lists: lists[:2], Channel: ch, Query: q},
		} {
			sel.Today = msgkit.DateOf(at)
			want := map[string]string{}
			for i := range all {
				c := &all[i]
				addr, ok := campaign.Address(c, ch)
				if ok && slices.Contains(sel.Lists, c.ListUUID) && (sel.Query == nil || c.Value(segmentation.City) == "Ljubljana") {
					want[c.UUID] = addr
				}
			}
			if len(want) == 0 && sel.Query == nil {
				t.Fatalf("%s: the fixture reaches nobody", ch)
			}
			for _, size := range []int{1, 7, 100} {
				got := map[string]string{}
				after := ""
				for pages := 0; ; pages++ {
					rs, next, err := s.Audience.Recipients(ctx, tenantA, sel, after, size)
					if err != nil {
						t.Fatalf("%s: %v", ch, err)
					}
					for _, r := range rs {
						if _, dup := got[r.Contact]; dup {
							t.Fatalf("%s: %s twice", ch, r.Contact)
						}
						got[r.Contact] = r.Address
					}
					if len(rs) < size {
						break
					}
					if next == "" || pages > 100 {
						t.Fatalf("%s: a full page without a cursor", ch)
					}
					after = next
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s, lists %d, query %v, pages of %d:\n got %v\nwant %v", ch, len(sel.Lists), sel.Query != nil, size, got, want)
				}
			}
		}
	}
	if rs, _, err := s.Audience.Recipients(ctx, tenantB, campaign.Selection{Lists: lists, Channel: campaign.SMS}, "", 10); err != nil || len(rs) != 0 {
		t.Errorf("another tenant's recipients: %v, %v", rs, err)
	}
}
