package campaigntest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/segmentation"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"
)

// The runner tests' tenant, lists and time.
const (
	tenant = tenantA
	listA  = "5f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"
	listB  = "6a1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b91"
)

var now = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// RunnerStores are the stores a Runner works over, on one database.
type RunnerStores struct {
	Contacts interface {
		contacts.Store
		campaign.ListChecker
		campaign.Audience
	}
	Campaigns interface {
		campaign.Store
		campaign.RunStore
	}
	SMS interface {
		sms.Store
		Message(ctx context.Context, id sms.MessageID) (sms.MessageRecord, error)
	}
}

// runRunnerTests runs campaign.Runner end to end over the stores of a new
// database each test; newStores returns them and a function that opens
// another handle on the same database (a replica; memstore returns the
// same stores).
func runRunnerTests(t *testing.T, newStores func(t *testing.T) (RunnerStores, func() RunnerStores)) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *World, func() RunnerStores)
	}{
		{"a now campaign", testRunNow},
		{"a segmentation query", testRunSegmented},
		{"resume after a crash", testCrashResume},
		{"two runners, once each", testTwoRunnersExactlyOnce},
		{"stop", testStopMidSend},
		{"stop within a page", testStopWithinAPage},
		{"pace", testPace},
		{"pace by precedence", testPacePrecedence},
		{"a slow pace keeps its lease", testSlowPaceKeepsLease},
		{"webhook channel", testWebhookChannel},
		{"the payer from the store", testPayer},
		{"a query parsed once a task", testQueryParsedOnce},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stores, replica := newStores(t)
			tc.fn(t, NewWorld(t, stores), replica)
		})
	}
}

// World is a tenant with two lists of eight contacts over stores, a bulk
// SMS account "campaigns" for its campaigns (0.05 a part to Slovenia,
// balance 100) and a campaign Service, on a manual clock.
type World struct {
	Clock  *msgkittest.Clock
	Stores RunnerStores
	Svc    *campaign.Service
	GW     *sms.Gateway
	lists  []string
	// reached are the numbers an sms campaign to both lists reaches.
	reached []string
}

