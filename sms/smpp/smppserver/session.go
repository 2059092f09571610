package smppserver

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// session is one ESME connection. Its reader reads the requests, within
// the window, and handles binds, unbinds and enquire_link itself; each
// submit runs in a goroutine of its own, so a slow submission does not
// hold the others; its writer writes every answer and the server's own
// requests; its keeper sends enquire_link and closes a dead peer.
type session struct {
	s      *Server
	nc     net.Conn
	remote netip.Addr
	log    *slog.Logger

	out    chan outgoing
	window chan struct{} // a token per request read and not answered
	done   chan struct{}
	once   sync.Once

	seq   atomic.Uint32 // of the server's own requests
	heard atomic.Int64  // Options.Clock's UnixNano when the peer was last heard

	opened time.Time // when it was accepted, by Options.Clock: for BindTimeout

	submits sync.WaitGroup // submits being handled

	// The server's own deliver_sm: at most Window unanswered, each
	// waiting for its answer by sequence number.
	outWin  chan struct{}
	pmu     sync.Mutex
	pending map[uint32]chan pdu.Status

	mu         sync.Mutex
	mode       pdu.BindMode // 0 before a bind
	account    string
	unbinding  bool          // unbind sent or received: no new requests
	stopping   bool          // the unbind is Shutdown's: requests are to come again
	unbindResp chan struct{} // closed when the ESME answers the server's unbind
}

// outgoing is a PDU for the writer; answers releases a window token once
// written, then does after.
type outgoing struct {
	p       pdu.PDU
	answers bool
	after   func()
}

func newSession(s *Server, nc net.Conn) *session {
	c := &session{
		s: s, nc: nc, out: make(chan outgoing, s.opts.Window+8), window: make(chan struct{}, s.opts.Window),
		done: make(chan struct{}), unbindResp: make(chan struct{}),
		outWin: make(chan struct{}, s.opts.Window), pending: map[uint32]chan pdu.Status{},
	}
	if ap, err := netip.ParseAddrPort(nc.RemoteAddr().String()); err == nil {
		c.remote = ap.Addr().Unmap()
	}
	c.log = s.log.With("remote", nc.RemoteAddr().String())
	c.heard.Store(s.opts.Clock.Now().UnixNano())
	c.opened = time.Unix(0, c.heard.Load())
	return c
}

func (c *session) run() {
	var wg sync.WaitGroup
	wg.Go(c.write)
	wg.Go(c.keep)
	c.read()
	c.submits.Wait()
	wg.Wait()
	c.mu.Lock()
	mode, account := c.mode, c.account
	c.mode = 0
	c.mu.Unlock()
	if mode != 0 {
		c.s.unbindAccount(account, c)
		c.s.m.bound(mode, -1)
	}
}

// close ends the connection.
func (c *session) close(why string) {
	c.once.Do(func() {
		c.log.Debug("smpp server: connection closed", "why", why)
		close(c.done)
		c.nc.Close()
	})
}

func (c *session) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// send queues p for the writer; false when the connection closed.
func (c *session) send(o outgoing) bool {
	select {
	case c.out <- o:
		return true
	case <-c.done:
		return false
	}
}

// answer queues the response to a request read.
func (c *session) answer(p pdu.PDU) { c.send(outgoing{p: p, answers: true}) }

func (c *session) write() {
	bw := bufio.NewWriterSize(c.nc, 8<<10)
	var buf []byte
	for {
		var o outgoing
		select {
		case o = <-c.out:
		case <-c.done:
			return
		}
		b, err := pdu.Append(buf[:0], o.p)
		if err != nil {
			// A body of ours that does not encode is a bug: answer it as
			// the system error it is.
			c.log.Error("smpp server: a PDU does not encode", "err", err, "command", o.p.Body.Command())
			b, _ = pdu.Append(buf[:0], pdu.PDU{Status: pdu.ESME_RSYSERR, Seq: o.p.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}})
		}
		buf = b
		if _, err := bw.Write(b); err == nil && len(c.out) == 0 {
			err = bw.Flush()
		}
		if err != nil {
			c.close("write: " + err.Error())
			return
		}
		if o.answers {
			<-c.window
		}
		if o.after != nil {
			if len(c.out) > 0 || bw.Buffered() > 0 {
				if bw.Flush() != nil {
					c.close("write failed")
					return
				}
			}
			o.after()
		}
	}
}

