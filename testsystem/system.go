package testsystem

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem/testtext"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
)

// Probe is the test handsets: one per operator network, and what each
// received.
type Probe interface {
	// Handset is the number of the test handset on the network mccmnc
	// ("22601"); ok is false when there is none.
	Handset(ctx context.Context, mccmnc string) (number sms.MSISDN, ok bool, err error)
	// Received returns what handset received at or after since, in the
	// order it arrived.
	Received(ctx context.Context, handset sms.MSISDN, since time.Time) ([]sms.Received, error)
}

// Upstreams gives the network connection of a gate: where its test
// messages are handed over. ok is false for a gate without one.
type Upstreams func(gateID int64) (up sms.Upstream, ok bool)

// Options configure a System; zero values choose the defaults.
type Options struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// Texts is the template library; default testtext.Default().
	Texts *testtext.Library
	// DailyLimit is how many test SMS requests a user may make in a UTC
	// day; default DefaultDailyLimit.
	DailyLimit int
	// TimeLimit is how long a test message has to reach its handset
	// after the gate took it; default DefaultTimeLimit. It is also the
	// messages' validity.
	TimeLimit time.Duration
	// Node names this test node in the results (test_node); default
	// "msgkit".
	Node string
	// Rand draws marks, senders and message ids; default math/rand/v2.
	Rand func() uint64
	// Limits keeps users' own daily limits, which win over DailyLimit;
	// nil: DailyLimit for every user.
	Limits Limits
	// Audit records the changes of users' limits; nil records none.
	Audit Auditor
	// Metrics is where the system registers its metrics (the package
	// doc's Metrics); nil: none, at no cost. Registering two systems on
	// one registry panics: a process runs one.
	Metrics prometheus.Registerer
}

// Defaults of Options.
const (
	DefaultDailyLimit = 100
	DefaultTimeLimit  = 2 * time.Minute
)

// System runs test sessions: it checks requests, sends each (gate,
// operator) pair's test message through the gate, takes the gates'
// delivery reports (it is their sms.StatusSink), asks the probe what the
// handsets received, judges each message and completes sessions.
type System struct {
	catalog   Catalog
	sessions  Sessions
	probe     Probe
	upstreams Upstreams
	opts      Options
	log       *slog.Logger
	metrics   *metrics // nil: none
}

