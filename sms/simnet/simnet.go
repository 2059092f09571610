package simnet

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// Kind is what the network does with a part.
type Kind uint8

// The kinds of outcome. The zero Kind is Deliver, so a zero Outcome delivers
// at once.
const (
	// Deliver: accepted after AcceptDelay, delivered Delay later.
	Deliver Kind = iota
	// Absent: accepted, then a temporary failure (29, absent subscriber) on
	// each of Attempts attempts (at least one), the first Delay after
	// acceptance and the next ones RetryEvery apart; delivered on the attempt
	// after, RetryEvery later. An attempt past the part's validity becomes
	// StatusExpired at ExpiresAt instead.
	Absent
	// Unknown: accepted, then a permanent failure (1, subscriber unknown)
	// Delay later.
	Unknown
	// Reject: StatusRejected (989, supplier rejected) after AcceptDelay,
	// without acceptance.
	Reject
	// Silent: accepted, then nothing. With Options.ReportExpiry the network
	// reports StatusExpired at the part's ExpiresAt.
	Silent
	// Refuse: Send refuses the part for good, with an *sms.Refusal of code
	// ErrorCode (989, supplier rejected, when 0), and reports nothing.
	Refuse
)

var kindNames = [...]string{Deliver: "deliver", Absent: "absent", Unknown: "unknown", Reject: "reject", Silent: "silent", Refuse: "refuse"}

// String names the kind in lower case.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Outcome describes what becomes of a part. Every delay is measured from the
// previous event of the part (AcceptDelay from the Send call) and gets a
// deterministic extra in [0, Jitter).
type Outcome struct {
	Kind        Kind
	AcceptDelay time.Duration // Send to acceptance (or to rejection)
	Delay       time.Duration // acceptance to delivery, to the first failed attempt, or to the permanent failure
	Attempts    int           // Absent: failed attempts before the delivery; 0 means 1
	RetryEvery  time.Duration // Absent: between attempts
	Jitter      time.Duration // upper bound of the random extra on each delay
	// ErrorCode replaces the kind's code (29 Absent, 1 Unknown, 989 Reject
	// and Refuse) when not 0: an Unknown with 998 is "no route", an Absent with 22 is
	// "memory full".
	ErrorCode sms.DLRError
}

// Rule chooses the outcome for receivers that start with Prefix.
type Rule struct {
	Prefix  string // digits of the E.164 receiver without '+'; the longest matching prefix wins
	Outcome Outcome
}

// Options configure a Network. The zero Options deliver every part at once.
type Options struct {
	// Name is the connection's name in the messages its phones send
	// (Originate): the sigtran_connect_id of the inbound routing records
	// that route them. Default DefaultName.
	Name string
	// Seed makes the jitter reproducible: the same seed and the same parts
	// give the same events.
	Seed uint64
	// Rules choose outcomes by receiver prefix; Default applies when none
	// matches.
	Rules   []Rule
	Default Outcome
	// ReportExpiry makes Silent parts report StatusExpired at their
	// ExpiresAt. Off by default: a real network may never answer, so the
	// gateway expires silent parts itself.
	ReportExpiry bool
	// DuplicateEvery, when above 0, hands every Nth event to the sink twice
	// in a row, as real networks repeat reports.
	DuplicateEvery int
	// SinkRetry is how much later (in simulated time) an event the sink
	// refused is offered again; 0 means one second.
	SinkRetry time.Duration
	// Down, when set, tells whether the connection to the network is down
	// at a time of the Clock: Send then takes nothing and every part gets
	// an Unavailable error. Outage and Flapping make such schedules.
	Down func(now time.Time) bool
	// MaxPerSecond, when above 0, is how many parts the network takes in
	// one second of the Clock; each part beyond gets a RateLimited error,
	// as a throttling SMSC answers.
	MaxPerSecond int
	// Hold, when set, is called at the start of every Send, which waits
	// for it to return: Latency makes a slow network, and a test can hold
	// Send until it releases it. Its error fails every part of the call.
	Hold func(ctx context.Context) error
	// Clock is the time Send schedules from and Run delivers at; nil reads
	// the system clock.
	Clock msgkit.Clock
	// Logger receives sink failures and, at debug level, every event; nil
	// discards.
	Logger *slog.Logger
	// Handsets, when set, are the test handsets the network delivers to:
	// a part to one of their numbers that the network delivers reaches it,
	// as Route says, when its StatusDelivered event is due.
	Handsets *Handsets
	// Route is how the route treats the parts handsets receive; the zero
	// Route is honest.
	Route Route
}

