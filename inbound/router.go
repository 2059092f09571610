package inbound

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// Routes is where the Router reads the inbound routing records;
// routing.Service has it.
type Routes interface {
	Routes(ctx context.Context) ([]routing.Route, error)
}

// Accounts is where the Router reads the accounts the records name;
// sms.Accounts has it (NotFound for an unknown account).
type Accounts interface {
	Get(ctx context.Context, username string) (sms.Account, error)
}

// RouterOptions configure a Router; zero values choose the defaults.
type RouterOptions struct {
	// Routes and Accounts are required.
	Routes   Routes
	Accounts Accounts
	Clock    msgkit.Clock
	Logger   *slog.Logger
	// Metrics, when set, is where NewRouter registers the Router's
	// metrics (the README's Inbound table); nil counts nothing.
	Metrics prometheus.Registerer
	// NewID gives a message's id; default NewID.
	NewID func(now time.Time) sms.MessageID
	// CacheFor is how long the records and the accounts read are used
	// before they are read again; default 2 s, negative reads them for
	// every message.
	CacheFor time.Duration
	// PartsWait is how long the parts of a long message are waited for
	// after its first arrived; default 5 minutes.
	PartsWait time.Duration
	// MaxGathering bounds the long messages waiting for parts at once;
	// default 10,000. A part that would start one more is kept at once
	// as an Incomplete message of its own.
	MaxGathering int
}

// Defaults of RouterOptions.
const (
	DefaultCacheFor     = 2 * time.Second
	DefaultPartsWait    = 5 * time.Minute
	DefaultMaxGathering = 10_000
)

// Router keeps and routes the network's inbound messages (an
// sms.InboundSink): it joins the parts of long messages, applies the
// routing records' rule (see package routing) and keeps each message with
// its delivery queued in the report outbox, in one Store call.
type Router struct {
	store Store
	opts  RouterOptions
	log   *slog.Logger
	m     *metrics // nil without Options.Metrics

	cacheMu  sync.Mutex
	routes   []routing.Route
	routesAt time.Time // when routes were read; zero: never
	accounts map[string]cachedAccount

	mu     sync.Mutex
	gather map[partKey]*gathering
	parts  int // parts held in gather
}

type cachedAccount struct {
	acct  sms.Account
	found bool
	at    time.Time
}

var _ sms.InboundSink = (*Router)(nil)

