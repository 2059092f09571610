package smpp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// bind is one bound session on one TCP (or TLS) connection: a writer
// that batches PDUs into the socket, a reader that routes responses to
// their callers by sequence number and serves the SMSC's requests
// (receipts, enquire_link, unbind), and a window of outstanding
// submit_sm.
type bind struct {
	c    *Client
	mode pdu.BindMode
	conn net.Conn

	out    chan []byte   // encoded PDUs for the writer
	window chan struct{} // a token per outstanding submit_sm
	closed chan struct{}
	once   sync.Once
	err    error // why it closed; set before closed is closed

	dead     atomic.Bool // writing failed: no new requests; the reader still drains the answers
	seq      atomic.Uint32
	lastRead atomic.Int64 // unix nanoseconds of the last PDU read
	restTill atomic.Int64 // unix nanoseconds until which it rests

	// The adaptive window (see the package doc). window has a token for
	// each submit_sm unanswered and each the bind holds to keep itself
	// under limit; sent numbers the submits, so an answer tells whether
	// its submit went before the throttling episode began.
	sent   atomic.Uint64
	shrunk atomic.Bool // limit is below the configured window: answers go through wmu
	wmu    sync.Mutex
	limit  int          // submit_sm it may have unanswered now, 1..Window
	ceil   int          // limit grows back quickly up to here, slowly past it
	held   atomic.Int32 // tokens held in window to keep it at limit; written under wmu
	owed   int          // tokens still to hold, kept from the next answers
	grown  int          // successes since limit last grew
	since  uint64       // sent when the current throttling episode began

	mu      sync.Mutex
	pending map[uint32]*call
}

// call is a request waiting for its response.
type call struct {
	b      *bind
	seq    uint32
	part   *PartKey      // a submit_sm's part
	saved  chan struct{} // closed once the part the SMSC took is recorded
	window bool          // holds a window token
	n      uint64        // a submit's number on its bind (bind.sent)
	ahead  int           // submits unanswered on its bind when it was sent
	sent   time.Time     // when a submit_sm was queued, with metrics only
	done   chan result
	timer  *time.Timer
}

type result struct {
	pdu pdu.PDU
	err error
}

// connect dials and binds in mode m.
func (c *Client) connect(ctx context.Context, m pdu.BindMode) (*bind, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	b := &bind{
		c: c, mode: m, conn: conn,
		out:     make(chan []byte, 4*c.cfg.Window+16),
		window:  make(chan struct{}, c.cfg.Window),
		closed:  make(chan struct{}),
		pending: map[uint32]*call{},
		limit:   c.cfg.Window,
		ceil:    c.cfg.Window,
	}
	b.lastRead.Store(c.opts.Clock.Now().UnixNano())
	go b.write()
	go b.read()
	cl, err := b.request(ctx, &pdu.Bind{Mode: m, SystemID: c.cfg.SystemID, Password: c.cfg.Password, SystemType: c.cfg.SystemType, Version: pdu.InterfaceVersion, Range: c.cfg.Range}, false)
	if err != nil {
		b.close(err)
		return nil, err
	}
	r, err := cl.wait(ctx)
	if err == nil && r.Status != pdu.ESME_ROK {
		err = &pdu.Error{Command: r.Body.Command(), Status: r.Status}
	}
	if err != nil {
		b.close(err)
		return nil, fmt.Errorf("binding as %s: %w", m, err)
	}
	return b, nil
}

// serve keeps the bind alive until it closes or ctx ends (then it
// unbinds), and returns why it closed.
func (b *bind) serve(ctx context.Context) error {
	tick := time.NewTicker(b.c.cfg.EnquireEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.closed:
			return b.err
		case <-ctx.Done():
			b.unbind()
			return ctx.Err()
		case <-tick.C:
			if b.c.opts.Clock.Now().Sub(time.Unix(0, b.lastRead.Load())) > b.c.cfg.DeadAfter {
				b.close(errors.New("smpp: the SMSC said nothing within the dead-peer time"))
				continue
			}
			if cl, err := b.request(ctx, &pdu.Empty{ID: pdu.CmdEnquireLink}, false); err == nil {
				go cl.wait(context.Background()) // any answer counts as life, read by the reader
			}
		}
	}
}

