package smpp

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// Config is one SMSC connection: where it is, how to bind, and how it
// carries messages. Zero values choose the defaults.
type Config struct {
	// Name identifies the connection in the Store: the SMSC's message ids
	// are unique per connection only. Default Addr.
	Name string
	// Addr is the SMSC's host:port; TLS, when set, wraps the connection.
	Addr string
	TLS  *tls.Config
	// The bind's credentials and address range.
	SystemID, Password, SystemType string
	Range                          pdu.Address
	// Mode is how each bind binds; default Transceiver. Transmitters send
	// and receivers take receipts; a connection needs both, on one
	// transceiver, or on transmitters with Receivers receiver binds.
	Mode pdu.BindMode
	// Binds is how many binds of Mode the connection keeps; default 1.
	Binds int
	// Receivers adds receiver binds to transmitter binds (Mode
	// Transmitter), for SMSCs that send receipts on those only.
	Receivers int
	// Window is the most submit_sm a bind has sent and not had answered;
	// default 50, at most 1000.
	Window int
	// Timeout bounds the wait for one response; default 10 s.
	Timeout time.Duration
	// EnquireEvery is the keep-alive period; default 30 s. A bind that
	// hears nothing from the SMSC for DeadAfter (default 2 × EnquireEvery
	// + Timeout) is dropped and made again.
	EnquireEvery, DeadAfter time.Duration
	// MinBackoff and MaxBackoff bound the waits between reconnections;
	// defaults 1 s and 1 min.
	MinBackoff, MaxBackoff time.Duration
	// Throttled is how long a bind rests when ESME_RTHROTTLED or
	// ESME_RMSGQFUL begins a throttling episode (see the package doc);
	// default 1 s.
	Throttled time.Duration
	// Concat is how long messages' parts are tied together; GSMPacked
	// packs GSM septets (else one an octet, as most SMSCs take them).
	Concat    Concat
	GSMPacked bool
	// ServiceType is submit_sm's service_type; usually "".
	ServiceType string
	// TimeZone is the SMSC's, in which receipts' dates are read (they
	// carry none); default UTC.
	TimeZone *time.Location
	// MaxPDU bounds a PDU read; default DefaultMaxPDU.
	MaxPDU int
}

func (c Config) withDefaults() Config {
	c.Name = cmp.Or(c.Name, c.Addr)
	if c.Mode == 0 {
		c.Mode = pdu.Transceiver
	}
	c.Binds = max(c.Binds, 1)
	c.Window = min(cmp.Or(c.Window, 50), 1000)
	c.Timeout = cmp.Or(c.Timeout, 10*time.Second)
	c.EnquireEvery = cmp.Or(c.EnquireEvery, 30*time.Second)
	c.DeadAfter = cmp.Or(c.DeadAfter, 2*c.EnquireEvery+c.Timeout)
	c.MinBackoff = cmp.Or(c.MinBackoff, time.Second)
	c.MaxBackoff = cmp.Or(c.MaxBackoff, time.Minute)
	c.Throttled = cmp.Or(c.Throttled, time.Second)
	c.MaxPDU = cmp.Or(c.MaxPDU, pdu.DefaultMaxPDU)
	if c.TimeZone == nil {
		c.TimeZone = time.UTC
	}
	return c
}

// Options are the client's collaborators. The sink of its status events
// is Run's: the client can exist before what takes them.
type Options struct {
	// Store keeps the SMSC's ids of the parts it took; required.
	Store  Store
	Logger *slog.Logger
	// Clock tells the time the client stamps and decides by (see the
	// package doc); default the system clock.
	Clock msgkit.Clock
	// Dial opens connections; default a net.Dialer with a 10 s timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Inbound takes the messages from phones (deliver_sm that is no
	// receipt) the SMSC sends, as sms.Inbound of Config.Name; nil refuses
	// them with ESME_RX_T_APPN, so that the SMSC keeps them.
	Inbound sms.InboundSink
	// Metrics, when set, is where New registers the client's metrics
	// (see the package doc), labelled with Config.Name. Clients of
	// several connections share one registry; a second client of one
	// connection on it is a wiring mistake, and New panics. Nil: no
	// metrics, at no cost.
	Metrics prometheus.Registerer
}