// NewWorld makes the world's records in stores.
func NewWorld(t testing.TB, stores RunnerStores) *World {
	t.Helper()
	w := &World{Clock: msgkittest.NewClock(now), Stores: stores}
	ctx := context.Background()
	w.GW = sms.NewGateway(stores.SMS, sms.GatewayOptions{Clock: w.Clock.Now, BcryptCost: bcrypt.MinCost})
	if _, err := w.GW.CreateAccount(ctx, sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "campaigns", Enabled: true, Balance: decimal.RequireFromString("100"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		t.Fatal(err)
	}
	st := w.Stores.Contacts
	for _, id := range []string{listA, listB} {
		if _, err := st.CreateList(ctx, tenant, contacts.List{UUID: id, Name: "list " + id[:4], Status: contacts.ListActive, Created: now, Updated: now}); err != nil {
			t.Fatal(err)
		}
		w.lists = append(w.lists, id)
	}
	add := func(i int, list, mobile, opt, city string, change func(*contacts.Contact)) {
		c := contacts.Contact{UUID: fmt.Sprintf("c0000000-0000-4000-8000-%012d", i), Created: now.Add(time.Duration(i) * time.Second)}
		c.Updated = c.Created
		in := contacts.Input{ListUUID: &list, OptStatus: &opt, Values: map[string]*string{"mobile": &mobile, "city": &city}}
		if err := contacts.Fill(&c, in, true); err != nil {
			t.Fatal(err)
		}
		if change != nil {
			change(&c)
		}
		if _, err := st.CreateContact(ctx, tenant, c); err != nil {
			t.Fatal(err)
		}
	}
	add(1, listA, "+38640000001", "in", "Ljubljana", nil)
	add(2, listA, "+38640000002", "in", "Maribor", nil)
	add(3, listA, "+38640000003", "out", "Ljubljana", nil)                                                           // opted out
	add(4, listB, "+38640000001", "in", "Ljubljana", nil)                                                            // the same number again
	add(5, listB, "+38640000005", "in", "Ljubljana", func(c *contacts.Contact) { c.Member = contacts.Unsubscribed }) // unsubscribed
	add(6, listB, "+38640000006", "in", "Koper", func(c *contacts.Contact) { c.Deleted = now })                      // deleted
	add(7, listB, "+38640000007", "in", "Ljubljana", nil)
	add(8, listA, "+4915100000008", "in", "Ljubljana", nil) // no price for Germany: fails for good
	w.reached = []string{"+38640000001", "+38640000002", "+38640000007"}
	w.Svc = campaign.NewService(w.Stores.Campaigns, st, w.Clock.Now, nil)
	if err := w.Svc.SetPayer(ctx, tenant, "campaigns"); err != nil {
		t.Fatal(err)
	}
	return w
}

// Sender is an SMSSender through the world's gateway.
func (w *World) Sender() campaign.SMSSender {
	return campaign.SMSSender{Gateway: w.GW}
}

// Runner is a runner over the world's stores, unpaced unless opts say.
func (w *World) Runner(senders map[campaign.Channel]campaign.Sender, opts campaign.RunnerOptions) *campaign.Runner {
	opts.Clock = w.Clock.Now
	return campaign.NewRunner(w.Stores.Campaigns, w.Stores.Contacts, senders, opts)
}

// Create creates an active sms campaign "now" to both lists, with set
// over those members.
func (w *World) Create(t testing.TB, set map[string]any) campaign.Campaign {
	t.Helper()
	base := map[string]any{"schedule_type": "now", "schedule_rrule": "", "recipient_lists": listA + "," + listB}
	for k, v := range set {
		base[k] = v
	}
	c, err := w.Svc.Create(t.Context(), tenant, input(t, base))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// On is the world seen through another handle on its database (a
// replica): its own gateway and service over stores.
func (w *World) On(stores RunnerStores) *World {
	o := *w
	o.Stores = stores
	o.GW = sms.NewGateway(stores.SMS, sms.GatewayOptions{Clock: w.Clock.Now, BcryptCost: bcrypt.MinCost})
	o.Svc = campaign.NewService(stores.Campaigns, stores.Contacts, w.Clock.Now, nil)
	return &o
}

// input is a valid sms campaign body with members of set over it (an
// empty string removes the member).
func input(t testing.TB, set map[string]any) campaign.Input {
	t.Helper()
	m := map[string]any{
		"name": "Spring sale", "status": "active", "sending_type": "sms", "schedule_type": "once",
		"schedule_rrule": "2026-04-01 09:00:00", "template": "Spring sale: 20% off everything this week!",
		"sender": "Shop", "recipient_lists": listA + "," + listB,
	}
	for k, v := range set {
		if v == "" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var in campaign.Input
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// smsSent is the numbers of the messages the gateway accepted, sorted.
func (w *World) smsSent(t testing.TB, msgs []campaign.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		if m.Status != campaign.MessageSent {
			continue
		}
		rec, err := w.Stores.SMS.Message(t.Context(), sms.MessageID(m.MsgID))
		if err != nil {
			t.Fatalf("message %s of the campaign is not in the SMS store: %v", m.MsgID, err)
		}
		out = append(out, string(rec.Receiver))
	}
	slices.Sort(out)
	return out
}

func testRunNow(t *testing.T, w *World, replica func() RunnerStores) {
	c := w.Create(t, nil)
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{Page: 2})
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	got, _ := w.Svc.Get(t.Context(), tenant, c.UUID)
	if got.Status != campaign.Finished || !got.Last.Equal(now) || !got.Next.IsZero() {
		t.Errorf("after its run: %+v", got)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Recipients != 4 || tasks[0].Sent != 3 || tasks[0].Failed != 1 ||
		!tasks[0].ScheduledAt.Equal(now) {
		t.Fatalf("tasks %+v", tasks)
	}
	msgs, _ := w.Stores.Campaigns.Messages(t.Context(), tenant, c.UUID, 100)
	if got := w.smsSent(t, msgs); !slices.Equal(got, w.reached) {
		t.Errorf("sent to %v, want %v (opted-out, unsubscribed, deleted and repeated numbers left out)", got, w.reached)
	}
	if m := msgs[0]; m.MsgID != campaign.MessageKey(tasks[0].ID, m.Contact) {
		t.Errorf("msgId %s is not the message key", m.MsgID)
	}
	if m := msgs[3]; m.Address != "+4915100000008" || m.Status != campaign.MessageFailed || m.MsgID != "" || m.Error == "" {
		t.Errorf("a number without a route: %+v", m)
	}
	if a, _ := w.Stores.SMS.Account(t.Context(), "campaigns"); !a.Balance.Equal(decimal.RequireFromString("99.85")) {
		t.Errorf("balance %s, want 99.85 (3 × 0.05)", a.Balance)
	}
	if n, _ := r.RunOnce(t.Context()); n != 0 {
		t.Errorf("a finished campaign ran again: %d tasks", n)
	}
}

func testRunSegmented(t *testing.T, w *World, replica func() RunnerStores) {
	q := `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`
	c := w.Create(t, map[string]any{"query_type": "segmentation", "query": q})
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	msgs, _ := w.Stores.Campaigns.Messages(t.Context(), tenant, c.UUID, 100)
	if got := w.smsSent(t, msgs); !slices.Equal(got, []string{"+38640000001", "+38640000007"}) || len(msgs) != 3 || msgs[2].Status != campaign.MessageFailed {
		t.Errorf("the Ljubljana query reached %v of %+v", got, msgs)
	}
}

// failingStore is a run store whose FinishMessages fails once: the
// process dies after the channel took messages and before they were
// recorded.
type failingStore struct {
	campaign.RunStore
	mu    sync.Mutex
	fails int
}

func (f *failingStore) FinishMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	f.mu.Lock()
	fail := f.fails > 0
	f.fails--
	f.mu.Unlock()
	if fail {
		return campaign.Task{}, errors.New("the process died")
	}
	return f.RunStore.FinishMessages(ctx, t, msgs, until)
}

// A run interrupted after the gateway took its messages resumes when the
// lease ends, and sends nobody the occurrence twice.
func testCrashResume(t *testing.T, w *World, replica func() RunnerStores) {
	c := w.Create(t, nil)
	crashing := campaign.NewRunner(&failingStore{RunStore: w.Stores.Campaigns, fails: 1}, w.Stores.Contacts,
		map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()},
		campaign.RunnerOptions{Clock: w.Clock.Now, Lease: time.Minute})
	if _, err := crashing.RunOnce(t.Context()); err == nil {
		t.Fatal("the crash did not show")
	}
	sms1 := countSMS(t, w)
	if sms1 != 3 {
		t.Fatalf("%d SMS accepted before the crash, want 3", sms1)
	}
	other := w.On(replica()) // another process takes over
	r := other.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: other.Sender()}, campaign.RunnerOptions{})
	if n, _ := r.RunOnce(t.Context()); n != 0 {
		t.Errorf("the task was taken over while its lease ran: %d", n)
	}
	w.Clock.Advance(time.Minute)
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("resume: %d, %v", n, err)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Sent != 3 {
		t.Errorf("after the resume: %+v", tasks)
	}
	if n := countSMS(t, w); n != 3 {
		t.Errorf("%d SMS accepted in all, want 3: a resumed run sent twice", n)
	}
	if a, _ := w.Stores.SMS.Account(t.Context(), "campaigns"); !a.Balance.Equal(decimal.RequireFromString("99.85")) {
		t.Errorf("balance %s, want 99.85: charged once", a.Balance)
	}
}