// unbind says goodbye and waits a little for the answer.
func (b *bind) unbind() {
	ctx, cancel := context.WithTimeout(context.Background(), min(b.c.cfg.Timeout, 2*time.Second))
	defer cancel()
	if cl, err := b.request(ctx, &pdu.Empty{ID: pdu.CmdUnbind}, false); err == nil {
		cl.wait(ctx)
	}
	b.close(errors.New("smpp: unbound"))
}

// close ends the bind: the connection closes and every pending request
// fails as lost.
func (b *bind) close(err error) {
	b.once.Do(func() {
		b.err = err
		close(b.closed)
		b.conn.Close()
		b.mu.Lock()
		pending := b.pending
		b.pending = map[uint32]*call{}
		b.mu.Unlock()
		for _, cl := range pending {
			cl.finish(result{err: errLost("the bind closed before the SMSC answered")})
		}
	})
}

func (b *bind) isClosed() bool {
	if b.dead.Load() {
		return true
	}
	select {
	case <-b.closed:
		return true
	default:
		return false
	}
}

// start sends a submit_sm of part key within the window.
func (b *bind) start(ctx context.Context, sm *pdu.SubmitSM, key PartKey) (*call, error) {
	return b.requestFor(ctx, sm, true, &key)
}

// errResting is a part that found its bind resting once it had room in
// the window: no submit goes out during a rest.
func errResting() error {
	return msgkit.New(msgkit.RateLimited, "smsc_throttled", "the SMSC asked to slow down")
}

// request encodes body with the next sequence number, registers its call
// and queues it for the writer; inWindow takes a window token first,
// waiting for one while ctx allows.
func (b *bind) request(ctx context.Context, body pdu.Body, inWindow bool) (*call, error) {
	return b.requestFor(ctx, body, inWindow, nil)
}

// requestFor is request for a submit_sm of a part (part nil for other
// requests).
func (b *bind) requestFor(ctx context.Context, body pdu.Body, inWindow bool, part *PartKey) (*call, error) {
	if b.dead.Load() {
		return nil, errLost("the bind cannot send")
	}
	if inWindow {
		select {
		case b.window <- struct{}{}:
			if b.c.m != nil {
				b.c.m.window.Inc()
			}
		case <-b.closed:
			return nil, errLost("the bind closed")
		case <-ctx.Done():
			return nil, msgkit.Wrap(ctx.Err(), msgkit.Unavailable, "smsc_window", "smpp: no room in the window in time")
		}
		if part != nil && b.resting() > 0 {
			b.release()
			return nil, errResting()
		}
	}
	seq := b.seq.Add(1) & 0x7FFFFFFF
	pdu, err := pdu.Append(make([]byte, 0, 128), pdu.PDU{Seq: seq, Body: body})
	if err != nil {
		if inWindow {
			b.release()
		}
		return nil, errEncode(err)
	}
	cl := &call{b: b, seq: seq, part: part, window: inWindow, done: make(chan result, 1)}
	if part != nil {
		cl.n = b.sent.Add(1)
		cl.ahead = len(b.window) - 1 - int(b.held.Load())
	}
	if part != nil && b.c.m != nil {
		cl.sent = time.Now() // real time: a duration, stamping nothing
	}
	b.mu.Lock()
	select {
	case <-b.closed:
		b.mu.Unlock()
		if inWindow {
			b.release()
		}
		return nil, errLost("the bind closed")
	default:
	}
	// The timer is set under the lock, so the reader, which takes the
	// call under it, sees it.
	cl.timer = time.AfterFunc(b.c.cfg.Timeout, func() {
		if b.take(seq) != nil {
			cl.finish(result{err: errLost(fmt.Sprintf("no response within %s", b.c.cfg.Timeout))})
		}
	})
	b.pending[seq] = cl
	b.mu.Unlock()
	select {
	case b.out <- pdu:
	case <-b.closed:
		// close failed the call already
	}
	return cl, nil
}