// read reads PDUs until the connection ends.
func (c *session) read() {
	defer c.close("read ended")
	br := bufio.NewReaderSize(c.nc, 8<<10)
	for {
		// A fresh buffer each time: a submit's goroutine reads its PDU's
		// slices after the next read.
		p, _, err := c.s.dec.Read(br, nil, pdu.DefaultMaxPDU)
		var derr *pdu.DecodeError
		switch {
		case err == nil:
		case errors.As(err, &derr):
			c.touch()
			if !c.take() {
				return
			}
			c.answer(pdu.PDU{Status: derr.Status, Seq: derr.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}})
			continue
		case errors.Is(err, pdu.ErrTooLong):
			// The stream cannot be followed past it.
			if c.take() {
				c.send(outgoing{p: pdu.PDU{Status: pdu.ESME_RINVCMDLEN, Body: &pdu.Empty{ID: pdu.CmdGenericNack}}, answers: true, after: func() { c.close("PDU too long") }})
			}
			<-c.done
			return
		default:
			if !errors.Is(err, io.EOF) && !c.closed() {
				c.log.Debug("smpp server: read failed", "err", err)
			}
			return
		}
		c.touch()
		if p.Body.Command().IsResponse() {
			c.response(p)
			continue
		}
		if !c.take() {
			return
		}
		c.request(p)
	}
}

// take waits for room in the window; false when the connection closed.
func (c *session) take() bool {
	select {
	case c.window <- struct{}{}:
		return true
	case <-c.done:
		return false
	}
}

func (c *session) touch() { c.heard.Store(c.s.opts.Clock.Now().UnixNano()) }

func (c *session) response(p pdu.PDU) {
	switch p.Body.Command() {
	case pdu.CmdUnbindResp:
		c.mu.Lock()
		select {
		case <-c.unbindResp:
		default:
			close(c.unbindResp)
		}
		c.mu.Unlock()
	case pdu.CmdEnquireLinkResp:
		// Heard: that is all it says.
	case pdu.CmdDeliverSMResp:
		c.answered(p)
	case pdu.CmdGenericNack:
		c.log.Warn("smpp server: the ESME answered generic_nack", "status", p.Status, "seq", p.Seq)
		c.answered(p)
	default:
		// Answers to nothing this server sends.
	}
}

func (c *session) request(p pdu.PDU) {
	c.mu.Lock()
	mode, unbinding, stopping := c.mode, c.unbinding, c.stopping
	c.mu.Unlock()
	switch b := p.Body.(type) {
	case *pdu.Bind:
		c.bind(p, b)
	case *pdu.SubmitSM, *pdu.DataSM:
		switch {
		case stopping && mode != pdu.Receiver:
			// The ESME sent it before it read the server's unbind: a
			// status it retries, so that it sends the message again once
			// it has bound again (ESME_RINVBNDSTS would be a refusal for
			// good to Kannel, which would drop the message).
			c.answer(errResp(p, stoppingStatus))
			c.s.m.submitted(p.Body.Command(), stoppingStatus)
		case mode == 0 || mode == pdu.Receiver || unbinding:
			c.answer(errResp(p, pdu.ESME_RINVBNDSTS))
			c.s.m.submitted(p.Body.Command(), pdu.ESME_RINVBNDSTS)
		default:
			c.submits.Add(1)
			go c.submit(p)
		}
	case *pdu.Empty:
		switch b.ID {
		case pdu.CmdEnquireLink:
			// Answered in any state: a keep-alive says nothing of a bind.
			c.answer(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
		case pdu.CmdUnbind:
			if mode == 0 {
				c.answer(errResp(p, pdu.ESME_RINVBNDSTS))
				return
			}
			c.mu.Lock()
			c.unbinding = true
			c.mu.Unlock()
			// unbind_resp after the answers still due, then the server's
			// side is shut.
			go func() {
				c.submits.Wait()
				c.send(outgoing{p: pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}}, answers: true, after: c.shutdown})
			}()
		default:
			c.answer(pdu.PDU{Status: pdu.ESME_RINVCMDID, Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}})
		}
	default:
		// deliver_sm: an ESME does not send it to an SMSC.
		c.answer(pdu.PDU{Status: pdu.ESME_RINVCMDID, Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}})
	}
}