// countSMS is how many SMS the gateway accepted for the campaigns'
// account: each is one part at 0.05 from a balance of 100.
func countSMS(t *testing.T, w *World) int {
	t.Helper()
	a, err := w.Stores.SMS.Account(t.Context(), "campaigns")
	if err != nil {
		t.Fatal(err)
	}
	return int(decimal.RequireFromString("100").Sub(a.Balance).Div(decimal.RequireFromString("0.05")).IntPart())
}

// Two runners on one store make each occurrence one task and send each
// recipient one message.
func testTwoRunnersExactlyOnce(t *testing.T, w *World, replica func() RunnerStores) {
	c := w.Create(t, map[string]any{"schedule_type": "scheduled", "schedule_rrule": "FREQ=HOURLY;BYMINUTE=0;BYSECOND=0"})
	other := w.On(replica())
	runners := []*campaign.Runner{
		w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{Page: 1}),
		other.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: other.Sender()}, campaign.RunnerOptions{Page: 1}),
	}
	for range 3 {
		w.Clock.Advance(time.Hour)
		var wg sync.WaitGroup
		for _, r := range runners {
			wg.Go(func() {
				for range 4 {
					if _, err := r.RunOnce(t.Context()); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 3 {
		t.Fatalf("%d tasks for 3 occurrences", len(tasks))
	}
	for _, task := range tasks {
		if task.State != campaign.TaskDone || task.Sent != 3 {
			t.Errorf("task %+v", task)
		}
	}
	if n := countSMS(t, w); n != 9 {
		t.Errorf("%d SMS for 3 occurrences × 3 recipients", n)
	}
}

// stoppingSender stops the campaign after its first message.
type stoppingSender struct {
	campaign.Sender
	svc  *campaign.Service
	mu   sync.Mutex
	sent int
}

func (s *stoppingSender) Send(ctx context.Context, m campaign.Outgoing) (string, error) {
	id, err := s.Sender.Send(ctx, m)
	s.mu.Lock()
	s.sent++
	first := s.sent == 1
	s.mu.Unlock()
	if first {
		if _, err := s.svc.SetStatus(ctx, m.Tenant, m.Campaign.UUID, campaign.Stopped); err != nil {
			return "", err
		}
	}
	return id, err
}

func testStopMidSend(t *testing.T, w *World, replica func() RunnerStores) {
	// A now campaign finishes as its run starts; a scheduled one stays
	// to be stopped.
	c := w.Create(t, map[string]any{"schedule_type": "scheduled", "schedule_rrule": "FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0"})
	w.Clock.Set(now.Add(24 * time.Hour))
	s := &stoppingSender{Sender: w.Sender(), svc: w.Svc}
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: s}, campaign.RunnerOptions{Page: 1})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskStopped || tasks[0].Sent != 1 {
		t.Fatalf("a stopped run: %+v", tasks)
	}
	if n := countSMS(t, w); n != 1 {
		t.Errorf("%d SMS after a stop at the first", n)
	}
	got, _ := w.Svc.Get(t.Context(), tenant, c.UUID)
	if got.Status != campaign.Stopped || !got.Next.IsZero() {
		t.Errorf("the campaign: %+v", got)
	}
}

// A stop is seen within a page: every CheckEvery messages.
func testStopWithinAPage(t *testing.T, w *World, replica func() RunnerStores) {
	c := w.Create(t, map[string]any{"schedule_type": "scheduled", "schedule_rrule": "FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0"})
	w.Clock.Set(now.Add(24 * time.Hour))
	s := &stoppingSender{Sender: w.Sender(), svc: w.Svc}
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: s}, campaign.RunnerOptions{Page: 10, CheckEvery: 2, InFlight: 1})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskStopped || tasks[0].Sent != 2 || tasks[0].Recipients != 4 {
		t.Fatalf("a run stopped at its first message, looking every 2: %+v", tasks)
	}
	if queued, _ := w.Stores.Campaigns.QueuedMessages(t.Context(), tasks[0].ID, 10); len(queued) != 2 {
		t.Errorf("%d messages left queued, want 2", len(queued))
	}
}

