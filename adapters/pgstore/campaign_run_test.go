package pgstore

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/campaign/campaigntest"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/sms"
)

// runStore is a campaign store with the campaigns' runs.
type runStore interface {
	campaign.Store
	campaign.RunStore
}

var _ runStore = (*memstore.CampaignStore)(nil)

// runAt is when the run store tests' campaigns are due.
var runAt = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// The run store's contract, on memstore (the reference) and pgstore side
// by side: each case runs on both with the same expectations.
func TestCampaignRunStore(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		open func(*testing.T) runStore
	}{
		{"memstore", func(*testing.T) runStore { return memstore.New().Campaigns() }},
		{"pgstore", func(t *testing.T) runStore { return newTestDB(t).Campaigns() }},
	}
	for _, c := range []struct {
		name string
		test func(*testing.T, runStore)
	}{
		{"ClaimDue", testClaimDue},
		{"Leases", testLeases},
		{"QueueFinish", testQueueFinish},
		{"EndTask", testEndTask},
		{"Tenants", testRunTenants},
	} {
		for _, s := range stores {
			t.Run(c.name+"/"+s.name, func(t *testing.T) { c.test(t, s.open(t)) })
		}
	}
}

// dueCampaign is an active sms campaign to run now, due at next.
func dueCampaign(t *testing.T, id string, next time.Time) campaign.Campaign {
	c := campaigntest.Sample(t, id, 0, campaign.SMS, campaign.Active)
	c.Schedule, c.Next, c.NextSeq = campaign.Schedule{Type: campaign.Now}, next, 0
	return c
}

// runUUID is the UUID of the run store tests' campaign n.
func runUUID(n int) string { return fmt.Sprintf("c%07d-0000-4000-8000-000000000000", n) }

func mustCreate(t *testing.T, s campaign.Store, tenant msgkit.ServiceUUID, cs ...campaign.Campaign) {
	t.Helper()
	for _, c := range cs {
		if _, err := s.Create(t.Context(), tenant, c); err != nil {
			t.Fatal(err)
		}
	}
}

// ran is the runner's advance at now.
func ran(now time.Time) func(c *campaign.Campaign) { return func(c *campaign.Campaign) { c.Ran(now) } }