// take removes and returns the pending call of seq, nil when there is
// none.
func (b *bind) take(seq uint32) *call {
	b.mu.Lock()
	defer b.mu.Unlock()
	cl := b.pending[seq]
	delete(b.pending, seq)
	return cl
}

func (cl *call) finish(r result) {
	if cl.timer != nil {
		cl.timer.Stop()
	}
	if cl.window {
		cl.b.release()
	}
	cl.done <- r
}

// release gives a window token back, or keeps it while the window owes
// tokens to a shrinking.
func (b *bind) release() {
	if b.c.m != nil {
		b.c.m.window.Dec()
	}
	if b.shrunk.Load() {
		b.wmu.Lock()
		if b.owed > 0 {
			b.owed--
			b.held.Add(1)
			b.wmu.Unlock()
			return
		}
		b.wmu.Unlock()
	}
	<-b.window
}

// wait returns the response, or why it will not come.
func (cl *call) wait(ctx context.Context) (pdu.PDU, error) {
	select {
	case r := <-cl.done:
		return r.pdu, r.err
	case <-ctx.Done():
		// The call stays pending: its response or timeout frees the window.
		return pdu.PDU{}, msgkit.Wrap(ctx.Err(), msgkit.Unavailable, "smsc_wait", "smpp: gave up waiting for the SMSC")
	}
}

// write sends queued PDUs, flushing when the queue runs dry.
func (b *bind) write() {
	w := bufio.NewWriterSize(b.conn, 32<<10)
	for {
		select {
		case <-b.closed:
			return
		case p := <-b.out:
			if _, err := w.Write(p); err != nil {
				b.writeFailed(err)
				return
			}
			if len(b.out) == 0 {
				if err := w.Flush(); err != nil {
					b.writeFailed(err)
					return
				}
			}
		}
	}
}

// writeFailed retires a bind whose connection no longer takes writes
// (the SMSC reset it): no new request goes on it, but answers the SMSC
// sent before may still be unread in the socket, so the reader drains
// them to the end before close fails the calls left waiting; a reader
// that does not end within the timeout is closed anyway.
func (b *bind) writeFailed(err error) {
	b.dead.Store(true)
	if cw, ok := b.conn.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	time.AfterFunc(b.c.cfg.Timeout, func() { b.close(err) })
}

// reply queues a response to the SMSC's request seq.
func (b *bind) reply(seq uint32, st pdu.Status, body pdu.Body) {
	pdu, err := pdu.Append(nil, pdu.PDU{Status: st, Seq: seq, Body: body})
	if err != nil {
		b.c.log.Error("smpp: encoding a response", "err", err)
		return
	}
	select {
	case b.out <- pdu:
	case <-b.closed:
	}
}