// The pace of a tenant: 2 messages a second, one at a time.
func testPace(t *testing.T, w *World, replica func() RunnerStores) {
	w.Create(t, nil)
	var slept time.Duration
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{
		DefaultRate: 2, Burst: 1,
		Sleep: func(_ context.Context, d time.Duration) error { slept += d; w.Clock.Advance(d); return nil },
	})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if slept != 1500*time.Millisecond {
		t.Errorf("slept %v for 4 messages at 2 a second, want 1.5 s", slept)
	}
}

// The pace of a tenant by precedence: the rate set for it, else its
// payer's throughput (read from the bulk SMS store), else the default,
// else unpaced; each run of the four messages one at a time, on the
// world's clock.
func testPacePrecedence(t *testing.T, w *World, replica func() RunnerStores) {
	if _, err := w.GW.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "paced", Enabled: true, Balance: decimal.RequireFromString("100"), Currency: "EUR", Throughput: 4,
		Prices: []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		t.Fatal(err)
	}
	none := func(msgkit.ServiceUUID) (rate.Limit, bool) { return 0, false }
	set := func(lim rate.Limit) func(msgkit.ServiceUUID) (rate.Limit, bool) {
		return func(tn msgkit.ServiceUUID) (rate.Limit, bool) { return lim, tn == tenant }
	}
	for _, tc := range []struct {
		name  string
		payer string
		rate  func(msgkit.ServiceUUID) (rate.Limit, bool)
		def   rate.Limit
		want  time.Duration // slept for the 4 messages, the first at once
	}{
		{"the payer's throughput over the default", "paced", none, 2, 750 * time.Millisecond},
		{"the rate set over the throughput", "paced", set(1), 2, 3 * time.Second},
		{"unpaced when set so, over the default", "campaigns", set(0), 2, 0},
		{"the default when the payer has no throughput", "campaigns", none, 2, 1500 * time.Millisecond},
		{"unpaced without any", "campaigns", none, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A second of its own: the gateway counts the payer's
			// throughput per second of the clock, and a sender may
			// submit before the runner's first sleep moves the clock, in
			// the second the case before ended in with its four
			// messages.
			w.Clock.Advance(time.Second)
			if err := w.Svc.SetPayer(t.Context(), tenant, tc.payer); err != nil {
				t.Fatal(err)
			}
			c := w.Create(t, nil)
			var slept time.Duration
			r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{
				Rate: tc.rate, Throughputs: w.GW, DefaultRate: tc.def, Burst: 1,
				Sleep: func(_ context.Context, d time.Duration) error { slept += d; w.Clock.Advance(d); return nil },
			})
			if _, err := r.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			if slept != tc.want {
				t.Errorf("slept %v for 4 messages, want %v", slept, tc.want)
			}
			tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
			if len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Sent != 3 || tasks[0].Failed != 1 {
				t.Errorf("tasks %+v, want one done with 3 sent and 1 failed", tasks)
			}
		})
	}
}