// shutdown ends the connection after unbind_resp: the server's side is
// shut, so the ESME reads the response and then EOF; the reader closes the
// connection at the ESME's EOF, or after a second. Closing at once could
// reset the connection and lose the response.
func (c *session) shutdown() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(time.Second))
}

func (c *session) bind(p pdu.PDU, b *pdu.Bind) {
	c.mu.Lock()
	bound, unbinding := c.mode != 0, c.unbinding
	c.mu.Unlock()
	switch {
	case bound:
		c.answer(errResp(p, pdu.ESME_RALYBND))
		return
	case unbinding:
		c.answer(errResp(p, pdu.ESME_RINVBNDSTS))
		return
	}
	if err := c.s.gw.Authenticate(c.s.ctx, b.SystemID, b.Password, c.remote); err != nil {
		st := BindStatus(err)
		lvl := slog.LevelInfo
		if st == pdu.ESME_RSYSERR {
			lvl = slog.LevelError
		}
		c.log.Log(c.s.ctx, lvl, "smpp server: bind refused", "system_id", b.SystemID, "mode", b.Mode, "status", st, "err", err)
		c.s.m.bindRefused(st)
		c.answer(errResp(p, st))
		return
	}
	if !c.s.bindAccount(b.SystemID, b.Mode, c) {
		c.log.Info("smpp server: bind refused: the account holds its most binds", "system_id", b.SystemID, "max", c.s.opts.MaxBinds)
		c.s.m.bindRefused(pdu.ESME_RBINDFAIL)
		c.answer(errResp(p, pdu.ESME_RBINDFAIL))
		return
	}
	c.mu.Lock()
	c.mode, c.account = b.Mode, b.SystemID
	c.mu.Unlock()
	c.log.Info("smpp server: bound", "system_id", b.SystemID, "mode", b.Mode)
	c.s.m.bound(b.Mode, 1)
	c.answer(pdu.PDU{Seq: p.Seq, Body: &pdu.BindResp{Mode: b.Mode, SystemID: c.s.opts.SystemID,
		TLVs: pdu.TLVs{pdu.U8(pdu.TagSCInterfaceVersion, pdu.InterfaceVersion)}}})
}

// keep sends enquire_link when the peer has been silent EnquireEvery and
// closes it when silent DeadAfter, or when not bound BindTimeout after it
// connected, by Options.Clock, looking four times an EnquireEvery.
func (c *session) keep() {
	o := c.s.opts
	t := time.NewTicker(max(min(o.EnquireEvery, o.DeadAfter, o.BindTimeout)/4, time.Millisecond))
	defer t.Stop()
	var lastEnquire time.Time
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		now := o.Clock.Now()
		silent := now.Sub(time.Unix(0, c.heard.Load()))
		switch {
		case c.bindOverdue(now):
			c.log.Info("smpp server: no bind within the bind timeout; closing", "timeout", o.BindTimeout)
			c.close("no bind")
			return
		case silent >= o.DeadAfter:
			c.log.Warn("smpp server: the peer is silent; closing", "silent", silent)
			c.close("dead peer")
			return
		case silent >= o.EnquireEvery && now.Sub(lastEnquire) >= o.EnquireEvery:
			lastEnquire = now
			c.send(outgoing{p: pdu.PDU{Seq: c.nextSeq(), Body: &pdu.Empty{ID: pdu.CmdEnquireLink}}})
		}
	}
}

func (c *session) nextSeq() uint32 {
	for {
		// Sequence numbers run 1 to 0x7FFFFFFF (SMPP 3.4 5.1.4).
		if n := c.seq.Add(1) & 0x7FFFFFFF; n != 0 {
			return n
		}
	}
}

// stoppingStatus answers a submit_sm or data_sm that arrives after
// Shutdown's unbind was sent: one the ESME is to send again.
const stoppingStatus = pdu.ESME_RTHROTTLED