// read routes every PDU the SMSC sends.
func (b *bind) read() {
	r := bufio.NewReaderSize(b.conn, 32<<10)
	var buf []byte
	for {
		p, nbuf, err := pdu.Read(r, buf, b.c.cfg.MaxPDU)
		buf = nbuf
		if err != nil {
			var de *pdu.DecodeError
			if errors.As(err, &de) {
				b.lastRead.Store(b.c.opts.Clock.Now().UnixNano())
				b.decodeFailed(de)
				continue
			}
			b.close(err)
			return
		}
		b.lastRead.Store(b.c.opts.Clock.Now().UnixNano())
		id := p.Body.Command()
		if id.IsResponse() {
			if cl := b.take(p.Seq); cl != nil {
				if cl.part != nil {
					if m := b.c.m; m != nil {
						m.submitAnswered(cl.sent, p.Status)
					}
					b.answered(cl, p.Status)
				}
				if resp, ok := p.Body.(*pdu.SubmitSMResp); ok && cl.part != nil && p.Status == pdu.ESME_ROK {
					b.c.taken(resp.MessageID, *cl.part)
					cl.saved = b.c.save(Submitted{PartKey: *cl.part, Conn: b.c.cfg.Name, SMSCID: canonicalID(resp.MessageID)})
				}
				cl.finish(result{pdu: p})
			}
			continue
		}
		switch body := p.Body.(type) {
		case *pdu.DeliverSM:
			b.deliver(p.Seq, body)
		case *pdu.DataSM:
			b.reply(p.Seq, pdu.ESME_RX_P_APPN, &pdu.DataSMResp{})
		case *pdu.Empty:
			switch id {
			case pdu.CmdEnquireLink:
				b.reply(p.Seq, pdu.ESME_ROK, &pdu.Empty{ID: pdu.CmdEnquireLinkResp})
			case pdu.CmdUnbind:
				b.reply(p.Seq, pdu.ESME_ROK, &pdu.Empty{ID: pdu.CmdUnbindResp})
				b.close(errors.New("smpp: the SMSC unbound"))
				return
			}
		default:
			b.reply(p.Seq, pdu.ESME_RINVCMDID, &pdu.Empty{ID: pdu.CmdGenericNack})
		}
	}
}

// decodeFailed answers a PDU that did not decode: a response's caller
// gets the error; a request gets generic_nack with the error's status.
func (b *bind) decodeFailed(de *pdu.DecodeError) {
	if de.Command.IsResponse() {
		if cl := b.take(de.Seq); cl != nil {
			cl.finish(result{err: msgkit.Wrap(de, msgkit.Unavailable, "smsc_garbled", "smpp: the SMSC's response does not decode")})
		}
		return
	}
	b.reply(de.Seq, de.Status, &pdu.Empty{ID: pdu.CmdGenericNack})
}

// deliver handles a deliver_sm: a receipt goes to the client's receipt
// worker, which acknowledges it once its event is stored (ESME_ROK) or
// answers ESME_RX_T_APPN, so the SMSC offers it again later; the reader
// waits only when the worker is that far behind. A mobile-originated
// message is acknowledged and dropped: this client carries receipts
// only.
func (b *bind) deliver(seq uint32, d *pdu.DeliverSM) {
	rc, isReceipt, err := ReceiptOfIn(d, b.c.cfg.TimeZone)
	switch {
	case !isReceipt:
		b.mobileOriginated(seq, d)
		return
	case err != nil:
		if b.c.m != nil {
			b.c.m.unreadable.Inc()
		}
		b.c.log.Warn("smpp: a receipt that does not read", "err", err)
		b.reply(seq, pdu.ESME_RX_P_APPN, &pdu.DeliverSMResp{})
		return
	}
	job := receiptJob{rc: rc, reply: func(st pdu.Status) { b.reply(seq, st, &pdu.DeliverSMResp{}) }}
	h := fnv.New32a()
	h.Write([]byte(canonicalID(rc.ID)))
	select {
	case b.c.receiptQ[h.Sum32()%uint32(len(b.c.receiptQ))] <- job:
	case <-b.closed:
	}
}