// Network is a simulated mobile network. It implements sms.Upstream: Send
// schedules each part's events by its outcome, and RunDue (or Run) hands the
// events that are due to the sink. It never sleeps: time is whatever RunDue
// is told. A Network is safe for concurrent use.
type Network struct {
	opts      Options
	log       *slog.Logger
	rules     map[string]Outcome
	maxPrefix int
	// routeSender is Route.Sender parsed, nil when the route keeps senders.
	routeSender *sms.Sender

	runMu  sync.Mutex // one RunDue at a time, so the sink sees events in order
	handed uint64     // events handed to the sink, for DuplicateEvery; guarded by runMu

	mu      sync.Mutex // guards q, free, seq, scratch, second and taken
	q       queue
	free    []*item // popped items, reused by push
	seq     uint64
	scratch []sms.StatusEvent // plan's buffer, reused by Send
	second  int64             // the Unix second taken counts in, for MaxPerSecond
	taken   int
	moRef   uint8 // the concatenation reference of the last long message Originate sent
}

var _ sms.Upstream = (*Network)(nil)

// New returns a network. It panics when the options are inconsistent (a prefix that is not digits, a prefix given
// twice, a negative duration or count): these are programming errors, like a
// bad regexp.MustCompile pattern.
func New(opts Options) *Network {
	if err := opts.validate(); err != nil {
		panic("simnet: " + err.Error())
	}
	if opts.SinkRetry == 0 {
		opts.SinkRetry = time.Second
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := &Network{opts: opts, log: log, rules: make(map[string]Outcome, len(opts.Rules))}
	for _, r := range opts.Rules {
		n.rules[r.Prefix] = r.Outcome
		n.maxPrefix = max(n.maxPrefix, len(r.Prefix))
	}
	if opts.Route.Sender != "" {
		s, _ := sms.ParseSender(opts.Route.Sender) // validate checked it
		n.routeSender = &s
	}
	return n
}

func (o Options) validate() error {
	if err := o.Default.validate(); err != nil {
		return fmt.Errorf("default outcome: %w", err)
	}
	seen := make(map[string]bool, len(o.Rules))
	for i, r := range o.Rules {
		for _, c := range r.Prefix {
			if c < '0' || c > '9' {
				return fmt.Errorf("rule %d: prefix %q must be digits without '+'", i, r.Prefix)
			}
		}
		if seen[r.Prefix] {
			return fmt.Errorf("rule %d: prefix %q given twice", i, r.Prefix)
		}
		seen[r.Prefix] = true
		if err := r.Outcome.validate(); err != nil {
			return fmt.Errorf("rule %d (prefix %q): %w", i, r.Prefix, err)
		}
	}
	if o.DuplicateEvery < 0 || o.SinkRetry < 0 || o.MaxPerSecond < 0 {
		return fmt.Errorf("DuplicateEvery, SinkRetry and MaxPerSecond must not be negative")
	}
	return o.Route.validate()
}

func (o Outcome) validate() error {
	if int(o.Kind) >= len(kindNames) {
		return fmt.Errorf("unknown kind %d", o.Kind)
	}
	if o.AcceptDelay < 0 || o.Delay < 0 || o.RetryEvery < 0 || o.Jitter < 0 || o.Attempts < 0 {
		return fmt.Errorf("delays, jitter and attempts must not be negative")
	}
	return nil
}

// OutcomeFor is the outcome for a receiver: the rule with the longest prefix
// of its digits, else the default.
func (n *Network) OutcomeFor(receiver sms.MSISDN) Outcome {
	d := receiver.Digits()
	for l := min(len(d), n.maxPrefix); l >= 0; l-- {
		if o, ok := n.rules[d[:l]]; ok {
			return o
		}
	}
	return n.opts.Default
}

// Send schedules the events of every part the network takes, from the
// clock's current time, and answers for each part as sms.Upstream says.
// First Hold, when set, is waited for; then, while Down says the network
// is down, every part is Unavailable. Of the others, a part without a
// message id or with a negative part number is refused (Invalid), a part
// beyond MaxPerSecond in the current second is RateLimited, and a part
// whose outcome is Refuse gets its *sms.Refusal; the rest are taken.
// Sending the same part twice schedules its events twice, as a real
// network would. A taken part that the network delivers to one of
// Options.Handsets reaches it as Options.Route says (see Handsets).
func (n *Network) Send(ctx context.Context, parts []sms.OutboundPart) []error {
	if n.opts.Hold != nil {
		if err := n.opts.Hold(ctx); err != nil {
			return sms.FailAll(len(parts), err)
		}
	}
	if err := ctx.Err(); err != nil {
		return sms.FailAll(len(parts), err)
	}
	now := n.opts.Clock.Now()
	if n.opts.Down != nil && n.opts.Down(now) {
		return sms.FailAll(len(parts), msgkit.New(msgkit.Unavailable, "network_down", "the network is down"))
	}
	d := delivering{parts: len(parts)}
	errs := n.take(parts, now, &d)
	n.handOver(ctx, parts, &d, false)
	return errs
}

// take plans the parts the network takes at now and answers for each; d
// gets the parts it delivers to handsets, with their events.
func (n *Network) take(parts []sms.OutboundPart, now time.Time, d *delivering) (errs []error) {
	fail := func(i int, err error) {
		if errs == nil {
			errs = make([]error, len(parts))
		}
		errs[i] = err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, p := range parts {
		if p.MsgID == "" || p.PartNum < 0 {
			fail(i, msgkit.Errorf(msgkit.Invalid, "", "part %d: needs a message id and a part number of at least 0", i))
			continue
		}
		if !n.takeLocked(now) {
			fail(i, msgkit.Errorf(msgkit.RateLimited, "throttled", "more than %d parts a second", n.opts.MaxPerSecond))
			continue
		}
		o := n.OutcomeFor(p.Receiver)
		if o.Kind == Refuse {
			fail(i, &sms.Refusal{Code: o.ErrorCode, Reason: "simnet refuses " + string(p.Receiver)})
			continue
		}
		n.planLocked(o, p, i, now, d)
	}
	return errs
}

// planLocked queues the events of part p (the i-th of its call) with
// outcome o, from now. When p reaches a handset, its events go to d
// instead, with its arrival, to be queued once the handset has it.
// Called with mu held.
func (n *Network) planLocked(o Outcome, p sms.OutboundPart, i int, now time.Time, d *delivering) {
	n.scratch = plan(n.scratch[:0], n.opts.Seed, o, n.opts.ReportExpiry, p, now)
	var hs *handset
	if n.receiving() {
		for _, ev := range n.scratch {
			if ev.Status == sms.StatusDelivered {
				if hs = n.opts.Handsets.lookup(p.Receiver); hs != nil {
					d.reserve(i, len(n.scratch))
					d.arrivals = append(d.arrivals, arrival{part: i, at: ev.At, hs: hs})
				}
			}
		}
	}
	for step, ev := range n.scratch {
		n.seq++
		it := item{due: ev.At, ev: ev, step: step, seq: n.seq}
		if hs != nil {
			d.held = append(d.held, it)
		} else {
			n.push(it)
		}
	}
}

// HeldParts tells the parts a network holds: handed over, not final, of
// messages not expired at now, after the key after in (message id, part
// number) order, at most limit. The stores (memstore, pgstore) implement
// it.
type HeldParts interface {
	HandedParts(ctx context.Context, now time.Time, after sms.PartKey, limit int) ([]sms.OutboundPart, error)
}

// Restore plans again, from the clock's time, every part src says the
// network holds, as if each had just been taken (outages, rates and
// refusals do not apply: the network took them once). A simulator's
// pending events die with its process, which a real network's do not: a
// server restores its network when it starts, so that the parts handed
// over before a restart are reported on rather than left silent until
// their validity ends. An event the gateway has seen already (an
// acceptance again) changes nothing. A part delivered to one of
// Options.Handsets reaches it at its new delivery time unless the handset
// has it already (from before Restore, in the same process): it is never
// recorded twice. It returns how many parts it planned.
func (n *Network) Restore(ctx context.Context, src HeldParts) (int, error) {
	const page = 500
	now := n.opts.Clock.Now()
	restored := 0
	var after sms.PartKey
	for {
		parts, err := src.HandedParts(ctx, now, after, page)
		if err != nil {
			return restored, fmt.Errorf("simnet: restoring the parts the network held: %w", err)
		}
		d := delivering{parts: len(parts)}
		n.mu.Lock()
		for i, p := range parts {
			n.planLocked(n.OutcomeFor(p.Receiver), p, i, now, &d)
		}
		n.mu.Unlock()
		n.handOver(ctx, parts, &d, true)
		restored += len(parts)
		if len(parts) < page {
			return restored, nil
		}
		last := parts[len(parts)-1]
		after = sms.PartKey{MsgID: last.MsgID, PartNum: last.PartNum}
	}
}

// takeLocked counts one part in the second of now and reports whether it
// stays within MaxPerSecond. Called with mu held.
func (n *Network) takeLocked(now time.Time) bool {
	if n.opts.MaxPerSecond <= 0 {
		return true
	}
	if sec := now.Unix(); sec != n.second {
		n.second, n.taken = sec, 0
	}
	if n.taken >= n.opts.MaxPerSecond {
		return false
	}
	n.taken++
	return true
}

// Outage is a Down schedule: the network is down from from (included)
// until to (excluded).
func Outage(from, to time.Time) func(time.Time) bool {
	return func(now time.Time) bool { return !now.Before(from) && now.Before(to) }
}

// Flapping is a Down schedule: the network is down for the first down of
// every period, periods counted from the Unix epoch. It panics unless
// 0 <= down <= period and period > 0, a programming error.
func Flapping(period, down time.Duration) func(time.Time) bool {
	if period <= 0 || down < 0 || down > period {
		panic("simnet: Flapping needs 0 <= down <= period and period > 0")
	}
	return func(now time.Time) bool {
		into := time.Duration(now.UnixNano() % int64(period))
		if into < 0 {
			into += period
		}
		return into < down
	}
}

// Latency is a Hold that makes each Send wait d of real time, or until its
// ctx ends (then ctx's error fails the call): a slow network for demos and
// load tests. It is the only real wait in simnet; tests hold Send with a
// Hold of their own.
func Latency(d time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// plan appends the events of part p sent at now to dst. Events are stamped
// with the time they happen; nothing but StatusExpired happens after the
// part's ExpiresAt (a zero ExpiresAt never expires).
func plan(dst []sms.StatusEvent, seed uint64, o Outcome, reportExpiry bool, p sms.OutboundPart, now time.Time) []sms.StatusEvent {
	pcg := rand.NewPCG(seed, partKey(p.MsgID, p.PartNum))
	jitter := func() time.Duration {
		if o.Jitter <= 0 {
			return 0
		}
		// The modulo bias is at most Jitter/2^64: about 2^-22 for an hour.
		return time.Duration(pcg.Uint64() % uint64(o.Jitter))
	}
	add := func(at time.Time, st sms.Status, code sms.DLRError) bool {
		if !p.ExpiresAt.IsZero() && at.After(p.ExpiresAt) {
			dst = append(dst, sms.StatusEvent{MsgID: p.MsgID, PartNum: p.PartNum, Status: sms.StatusExpired, ErrorCode: sms.DLRValidityExpired, At: p.ExpiresAt})
			return false
		}
		dst = append(dst, sms.StatusEvent{MsgID: p.MsgID, PartNum: p.PartNum, Status: st, ErrorCode: code, At: at})
		return true
	}
	code := func(def sms.DLRError) sms.DLRError {
		if o.ErrorCode != 0 {
			return o.ErrorCode
		}
		return def
	}

	t := now.Add(o.AcceptDelay + jitter())
	if o.Kind == Reject {
		add(t, sms.StatusRejected, code(sms.DLRSupplierRejected))
		return dst
	}
	if !add(t, sms.StatusAccepted, 0) {
		return dst
	}
	switch o.Kind {
	case Deliver:
		add(t.Add(o.Delay+jitter()), sms.StatusDelivered, 0)
	case Unknown:
		add(t.Add(o.Delay+jitter()), sms.StatusPermanentFailure, code(sms.DLRSubscriberUnknown))
	case Absent:
		t = t.Add(o.Delay + jitter())
		for i := range max(o.Attempts, 1) {
			if i > 0 {
				t = t.Add(o.RetryEvery + jitter())
			}
			if !add(t, sms.StatusTemporaryFailure, code(sms.DLRAbsentSubscriber)) {
				return dst
			}
		}
		add(t.Add(o.RetryEvery+jitter()), sms.StatusDelivered, 0)
	case Silent:
		if reportExpiry && !p.ExpiresAt.IsZero() {
			dst = append(dst, sms.StatusEvent{MsgID: p.MsgID, PartNum: p.PartNum, Status: sms.StatusExpired, ErrorCode: sms.DLRValidityExpired, At: p.ExpiresAt})
		}
	}
	return dst
}

// partKey is FNV-1a over the message id and the part number's 8 octets, so
// a part's jitter depends on the seed and the part alone, not on other parts.
func partKey(id sms.MessageID, part int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= prime
	}
	for i := range 8 {
		h ^= uint64(byte(uint64(part) >> (8 * i)))
		h *= prime
	}
	return h
}

// RunDue hands every event due at or before now to sink, in order of
// due time, then message id, part number and the order the part's events
// were planned, and returns how many the sink took (duplicates included).
// A sink that takes batches (sms.StatusBatchSink, as the gateway does) gets
// up to 256 events a call, in that order.
//
// An event the sink refuses is not lost: it is queued again SinkRetry after
// now, and so are the part's later events that would otherwise overtake it,
// so each part's events still arrive in order. RunDue goes on with other
// parts and then returns an error naming how many events were re-queued,
// wrapping the first refusal. When ctx ends RunDue stops and returns its
// error; events not yet handed stay queued.
//
// The sink is called without locks held, so it may call Send; it must not
// call RunDue, which would wait for itself.
func (n *Network) RunDue(ctx context.Context, sink sms.StatusSink, now time.Time) (int, error) {
	n.runMu.Lock()
	defer n.runMu.Unlock()
	handle := func(ctx context.Context, evs []sms.StatusEvent) []error {
		return []error{sink.HandleStatus(ctx, evs[0])}
	}
	size := 1
	if b, ok := sink.(sms.StatusBatchSink); ok {
		handle, size = b.HandleStatuses, runBatch
	}
	handed, refused := 0, 0
	var firstErr error
	batch := make([]item, 0, size)
	evs := make([]sms.StatusEvent, 0, size)
	for {
		if err := ctx.Err(); err != nil {
			return handed, err
		}
		batch, evs = batch[:0], evs[:0]
		n.mu.Lock()
		for len(batch) < size && len(n.q) > 0 && !n.q.peek().due.After(now) {
			popped := n.q.pop()
			batch, evs = append(batch, *popped), append(evs, popped.ev)
			n.free = append(n.free, popped)
		}
		n.mu.Unlock()
		if len(batch) == 0 {
			break
		}
		errs := handle(ctx, evs)
		if len(errs) != len(batch) {
			errs = sms.FailAll(len(batch), fmt.Errorf("simnet: the sink answered %d results for %d events", len(errs), len(batch)))
		}
		for i, it := range batch {
			if err := errs[i]; err != nil {
				n.log.WarnContext(ctx, "simnet: sink refused an event; re-queued",
					"msgId", it.ev.MsgID, "partNum", it.ev.PartNum, "status", it.ev.Status.String(),
					"retryAt", now.Add(n.opts.SinkRetry), "err", err)
				n.mu.Lock()
				n.requeue(it, now.Add(n.opts.SinkRetry))
				n.mu.Unlock()
				refused++
				firstErr = cmp.Or(firstErr, err)
				continue
			}
			handed++
			n.handed++
			if n.log.Enabled(ctx, slog.LevelDebug) { // spares the arguments' allocations
				n.log.DebugContext(ctx, "simnet: event", "msgId", it.ev.MsgID, "partNum", it.ev.PartNum,
					"status", it.ev.Status.String(), "errorCode", int(it.ev.ErrorCode), "at", it.ev.At)
			}
			if n.opts.DuplicateEvery > 0 && n.handed%uint64(n.opts.DuplicateEvery) == 0 {
				// A lost duplicate is harmless: it is not retried.
				if err := sink.HandleStatus(ctx, it.ev); err != nil {
					n.log.WarnContext(ctx, "simnet: sink refused a duplicate; dropped",
						"msgId", it.ev.MsgID, "partNum", it.ev.PartNum, "err", err)
				} else {
					handed++
				}
			}
		}
	}
	if refused > 0 {
		return handed, fmt.Errorf("simnet: sink refused %d events, re-queued for %s: %w", refused, now.Add(n.opts.SinkRetry).Format(time.RFC3339Nano), firstErr)
	}
	return handed, nil
}

// requeue puts it back at due and holds back the same part's events that
// were due earlier, so they keep coming after it. Called with mu held.
func (n *Network) requeue(it item, due time.Time) {
	it.due = due
	moved := false
	for _, s := range n.q {
		if q := s.it; q.ev.MsgID == it.ev.MsgID && q.ev.PartNum == it.ev.PartNum && q.due.Before(due) {
			q.setDue(due)
			moved = true
		}
	}
	if moved {
		n.q.reorder()
	}
	n.push(it)
}

// push queues a copy of it, in an item popped before when there is one.
// Called with mu held.
func (n *Network) push(it item) {
	it.setDue(it.due)
	var p *item
	if k := len(n.free); k > 0 {
		p, n.free = n.free[k-1], n.free[:k-1]
	} else {
		p = new(item)
	}
	*p = it
	n.q.push(p)
}

// NextDue is when the earliest queued event is due; false when none is.
func (n *Network) NextDue() (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.q) == 0 {
		return time.Time{}, false
	}
	return n.q.peek().due, true
}

// Pending is the number of queued events.
func (n *Network) Pending() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.q)
}

