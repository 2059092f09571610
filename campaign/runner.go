package campaign

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// RunStore keeps the runs of campaigns: their tasks (one per campaign and
// occurrence) and messages (one per task and contact, and per task and
// address), claimed under leases so that several runners may share it.
// Every method is one atomic operation.
type RunStore interface {
	Runs
	// Campaign returns a campaign; NotFound when it is deleted.
	Campaign(ctx context.Context, tenant msgkit.ServiceUUID, id string) (Campaign, error)
	// Payer returns the bulk SMS account the tenant's campaigns are
	// charged to, "" when it has none (Store.Payer).
	Payer(ctx context.Context, tenant msgkit.ServiceUUID) (string, error)
	// ClaimDue takes the active campaigns whose Next is at or before now,
	// oldest first, at most limit: for each it creates the task of the
	// occurrence at Next and applies advance to the campaign, together.
	// A task for that campaign and time that exists already is not made
	// again, and a campaign another runner advanced meanwhile is skipped:
	// each occurrence becomes one task. It returns the tasks it made.
	ClaimDue(ctx context.Context, now time.Time, limit int, advance func(c *Campaign)) ([]Task, error)
	// ClaimTasks leases up to limit tasks pending or running whose lease
	// has ended by now (a new task's at once), oldest first, until
	// now+lease.
	ClaimTasks(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Task, error)
	// QueueMessages stores msgs as queued messages of task t, skipping
	// those whose contact or address the task has already, and saves t's
	// Cursor, Exhausted and State (running), counting the messages stored
	// in Recipients; the lease is renewed to until. It returns the task as
	// stored. Every lease-bound method refuses, as Conflict (code
	// lease_lost), a task whose lease is no longer t.LeaseUntil: another
	// runner has taken it over.
	QueueMessages(ctx context.Context, t Task, msgs []Message, until time.Time) (Task, error)
	// QueuedMessages lists up to limit queued messages of a task, by
	// contact.
	QueuedMessages(ctx context.Context, task int64, limit int) ([]Message, error)
	// FinishMessages records the outcomes of queued messages (sent with
	// their MsgID, or failed with their Error), counts them in the task's
	// Sent and Failed, and renews the lease to until (lease-bound).
	FinishMessages(ctx context.Context, t Task, msgs []Message, until time.Time) (Task, error)
	// EndTask ends t as done or stopped at at, or, with state running,
	// gives it back until at with t's Attempts (lease-bound).
	EndTask(ctx context.Context, t Task, state TaskState, at time.Time) error
	// Backlog counts the tasks not finished (pending, running) and the
	// messages they have queued and not yet handed over, for the
	// runner's gauges: one cheap read, whatever the runs of the past.
	Backlog(ctx context.Context) (Backlog, error)
}

// Backlog is what the runners have still to do: the tasks pending and
// running, and the messages those tasks queued that are neither sent
// nor failed. A stopped task's messages left queued are not in it: no
// runner will send them.
type Backlog struct {
	Pending, Running int
	Messages         int
}

// CodeLeaseLost is the code of a lease-bound call on a task another
// runner took over.
const CodeLeaseLost = "lease_lost"

// Sender hands one message of a campaign to its channel. It returns the
// channel's id of the message. An error of kind Invalid means the
// channel refused the message for good (the message fails); any other
// error is tried again later.
type Sender interface {
	Send(ctx context.Context, m Outgoing) (msgID string, err error)
}

// Outgoing is one message of a run as the Runner hands it to a Sender.
type Outgoing struct {
	Tenant   msgkit.ServiceUUID
	Campaign Campaign
	To       Recipient
	// Key identifies the message for good (MessageKey: the same task and
	// contact give the same key): a sender whose channel can tell repeats
	// apart uses it, so a message tried again after a crash is not
	// delivered twice.
	Key string
	// Payer is the bulk SMS account the tenant's campaigns are charged
	// to, as the store had it when the runner began handing the page over;
	// "" when the tenant has none.
	Payer string
}