// mobileOriginated hands a deliver_sm that is no receipt to
// Options.Inbound and answers it by the outcome: ESME_ROK once taken,
// ESME_RX_T_APPN (the SMSC offers it again later) when the sink failed or
// there is none, ESME_RX_P_APPN (not again) when it cannot be read as a
// text. The sink is called on a goroutine of its own, so the bind reads
// on meanwhile; the SMSC's window bounds how many run at once.
func (b *bind) mobileOriginated(seq uint32, d *pdu.DeliverSM) {
	in, err := InboundOf(d, b.c.cfg.Name, b.c.cfg.GSMPacked)
	switch {
	case err != nil:
		b.c.log.Warn("smpp: a mobile-originated message refused", "from", d.Source.Addr, "err", err)
		b.reply(seq, pdu.ESME_RX_P_APPN, &pdu.DeliverSMResp{})
		return
	case b.c.opts.Inbound == nil:
		b.c.log.Warn("smpp: a mobile-originated message refused for now: nothing takes them (Options.Inbound)", "from", d.Source.Addr)
		b.reply(seq, pdu.ESME_RX_T_APPN, &pdu.DeliverSMResp{})
		return
	}
	in.At = b.c.opts.Clock.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), b.c.cfg.Timeout)
		defer cancel()
		if err := b.c.opts.Inbound.HandleInbound(ctx, in); err != nil {
			b.c.log.Warn("smpp: a mobile-originated message not taken; the SMSC offers it again", "from", d.Source.Addr, "err", err)
			b.reply(seq, pdu.ESME_RX_T_APPN, &pdu.DeliverSMResp{})
			return
		}
		b.reply(seq, pdu.ESME_ROK, &pdu.DeliverSMResp{})
	}()
}

// receiptJob is a receipt waiting for its event to be stored.
type receiptJob struct {
	rc    Receipt
	reply func(pdu.Status)
}

// maxReceiptBatch bounds the receipts looked up and stored together;
// receiptWorkers store batches at once, so that the store's round trips
// overlap.
const (
	maxReceiptBatch = 256
	receiptWorkers  = 4
	// receiptRetry is the first pause of a receipt whose part is not
	// found before it asks the store again (partOf).
	receiptRetry = 20 * time.Millisecond
)

// handleReceipts takes receipts from every bind in batches, as many as
// have come while the last batch was stored: one store lookup and one
// sink call (StatusBatchSink's, when the sink has it) for the batch.
func (c *Client) handleReceipts(ctx context.Context, sink sms.StatusSink, q chan receiptJob) {
	for {
		var first receiptJob
		select {
		case <-ctx.Done():
			return
		case first = <-q:
		}
		batch := []receiptJob{first}
	fill:
		for len(batch) < maxReceiptBatch {
			select {
			case j := <-q:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		c.receiptBatch(ctx, sink, batch)
	}
}

// receiptBatch finds the parts of jobs, among the parts whose records
// are being saved and then in the store, hands their events to sink and
// answers each. A receipt whose part is not found yet waits on its own
// (receiptLater): its submit_sm_resp may still be on its way.
func (c *Client) receiptBatch(ctx context.Context, sink sms.StatusSink, jobs []receiptJob) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Timeout)
	defer cancel()
	keys := make([]PartKey, len(jobs))
	found := make([]bool, len(jobs))
	variants := make([][]string, len(jobs))
	var ask []string
	for i, j := range jobs {
		variants[i] = IDVariants(j.rc.ID)
		if keys[i], found[i], _ = c.recentPart(variants[i]); !found[i] {
			ask = append(ask, variants[i]...)
		}
	}
	if len(ask) > 0 {
		got, err := c.opts.Store.PartsOf(ctx, c.cfg.Name, ask)
		if err != nil {
			c.log.Warn("smpp: looking up receipts' parts", "receipts", len(jobs), "err", err)
		}
		for i := range jobs {
			for _, id := range variants[i] {
				if sub, ok := got[id]; ok && !found[i] {
					keys[i], found[i] = sub.PartKey, true
				}
			}
		}
	}
	var evs []sms.StatusEvent
	var idx []int
	var remembered []bool // with metrics: the part was noted finished
	for i, j := range jobs {
		if !found[i] {
			go c.receiptLater(sink, j)
			continue
		}
		ev := c.receiptEvent(j.rc, keys[i])
		evs = append(evs, ev)
		idx = append(idx, i)
		if c.m != nil {
			remembered = append(remembered, c.m.matchedReceipt(keys[i], ev))
		}
	}
	if len(evs) == 0 {
		return
	}
	errs := handleEvents(ctx, sink, evs)
	for n, i := range idx {
		st := pdu.ESME_ROK
		if errs[n] != nil {
			c.log.Warn("smpp: a receipt's event was not stored; the SMSC will offer it again", "id", jobs[i].rc.ID, "err", errs[n])
			st = pdu.ESME_RX_T_APPN
			if c.m != nil && remembered[n] {
				c.m.finished.forget(keys[i])
			}
		}
		jobs[i].reply(st)
	}
}