// claimDue is ClaimDue that must not fail.
func claimDue(t *testing.T, s campaign.RunStore, now time.Time, limit int) []campaign.Task {
	t.Helper()
	tasks, err := s.ClaimDue(t.Context(), now, limit, ran(now))
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// claimTasks is ClaimTasks that must not fail.
func claimTasks(t *testing.T, s campaign.RunStore, now time.Time, lease time.Duration, limit int) []campaign.Task {
	t.Helper()
	tasks, err := s.ClaimTasks(t.Context(), now, lease, limit)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

func taskIDs(tasks []campaign.Task) []int64 {
	out := make([]int64, len(tasks))
	for i, t := range tasks {
		out[i] = t.ID
	}
	return out
}

func wantLeaseLost(t *testing.T, err error, what string) {
	t.Helper()
	if msgkit.KindOf(err) != msgkit.Conflict || msgkit.CodeOf(err) != campaign.CodeLeaseLost {
		t.Errorf("%s: %v, want Conflict %s", what, err, campaign.CodeLeaseLost)
	}
}

// ClaimDue makes the task of each due occurrence once, oldest first, up
// to the limit, and advances the campaign with it; only active campaigns
// of every tenant whose Next has come.
func testClaimDue(t *testing.T, s runStore) {
	ctx := t.Context()
	a, b, later := dueCampaign(t, runUUID(1), runAt), dueCampaign(t, runUUID(2), runAt.Add(time.Minute)), dueCampaign(t, runUUID(3), runAt.Add(time.Hour))
	draft := campaigntest.Sample(t, runUUID(4), 0, campaign.SMS, campaign.Draft)
	stopped := dueCampaign(t, runUUID(5), runAt)
	stopped.Status = campaign.Stopped
	mustCreate(t, s, campTenant, a, b, later, draft, stopped)
	other := dueCampaign(t, runUUID(6), runAt.Add(30*time.Second))
	mustCreate(t, s, campTenant2, other)

	if got := claimDue(t, s, runAt.Add(-time.Microsecond), 10); len(got) != 0 {
		t.Fatalf("claimed before the time: %+v", got)
	}
	now := runAt.Add(2*time.Minute + 1234*time.Nanosecond)
	got := claimDue(t, s, now, 2)
	want := []campaign.Task{
		{Tenant: campTenant, Campaign: a.UUID, ScheduledAt: runAt, State: campaign.TaskPending, Created: dbTime(now)},
		{Tenant: campTenant2, Campaign: other.UUID, ScheduledAt: other.Next, State: campaign.TaskPending, Created: dbTime(now)},
	}
	if diff := cmp.Diff(want, got, cmpTaskNoID); diff != "" {
		t.Fatalf("the first two due (-want +got):\n%s", diff)
	}
	if got[0].ID == 0 || got[0].ID == got[1].ID {
		t.Errorf("task ids %v", taskIDs(got))
	}
	if got := claimDue(t, s, now, 10); len(got) != 1 || got[0].Campaign != b.UUID {
		t.Fatalf("the third due: %+v", got)
	}
	if got := claimDue(t, s, now, 10); len(got) != 0 {
		t.Fatalf("claimed twice: %+v", got)
	}
	c, err := s.Campaign(ctx, campTenant, a.UUID)
	if err != nil || c.Status != campaign.Finished || !c.Last.Equal(runAt) || !c.Next.IsZero() {
		t.Errorf("after its claim: %+v, %v", c, err)
	}
	// A campaign whose Next comes back to an occurrence it has a task
	// for is advanced, and the occurrence stays one task.
	if _, err := s.Update(ctx, campTenant, a.UUID, func(c *campaign.Campaign) error {
		c.Status, c.Next = campaign.Active, runAt
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := claimDue(t, s, now, 10); len(got) != 0 {
		t.Errorf("a second task of the occurrence: %+v", got)
	}
	if c, _ := s.Campaign(ctx, campTenant, a.UUID); c.Status != campaign.Finished {
		t.Errorf("not advanced: %+v", c)
	}
	if tasks, err := s.Tasks(ctx, campTenant, a.UUID); err != nil || len(tasks) != 1 {
		t.Errorf("tasks %+v, %v", tasks, err)
	}
	if got, err := s.ClaimDue(ctx, runAt.Add(2*time.Hour), 0, ran(now)); err != nil || len(got) != 0 {
		t.Errorf("limit 0: %+v, %v", got, err)
	}
}

var cmpTaskNoID = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ID" }, cmp.Ignore())

// ClaimTasks leases free tasks oldest first; a lease-bound call with a
// lease another claim replaced is Conflict lease_lost.
func testLeases(t *testing.T, s runStore) {
	ctx := t.Context()
	mustCreate(t, s, campTenant, dueCampaign(t, runUUID(1), runAt), dueCampaign(t, runUUID(2), runAt))
	made := claimDue(t, s, runAt, 10)
	if len(made) != 2 {
		t.Fatalf("made %+v", made)
	}
	now := runAt.Add(time.Second)
	first := claimTasks(t, s, now, time.Minute, 1)
	if len(first) != 1 || first[0].ID != made[0].ID || !first[0].LeaseUntil.Equal(now.Add(time.Minute)) {
		t.Fatalf("the first claim: %+v", first)
	}
	if second := claimTasks(t, s, now, time.Minute, 10); !slices.Equal(taskIDs(second), []int64{made[1].ID}) {
		t.Fatalf("the second claim: %+v", second)
	}
	if got := claimTasks(t, s, now.Add(time.Minute-time.Microsecond), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed while leased: %+v", got)
	}
	again := claimTasks(t, s, now.Add(time.Minute), 2*time.Minute, 10)
	if !slices.Equal(taskIDs(again), taskIDs(made)) || !again[0].LeaseUntil.Equal(now.Add(3*time.Minute)) {
		t.Fatalf("claimed again after the leases: %+v", again)
	}
	old := first[0]
	_, err := s.QueueMessages(ctx, old, []campaign.Message{{Contact: "c1", Address: "+38640000001", Updated: now}}, now.Add(time.Hour))
	wantLeaseLost(t, err, "QueueMessages with the old lease")
	_, err = s.FinishMessages(ctx, old, nil, now.Add(time.Hour))
	wantLeaseLost(t, err, "FinishMessages with the old lease")
	wantLeaseLost(t, s.EndTask(ctx, old, campaign.TaskDone, now), "EndTask with the old lease")
	// The lease is compared as stored, to the microsecond.
	held := again[0]
	held.LeaseUntil = held.LeaseUntil.Add(999 * time.Nanosecond)
	if _, err := s.QueueMessages(ctx, held, nil, now.Add(time.Hour)); err != nil {
		t.Errorf("the lease to the microsecond: %v", err)
	}
	if msgs, err := s.Messages(ctx, campTenant, runUUID(1), 10); err != nil || len(msgs) != 0 {
		t.Errorf("a lost lease wrote %+v, %v", msgs, err)
	}
}

// QueueMessages skips messages whose contact or address the task has
// (also earlier in the page) and counts the others; FinishMessages
// records outcomes of queued messages only, the first for a contact.
func testQueueFinish(t *testing.T, s runStore) {
	ctx := t.Context()
	mustCreate(t, s, campTenant, dueCampaign(t, runUUID(1), runAt))
	claimDue(t, s, runAt, 1)
	now := runAt.Add(time.Second)
	task := claimTasks(t, s, now, time.Minute, 1)[0]
	msg := func(contact, addr string) campaign.Message {
		return campaign.Message{Task: task.ID, Contact: contact, Address: addr, Status: campaign.MessageQueued, Updated: now.Add(1500 * time.Nanosecond)}
	}
	task.Cursor, task.State = "page 1", campaign.TaskRunning
	until := now.Add(2 * time.Minute)
	got, err := s.QueueMessages(ctx, task, []campaign.Message{
		msg("c1", "a1"), msg("c2", "a2"), msg("c1", "a3"), msg("c3", "a1"), msg("c4", "a4"), msg("c4", "a5"),
	}, until)
	if err != nil {
		t.Fatal(err)
	}
	if got.Recipients != 3 || got.State != campaign.TaskRunning || got.Cursor != "page 1" || got.Exhausted || !got.LeaseUntil.Equal(until) {
		t.Fatalf("after the first page: %+v", got)
	}
	_, err = s.QueueMessages(ctx, task, nil, until)
	wantLeaseLost(t, err, "QueueMessages with the lease before its renewal")
	task = got
	task.Cursor, task.Exhausted = "page 2", true
	if got, err = s.QueueMessages(ctx, task, []campaign.Message{msg("c2", "a9"), msg("c5", "a2"), msg("c6", "a6")}, until); err != nil {
		t.Fatal(err)
	}
	if got.Recipients != 4 || got.Cursor != "page 2" || !got.Exhausted {
		t.Fatalf("after the second page: %+v", got)
	}
	task = got
	queued, err := s.QueuedMessages(ctx, task.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantQueued := []campaign.Message{msg("c1", "a1"), msg("c2", "a2"), msg("c4", "a4"), msg("c6", "a6")}
	for i := range wantQueued {
		wantQueued[i].Updated = dbTime(wantQueued[i].Updated)
	}
	if diff := cmp.Diff(wantQueued, queued); diff != "" {
		t.Fatalf("queued (-want +got):\n%s", diff)
	}
	if two, _ := s.QueuedMessages(ctx, task.ID, 2); len(two) != 2 || two[1].Contact != "c2" {
		t.Errorf("two queued: %+v", two)
	}
	if none, err := s.QueuedMessages(ctx, task.ID+100, 10); err != nil || len(none) != 0 {
		t.Errorf("an unknown task's queue: %+v, %v", none, err)
	}

	at := now.Add(time.Minute)
	done := func(contact string, st campaign.MessageStatus, id, why string) campaign.Message {
		return campaign.Message{Task: task.ID, Contact: contact, Status: st, MsgID: id, Error: why, Updated: at}
	}
	until = now.Add(3 * time.Minute)
	got, err = s.FinishMessages(ctx, task, []campaign.Message{
		done("c1", campaign.MessageSent, "m1", ""), done("c2", campaign.MessageFailed, "", "no route"),
		done("c1", campaign.MessageFailed, "", "late"), done("c9", campaign.MessageSent, "m9", ""), done("c4", campaign.MessageQueued, "", ""),
	}, until)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sent != 1 || got.Failed != 1 || got.Recipients != 4 || !got.LeaseUntil.Equal(until) {
		t.Fatalf("after the outcomes: %+v", got)
	}
	task = got
	if got, err = s.FinishMessages(ctx, task, []campaign.Message{done("c1", campaign.MessageFailed, "", "again"), done("c6", campaign.MessageSent, "m6", "")}, until); err != nil {
		t.Fatal(err)
	}
	if got.Sent != 2 || got.Failed != 1 {
		t.Errorf("an outcome of a message no longer queued counted: %+v", got)
	}
	msgs, err := s.Messages(ctx, campTenant, runUUID(1), 10)
	if err != nil {
		t.Fatal(err)
	}
	q := func(m campaign.Message) campaign.Message { m.Updated = dbTime(m.Updated); return m }
	c1, c2, c6 := done("c1", campaign.MessageSent, "m1", ""), done("c2", campaign.MessageFailed, "", "no route"), done("c6", campaign.MessageSent, "m6", "")
	c1.Address, c2.Address, c6.Address = "a1", "a2", "a6"
	wantMsgs := []campaign.Message{q(c1), q(c2), q(msg("c4", "a4")), q(c6)}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if two, _ := s.Messages(ctx, campTenant, runUUID(1), 2); len(two) != 2 {
		t.Errorf("two messages: %+v", two)
	}
	if none, err := s.Messages(ctx, campTenant, runUUID(1), 0); err != nil || len(none) != 0 {
		t.Errorf("no messages: %+v, %v", none, err)
	}
}

// EndTask gives a task back until a time with its attempts, or ends it
// as done or stopped: no longer claimable nor lease-bound.
func testEndTask(t *testing.T, s runStore) {
	ctx := t.Context()
	mustCreate(t, s, campTenant, dueCampaign(t, runUUID(1), runAt), dueCampaign(t, runUUID(2), runAt))
	claimDue(t, s, runAt, 10)
	now := runAt.Add(time.Second)
	tasks := claimTasks(t, s, now, 10*time.Minute, 10)
	task := tasks[0]
	task.Attempts = 2
	back := now.Add(5 * time.Minute)
	if err := s.EndTask(ctx, task, campaign.TaskRunning, back); err != nil {
		t.Fatal(err)
	}
	wantLeaseLost(t, s.EndTask(ctx, task, campaign.TaskDone, now), "EndTask after giving the task back")
	if got := claimTasks(t, s, back.Add(-time.Microsecond), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed before its time: %+v", got)
	}
	got := claimTasks(t, s, back, time.Minute, 10)
	if len(got) != 1 || got[0].ID != task.ID || got[0].Attempts != 2 || got[0].State != campaign.TaskPending {
		t.Fatalf("given back: %+v", got)
	}
	end := back.Add(time.Second + 1500*time.Nanosecond)
	if err := s.EndTask(ctx, got[0], campaign.TaskDone, end); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTask(ctx, tasks[1], campaign.TaskStopped, end); err != nil {
		t.Fatal(err)
	}
	for _, tk := range []campaign.Task{got[0], tasks[1], {ID: task.ID}} {
		wantLeaseLost(t, s.EndTask(ctx, tk, campaign.TaskRunning, end), fmt.Sprintf("EndTask of an ended task (lease %v)", tk.LeaseUntil))
		_, err := s.QueueMessages(ctx, tk, nil, end)
		wantLeaseLost(t, err, "QueueMessages of an ended task")
	}
	if got := claimTasks(t, s, end.Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Errorf("ended tasks claimed: %+v", got)
	}
	for i, want := range []campaign.TaskState{campaign.TaskDone, campaign.TaskStopped} {
		ts, err := s.Tasks(ctx, campTenant, runUUID(i+1))
		if err != nil || len(ts) != 1 || ts[0].State != want || !ts[0].Finished.Equal(dbTime(end)) || !ts[0].LeaseUntil.IsZero() {
			t.Errorf("campaign %d's tasks: %+v, %v", i+1, ts, err)
		}
	}
}

// Tasks and Messages are the tenant's: another tenant's campaign, an
// unknown one and a deleted one are NotFound; a deleted campaign's task
// stays, for the runner to end.
func testRunTenants(t *testing.T, s runStore) {
	ctx := t.Context()
	mustCreate(t, s, campTenant, dueCampaign(t, runUUID(1), runAt), dueCampaign(t, runUUID(2), runAt.Add(time.Hour)))
	mustCreate(t, s, campTenant2, dueCampaign(t, runUUID(1), runAt))
	claimDue(t, s, runAt, 10)
	claimDue(t, s, runAt.Add(time.Hour), 10)
	for _, c := range []struct {
		tenant msgkit.ServiceUUID
		id     string
	}{{campTenant, runUUID(1)}, {campTenant2, runUUID(1)}} {
		ts, err := s.Tasks(ctx, c.tenant, c.id)
		if err != nil || len(ts) != 1 || ts[0].Tenant != c.tenant || ts[0].Campaign != c.id {
			t.Errorf("%s's tasks: %+v, %v", c.tenant, ts, err)
		}
	}
	for _, c := range []struct {
		tenant msgkit.ServiceUUID
		id     string
	}{{campTenant2, runUUID(2)}, {campTenant, runUUID(9)}, {"\xff", runUUID(1)}, {campTenant, "\x00"}} {
		_, err := s.Tasks(ctx, c.tenant, c.id)
		wantCode(t, err, campaign.CodeNotFound, fmt.Sprintf("tasks of %q %q", c.tenant, c.id))
		_, err = s.Messages(ctx, c.tenant, c.id, 10)
		wantCode(t, err, campaign.CodeNotFound, fmt.Sprintf("messages of %q %q", c.tenant, c.id))
	}
	if err := s.Delete(ctx, campTenant, runUUID(2)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Tasks(ctx, campTenant, runUUID(2))
	wantCode(t, err, campaign.CodeNotFound, "a deleted campaign's tasks")
	free := claimTasks(t, s, runAt.Add(time.Hour), time.Minute, 10)
	if !slices.ContainsFunc(free, func(tk campaign.Task) bool { return tk.Campaign == runUUID(2) && tk.Tenant == campTenant }) {
		t.Errorf("the deleted campaign's task is gone: %+v", free)
	}
}

// Replicas racing over one database make each occurrence one task, and
// lease each task to one of them at a time.
func TestCampaignRunReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	dbs := []*DB{openTestDB(t, dsn, Options{Schema: schema}), openTestDB(t, dsn, Options{Schema: schema})}
	ctx := t.Context()
	const campaigns, hours = 20, 3
	start := runAt.Add(-time.Second)
	for i := range campaigns {
		c := campaigntest.Sample(t, runUUID(i+1), 0, campaign.SMS, campaign.Active)
		sch, err := campaign.ParseSchedule(campaign.Scheduled, "FREQ=HOURLY;BYMINUTE=0;BYSECOND=0", start)
		if err != nil {
			t.Fatal(err)
		}
		c.Schedule = sch
		if err := c.Plan(start); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, dbs[0].Campaigns(), campTenant, c)
	}
	var all []campaign.Task
	var mu sync.Mutex
	for h := range hours {
		now := runAt.Add(time.Duration(h)*time.Hour + time.Second)
		var wg sync.WaitGroup
		for w := range 4 {
			s := dbs[w%2].Campaigns()
			wg.Go(func() {
				for range 6 {
					tasks, err := s.ClaimDue(ctx, now, 3, ran(now))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					all = append(all, tasks...)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if rest := claimDue(t, dbs[0].Campaigns(), now, 100); len(rest) != 0 {
			mu.Lock()
			all = append(all, rest...)
			mu.Unlock()
		}
	}
	if len(all) != campaigns*hours {
		t.Errorf("%d tasks made for %d occurrences", len(all), campaigns*hours)
	}
	type occurrence struct {
		campaign string
		at       time.Time
	}
	seen := map[occurrence]bool{}
	for _, tk := range all {
		o := occurrence{tk.Campaign, tk.ScheduledAt}
		if seen[o] {
			t.Errorf("occurrence %v made twice", o)
		}
		seen[o] = true
	}
	for i := range campaigns {
		ts, err := dbs[1].Campaigns().Tasks(ctx, campTenant, runUUID(i+1))
		if err != nil || len(ts) != hours {
			t.Fatalf("campaign %d: %d tasks, %v", i+1, len(ts), err)
		}
		for h, tk := range ts {
			if !tk.ScheduledAt.Equal(runAt.Add(time.Duration(h) * time.Hour)) {
				t.Errorf("campaign %d's task %d at %v", i+1, h, tk.ScheduledAt)
			}
		}
	}

	// Both replicas claim the tasks at once: each is leased once.
	now := runAt.Add(hours * time.Hour)
	leased := make([][]campaign.Task, 4)
	var wg sync.WaitGroup
	for w := range leased {
		s := dbs[w%2].Campaigns()
		wg.Go(func() {
			for range 10 {
				tasks, err := s.ClaimTasks(ctx, now, time.Minute, 4)
				if err != nil {
					t.Error(err)
					return
				}
				leased[w] = append(leased[w], tasks...)
			}
		})
	}
	wg.Wait()
	ids := map[int64]int{}
	for _, l := range leased {
		for _, tk := range l {
			ids[tk.ID]++
		}
	}
	if len(ids) != campaigns*hours {
		t.Errorf("%d of %d tasks leased", len(ids), campaigns*hours)
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("task %d leased %d times under one lease", id, n)
		}
	}
}

var runNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// fanOutSeed gives a tenant's list n contacts created a millisecond
// apart, every one subscribed and opted in with a Slovenian mobile
// number of its own, the even ones in Ljubljana and the odd ones in
// Maribor: $1 the tenant, $2 the list, $3 n.
// It is the load of benchContactsSQL (BenchmarkContacts/Million) with the columns
// a campaign reads.
const fanOutSeed = `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated,
		mobile, mobile_raw, opt_status, city, city_fold)
	SELECT $1, lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'), $2, 'subscribed',
		timestamptz '2026-01-01' + i * interval '1 ms', timestamptz '2026-01-01',
		'+3864' || lpad(i::text, 7, '0'), '+3864' || lpad(i::text, 7, '0'), 'in',
		CASE WHEN i % 2 = 0 THEN 'Ljubljana' ELSE 'Maribor' END, CASE WHEN i % 2 = 0 THEN 'ljubljana' ELSE 'maribor' END
	FROM generate_series(1, $3::int) AS i`

// BenchmarkCampaignFanOut runs an sms campaign 'now' to the half of a
// list of a million contacts in Ljubljana (a segmentation query): one
// runner's RunOnce with pages of 1,000 and no pace hands 500,000
// messages to the bulk SMS gateway (Gateway.SubmitFor over the same
// database), which charges and queues each. It reports messages a second
// and the peak of the heap in use (sampled every 50 ms).
func BenchmarkCampaignFanOut(b *testing.B) {
	const contactsN, reached = 1_000_000, 500_000
	ctx := b.Context()
	db := newTestDB(b)
	list := "11111111-0000-4000-8000-000000000001"
	start := time.Now()
	if _, err := db.Contacts().CreateList(ctx, campTenant, contacts.List{UUID: list, Name: "all", Status: contacts.ListActive, Created: runNow, Updated: runNow}); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, fanOutSeed, string(campTenant), list, contactsN); err != nil {
		b.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) contacts"); err != nil {
		b.Fatal(err)
	}
	gw := sms.NewGateway(db.SMS(), sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(ctx, sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "campaigns", Enabled: true, Balance: decimal.RequireFromString("1000000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		b.Fatal(err)
	}
	svc := campaign.NewService(db.Campaigns(), db.Contacts(), nil, nil)
	if err := svc.SetPayer(ctx, campTenant, "campaigns"); err != nil {
		b.Fatal(err)
	}
	var spent fanOutTimes
	senders := map[campaign.Channel]campaign.Sender{campaign.SMS: campaign.SMSSender{Gateway: timedGateway{gw, &spent.gateway}}}
	b.Logf("%d contacts loaded in %v", contactsN, time.Since(start).Round(time.Millisecond))

	name, status, channel, schedule, tmpl, sender := "Fan-out", "active", "sms", "now", "Spring sale: 20% off everything this week!", "Shop"
	queryType, query := "segmentation", `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana"}]}]}`
	b.ReportAllocs()
	var peak uint64
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c, err := svc.Create(ctx, campTenant, campaign.Input{Name: &name, Status: &status, SendingType: &channel, ScheduleType: &schedule,
			Template: &tmpl, Sender: &sender, Lists: &list, QueryType: &queryType, Query: &query})
		if err != nil {
			b.Fatal(err)
		}
		r := campaign.NewRunner(timedRuns{db.Campaigns(), &spent.runs}, timedAudience{db.Contacts(), &spent.audience}, senders, campaign.RunnerOptions{Page: 1000})
		runtime.GC()
		stop := make(chan struct{})
		sampled := make(chan uint64)
		go func() {
			var ms runtime.MemStats
			var most uint64
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&ms)
				most = max(most, ms.HeapInuse)
				select {
				case <-stop:
					sampled <- most
					return
				case <-tick.C:
				}
			}
		}()
		b.StartTimer()
		t0 := time.Now()
		n, err := r.RunOnce(ctx)
		elapsed += time.Since(t0)
		b.StopTimer()
		close(stop)
		peak = max(peak, <-sampled)
		if err != nil || n != 1 {
			b.Fatalf("RunOnce = %d, %v", n, err)
		}
		tasks, err := db.Campaigns().Tasks(ctx, campTenant, c.UUID)
		if err != nil || len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Sent != reached || tasks[0].Recipients != reached {
			b.Fatalf("tasks %+v, %v", tasks, err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(reached*b.N)/elapsed.Seconds(), "messages/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(spent.gateway.Seconds()/float64(b.N), "gateway-s/op")
	b.ReportMetric(spent.runs.Seconds()/float64(b.N), "runstore-s/op")
	b.ReportMetric(spent.audience.Seconds()/float64(b.N), "audience-s/op")
}

// fanOutTimes is the time a run spent in each of the runner's
// dependencies: the gateway's SubmitFor, the run store and the audience.
// A run works one task, so nothing overlaps and no lock is needed.
type fanOutTimes struct{ gateway, runs, audience time.Duration }

type timedGateway struct {
	campaign.SMSGateway
	spent *time.Duration
}

func (g timedGateway) SubmitFor(ctx context.Context, account string, id sms.MessageID, sub sms.Submission) (sms.Accepted, error) {
	defer addSince(g.spent, time.Now())
	return g.SMSGateway.SubmitFor(ctx, account, id, sub)
}

type timedAudience struct {
	campaign.Audience
	spent *time.Duration
}

func (a timedAudience) Recipients(ctx context.Context, tenant msgkit.ServiceUUID, sel campaign.Selection, after string, limit int) ([]campaign.Recipient, string, error) {
	defer addSince(a.spent, time.Now())
	return a.Audience.Recipients(ctx, tenant, sel, after, limit)
}

// timedRuns times the run store's calls of a run's task (the claims
// and the campaign reads are a few).
type timedRuns struct {
	campaign.RunStore
	spent *time.Duration
}

func (r timedRuns) QueueMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	defer addSince(r.spent, time.Now())
	return r.RunStore.QueueMessages(ctx, t, msgs, until)
}

func (r timedRuns) QueuedMessages(ctx context.Context, task int64, limit int) ([]campaign.Message, error) {
	defer addSince(r.spent, time.Now())
	return r.RunStore.QueuedMessages(ctx, task, limit)
}

func (r timedRuns) FinishMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	defer addSince(r.spent, time.Now())
	return r.RunStore.FinishMessages(ctx, t, msgs, until)
}

func (r timedRuns) Campaign(ctx context.Context, tenant msgkit.ServiceUUID, id string) (campaign.Campaign, error) {
	defer addSince(r.spent, time.Now())
	return r.RunStore.Campaign(ctx, tenant, id)
}

func addSince(d *time.Duration, t time.Time) { *d += time.Since(t) }