// NewRouter returns a Router over store. It panics without Routes or
// Accounts, a wiring mistake.
func NewRouter(store Store, opts RouterOptions) *Router {
	if opts.Routes == nil || opts.Accounts == nil {
		panic("inbound: NewRouter needs Routes and Accounts")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.NewID == nil {
		opts.NewID = NewID
	}
	opts.CacheFor = cmp.Or(opts.CacheFor, DefaultCacheFor)
	opts.PartsWait = cmp.Or(opts.PartsWait, DefaultPartsWait)
	opts.MaxGathering = cmp.Or(opts.MaxGathering, DefaultMaxGathering)
	r := &Router{store: store, opts: opts, log: opts.Logger, accounts: map[string]cachedAccount{}, gather: map[partKey]*gathering{}}
	r.m = newMetrics(opts.Metrics, r.Gathering)
	return r
}

// partKey names a long message being gathered: its connection,
// addresses, reference and size.
type partKey struct {
	conn, source, dest string
	ref                uint16
	total              uint8
}

// gathering is a long message whose parts are arriving.
type gathering struct {
	parts   []*sms.Inbound // by part number - 1; nil while missing
	have    int
	started time.Time
}

// HandleInbound takes one message or part from the network. A whole
// message (or the part that completes one) is routed and kept before it
// returns; any other part is held for its message (PartsWait). An error
// means nothing was kept: the network offers the message again.
func (r *Router) HandleInbound(ctx context.Context, in sms.Inbound) error {
	if in.At.IsZero() {
		in.At = r.opts.Clock.Now()
	}
	in.Source, in.Dest = strings.TrimPrefix(in.Source, "+"), strings.TrimPrefix(in.Dest, "+")
	if in.Total <= 1 || in.Seq == 0 || in.Seq > in.Total {
		return r.keep(ctx, r.messageOf([]*sms.Inbound{&in}, 1, in.At))
	}
	k := partKey{in.Conn, in.Source, in.Dest, in.Ref, in.Total}
	r.mu.Lock()
	g, ok := r.gather[k]
	if !ok {
		if len(r.gather) >= r.opts.MaxGathering {
			r.mu.Unlock()
			m := r.messageOf([]*sms.Inbound{&in}, int(in.Total), in.At)
			m.State, m.Reason = Incomplete, "too many long messages were waiting for parts: kept on its own"
			return r.keep(ctx, m)
		}
		g = &gathering{parts: make([]*sms.Inbound, in.Total), started: in.At}
		r.gather[k] = g
	}
	if g.parts[in.Seq-1] == nil {
		g.have++
		r.parts++
	}
	g.parts[in.Seq-1] = &in // a part sent again replaces the one held
	if g.have < len(g.parts) {
		r.mu.Unlock()
		return nil
	}
	delete(r.gather, k)
	r.parts -= g.have
	r.mu.Unlock()
	err := r.keep(ctx, r.messageOf(g.parts, len(g.parts), in.At))
	if err != nil {
		// The network offers this part again; the others it has been
		// told are taken wait for it.
		r.mu.Lock()
		if _, taken := r.gather[k]; !taken {
			g.parts[in.Seq-1] = nil
			g.have--
			r.gather[k] = g
			r.parts += g.have
		}
		r.mu.Unlock()
	}
	return err
}

// messageOf joins parts (nil where missing) of a message of total parts,
// complete at at.
func (r *Router) messageOf(parts []*sms.Inbound, total int, at time.Time) Message {
	var first *sms.Inbound
	var text strings.Builder
	dcs, n := "GSM", 0
	for _, p := range parts {
		if p == nil {
			continue
		}
		if first == nil {
			first = p
		}
		n++
		text.WriteString(p.Text)
		if p.DCS == gsm.DCSUCS || strings.IndexFunc(p.Text, func(r rune) bool { return !gsm.InAlphabet(r) }) >= 0 {
			dcs = "UCS"
		}
	}
	return Message{
		ID: r.opts.NewID(at), Conn: first.Conn, Source: first.Source, Dest: first.Dest, DCS: dcs, Text: text.String(),
		Parts: n, Total: total, ReceivedAt: at.UTC(),
	}
}

// Sweep keeps as Incomplete every long message whose first part arrived
// PartsWait or longer ago: the parts that came, joined in order. It
// returns how many it kept; a message it could not keep waits for the
// next sweep.
func (r *Router) Sweep(ctx context.Context) (int, error) {
	now := r.opts.Clock.Now()
	r.mu.Lock()
	due := map[partKey]*gathering{}
	for k, g := range r.gather {
		if now.Sub(g.started) >= r.opts.PartsWait {
			due[k] = g
			delete(r.gather, k)
			r.parts -= g.have
		}
	}
	r.mu.Unlock()
	n := 0
	var first error
	for k, g := range due {
		m := r.messageOf(g.parts, len(g.parts), now)
		m.State, m.Reason = Incomplete, fmt.Sprintf("%d of %d parts arrived within %s", g.have, len(g.parts), r.opts.PartsWait)
		if err := r.keep(ctx, m); err != nil {
			first = cmp.Or(first, err)
			r.mu.Lock()
			if _, taken := r.gather[k]; !taken {
				r.gather[k] = g
				r.parts += g.have
			}
			r.mu.Unlock()
			continue
		}
		n++
	}
	return n, first
}

// Run sweeps (Sweep) every tenth of PartsWait, at least every second and
// at most every 30 seconds, until ctx ends.
func (r *Router) Run(ctx context.Context) {
	t := time.NewTicker(min(max(r.opts.PartsWait/10, time.Second), 30*time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := r.Sweep(ctx); err != nil && ctx.Err() == nil {
				r.log.ErrorContext(ctx, "inbound: keeping incomplete messages failed", "err", err)
			}
		}
	}
}

// Gathering is how many parts wait for the rest of their message.
func (r *Router) Gathering() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.parts
}

// Messages lists the kept messages by q (ListSpec).
func (r *Router) Messages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Message], error) {
	return r.store.Messages(ctx, q)
}

// keep routes m (unless it is Incomplete) and keeps it with its
// delivery.
func (r *Router) keep(ctx context.Context, m Message) error {
	var rep *sms.Report
	outcome := outcomeIncomplete
	if m.State != Incomplete {
		var err error
		if rep, outcome, err = r.route(ctx, &m); err != nil {
			r.m.failed()
			return err
		}
	}
	if err := r.store.Keep(ctx, m, rep); err != nil {
		r.m.failed()
		r.log.ErrorContext(ctx, "inbound: keeping a message failed", "conn", m.Conn, "err", err)
		return err
	}
	r.m.kept(outcome)
	switch m.State {
	case Routed:
		r.log.DebugContext(ctx, "inbound: routed", "id", m.ID, "conn", m.Conn, "route", m.RouteID, "account", m.Account)
	default:
		r.log.WarnContext(ctx, "inbound: kept, not delivered", "id", m.ID, "conn", m.Conn, "state", m.State, "reason", m.Reason)
	}
	return nil
}