// receiptLater handles a receipt whose part was not found with its
// batch: it waits up to Timeout for the part (partOf), brought by a
// response on its way here or saved by a replica; one that never finds
// its part is acknowledged and dropped, and one the store or the sink
// failed is answered ESME_RX_T_APPN.
func (c *Client) receiptLater(sink sms.StatusSink, j receiptJob) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	key, ok, err := c.partOf(ctx, IDVariants(j.rc.ID))
	switch {
	case err != nil:
		c.log.Warn("smpp: looking up a receipt's part", "id", j.rc.ID, "err", err)
	case !ok:
		// No part within Timeout: a receipt of a copy sent before an
		// answer was lost, or of a part whose record is gone. Offered
		// again it would never match, so it is taken and dropped.
		c.log.Warn("smpp: a receipt of no part the SMSC took, dropped", "id", j.rc.ID)
		if c.m != nil {
			c.m.unmatched.Inc()
		}
		j.reply(pdu.ESME_ROK)
		return
	default:
		ev := c.receiptEvent(j.rc, key)
		remembered := c.m != nil && c.m.matchedReceipt(key, ev)
		if errs := handleEvents(ctx, sink, []sms.StatusEvent{ev}); errs[0] == nil {
			j.reply(pdu.ESME_ROK)
			return
		} else {
			c.log.Warn("smpp: a receipt's event was not stored; the SMSC will offer it again", "id", j.rc.ID, "err", errs[0])
			if remembered {
				c.m.finished.forget(key)
			}
		}
	}
	j.reply(pdu.ESME_RX_T_APPN)
}

// receiptEvent is the status event a receipt says of its part, at the
// time receiptTime makes of its done date.
func (c *Client) receiptEvent(rc Receipt, key PartKey) sms.StatusEvent {
	st, code := rc.Event()
	sent, known := c.sentAt(key)
	at := receiptTime(rc.DoneDate, sent, known, c.opts.Clock.Now())
	return sms.StatusEvent{MsgID: key.MsgID, PartNum: key.PartNum, Status: st, ErrorCode: code, At: at}
}