// batchingStore records how many messages each FinishMessages records.
type batchingStore struct {
	campaign.RunStore
	mu      sync.Mutex
	batches []int
}

func (b *batchingStore) FinishMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	b.mu.Lock()
	b.batches = append(b.batches, len(msgs))
	b.mu.Unlock()
	return b.RunStore.FinishMessages(ctx, t, msgs, until)
}

// A paced run records what it handed over, renewing its lease, at least
// every half lease, however long its page would take: at 1 message a
// second with a lease of 4 s, every 2 messages.
func testSlowPaceKeepsLease(t *testing.T, w *World, replica func() RunnerStores) {
	c := w.Create(t, nil)
	st := &batchingStore{RunStore: w.Stores.Campaigns}
	r := campaign.NewRunner(st, w.Stores.Contacts, map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}, campaign.RunnerOptions{
		Clock: w.Clock.Now, Lease: 4 * time.Second, DefaultRate: 1, Burst: 1,
		Sleep: func(_ context.Context, d time.Duration) error { w.Clock.Advance(d); return nil },
	})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.batches, []int{2, 2}) {
		t.Errorf("recorded %v messages at a time, want [2 2]", st.batches)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Sent != 3 || tasks[0].Failed != 1 {
		t.Errorf("tasks %+v, want one done with 3 sent and 1 failed", tasks)
	}
}