// Client is an ESME on one SMSC connection: it keeps the configured
// binds up (reconnecting with backoff), sends parts through them within
// each bind's window (sms.Upstream), and turns the SMSC's receipts into
// status events. Run keeps the binds; Send may be called at any time and
// waits for a bind while its context allows.
type Client struct {
	cfg  Config
	opts Options
	log  *slog.Logger
	m    *metrics // nil without Options.Metrics

	mu      sync.Mutex
	binds   []*bind       // bound, able to send
	next    int           // round robin over binds
	changed chan struct{} // closed and replaced when binds changes

	// recent are the ids of parts the SMSC took whose record is not yet
	// saved: a receipt can overtake the saving. recentAdded is closed and
	// replaced whenever one is added, for receipts waiting for theirs.
	recentMu    sync.Mutex
	recent      map[string]PartKey
	recentAdded chan struct{}
	sends       sendTimes // under recentMu

	// receiptQ are the queues of the receipt workers (handleReceipts); a
	// receipt goes to the one its id hashes to, so the receipts of one
	// part are handled in the order they came.
	receiptQ []chan receiptJob

	// acceptQ holds the acceptances of every Send for handleAccepted,
	// which stores them in batches: Send does not wait for them.
	acceptQ chan sms.StatusEvent

	// saveQ holds the parts the SMSC took, as their answers are read,
	// for saver.
	saveQ chan saveReq

	// refs numbers long messages per destination (concatenation
	// references).
	refs *refTable
}

// New returns a client; Run brings its binds up.
func New(cfg Config, opts Options) *Client {
	if opts.Store == nil {
		panic("smpp: New needs a Store")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Dial == nil {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		opts.Dial = d.DialContext
	}
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, opts: opts, log: opts.Logger.With("smsc", cfg.Name), changed: make(chan struct{}), recent: map[string]PartKey{}, recentAdded: make(chan struct{}), refs: newRefTable()}
	if opts.Metrics != nil {
		c.m = newMetrics(opts.Metrics, cfg.Name)
	}
	c.acceptQ = make(chan sms.StatusEvent, 4096)
	c.saveQ = make(chan saveReq, 4096)
	c.receiptQ = make([]chan receiptJob, receiptWorkers)
	for i := range c.receiptQ {
		c.receiptQ[i] = make(chan receiptJob, 2*maxReceiptBatch)
	}
	return c
}

// Run keeps the connection's binds up until ctx ends, then unbinds them.
// sink takes the status events: the parts the SMSC took (StatusAccepted)
// and what their receipts say; a receipt is acknowledged once sink took
// its event. Run panics without a sink.
func (c *Client) Run(ctx context.Context, sink sms.StatusSink) {
	if sink == nil {
		panic("smpp: Run needs a sink")
	}
	var wg sync.WaitGroup
	modes := make([]pdu.BindMode, 0, c.cfg.Binds+c.cfg.Receivers)
	for range c.cfg.Binds {
		modes = append(modes, c.cfg.Mode)
	}
	if c.cfg.Mode == pdu.Transmitter {
		for range c.cfg.Receivers {
			modes = append(modes, pdu.Receiver)
		}
	}
	// The saver outlives the binds: a bind that ends with ctx unbinds, and
	// the SMSC answers what it took before its unbind_resp; those answers
	// are recorded too, so that a part the SMSC took during a shutdown is
	// not sent again after it.
	saverCtx, stopSaver := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSaver()
	var binds sync.WaitGroup
	for i, m := range modes {
		binds.Go(func() { c.keep(ctx, i, m) })
	}
	for _, q := range c.receiptQ {
		wg.Go(func() { c.handleReceipts(ctx, sink, q) })
	}
	wg.Go(func() { c.handleAccepted(ctx, sink) })
	wg.Go(func() { c.saver(saverCtx, ctx) })
	binds.Wait()
	stopSaver()
	wg.Wait()
}

// keep makes bind i of mode m again and again until ctx ends.
func (c *Client) keep(ctx context.Context, i int, m pdu.BindMode) {
	backoff := msgkit.Backoff{Base: c.cfg.MinBackoff, Max: c.cfg.MaxBackoff, Jitter: rand.Float64}
	failures := 0
	for ctx.Err() == nil {
		b, err := c.connect(ctx, m)
		if err != nil {
			failures++
			wait := backoff.Wait(failures)
			c.log.Warn("smpp bind failed", "bind", i, "mode", m, "err", err, "retry_in", wait)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			continue
		}
		failures = 0
		c.log.Info("smpp bound", "bind", i, "mode", m)
		if c.m != nil {
			c.m.bindsUp.Inc()
		}
		if m != pdu.Receiver {
			c.add(b)
		}
		err = b.serve(ctx)
		c.remove(b)
		if c.m != nil {
			c.m.bindsUp.Dec()
		}
		if ctx.Err() == nil {
			c.log.Warn("smpp bind lost", "bind", i, "err", err)
			failures = 1
			select {
			case <-ctx.Done():
			case <-time.After(backoff.Wait(failures)):
			}
		}
	}
}