// RunnerOptions configure a Runner; zero values choose the defaults.
type RunnerOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Lease is how long a runner holds a task between store calls before
	// another may take it over; default 1 minute.
	Lease time.Duration
	// Page is how many recipients a run resolves and queues at a time,
	// and how many queued messages it sends before it looks at the
	// campaign's status again; default 500.
	Page int
	// Tasks is how many tasks one round claims; default 4.
	Tasks int
	// Rate is the pace set for a tenant (an operator's override): how
	// many messages a second its campaigns send together, at most; ok
	// false when none is set, a limit of 0 or rate.Inf sends unpaced.
	// Without one, the tenant's campaigns go at its payer's throughput
	// (Throughputs), else at DefaultRate. See Pace.
	Rate func(tenant msgkit.ServiceUUID) (limit rate.Limit, ok bool)
	// Throughputs reads the throughput of the tenant's payer; nil: none
	// is read.
	Throughputs Throughputs
	// DefaultRate paces a tenant that has no Rate and whose payer has no
	// throughput; 0 sends its campaigns unpaced.
	DefaultRate rate.Limit
	// Burst is how many messages a paced tenant may send at once; unless
	// set, a tenth of a second's worth (at least 1), so that a page does
	// not open with a whole second's worth, which the gateway's count of
	// the account's submissions a second would partly refuse.
	Burst int
	// Backoff paces the retries of a task whose channel failed for the
	// moment; default 5 s doubling to 10 min.
	Backoff msgkit.Backoff
	// Idle is the pause of Run when there is nothing to do; default 1 s.
	Idle time.Duration
	// InFlight is how many messages a run hands over at once; default 32.
	// The channels answer a message at a time (the bulk SMS gateway
	// commits each), so a run keeps several on the way.
	InFlight int
	// CheckEvery is how many messages a run hands over between looks at
	// its campaign's status; default 50.
	CheckEvery int
	// Sleep waits d or until ctx ends, for the pace; default a timer.
	// Tests pass one that moves their clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Metrics is where the runner registers its metrics (the package
	// doc's Metrics); nil: none, at no cost. Registering two runners on
	// one registry panics: a process runs one.
	Metrics prometheus.Registerer
}

// Runner sends campaigns: it turns each due occurrence into a task (once,
// also with several runners on one store), resolves the task's recipients
// page by page, queues one message per recipient and hands each to the
// channel's Sender, pacing each tenant. A stopped or deleted campaign
// stops within CheckEvery messages. A task interrupted by a crash is taken over by
// another runner (or the same after a restart) when its lease ends, and
// goes on from its last page: queued messages are sent with their keys,
// so a sender that tells repeats apart (sms) sends nobody the same
// occurrence twice.
type Runner struct {
	store    RunStore
	audience Audience
	senders  map[Channel]Sender
	opts     RunnerOptions
	log      *slog.Logger
	metrics  *runnerMetrics // nil: none

	mu       sync.Mutex
	limiters map[msgkit.ServiceUUID]*rate.Limiter
}