// recordingPoster keeps the bodies a webhook sender posts.
type recordingPoster struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (p *recordingPoster) PostReport(_ context.Context, _ string, body []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bodies = append(p.bodies, body)
	return nil
}

func testWebhookChannel(t *testing.T, w *World, replica func() RunnerStores) {
	doc := `{"messages":[{"body":{"textMessage":{"content":"Hi"}}}]}`
	c := w.Create(t, map[string]any{"sending_type": "viber", "template": doc, "sender": "shop"})
	p := &recordingPoster{}
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.Viber: campaign.WebhookSender{Poster: p, URL: "https://hooks.example/viber"}}, campaign.RunnerOptions{})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(p.bodies) != 4 {
		t.Fatalf("%d posts, want 4", len(p.bodies))
	}
	var m campaign.WebhookMessage
	for _, b := range p.bodies { // posted at once, in no order
		var one campaign.WebhookMessage
		if err := json.Unmarshal(b, &one); err != nil {
			t.Fatal(err)
		}
		if one.Address == "+38640000001" {
			m = one
		}
	}
	if m.Campaign != c.UUID || m.Channel != campaign.Viber || m.Template != doc || m.ServiceUUID != tenant || len(m.ID) != 32 ||
		m.Contact != "c0000000-0000-4000-8000-000000000001" {
		t.Errorf("posted %+v", m)
	}
}

// payingSender sets the tenant's payer after its first message.
type payingSender struct {
	campaign.Sender
	svc  *campaign.Service
	mu   sync.Mutex
	sent int
}

func (s *payingSender) Send(ctx context.Context, m campaign.Outgoing) (string, error) {
	id, err := s.Sender.Send(ctx, m)
	s.mu.Lock()
	s.sent++
	first := s.sent == 1
	s.mu.Unlock()
	if first {
		if err := s.svc.SetPayer(ctx, m.Tenant, "campaigns"); err != nil {
			return "", err
		}
	}
	return id, err
}

// A tenant without a payer has its sms messages fail, naming why; the
// runner reads the payer from the store for each page, so one set during
// a run charges the pages after it.
func testPayer(t *testing.T, w *World, replica func() RunnerStores) {
	if err := w.Svc.RemovePayer(t.Context(), tenant); err != nil {
		t.Fatal(err)
	}
	c := w.Create(t, nil)
	s := &payingSender{Sender: w.Sender(), svc: w.Svc}
	r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: s}, campaign.RunnerOptions{Page: 1, InFlight: 1})
	if _, err := r.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 1 || tasks[0].State != campaign.TaskDone || tasks[0].Sent != 2 || tasks[0].Failed != 2 {
		t.Fatalf("tasks %+v, want done with 2 sent and 2 failed", tasks)
	}
	msgs, _ := w.Stores.Campaigns.Messages(t.Context(), tenant, c.UUID, 100)
	if m := msgs[0]; m.Address != "+38640000001" || m.Status != campaign.MessageFailed || m.Error != "the tenant has no bulk SMS account for campaigns" {
		t.Errorf("the message of the page without a payer: %+v", m)
	}
	if got := w.smsSent(t, msgs); !slices.Equal(got, []string{"+38640000002", "+38640000007"}) {
		t.Errorf("sent to %v after the payer was set, want the next pages' numbers", got)
	}
	if n := countSMS(t, w); n != 2 {
		t.Errorf("%d SMS charged to the payer, want 2", n)
	}
}