func (c *Client) add(b *bind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.binds = append(c.binds, b)
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) remove(b *bind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range c.binds {
		if o == b {
			c.binds = append(c.binds[:i], c.binds[i+1:]...)
			close(c.changed)
			c.changed = make(chan struct{})
			return
		}
	}
}

// pick returns a bound bind that is not resting, round robin, waiting
// for one while ctx allows.
func (c *Client) pick(ctx context.Context) (*bind, error) {
	for {
		c.mu.Lock()
		n, live := len(c.binds), 0
		changed := c.changed
		for k := range n {
			b := c.binds[(c.next+k)%n]
			if b.isClosed() {
				continue // on its way out of binds
			}
			live++
			if b.resting() > 0 {
				continue
			}
			c.next = (c.next + k + 1) % n
			c.mu.Unlock()
			return b, nil
		}
		c.mu.Unlock()
		if live > 0 {
			// Every bind rests after throttling: the caller retries later.
			return nil, msgkit.New(msgkit.RateLimited, "smsc_throttled", "the SMSC asked to slow down")
		}
		select {
		case <-ctx.Done():
			return nil, msgkit.Wrap(ctx.Err(), msgkit.Unavailable, "smsc_down", "no bind to the SMSC is up")
		case <-changed:
		}
	}
}

// Bound reports how many binds can send now.
func (c *Client) Bound() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.binds)
}

// Send hands parts to the SMSC (sms.Upstream). A part the Store says the
// SMSC took already is not sent again and counts as taken. The others go
// through the binds within their windows; each answered ESME_ROK is
// recorded in the Store with the SMSC's id before Send returns. A part
// whose response does not come (the bind dropped, the timeout passed) is
// an Unavailable error, to be tried again: if the SMSC did take it and
// its answer was lost, that try sends it twice, the one window no ESME
// can close. ESME_RTHROTTLED and ESME_RMSGQFUL are RateLimited and rest
// the bind; other statuses are refusals for good or temporary failures
// as statusError says.
func (c *Client) Send(ctx context.Context, parts []sms.OutboundPart) []error {
	keys := make([]PartKey, len(parts))
	for i, p := range parts {
		keys[i] = PartKey{p.MsgID, p.PartNum}
	}
	taken, err := c.opts.Store.SubmittedParts(ctx, keys)
	if err != nil {
		return sms.FailAll(len(parts), msgkit.Wrap(err, msgkit.Unavailable, "smpp_store", "the SMPP store cannot say what was sent"))
	}
	errs := make([]error, len(parts))
	calls := make([]*call, len(parts))
	for i, p := range parts {
		if _, ok := taken[keys[i]]; ok {
			continue
		}
		sm, err := c.submitOf(p)
		if err != nil {
			errs[i] = errEncode(err)
			continue
		}
		b, err := c.pick(ctx)
		if err != nil {
			errs[i] = err
			continue
		}
		if calls[i], err = b.start(ctx, sm, keys[i]); err != nil {
			errs[i] = err
		}
	}
	for i, cl := range calls {
		if cl == nil {
			continue
		}
		resp, err := cl.wait(ctx)
		if err != nil {
			errs[i] = err
			continue
		}
		if resp.Status != pdu.ESME_ROK {
			errs[i] = cl.b.statusError(resp.Status)
			continue
		}
		if cl.saved == nil { // an answer that is no submit_sm_resp
			errs[i] = errLost(fmt.Sprintf("the SMSC answered %s", resp.Body.Command()))
			continue
		}
		// The reader handed the part to the saver as its answer came;
		// Send returns once it is recorded.
		select {
		case <-cl.saved:
		case <-ctx.Done():
			// Recorded later all the same; it counts as taken.
		}
	}
	for _, e := range errs {
		if e != nil {
			return errs
		}
	}
	return nil
}

// saveReq is a part the SMSC took, for the saver; done is closed once it
// is recorded (or given up on).
type saveReq struct {
	sub  Submitted
	done chan struct{}
}

// Parts the SMSC took are recorded in batches gathered for at most
// saveLinger after the first, so that a part's record follows its answer
// within milliseconds whatever the Send it belongs to waits for: what a
// crash can make the client send twice is only what was answered in that
// moment.
const (
	saveLinger   = 5 * time.Millisecond
	maxSaveBatch = 1024
)

// save hands a part the SMSC took to the saver; the channel is closed
// once it is recorded.
func (c *Client) save(sub Submitted) chan struct{} {
	done := make(chan struct{})
	c.saveQ <- saveReq{sub: sub, done: done}
	return done
}