// NewRunner returns a runner sending each channel's messages through
// senders; a campaign of a channel without a sender fails its messages.
func NewRunner(store RunStore, audience Audience, senders map[Channel]Sender, opts RunnerOptions) *Runner {
	opts.Lease = cmp.Or(opts.Lease, time.Minute)
	opts.Page = cmp.Or(opts.Page, 500)
	opts.Tasks = cmp.Or(opts.Tasks, 4)
	opts.InFlight = max(opts.InFlight, 0)
	opts.InFlight = cmp.Or(opts.InFlight, 32)
	opts.CheckEvery = cmp.Or(opts.CheckEvery, 50)
	opts.Idle = cmp.Or(opts.Idle, time.Second)
	if opts.Rate == nil {
		opts.Rate = func(msgkit.ServiceUUID) (rate.Limit, bool) { return 0, false }
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	if opts.Backoff.Base == 0 && opts.Backoff.Max == 0 {
		opts.Backoff = msgkit.Backoff{Base: 5 * time.Second, Max: 10 * time.Minute}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Runner{store: store, audience: audience, senders: senders, opts: opts, log: log, limiters: map[msgkit.ServiceUUID]*rate.Limiter{}}
	if opts.Metrics != nil {
		r.metrics = newRunnerMetrics(opts.Metrics, store)
	}
	return r
}

// Run runs rounds until ctx ends, pausing Idle after a round that found
// fewer tasks than it may work at once.
func (r *Runner) Run(ctx context.Context) {
	msgkit.Poll(ctx, r.opts.Idle, r.opts.Tasks, nil, r.log, "campaign: a runner round failed", r.RunOnce)
}

// RunOnce makes the tasks of the occurrences due now, then claims up to
// Tasks tasks and works each until it is done, stopped, given back or
// taken over. It returns how many tasks it worked.
func (r *Runner) RunOnce(ctx context.Context) (int, error) {
	now := r.opts.Clock.Now().UTC()
	if _, err := r.store.ClaimDue(ctx, now, 100, func(c *Campaign) { c.Ran(now) }); err != nil {
		return 0, err
	}
	tasks, err := r.store.ClaimTasks(ctx, now, r.opts.Lease, r.opts.Tasks)
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(tasks))
	for i, t := range tasks {
		// Which runner works which task, for operators and the crash test:
		// a task taken over shows its progress so far.
		r.log.InfoContext(ctx, "campaign: running a task", "campaign", t.Campaign, "task", t.ID,
			"queued", t.Recipients, "sent", t.Sent, "failed", t.Failed)
		wg.Go(func() { errs[i] = r.work(ctx, t) })
	}
	wg.Wait()
	return len(tasks), errors.Join(errs...)
}

// work runs task t: it sends what is queued, then resolves and queues the
// next page of recipients, until none is left.
func (r *Runner) work(ctx context.Context, t Task) error {
	var q taskQuery
	for {
		c, err := r.store.Campaign(ctx, t.Tenant, t.Campaign)
		switch {
		case msgkit.KindOf(err) == msgkit.NotFound:
			return r.end(ctx, t, TaskStopped)
		case err != nil:
			return err
		case c.Status == Stopped || c.Status == Draft:
			return r.end(ctx, t, TaskStopped)
		}
		queued, err := r.store.QueuedMessages(ctx, t.ID, r.opts.Page)
		if err != nil {
			return err
		}
		if len(queued) > 0 {
			var retry bool
			if t, retry, err = r.send(ctx, c, t, queued); err != nil || retry {
				return err
			}
			continue
		}
		if t.Exhausted {
			return r.end(ctx, t, TaskDone)
		}
		sel, err := q.selection(c, r.opts.Clock.Now())
		if err != nil {
			return err
		}
		rs, next, err := r.audience.Recipients(ctx, t.Tenant, sel, t.Cursor, r.opts.Page)
		if err != nil {
			return err
		}
		now := r.opts.Clock.Now().UTC()
		msgs := make([]Message, len(rs))
		for i, rc := range rs {
			msgs[i] = Message{Task: t.ID, Contact: rc.Contact, Address: rc.Address, Status: MessageQueued, Updated: now}
		}
		if next != "" {
			t.Cursor = next
		}
		t.Exhausted = len(rs) < r.opts.Page
		t.State = TaskRunning
		if t, err = r.store.QueueMessages(ctx, t, msgs, now.Add(r.opts.Lease)); err != nil {
			return r.leaseLost(ctx, t, err)
		}
	}
}

// taskQuery is the segmentation query of a task's campaign, parsed
// once for the task and handed to the Audience for every page; it is
// parsed again only when the campaign's query has been changed (a PUT)
// since, so that the pages after the change follow it, as they follow
// its template.
type taskQuery struct {
	text   string
	parsed *segmentation.Query
}

// selection is whom c reaches on the day of now.
func (q *taskQuery) selection(c Campaign, now time.Time) (Selection, error) {
	sel := Selection{Lists: c.Lists, Channel: c.Channel, Today: msgkit.DateOf(now.UTC())}
	if c.QueryType != Segmentation || c.Query == "" {
		return sel, nil
	}
	if q.parsed == nil || q.text != c.Query {
		parsed, err := segmentation.Parse([]byte(c.Query))
		if err != nil {
			return Selection{}, err
		}
		q.text, q.parsed = c.Query, parsed
	}
	sel.Query = q.parsed
	return sel, nil
}

// send hands queued messages of task t to the channel at the tenant's
// pace, up to InFlight at a time, and records their outcomes. Every
// CheckEvery messages it looks at the campaign again and stops handing
// over when it was stopped or deleted. retry says the channel failed for
// the moment: the task has been given back for later.
func (r *Runner) send(ctx context.Context, c Campaign, t Task, queued []Message) (Task, bool, error) {
	sender := r.senders[c.Channel]
	// The payer is read for each page, so that a change applies to the
	// next one.
	payer, err := r.store.Payer(ctx, t.Tenant)
	if err != nil {
		return t, false, err
	}
	lim, err := r.limiter(ctx, t.Tenant, payer)
	if err != nil {
		return t, false, err
	}
	queued = queued[:min(len(queued), r.withinLease(lim.Limit()))]
	out := slices.Clone(queued) // each message's outcome; still queued: not handed over
	var mu sync.Mutex
	var temporary error
	failing := func(err error) bool {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && temporary == nil {
			temporary = err
		}
		return temporary != nil
	}
	slots := make(chan struct{}, r.opts.InFlight)
	var wg sync.WaitGroup
	for i := range out {
		if failing(nil) || i > 0 && i%r.opts.CheckEvery == 0 && r.stopped(ctx, t) {
			break
		}
		now := r.opts.Clock.Now().UTC()
		if d := lim.ReserveN(now, 1).DelayFrom(now); d > 0 {
			if failing(r.opts.Sleep(ctx, d)) {
				break
			}
		}
		if sender == nil {
			out[i].Status, out[i].Error, out[i].Updated = MessageFailed, "no sender for the channel "+string(c.Channel), now
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			m := &out[i]
			id, err := sender.Send(ctx, Outgoing{Tenant: t.Tenant, Campaign: c, To: Recipient{Contact: m.Contact, Address: m.Address},
				Key: MessageKey(t.ID, m.Contact), Payer: payer})
			switch {
			case err == nil:
				m.Status, m.MsgID = MessageSent, id
			case msgkit.KindOf(err) == msgkit.Invalid:
				m.Status, m.Error = MessageFailed, msgkit.MessageOf(err)
			default:
				failing(err)
				return
			}
			m.Updated = r.opts.Clock.Now().UTC()
		})
	}
	wg.Wait()
	done := slices.DeleteFunc(out, func(m Message) bool { return m.Status == MessageQueued })
	now := r.opts.Clock.Now().UTC()
	if len(done) > 0 {
		if t, err = r.store.FinishMessages(ctx, t, done, now.Add(r.opts.Lease)); err != nil {
			return t, false, r.leaseLost(ctx, t, err)
		}
		r.metrics.finished(done)
	}
	if temporary == nil {
		t.Attempts = 0
		return t, false, nil
	}
	if ctx.Err() != nil {
		return t, true, ctx.Err()
	}
	t.Attempts++
	r.log.WarnContext(ctx, "campaign: the channel failed; the run goes on later", "campaign", t.Campaign, "task", t.ID, "attempts", t.Attempts, "err", temporary)
	return t, true, r.leaseLost(ctx, t, r.store.EndTask(ctx, t, TaskRunning, now.Add(r.opts.Backoff.Wait(t.Attempts))))
}