// queryAudience records the query each page's selection holds, and calls
// change once, before its first page is read.
type queryAudience struct {
	campaign.Audience
	change  func(ctx context.Context) error
	mu      sync.Mutex
	queries []*segmentation.Query
}

func (a *queryAudience) Recipients(ctx context.Context, tn msgkit.ServiceUUID, sel campaign.Selection, after string, limit int) ([]campaign.Recipient, string, error) {
	a.mu.Lock()
	a.queries = append(a.queries, sel.Query)
	change := a.change
	a.change = nil
	a.mu.Unlock()
	rs, next, err := a.Audience.Recipients(ctx, tn, sel, after, limit)
	if err == nil && change != nil {
		err = change(ctx)
	}
	return rs, next, err
}

// The runner parses a task's query once and hands the same one to every
// page; a query changed during the run (a PUT) is parsed again, once, and
// the pages after the change follow it.
func testQueryParsedOnce(t *testing.T, w *World, replica func() RunnerStores) {
	const rule = "FREQ=DAILY;BYHOUR=12;BYMINUTE=0;BYSECOND=0"
	ljubljana := `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`
	maribor := `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Maribor","operator":"AND"}]}]}`
	c := w.Create(t, map[string]any{"schedule_type": "scheduled", "schedule_rrule": rule, "query_type": "segmentation", "query": ljubljana})
	senders := map[campaign.Channel]campaign.Sender{campaign.SMS: w.Sender()}
	run := func(a *queryAudience) {
		t.Helper()
		r := campaign.NewRunner(w.Stores.Campaigns, a, senders, campaign.RunnerOptions{Clock: w.Clock.Now, Page: 1})
		if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
			t.Fatalf("RunOnce = %d, %v", n, err)
		}
	}

	// The Ljubljana contacts one a page (1, 4, 7, 8), then an empty page.
	w.Clock.Set(now.Add(24 * time.Hour))
	a := &queryAudience{Audience: w.Stores.Contacts}
	run(a)
	if len(a.queries) != 5 || a.queries[0] == nil {
		t.Fatalf("%d pages with queries %v, want 5 pages", len(a.queries), a.queries)
	}
	for i, q := range a.queries {
		if q != a.queries[0] {
			t.Errorf("page %d got a query parsed again (%p, the first page's %p)", i+1, q, a.queries[0])
		}
	}

	// The next occurrence: the campaign's query changes after its first
	// page.
	w.Clock.Set(now.Add(48 * time.Hour))
	a = &queryAudience{Audience: w.Stores.Contacts, change: func(ctx context.Context) error {
		_, err := w.Svc.Replace(ctx, tenant, c.UUID, input(t, map[string]any{"schedule_type": "scheduled", "schedule_rrule": rule,
			"query_type": "segmentation", "query": maribor}))
		return err
	}}
	run(a)
	if len(a.queries) != 3 || a.queries[0] == nil || a.queries[1] == a.queries[0] || a.queries[2] != a.queries[1] {
		t.Errorf("pages' queries %v, want the first page's, then another for the two pages after the change", a.queries)
	}
	tasks, _ := w.Stores.Campaigns.Tasks(t.Context(), tenant, c.UUID)
	if len(tasks) != 2 {
		t.Fatalf("tasks %+v", tasks)
	}
	msgs, _ := w.Stores.Campaigns.Messages(t.Context(), tenant, c.UUID, 100)
	var second []campaign.Message
	for _, m := range msgs {
		if m.Task == tasks[1].ID {
			second = append(second, m)
		}
	}
	if got := w.smsSent(t, second); !slices.Equal(got, []string{"+38640000001", "+38640000002"}) {
		t.Errorf("the run whose query changed after its first page sent to %v, want the first Ljubljana number, then Maribor's", got)
	}
}