// saver records the parts the SMSC took (saveSubmitted), reports them
// taken (accepted) while reports ends not, and tells their Sends. When
// ctx ends it records what it holds and stops.
func (c *Client) saver(ctx, reports context.Context) {
	for {
		var first saveReq
		select {
		case <-ctx.Done():
			for {
				select {
				case r := <-c.saveQ:
					c.saveBatch(ctx, reports, []saveReq{r})
				default:
					return
				}
			}
		case first = <-c.saveQ:
		}
		batch := []saveReq{first}
		linger := time.NewTimer(saveLinger)
	fill:
		for len(batch) < maxSaveBatch {
			select {
			case r := <-c.saveQ:
				batch = append(batch, r)
			case <-linger.C:
				break fill
			}
		}
		linger.Stop()
		c.saveBatch(ctx, reports, batch)
	}
}

func (c *Client) saveBatch(ctx, reports context.Context, batch []saveReq) {
	subs := make([]Submitted, len(batch))
	for i, r := range batch {
		subs[i] = r.sub
	}
	c.saveSubmitted(ctx, subs)
	for _, r := range batch {
		close(r.done)
	}
	c.accepted(reports, subs)
}

// saveSubmitted records what the SMSC took, retrying a failing store
// with pauses that add up to a minute; until then receipts find the
// parts in recent, where the reader put them as their answers came. A part the store never
// records still counts as taken (sending it again would reach the handset
// twice); its receipts then find no part.
func (c *Client) saveSubmitted(ctx context.Context, subs []Submitted) {
	defer func() {
		c.recentMu.Lock()
		for _, s := range subs {
			delete(c.recent, s.SMSCID)
		}
		c.recentMu.Unlock()
	}()
	var waited time.Duration
	wait := 50 * time.Millisecond
	for {
		err := c.opts.Store.SaveSubmitted(context.WithoutCancel(ctx), subs)
		if err == nil {
			return
		}
		if waited >= time.Minute {
			c.log.Error("smpp: the SMSC took parts the store did not record; their receipts will find no part", "parts", len(subs), "err", err)
			return
		}
		time.Sleep(wait) // the store's trouble, not a schedule: backing off
		waited += wait
		wait = min(2*wait, 2*time.Second)
	}
}

// accepted reports the parts the SMSC took to the sink (StatusAccepted,
// the SENT_TO_SMSC of delivery reports) through handleAccepted; Send
// waits only when that is far behind.
func (c *Client) accepted(ctx context.Context, subs []Submitted) {
	now := c.opts.Clock.Now()
	for _, s := range subs {
		select {
		case c.acceptQ <- sms.StatusEvent{MsgID: s.MsgID, PartNum: s.PartNum, Status: sms.StatusAccepted, At: now}:
		case <-ctx.Done():
			return
		}
	}
}

// acceptLinger is how long handleAccepted gathers acceptances after the
// first of a batch: one sink call (one commit, on PostgreSQL) for many.
const acceptLinger = 10 * time.Millisecond

// handleAccepted hands acceptances to sink in batches of at most
// maxReceiptBatch. A failure is logged: the part's receipt still moves
// it on.
func (c *Client) handleAccepted(ctx context.Context, sink sms.StatusSink) {
	for {
		var first sms.StatusEvent
		select {
		case <-ctx.Done():
			return
		case first = <-c.acceptQ:
		}
		evs := []sms.StatusEvent{first}
		linger := time.NewTimer(acceptLinger)
	fill:
		for len(evs) < maxReceiptBatch {
			select {
			case ev := <-c.acceptQ:
				evs = append(evs, ev)
			case <-linger.C:
				break fill
			}
		}
		linger.Stop()
		for i, err := range handleEvents(context.WithoutCancel(ctx), sink, evs) {
			if err != nil {
				c.log.Warn("smpp: a part's acceptance was not stored", "msgId", evs[i].MsgID, "partNum", evs[i].PartNum, "err", err)
			}
		}
	}
}

// taken notes, as its response is read, that the SMSC took a part under
// id, for the receipts that come before the part's record is saved.
func (c *Client) taken(id string, key PartKey) {
	now := c.opts.Clock.Now()
	c.recentMu.Lock()
	defer c.recentMu.Unlock()
	c.recent[canonicalID(id)] = key
	c.sends.add(key, now)
	close(c.recentAdded)
	c.recentAdded = make(chan struct{})
}

// sentAt is when the SMSC took part key, if the client remembers.
func (c *Client) sentAt(key PartKey) (time.Time, bool) {
	c.recentMu.Lock()
	defer c.recentMu.Unlock()
	return c.sends.at(key)
}