// receiptTime is when a receipt says its part's event happened, never
// before the part was sent nor after the receipt came (now). The done
// date is the SMSC's, in Config.TimeZone, often to the minute only: the
// event came some time in that minute, perhaps after a send within it.
// So a done date before the part's send (when the client remembers it,
// known) counts as the send; and without the send, a done date on a
// whole minute counts as the end of that minute, the latest it allows.
// A receipt without a done date is dated now.
func receiptTime(done, sent time.Time, known bool, now time.Time) time.Time {
	at := done
	switch {
	case done.IsZero():
		return now
	case known:
		at = later(done, sent)
	case done.Second() == 0 && done.Nanosecond() == 0:
		at = done.Add(time.Minute)
	}
	if at.After(now) {
		at = now
	}
	return at
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// handleEvents hands events to sink, in one call when it takes batches;
// one error per event.
func handleEvents(ctx context.Context, sink sms.StatusSink, evs []sms.StatusEvent) []error {
	if bs, ok := sink.(sms.StatusBatchSink); ok {
		return bs.HandleStatuses(ctx, evs)
	}
	errs := make([]error, len(evs))
	for i, ev := range evs {
		errs[i] = sink.HandleStatus(ctx, ev)
	}
	return errs
}

// partOf finds the part of a receipt's ids: among the parts whose
// responses came and whose records are being saved, then in the store.
// A receipt can overtake its submit_sm_resp on the wire, and on a store
// shared by replicas bound with one system id it can reach this client
// before the replica that submitted its part has saved the record; so
// one that finds no part looks again whenever a response comes here, and
// in the store at growing intervals (receiptRetry, doubling up to a
// second), until ctx ends.
func (c *Client) partOf(ctx context.Context, ids []string) (PartKey, bool, error) {
	wait := receiptRetry
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		key, ok, added := c.recentPart(ids)
		if ok {
			return key, true, nil
		}
		got, err := c.opts.Store.PartsOf(ctx, c.cfg.Name, ids)
		if err != nil {
			return PartKey{}, false, err
		}
		for _, id := range ids {
			if sub, found := got[id]; found {
				return sub.PartKey, true, nil
			}
		}
		select {
		case <-added:
		case <-timer.C:
			wait = min(2*wait, time.Second)
			timer.Reset(wait)
		case <-ctx.Done():
			return PartKey{}, false, nil
		}
	}
}

// answered adapts the window to a submit's answer: throttling shrinks
// it and rests the bind, once an episode; success grows it back.
func (b *bind) answered(cl *call, st pdu.Status) {
	switch st {
	case pdu.ESME_ROK:
		if b.shrunk.Load() {
			b.grow()
		}
	case pdu.ESME_RTHROTTLED, pdu.ESME_RMSGQFUL:
		b.throttled(cl)
	}
}

// throttled begins a throttling episode unless cl's submit went before
// the current one began: the SMSC's answers to what was on the wire then
// say nothing new. An episode rests the bind for Throttled and halves its
// window, or shrinks it to the submits that were ahead of the throttled
// one when fewer (the SMSC's window, when it throttles by window); the
// window grows back quickly to one below the window that was throttled
// (ceil), and past it slowly.
func (b *bind) throttled(cl *call) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if cl.n <= b.since {
		return
	}
	b.since = b.sent.Load()
	b.restTill.Store(b.c.opts.Clock.Now().Add(b.c.cfg.Throttled).UnixNano())
	was := b.limit
	fit := max(1, cl.ahead)
	b.limit = max(1, min(was/2, fit))
	b.ceil = max(b.limit, min(was-1, fit))
	b.grown = 0
	b.shrunk.Store(true)
	for range was - b.limit {
		select {
		case b.window <- struct{}{}: // a free token, held at once
			b.held.Add(1)
		default:
			b.owed++ // kept from the next answer
		}
	}
}

// slowGrowth is how many windows' worth of successes it takes to grow
// the window by one past the ceiling: a probe of the SMSC's limit now
// and then, not a throttling episode every few round trips.
const slowGrowth = 16

// grow counts a success of a shrunk window, which grows by one after a
// window's worth of them up to its ceiling, and after slowGrowth
// windows' worth past it, up to the configured window.
func (b *bind) grow() {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.limit >= b.c.cfg.Window {
		return
	}
	b.grown++
	need := b.limit
	if b.limit >= b.ceil {
		need *= slowGrowth
	}
	if b.grown < need {
		return
	}
	b.grown = 0
	b.limit++
	switch {
	case b.owed > 0:
		b.owed--
	case b.held.Load() > 0:
		b.held.Add(-1)
		<-b.window
	}
	if b.limit == b.c.cfg.Window {
		b.shrunk.Store(false)
	}
}

// resting is how long the bind still rests.
func (b *bind) resting() time.Duration {
	till := b.restTill.Load()
	if till == 0 {
		return 0
	}
	return max(time.Unix(0, till).Sub(b.c.opts.Clock.Now()), 0)
}