// route applies the record-to-traffic rule to m: it sets m's State,
// Reason, RouteID, Account and URL, and gives the report that delivers
// it (nil when it is Unroutable). An error is a failure to read the
// records or an account, not a message that cannot be routed.
func (r *Router) route(ctx context.Context, m *Message) (*sms.Report, outcome, error) {
	routes, err := r.readRoutes(ctx)
	if err != nil {
		return nil, 0, err
	}
	rt, ok := routing.For(routes, m.Conn)
	if !ok {
		m.State, m.Reason = Unroutable, fmt.Sprintf("no inbound route has sigtran_connect_id %q", m.Conn)
		return nil, outcomeNoRoute, nil
	}
	m.RouteID, m.Account = rt.ID, rt.Target()
	field := "smpp_connect_id"
	if rt.ToESME() {
		field = "esme_connect_id"
	}
	acct, found, err := r.account(ctx, m.Account)
	switch {
	case err != nil:
		return nil, 0, err
	case !found:
		m.State, m.Reason = Unroutable, fmt.Sprintf("route %d: %s %q is no bulk SMS account", rt.ID, field, m.Account)
		return nil, outcomeNoAccount, nil
	case !acct.Enabled:
		m.State, m.Reason = Unroutable, fmt.Sprintf("route %d: account %q is suspended", rt.ID, m.Account)
		return nil, outcomeSuspended, nil
	case !rt.ToESME() && acct.InboundURL == "":
		m.State, m.Reason = Unroutable, fmt.Sprintf("route %d: account %q has no inboundUrl", rt.ID, m.Account)
		return nil, outcomeNoURL, nil
	}
	var body any
	o := outcomeHTTP
	if rt.ToESME() {
		validity := cmp.Or(acct.Validity, sms.DefaultValidity)
		m.URL, o = sms.BindURL(acct.Username), outcomeBinds
		// DoneTime is the arrival: the SMPP server holds a delivery
		// without a bind for longer the older its event is.
		body = sms.BindDelivery{Kind: sms.BindMessage, MsgID: m.ID, Source: m.Source, Dest: m.Dest, Text: m.Text, DCS: m.DCS,
			DoneTime: m.ReceivedAt.Unix(), ExpiresAt: m.ReceivedAt.Add(validity).Unix()}
	} else {
		m.URL = acct.InboundURL
		body = BodyOf(*m)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, 0, msgkit.Wrap(err, msgkit.Internal, CodeInvalid, "encoding an inbound message failed")
	}
	m.State = Routed
	return &sms.Report{MsgID: m.ID, URL: m.URL, Body: b, State: sms.ReportPending, NextAt: m.ReceivedAt, CreatedAt: m.ReceivedAt}, o, nil
}

// BodyOf is the JSON body of m for an InboundURL.
func BodyOf(m Message) Body {
	return Body{MsgID: m.ID, Event: EventMO, Source: m.Source, Dest: m.Dest, Text: m.Text, DCS: m.DCS, NumParts: m.Parts,
		RecvTime: m.ReceivedAt.Unix(), AccountName: m.Account}
}

// readRoutes reads the records, or gives those read within CacheFor.
func (r *Router) readRoutes(ctx context.Context) ([]routing.Route, error) {
	now := r.opts.Clock.Now()
	r.cacheMu.Lock()
	if !r.routesAt.IsZero() && now.Sub(r.routesAt) < r.opts.CacheFor {
		routes := r.routes
		r.cacheMu.Unlock()
		return routes, nil
	}
	r.cacheMu.Unlock()
	routes, err := r.opts.Routes.Routes(ctx)
	if err != nil {
		return nil, err
	}
	r.cacheMu.Lock()
	r.routes, r.routesAt = routes, now
	r.cacheMu.Unlock()
	return routes, nil
}

// account reads an account, or gives the one read within CacheFor;
// found is false for an account that does not exist.
func (r *Router) account(ctx context.Context, username string) (sms.Account, bool, error) {
	now := r.opts.Clock.Now()
	r.cacheMu.Lock()
	c, ok := r.accounts[username]
	r.cacheMu.Unlock()
	if ok && now.Sub(c.at) < r.opts.CacheFor {
		return c.acct, c.found, nil
	}
	a, err := r.opts.Accounts.Get(ctx, username)
	switch {
	case msgkit.KindOf(err) == msgkit.NotFound:
		c = cachedAccount{found: false, at: now}
	case err != nil:
		return sms.Account{}, false, err
	default:
		c = cachedAccount{acct: a, found: true, at: now}
	}
	r.cacheMu.Lock()
	if len(r.accounts) >= 10_000 {
		clear(r.accounts) // records name few accounts; this bounds a misconfiguration's
	}
	r.accounts[username] = c
	r.cacheMu.Unlock()
	return c.acct, c.found, nil
}