// Run is the production loop: every tick it hands the events due at the
// clock's time to sink, until ctx ends. The sink is given here, where the
// network runs, rather than to New, so that the gateway (the usual sink,
// which sends to this network) can be built after it. Errors are logged (RunDue has
// already re-queued the events). A tick of 0 or less means 100ms.
func (n *Network) Run(ctx context.Context, sink sms.StatusSink, tick time.Duration) {
	if tick <= 0 {
		tick = 100 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := n.RunDue(ctx, sink, n.opts.Clock.Now()); err != nil && ctx.Err() == nil {
				n.log.WarnContext(ctx, "simnet: run", "err", err)
			}
		}
	}
}

// item is one scheduled event.
type item struct {
	due   time.Time
	dueNs int64 // due in Unix nanoseconds, which decides almost every comparison
	ev    sms.StatusEvent
	step  int    // position in its part's plan
	seq   uint64 // order of planning, for a part sent twice
}

func (it *item) setDue(due time.Time) { it.due, it.dueNs = due, due.UnixNano() }

// runBatch is the most events RunDue hands a StatusBatchSink at once.
const runBatch = 256

// queue is a min-heap of items by (due, msgId, partNum, step, seq): a total
// order that does not depend on the order of Send calls. Each slot holds
// the item's due time beside a pointer to it, so that sifting compares
// without following the pointer (the items are scattered in memory, and
// tens of thousands are queued under load) and moves two words rather
// than an item; the sifts are written out, with no interface calls.
type queue []slot