// New returns a System.
func New(catalog Catalog, sessions Sessions, probe Probe, upstreams Upstreams, opts Options) *System {
	if opts.Texts == nil {
		opts.Texts = testtext.Default()
	}
	opts.DailyLimit = cmp.Or(opts.DailyLimit, DefaultDailyLimit)
	opts.TimeLimit = cmp.Or(opts.TimeLimit, DefaultTimeLimit)
	opts.Node = cmp.Or(opts.Node, "msgkit")
	if opts.Audit == nil {
		opts.Audit = noAudit{}
	}
	if opts.Rand == nil {
		opts.Rand = rand.Uint64
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sys := &System{catalog: catalog, sessions: sessions, probe: probe, upstreams: upstreams, opts: opts, log: log}
	if opts.Metrics != nil {
		sys.metrics = newMetrics(opts.Metrics)
	}
	return sys
}

// Texts is the template library.
func (s *System) Texts() *testtext.Library { return s.opts.Texts }

// Quota is user's use of its daily limit now.
func (s *System) Quota(ctx context.Context, user string) (Quota, error) {
	limit, err := s.limitOf(ctx, user)
	if err != nil {
		return Quota{}, err
	}
	return s.sessions.Quota(ctx, user, s.opts.Clock.Now(), limit)
}

// ResetIn is the time from now to q's reset, at least 0.
func (s *System) ResetIn(q Quota) time.Duration { return q.ResetIn(s.opts.Clock.Now()) }

// Session returns user's session id; another user's, as an unknown one,
// is NotFound (SessionNotFound).
func (s *System) Session(ctx context.Context, user string, id int64) (Session, error) {
	return s.sessions.Session(ctx, user, id)
}

// Results lists the results of user's session id in test order (Seq),
// paged by q's page number and size; another user's session is NotFound.
func (s *System) Results(ctx context.Context, user string, id int64, q msgkit.ListQuery) (msgkit.Page[Result], error) {
	return s.sessions.Results(ctx, user, id, q)
}

// Languages lists the languages of the template library.
func (s *System) Languages(q msgkit.ListQuery) (msgkit.Page[testtext.Language], error) {
	return msgkit.Apply(s.opts.Texts.Languages(), q, func(l testtext.Language, attr string) (msgkit.Value, bool) {
		switch attr {
		case "code":
			return msgkit.StringValue(l.Code), true
		case "name":
			return msgkit.StringValue(l.Name), true
		}
		return msgkit.Value{}, false
	})
}

// Send runs a test request of user: it resolves the gates and operators,
// stores the session with one message per (gate, operator) pair within
// the daily limit, and hands the messages to the gates. It returns the
// session and the user's quota after it; beyond the limit the error is
// RateLimited (LimitReached) with the quota.
func (s *System) Send(ctx context.Context, user string, req Request) (Session, Quota, error) {
	now := s.opts.Clock.Now()
	if req.Username != user {
		return Session{}, Quota{}, msgkit.Errorf(msgkit.Forbidden, "username_mismatch",
			"username %q is not the authenticated user", req.Username).WithField("username", "username must be the authenticated user's", "")
	}
	if _, err := s.opts.Texts.Text(req.Lang, req.TextType, "M", 0); err != nil {
		return Session{}, Quota{}, err
	}
	gates, err := s.gates(ctx, user, req.Gates)
	if err != nil {
		return Session{}, Quota{}, err
	}
	owner := ""
	if req.Owner == OwnerMe {
		owner = user
	}
	ops, err := s.operators(ctx, owner, req)
	if err != nil {
		return Session{}, Quota{}, err
	}
	if n := len(gates) * len(ops); n > MaxMessages {
		return Session{}, Quota{}, msgkit.Invalidf(CodeInvalidRequest, "gate_id",
			"%d gates × %d operators make %d test messages; at most %d in one request", len(gates), len(ops), n, MaxMessages)
	}
	rs, err := s.build(ctx, now, user, req, gates, ops)
	if err != nil {
		return Session{}, Quota{}, err
	}
	limit, err := s.limitOf(ctx, user)
	if err != nil {
		return Session{}, Quota{}, err
	}
	sess, quota, err := s.sessions.CreateSession(ctx, Session{
		User: user, Test: req.Test, Callback: req.Callback, Status: SessionRunning, Messages: len(rs), CreatedAt: now,
	}, rs, limit)
	if err != nil {
		return Session{}, quota, err
	}
	for i := range rs {
		rs[i].Session = sess.ID
	}
	s.metrics.started()
	s.dispatch(ctx, rs)
	// A session whose messages all failed at once is complete now.
	done, err := s.sessions.CompleteSession(ctx, sess.ID, s.opts.Clock.Now(), s.callback)
	if err != nil {
		s.log.ErrorContext(ctx, "testsystem: completing a session", "session", sess.ID, "err", err)
	}
	s.metrics.completed(done)
	return sess, quota, nil
}

// gates resolves the requested gate ids among the gates user sees (the
// platform's and user's own); others are named as unknown.
func (s *System) gates(ctx context.Context, user string, ids []int64) ([]Gate, error) {
	gates, err := s.catalog.GatesByID(ctx, user, ids)
	if err != nil {
		return nil, err
	}
	if len(gates) == len(ids) {
		return gates, nil
	}
	var missing []string
	for _, id := range ids {
		if !slices.ContainsFunc(gates, func(g Gate) bool { return g.ID == id }) {
			missing = append(missing, strconv.FormatInt(id, 10))
		}
	}
	return nil, msgkit.Invalidf(CodeInvalidRequest, "gate_id", "gate_id names gates that do not exist: %s", strings.Join(missing, ", "))
}

// operators resolves the requested codes to operators of owner; codes
// without one are named.
func (s *System) operators(ctx context.Context, owner string, req Request) ([]Operator, error) {
	ops, err := s.catalog.OperatorsByCode(ctx, owner, req.MCCMNC, req.MCCs)
	if err != nil {
		return nil, err
	}
	field, codes := "mcc_mnc", req.MCCMNC
	has := func(code string) bool {
		return slices.ContainsFunc(ops, func(o Operator) bool { return o.MCCMNC() == code })
	}
	if len(codes) == 0 {
		field, codes = "mcc", req.MCCs
		has = func(code string) bool {
			return slices.ContainsFunc(ops, func(o Operator) bool { return o.MCC == code })
		}
	}
	var missing []string
	for _, c := range codes {
		if !has(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, msgkit.Invalidf(CodeInvalidRequest, field, "%s names codes without %s operators: %s", field, req.Owner, strings.Join(missing, ", "))
	}
	return ops, nil
}

// build makes the messages of a request: one per gate and operator, in
// that order.
func (s *System) build(ctx context.Context, now time.Time, user string, req Request, gates []Gate, ops []Operator) ([]Result, error) {
	handsets := make(map[string]sms.MSISDN, len(ops))
	for _, op := range ops {
		if _, seen := handsets[op.MCCMNC()]; seen {
			continue
		}
		number, ok, err := s.probe.Handset(ctx, op.MCCMNC())
		if err != nil {
			return nil, fmt.Errorf("testsystem: asking the probe for a handset on %s: %w", op.MCCMNC(), err)
		}
		if !ok {
			number = ""
		}
		handsets[op.MCCMNC()] = number
	}
	same := ""
	if req.SenderSame != "" {
		same = s.sender(req.SenderSame)
	}
	rs := make([]Result, 0, len(gates)*len(ops))
	for _, g := range gates {
		for _, op := range ops {
			mark := s.mark()
			text, err := s.opts.Texts.Text(req.Lang, req.TextType, mark, s.opts.Rand())
			if err != nil {
				return nil, err
			}
			r := Result{
				MsgID: s.msgID(), Seq: len(rs) + 1, User: user, Node: s.opts.Node,
				GateID: g.ID, Gate: g.Name, Category: g.Category, Supplier: g.Supplier,
				OperatorID: op.ID, Operator: op.Name, Country: op.Country, MCCMNC: op.MCCMNC(),
				Receiver: handsets[op.MCCMNC()], DCS: text.DCS, NumParts: text.Parts, Text: text.Body, Mark: mark,
				Price: g.Price.Mul(decimal.NewFromInt(int64(text.Parts))), Currency: g.Currency,
				Status: StatusQueued, Deadline: now.Add(s.opts.TimeLimit),
			}
			switch {
			case req.Sender != "":
				r.Sender = req.Sender
			case req.SenderRandom != "":
				r.Sender = s.sender(req.SenderRandom)
			case same != "":
				r.Sender = same
			default:
				r.Sender = text.Sender
			}
			rs = append(rs, r)
		}
	}
	return rs, nil
}

const markAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// mark draws the code that matches a receipt to its message: 8 letters
// and digits (no 0/O or 1/I), 40 bits.
func (s *System) mark() string {
	v := s.opts.Rand()
	b := make([]byte, 8)
	for i := range b {
		b[i] = markAlphabet[v&31]
		v >>= 5
	}
	return string(b)
}

// msgID draws a message id: "ts" and 24 hexadecimal digits.
func (s *System) msgID() sms.MessageID {
	return sms.MessageID(fmt.Sprintf("ts%016x%08x", s.opts.Rand(), uint32(s.opts.Rand())))
}

// sender draws a sender of kind k: alpha is "Test" and 4 to 7 letters,
// numeric an international number of 11 digits, short 4 to 6 digits.
func (s *System) sender(k SenderKind) string {
	v := s.opts.Rand()
	digits := func(n int, first byte) string {
		b := []byte{first}
		for len(b) < n {
			b = append(b, byte('0'+v%10))
			v /= 10
		}
		return string(b)
	}
	switch k {
	case SenderNumeric:
		return digits(11, '4')
	case SenderShort:
		return digits(4+int(v%3), '1'+byte(v%8))
	}
	n := 4 + int(v%4)
	v >>= 2
	b := []byte("Test")
	for range n {
		b = append(b, byte('a'+v%26))
		v /= 26
	}
	return string(b)
}

// dispatch hands the stored messages to their gates and records what
// became of each.
func (s *System) dispatch(ctx context.Context, rs []Result) {
	now := s.opts.Clock.Now()
	failed := map[sms.MessageID]string{}
	var sent []sms.MessageID
	byGate := map[int64][]*Result{}
	var order []int64
	for i := range rs {
		r := &rs[i]
		if r.Receiver == "" {
			failed[r.MsgID] = "no test handset on " + r.Operator + " (" + r.MCCMNC + ")"
			continue
		}
		if _, ok := byGate[r.GateID]; !ok {
			order = append(order, r.GateID)
		}
		byGate[r.GateID] = append(byGate[r.GateID], r)
	}
	for _, gate := range order {
		msgs := byGate[gate]
		up, ok := s.upstreams(gate)
		if !ok {
			for _, r := range msgs {
				failed[r.MsgID] = "gate " + r.Gate + " has no network connection"
			}
			continue
		}
		var parts []sms.OutboundPart
		var owner []int
		for i, r := range msgs {
			ps, err := s.parts(r, now)
			if err != nil {
				failed[r.MsgID] = err.Error()
				continue
			}
			parts = append(parts, ps...)
			for range ps {
				owner = append(owner, i)
			}
		}
		errs := up.Send(ctx, parts)
		bad := map[int]error{}
		for i, err := range errs {
			if err != nil && bad[owner[i]] == nil {
				bad[owner[i]] = err
			}
		}
		for i, r := range msgs {
			if _, f := failed[r.MsgID]; f {
				continue
			}
			if err := bad[i]; err != nil {
				failed[r.MsgID] = "the gate refused the message: " + err.Error()
				continue
			}
			sent = append(sent, r.MsgID)
		}
	}
	ids := make([]sms.MessageID, 0, len(rs))
	for _, r := range rs {
		ids = append(ids, r.MsgID)
	}
	verdicts := s.metrics.verdicts()
	err := s.sessions.UpdateResults(ctx, ids, func(r *Result) bool {
		verdicts.forget(r)
		if r.Status != StatusQueued {
			return false
		}
		if why, ok := failed[r.MsgID]; ok {
			r.Status, r.Error = StatusFailed, why
			verdicts.judged(r)
			return true
		}
		r.Status, r.SentAt, r.Deadline = StatusSent, now, now.Add(s.opts.TimeLimit)
		if r.Parts == nil {
			r.Parts = initialParts(r.NumParts)
		}
		return true
	})
	if err != nil {
		// The messages stay queued and are judged failed at their deadline.
		s.log.ErrorContext(ctx, "testsystem: recording sent test messages", "err", err, "sent", len(sent))
		return
	}
	s.metrics.count(verdicts)
}

func initialParts(n int) []sms.PartState {
	ps := make([]sms.PartState, max(n, 1))
	for i := range ps {
		ps[i] = sms.StateSubmitted
	}
	return ps
}

// parts splits a message into what its gate carries.
func (s *System) parts(r *Result, now time.Time) ([]sms.OutboundPart, error) {
	sender, err := sms.ParseSender(r.Sender)
	if err != nil {
		return nil, err
	}
	m, err := gsm.SplitText(r.Text, r.DCS, uint8(s.opts.Rand()))
	if err != nil {
		return nil, err
	}
	ps := make([]sms.OutboundPart, len(m.Parts))
	for i, p := range m.Parts {
		ps[i] = sms.OutboundPart{
			MsgID: r.MsgID, PartNum: i, NumParts: len(m.Parts), Sender: sender, Receiver: r.Receiver,
			DCS: m.DCS, Text: p.Text, UDH: p.UDH, ExpiresAt: now.Add(s.opts.TimeLimit),
		}
	}
	return ps, nil
}

// HandleStatus records a gate's report on a test message part (the
// gates' sms.StatusSink). Reports on unknown messages, parts beyond the
// message, and on judged messages change nothing.
func (s *System) HandleStatus(ctx context.Context, ev sms.StatusEvent) error {
	return s.HandleStatuses(ctx, []sms.StatusEvent{ev})[0]
}

// HandleStatuses records reports as HandleStatus does, in one store
// update (sms.StatusBatchSink).
func (s *System) HandleStatuses(ctx context.Context, evs []sms.StatusEvent) []error {
	byMsg := make(map[sms.MessageID][]sms.StatusEvent, len(evs))
	ids := make([]sms.MessageID, 0, len(evs))
	for _, ev := range evs {
		if _, ok := byMsg[ev.MsgID]; !ok {
			ids = append(ids, ev.MsgID)
		}
		byMsg[ev.MsgID] = append(byMsg[ev.MsgID], ev)
	}
	err := s.sessions.UpdateResults(ctx, ids, func(r *Result) bool {
		return applyReports(r, byMsg[r.MsgID])
	})
	errs := make([]error, len(evs))
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// applyReports steps the parts of r by its reports, and stamps the
// report that changed the message's delivery status.
func applyReports(r *Result, evs []sms.StatusEvent) bool {
	if r.Status.Judged() {
		return false
	}
	if r.Parts == nil {
		r.Parts = initialParts(r.NumParts)
	}
	changed := false
	for _, ev := range evs {
		if ev.PartNum < 0 || ev.PartNum >= len(r.Parts) {
			continue
		}
		before := r.DLRStatus()
		next, _, ok := sms.Step(r.Parts[ev.PartNum], ev.Status)
		if !ok {
			continue
		}
		r.Parts[ev.PartNum], changed = next, true
		if after := r.DLRStatus(); after != before {
			r.DLRAt = ev.At
			if ev.ErrorCode != 0 {
				r.DLRCode = ev.ErrorCode
			}
		}
	}
	return changed
}

// Step judges what can be judged now: it asks the probe what the
// handsets of pending messages received, compares it with what was
// sent, judges messages whose time limit has passed, and completes the
// sessions whose messages are all judged. It returns how many messages
// it judged.
func (s *System) Step(ctx context.Context) (int, error) {
	now := s.opts.Clock.Now()
	const page = 1000
	judged := 0
	touched := map[int64]bool{}
	var after sms.MessageID
	for {
		pending, err := s.sessions.Pending(ctx, after, page)
		if err != nil {
			return judged, err
		}
		if len(pending) == 0 {
			break
		}
		after = pending[len(pending)-1].MsgID
		n, err := s.judge(ctx, now, pending, touched)
		judged += n
		if err != nil {
			return judged, err
		}
		if len(pending) < page {
			break
		}
	}
	for _, id := range slices.Sorted(maps.Keys(touched)) {
		done, err := s.sessions.CompleteSession(ctx, id, now, s.callback)
		if err != nil {
			return judged, err
		}
		s.metrics.completed(done)
	}
	return judged, nil
}

// judge looks for the receipts of pending messages and judges them.
func (s *System) judge(ctx context.Context, now time.Time, pending []Result, touched map[int64]bool) (int, error) {
	byHandset := map[sms.MSISDN][]*Result{}
	for i := range pending {
		r := &pending[i]
		if (r.Status == StatusSent || r.Status == StatusReceived) && r.Receiver != "" {
			byHandset[r.Receiver] = append(byHandset[r.Receiver], r)
		}
	}
	found := map[sms.MessageID]*Received{}
	for handset, rs := range byHandset {
		since := rs[0].SentAt
		for _, r := range rs {
			if r.Received == nil && r.SentAt.Before(since) {
				since = r.SentAt
			}
		}
		got, err := s.probe.Received(ctx, handset, since)
		if err != nil {
			return 0, fmt.Errorf("testsystem: asking the probe what %s received: %w", handset, err)
		}
		msgs := assemble(got, s.log)
		for _, r := range rs {
			if r.Received != nil {
				continue
			}
			for _, m := range msgs {
				if strings.Contains(m.Text, r.Mark) {
					rv := m
					if err := s.describe(ctx, &rv); err != nil {
						return 0, err
					}
					found[r.MsgID] = &rv
					break
				}
			}
		}
	}
	ids := make([]sms.MessageID, 0, len(pending))
	for _, r := range pending {
		ids = append(ids, r.MsgID)
	}
	judged := 0
	ops := map[string]Operator{}
	for _, r := range pending {
		ops[r.MCCMNC] = Operator{}
	}
	verdicts := s.metrics.verdicts()
	err := s.sessions.UpdateResults(ctx, ids, func(r *Result) bool {
		verdicts.forget(r)
		if r.Status.Judged() {
			return false
		}
		changed := false
		if rv := found[r.MsgID]; rv != nil && r.Received == nil {
			r.Received, r.Status, changed = rv, StatusReceived, true
			compare(r)
		}
		if verdict(r, now) {
			judged++
			touched[r.Session] = true
			changed = true
			verdicts.judged(r)
		}
		return changed
	})
	if err == nil {
		s.metrics.count(verdicts)
	}
	return judged, err
}

// verdict judges r when it can be judged at now, and reports whether it
// did: a received message once its report stream is over or at its
// deadline (delivered); a message whose report failed for good, or at
// its deadline, without a receipt (not received, a fake report when the
// report said delivered); a message never sent at its deadline (failed).
func verdict(r *Result, now time.Time) bool {
	due := !now.Before(r.Deadline)
	switch r.Status {
	case StatusQueued:
		if !due {
			return false
		}
		r.Status, r.Error = StatusFailed, "the message was never handed to the gate"
	case StatusReceived:
		if !due && !r.DLRFinal() {
			return false
		}
		r.Status, r.FakeDLR = StatusDelivered, No
	case StatusSent:
		dlr := r.DLRStatus()
		failedForGood := r.DLRFinal() && dlr != sms.EventDelivered.String()
		if !due && !failedForGood {
			return false
		}
		r.Status = StatusNotReceived
		r.FakeDLR = CheckOf(dlr == sms.EventDelivered.String())
	default:
		return false
	}
	return true
}

// compare fills the checks of a received message: sender, text and
// coding against what was sent; the service centre against the
// operator.
func compare(r *Result) {
	rv := r.Received
	r.SenderMatch = CheckOf(strings.TrimPrefix(rv.Sender, "+") == strings.TrimPrefix(r.Sender, "+"))
	r.TextMatch = CheckOf(rv.Text == r.Text)
	r.EncodingMatch = CheckOf(rv.DCS == r.DCS)
	r.DirectRoute, r.NationalSMSC = Unknown, Unknown
	if len(rv.SMSCNetwork) >= 3 && len(r.MCCMNC) >= 3 {
		r.DirectRoute = CheckOf(rv.SMSCNetwork == r.MCCMNC)
		r.NationalSMSC = CheckOf(rv.SMSCNetwork[:3] == r.MCCMNC[:3])
	}
}

// describe names the network and the service centre of a receipt from
// the catalog.
func (s *System) describe(ctx context.Context, rv *Received) error {
	if rv.Network != "" {
		op, ok, err := s.catalog.OperatorByCode(ctx, rv.Network)
		if err != nil {
			return err
		}
		if ok {
			rv.Operator = op.Name
		}
	}
	if rv.SMSC != "" {
		c, ok, err := s.catalog.SMSC(ctx, rv.SMSC)
		if err != nil {
			return err
		}
		if ok {
			rv.SMSCOperator, rv.SMSCCountry, rv.SMSCNetwork = c.Operator, c.Country, c.MCC+c.MNC
		}
	}
	return nil
}

// assemble decodes a handset's receipts and joins the parts of
// concatenated messages (by sender and reference, in part order); parts
// of a message not all received are left out. Undecodable receipts are
// logged and skipped.
func assemble(got []sms.Received, log *slog.Logger) []Received {
	type key struct {
		sender string
		ref    uint16
		total  uint8
	}
	type partial struct {
		parts []*gsm.Deliver
		raw   [][]byte
		at    time.Time
		net   string
		n     int
	}
	var out []Received
	open := map[key]*partial{}
	var keys []key
	for _, g := range got {
		d, err := gsm.DecodeDeliver(g.PDU)
		if err != nil {
			log.Warn("testsystem: a handset received an undecodable PDU", "err", err)
			continue
		}
		if d.Concat.Total <= 1 {
			out = append(out, received(g, []*gsm.Deliver{&d}, [][]byte{g.PDU}))
			continue
		}
		k := key{d.Sender.Value, d.Concat.Ref, d.Concat.Total}
		p := open[k]
		if p == nil {
			p = &partial{parts: make([]*gsm.Deliver, d.Concat.Total), raw: make([][]byte, d.Concat.Total)}
			open[k] = p
			keys = append(keys, k)
		}
		i := int(d.Concat.Seq) - 1
		if i < 0 || i >= len(p.parts) || p.parts[i] != nil {
			continue
		}
		dd := d
		p.parts[i], p.raw[i], p.n = &dd, g.PDU, p.n+1
		if g.At.After(p.at) {
			p.at, p.net = g.At, g.Network
		}
	}
	for _, k := range keys {
		p := open[k]
		if p.n == len(p.parts) {
			out = append(out, received(sms.Received{At: p.at, Network: p.net}, p.parts, p.raw))
		}
	}
	return out
}

// received is the receipt of a whole message.
func received(g sms.Received, parts []*gsm.Deliver, raw [][]byte) Received {
	var text strings.Builder
	for _, p := range parts {
		text.WriteString(p.Text)
	}
	sender := parts[0].Sender.Value
	return Received{
		At: g.At, Sender: sender, Text: text.String(), DCS: parts[0].DCS, Network: g.Network,
		SMSC: parts[0].SMSC, PDUs: raw,
	}
}

// callback builds the body posted to a completed session's callback_api.
func (s *System) callback(sess Session, rs []Result) (Callback, error) {
	body := CallbackBody{
		TestSession: sess.ID, Test: sess.Test, Username: sess.User, Status: string(SessionComplete),
		CreatedDate: stamp(sess.CreatedAt), Completed: stamp(sess.CompletedAt), Count: len(rs),
		Results: make([]Record, len(rs)),
	}
	for i := range rs {
		body.Results[i] = rs[i].Record()
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Callback{}, errors.Join(errors.New("testsystem: encoding a callback body"), err)
	}
	return Callback{URL: sess.Callback, Body: b}, nil
}

// Run judges every interval until ctx ends, logging failures.
func (s *System) Run(ctx context.Context, every time.Duration) {
	msgkit.Poll(ctx, every, math.MaxInt, nil, s.log, "testsystem: judging test messages", s.Step)
}