// sendTimeSlots bounds the parts whose send the client remembers for
// their receipts: at 1,000 parts a second, the last minute's, which is
// when a done date to the minute can fall before the send.
const sendTimeSlots = 1 << 16

// sendTimes are the times the SMSC took the last sendTimeSlots parts, a
// map with a ring that forgets the oldest.
type sendTimes struct {
	times map[PartKey]int64
	ring  []sendTime
	next  int
}

type sendTime struct {
	key PartKey
	at  int64
}

func (s *sendTimes) add(key PartKey, t time.Time) {
	if s.ring == nil {
		s.ring = make([]sendTime, sendTimeSlots)
		s.times = make(map[PartKey]int64, sendTimeSlots)
	}
	old := s.ring[s.next]
	if v, ok := s.times[old.key]; ok && v == old.at {
		delete(s.times, old.key) // not a later send of the part
	}
	s.ring[s.next] = sendTime{key, t.UnixNano()}
	s.times[key] = t.UnixNano()
	s.next = (s.next + 1) % sendTimeSlots
}

func (s *sendTimes) at(key PartKey) (time.Time, bool) {
	v, ok := s.times[key]
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, v), true
}

// canonicalID is the form an SMSC's message id is kept in: an id of hex
// digits without its leading zeros (one kept for zero), anything else as
// sent. A receipt's id is looked up by its IDVariants, which hold that
// form, so "0001A" submitted matches "1A", "1a" or "26" in its receipt.
func canonicalID(id string) string {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return id
		}
	}
	for len(id) > 1 && id[0] == '0' {
		id = id[1:]
	}
	return id
}

// recentPart finds a part the SMSC took whose record is being saved,
// and otherwise returns a channel closed when one is added.
func (c *Client) recentPart(ids []string) (PartKey, bool, <-chan struct{}) {
	c.recentMu.Lock()
	defer c.recentMu.Unlock()
	for _, id := range ids {
		if k, ok := c.recent[id]; ok {
			return k, true, nil
		}
	}
	return PartKey{}, false, c.recentAdded
}

// errLost is the error of a request whose answer will not come.
func errLost(why string) error {
	return msgkit.Errorf(msgkit.Unavailable, "smsc_lost", "smpp: %s; the part may be tried again", why)
}

// statusError is what a submit_sm_resp's error status means for the
// part: throttling is RateLimited (the reader rested the bind and shrank
// its window as the answer came); the SMSC's own
// trouble (ESME_RSYSERR, ESME_RX_T_APPN, ESME_RBINDFAIL,
// ESME_RINVBNDSTS, ESME_RUNKNOWNERR and statuses it does not name) is
// Unavailable, tried again; the rest say the part itself is wrong and
// refuse it for good, destination problems as undeliverable (995), the
// others as rejected by the supplier (989).
func (b *bind) statusError(st pdu.Status) error {
	switch st {
	case pdu.ESME_RTHROTTLED, pdu.ESME_RMSGQFUL:
		return msgkit.Errorf(msgkit.RateLimited, "smsc_throttled", "smpp: the SMSC answered %s", st)
	case pdu.ESME_RSYSERR, pdu.ESME_RX_T_APPN, pdu.ESME_RBINDFAIL, pdu.ESME_RINVBNDSTS, pdu.ESME_RUNKNOWNERR:
		return msgkit.Errorf(msgkit.Unavailable, "smsc_error", "smpp: the SMSC answered %s", st)
	case pdu.ESME_RINVDSTADR, pdu.ESME_RINVDSTTON, pdu.ESME_RINVDSTNPI:
		return &sms.Refusal{Code: sms.DLRUndeliverable, Reason: "smpp: the SMSC answered " + st.String()}
	}
	if !st.Named() {
		return msgkit.Errorf(msgkit.Unavailable, "smsc_error", "smpp: the SMSC answered %s", st)
	}
	return &sms.Refusal{Code: sms.DLRSupplierRejected, Reason: "smpp: the SMSC answered " + st.String()}
}

var errClosed = errors.New("smpp: the bind is closed")

// dial opens the connection, with TLS when configured.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	conn, err := c.opts.Dial(ctx, "tcp", c.cfg.Addr)
	if err != nil {
		return nil, err
	}
	if c.cfg.TLS == nil {
		return conn, nil
	}
	cfg := c.cfg.TLS
	if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
		// The certificate is checked against the host dialled, as an
		// HTTPS client does.
		cfg = cfg.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(c.cfg.Addr)
	}
	tc := tls.Client(conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("smpp: TLS handshake: %w", err)
	}
	return tc, nil
}