type slot struct {
	dueNs int64
	it    *item
}

func (q queue) less(i, j int) bool {
	if q[i].dueNs != q[j].dueNs {
		return q[i].dueNs < q[j].dueNs
	}
	a, b := q[i].it, q[j].it
	if a.ev.MsgID != b.ev.MsgID {
		return a.ev.MsgID < b.ev.MsgID
	}
	if a.ev.PartNum != b.ev.PartNum {
		return a.ev.PartNum < b.ev.PartNum
	}
	if a.step != b.step {
		return a.step < b.step
	}
	return a.seq < b.seq
}

func (q *queue) push(it *item) {
	*q = append(*q, slot{dueNs: it.dueNs, it: it})
	q.up(len(*q) - 1)
}

func (q *queue) pop() *item {
	h := *q
	last := len(h) - 1
	h[0], h[last] = h[last], h[0]
	it := h[last].it
	h[last] = slot{}
	*q = h[:last]
	if last > 0 {
		q.down(0)
	}
	return it
}

// peek is the earliest item; the queue must not be empty.
func (q queue) peek() *item { return q[0].it }

func (q queue) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(j, i) {
			return
		}
		q[i], q[j] = q[j], q[i]
		j = i
	}
}

func (q queue) down(i int) {
	n := len(q)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if k := j + 1; k < n && q.less(k, j) {
			j = k
		}
		if !q.less(j, i) {
			return
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
}

// reorder restores the heap after items' due times changed in place.
func (q queue) reorder() {
	for i := range q {
		q[i].dueNs = q[i].it.dueNs
	}
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}