// withinLease is how many messages a run hands over at the pace lim
// before it records them, which renews its lease: half a lease's worth,
// so that a slow pace does not let another runner take a live task over.
func (r *Runner) withinLease(lim rate.Limit) int {
	if lim == rate.Inf {
		return r.opts.Page
	}
	return max(1, int(float64(lim)*r.opts.Lease.Seconds()/2))
}

// stopped reports whether t's campaign was stopped, deleted or made a
// draft since the page began; a failure to look counts as not.
func (r *Runner) stopped(ctx context.Context, t Task) bool {
	c, err := r.store.Campaign(ctx, t.Tenant, t.Campaign)
	return msgkit.KindOf(err) == msgkit.NotFound || err == nil && (c.Status == Stopped || c.Status == Draft)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// end ends task t as state.
func (r *Runner) end(ctx context.Context, t Task, state TaskState) error {
	return r.leaseLost(ctx, t, r.store.EndTask(ctx, t, state, r.opts.Clock.Now().UTC()))
}

// leaseLost turns the loss of a task's lease into no error: another
// runner has the task and goes on with it.
func (r *Runner) leaseLost(ctx context.Context, t Task, err error) error {
	if msgkit.CodeOf(err) == CodeLeaseLost {
		r.log.InfoContext(ctx, "campaign: another runner took the task over", "task", t.ID)
		return nil
	}
	return err
}

// limiter is the limiter of a tenant's campaigns, set to the pace of the
// tenant paying with payer (read for each page, so that a change applies
// to the next one). The tenant's tasks share it.
func (r *Runner) limiter(ctx context.Context, tenant msgkit.ServiceUUID, payer string) (*rate.Limiter, error) {
	lim, err := r.pace(ctx, tenant, payer)
	if err != nil {
		return nil, err
	}
	burst := r.opts.Burst
	if burst <= 0 {
		burst = 1
		if lim != rate.Inf {
			burst = max(int(lim/10), 1)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.limiters[tenant]
	if l == nil {
		l = rate.NewLimiter(lim, burst)
		r.limiters[tenant] = l
	}
	if l.Limit() != lim || l.Burst() != burst {
		now := r.opts.Clock.Now()
		l.SetLimitAt(now, lim)
		l.SetBurstAt(now, burst)
	}
	return l, nil
}

// pace is the tenant's pace when it pays with payer (see Pace); a payer
// the Throughputs do not know gives none.
func (r *Runner) pace(ctx context.Context, tenant msgkit.ServiceUUID, payer string) (rate.Limit, error) {
	set, ok := r.opts.Rate(tenant)
	throughput := 0
	if !ok && payer != "" && r.opts.Throughputs != nil {
		n, err := r.opts.Throughputs.Throughput(ctx, payer)
		if err != nil && msgkit.KindOf(err) != msgkit.NotFound {
			return 0, err
		}
		throughput = n
	}
	return Pace(set, ok, throughput, r.opts.DefaultRate), nil
}

// Throughputs reads the throughput of a bulk SMS account: how many
// submissions a second the gateway takes from it, 0 when unlimited;
// NotFound for an account it does not know. sms.Gateway is one.
type Throughputs interface {
	Throughput(ctx context.Context, account string) (int, error)
}

// Pace is the pace of a tenant's campaigns, in messages a second
// (rate.Inf: unpaced), by precedence: the rate set for the tenant when
// set is true (0 or rate.Inf: unpaced); else its payer's throughput when
// it has one (above 0), as the gateway would refuse faster submissions;
// else def, 0 meaning unpaced.
func Pace(set rate.Limit, isSet bool, throughput int, def rate.Limit) rate.Limit {
	switch {
	case isSet && set > 0:
		return set
	case isSet:
		return rate.Inf
	case throughput > 0:
		return rate.Limit(throughput)
	case def > 0:
		return def
	}
	return rate.Inf
}

// MessageKey is the key of a task's message to a contact: "c" and 31
// hexadecimal digits of SHA-256 over both, 32 bytes, the same on every
// runner and every try.
func MessageKey(task int64, contact string) string {
	h := sha256.Sum256([]byte(strconv.FormatInt(task, 10) + "/" + contact))
	return "c" + hex.EncodeToString(h[:])[:31]
}