// unbindAndClose is Shutdown's: no new requests, the answers due, an
// unbind, its answer waited for a while, then the connection closed.
func (c *session) unbindAndClose() {
	c.mu.Lock()
	bound, already := c.mode != 0, c.unbinding
	c.unbinding = true
	c.stopping = bound && !already
	c.mu.Unlock()
	if !bound || already {
		if !already {
			c.close("shutdown")
		}
		return
	}
	c.submits.Wait()
	if !c.send(outgoing{p: pdu.PDU{Seq: c.nextSeq(), Body: &pdu.Empty{ID: pdu.CmdUnbind}}}) {
		return
	}
	t := time.NewTimer(DefaultShutdownUnbind)
	defer t.Stop()
	select {
	case <-c.unbindResp:
	case <-t.C:
	case <-c.done:
	}
	c.close("shutdown")
}

// submit handles a submit_sm or data_sm.
func (c *session) submit(p pdu.PDU) {
	defer c.submits.Done()
	c.mu.Lock()
	account := c.account
	c.mu.Unlock()
	var msg message
	var r *refusal
	switch b := p.Body.(type) {
	case *pdu.SubmitSM:
		msg, r = readSubmit(b, c.s.opts.Clock.Now())
	case *pdu.DataSM:
		msg, r = readDataSM(b)
	}
	if r != nil {
		c.log.Info("smpp server: submit refused", "system_id", account, "command", p.Body.Command(), "status", r.status, "reason", r.reason)
		c.reply(p, r.status, "")
		return
	}
	draining := c.s.draining.Load()
	if msg.concat == nil {
		id := c.s.opts.NewID()
		c.reply(p, c.submitWhole(account, id, msg, msg.data), id)
		return
	}
	k := partKey{account: account, source: msg.source, dest: msg.dest, ref: msg.concat.ref, total: msg.concat.total}
	a := c.s.parts.add(k, msg, c.s.opts.Clock.Now(), c.s.opts.NewID, draining)
	if a.expired != nil {
		c.s.dropped(k, a.expired)
	}
	switch {
	case a.fresh:
		// A long message begun while the server drains: sent again after
		// the restart or elsewhere. ESME_RMSGQFUL, which ESMEs retry, and
		// not ESME_RTHROTTLED, on which Kannel pauses the whole bind and
		// with it the parts the drain waits for.
		c.reply(p, pdu.ESME_RMSGQFUL, "")
	case a.full:
		c.log.Warn("smpp server: too many long messages gathering for the account", "system_id", account, "max", c.s.opts.MaxPartsPerAccount)
		c.reply(p, pdu.ESME_RMSGQFUL, "")
	case a.mismatch:
		c.reply(p, pdu.ESME_RSUBMITFAIL, "")
	case a.done == nil:
		c.reply(p, pdu.ESME_ROK, a.id)
	default:
		st := c.submitWhole(account, a.id, a.done.first, a.done.joined())
		if st == pdu.ESME_RTHROTTLED || st == pdu.ESME_RSYSERR {
			// To be sent again: the ESME resends this part.
			c.s.parts.restore(k, a.done)
		}
		c.reply(p, st, a.id)
	}
}

// submitWhole submits a whole message as id and answers its status.
func (c *session) submitWhole(account string, id sms.MessageID, m message, data []byte) pdu.Status {
	sub, err := submission(m, data)
	if err == nil {
		_, err = c.s.gw.SubmitFor(c.s.ctx, account, id, sub)
		if msgkit.CodeOf(err) == "message_exists" {
			// Accepted before as this id (a resend after an outage whose
			// acceptance was not known): the same answer.
			err = nil
		}
	}
	st := SubmitStatus(err)
	if st == pdu.ESME_RSYSERR {
		c.log.Error("smpp server: a submission failed", "system_id", account, "msg_id", id, "err", err)
	}
	return st
}

// reply answers a submit_sm or data_sm: the message id with ESME_ROK.
func (c *session) reply(p pdu.PDU, st pdu.Status, id sms.MessageID) {
	c.s.m.submitted(p.Body.Command(), st)
	if st != pdu.ESME_ROK {
		c.answer(errResp(p, st))
		return
	}
	var body pdu.Body = &pdu.SubmitSMResp{MessageID: string(id)}
	if p.Body.Command() == pdu.CmdDataSM {
		body = &pdu.DataSMResp{MessageID: string(id)}
	}
	c.answer(pdu.PDU{Seq: p.Seq, Body: body})
}

// receiving reports whether the bind takes deliveries now: bound to
// receive, not unbinding, not closed.
func (c *session) receiving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return (c.mode == pdu.Receiver || c.mode == pdu.Transceiver) && !c.unbinding && !c.closed()
}
