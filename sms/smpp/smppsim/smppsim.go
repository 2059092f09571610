// Package smppsim is an SMSC simulator for the tests of SMPP clients. It
// listens on a local TCP port and speaks SMPP 3.4 with the codec of
// package sms/smpp/pdu: it binds ESMEs by system id and password, answers
// submit_sm and data_sm with message ids, sends delivery receipts and
// enquire_link, and misbehaves on request the ways SMSCs do, so a client's
// windowing, throttling, receipt matching and reconnection can be tested
// against the wire instead of a mock.
//
// # Sessions
//
// A connection must bind first (bind_transmitter, bind_receiver or
// bind_transceiver). Options.Accounts maps system ids to passwords: an
// unknown system id is answered ESME_RINVSYSID, a wrong password
// ESME_RINVPASWD, a second bind on one connection ESME_RALYBND; nil
// Accounts binds anyone. A bind_*_resp carries Options.SystemID and the
// sc_interface_version parameter 0x34. Every request but enquire_link is
// answered ESME_RINVBNDSTS before a bind, and submit_sm and data_sm on a
// receiver bind. Error responses carry no body, as SMPP 3.4 has it, so a
// client meets that form. unbind is answered unbind_resp after the
// responses still due; the server then shuts its side of the connection.
//
// # Submits
//
// An accepted submit_sm or data_sm gets a message id from a server-wide
// counter starting at Options.FirstID, written in decimal, upper-case hex
// or by Options.IDFunc. The checks run in this order: Options.DropAfter
// (the connection's n-th submit closes it unanswered), Options.Rate (a
// token bucket per connection: ESME_RTHROTTLED), Options.Window (the
// submits a connection may have accepted and not answered: beyond it
// Options.WindowStatus, ESME_RTHROTTLED by default, as an SMSC with a
// smaller window than the client's answers), Options.QueueFull
// (ESME_RMSGQFUL), Options.Fail (any status). Submits records every
// accepted submit and Refused the others.
//
// Responses to submits wait Options.RespDelay from the moment the request
// was read; with Options.Reorder they go out in batches of
// Options.ReorderBatch in reverse order (a batch not filled within
// Options.ReorderWait goes out as it is). Other responses are immediate.
//
// # Window
//
// Each connection counts the requests it has read and not answered yet;
// the count drops just before the answer is written, so a client that
// sends again on reading an answer never appears one over its window.
// MaxOutstanding is the largest count any connection reached, enquire_link
// included: a client that keeps enquire_link outside its window may show
// one more than its window.
//
// # Receipts
//
// A submit whose registered_delivery has bit 0 set gets a deliver_sm with
// esm_class 0x04 Options.ReceiptDelay after its response was written (or
// after it was accepted, with Options.EarlyReceipts, so that a receipt can
// overtake a delayed response as it does on real SMSCs). It goes to a
// receiver or transceiver bind of the submitter's system id, the one with
// the fewest unacknowledged receipts, at most Options.ReceiptWindow each;
// without one it waits for one to bind, and a new bind is offered first
// what waited for it.
//
// Options.ReceiptMode picks the receipt text (see ReceiptText), the
// receipted_message_id and message_state parameters, or both. The
// parameter always carries the submit_sm_resp's id; Options.ReceiptIDFormat
// writes the id of the text in decimal or hex whatever the submit_sm_resp
// used, as some SMSCs do, so a client's matching can be tested.
//
// A receipt is done when a deliver_sm_resp with ESME_ROK answers it
// (Acked), even one read after unbind. One in flight on a connection that
// closes goes to another bind of its system id, or waits for the next;
// one answered with an error status (or generic_nack) waits for the next
// bind of its system id: SMSCs redeliver what was not acknowledged, so a
// client must acknowledge a receipt only once it has stored it.
//
// # Faults
//
// DropAll closes every connection at once; Stall (or Options.Silent)
// makes the server answer nothing and send nothing until released while it
// still reads and counts requests, so a client's dead-peer detection can
// be tested. A PDU the codec refuses is answered generic_nack with the
// status of its pdu.DecodeError; one longer than MaxPDU is answered
// generic_nack ESME_RINVCMDLEN and its connection closed, since the
// stream cannot be followed past it.
//
// The Server is safe for concurrent use; the functions of Options may be
// called from several connections at once. Close stops every goroutine the
// server started.
package smppsim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// MaxPDU is the longest PDU the server reads: a longer one ends its
// connection.
const MaxPDU = 64 << 10

// Defaults of Options.
const (
	DefaultSystemID = "smppsim"
	// DefaultFirstID is the first message id number. It is 0xA000 so that
	// its decimal (40960) and hex (A000) forms differ and hex has a
	// letter: a client that matches receipts by the wrong form fails.
	DefaultFirstID       uint64 = 0xA000
	DefaultReorderBatch         = 4
	DefaultReorderWait          = 20 * time.Millisecond
	DefaultReceiptWindow        = 10
)

// IDFormat is how a message id number is written.
type IDFormat uint8

// The formats.
const (
	// IDDefault is decimal for Options.IDFormat and the submit_sm_resp's
	// id for Options.ReceiptIDFormat.
	IDDefault IDFormat = iota
	IDDecimal          // 40960
	IDHex              // A000
)

// ReceiptMode says where a receipt carries its message id and state.
type ReceiptMode uint8

// The modes.
const (
	TextAndTLVs ReceiptMode = iota // the text and the parameters
	TextOnly                       // short_message only
	TLVsOnly                       // receipted_message_id and message_state only (short_message empty)
)

// Options configure a Server. The zero value is a server on a random local
// port that binds anyone and accepts every submit at once.
type Options struct {
	Addr     string            // listen address; "" is 127.0.0.1:0
	SystemID string            // in bind_*_resp; "" is DefaultSystemID
	Accounts map[string]string // system id to password; nil binds anyone
	Clock    msgkit.Clock      // Submit.At and the receipt dates; nil reads the system clock

	IDFormat IDFormat              // IDDefault is decimal
	IDFunc   func(n uint64) string // writes id number n instead of IDFormat (at most 64 characters)
	FirstID  uint64                // the first id number; 0 is DefaultFirstID

	RespDelay    time.Duration // before each submit_sm_resp and data_sm_resp, from the read of its request
	Reorder      bool          // answer submits in batches, reversed
	ReorderBatch int           // 0 is DefaultReorderBatch
	ReorderWait  time.Duration // the longest a batch waits to fill; 0 is DefaultReorderWait

	Rate         float64                 // submits per second and connection, ESME_RTHROTTLED beyond; 0 is unlimited
	Burst        int                     // the token bucket's depth; 0 is 1
	Window       int                     // accepted submits a connection may have unanswered; 0 is unlimited
	WindowStatus pdu.Status              // the answer beyond Window; 0 is ESME_RTHROTTLED
	QueueFull    func(n int) bool        // true answers the server's n-th submit (from 1) ESME_RMSGQFUL
	Fail         func(Submit) pdu.Status // a status other than ESME_ROK refuses the submit with it
	DropAfter    int                     // close a connection on reading its DropAfter-th submit, unanswered

	ReceiptDelay    time.Duration       // from the submit's response (or acceptance) to its receipt
	EarlyReceipts   bool                // count ReceiptDelay from acceptance, not from the response
	ReceiptMode     ReceiptMode         // TextAndTLVs by default
	ReceiptIDFormat IDFormat            // the id in the receipt text; IDDefault is the submit_sm_resp's id
	ReceiptWindow   int                 // unacknowledged receipts per connection; 0 is DefaultReceiptWindow
	Stat            func(Submit) string // a receipt's stat; nil is DELIVRD
	Err             func(Submit) int    // a receipt's err, also sent as a GSM network_error_code when not 0; nil is 0

	EnquireEvery time.Duration // send enquire_link on each bound connection this often; 0 never
	Silent       bool          // start stalled (see Stall)
}

// Submit is a submit_sm or data_sm the server handled.
type Submit struct {
	Conn      int       // the connection, numbered from 1 in the order accepted
	SystemID  string    // of its bind
	N         int       // the server's count of submits, from 1, as given to QueueFull
	PDU       pdu.PDU   // the request; its Body is *pdu.SubmitSM or *pdu.DataSM, not to be modified
	At        time.Time // when it was read, by Options.Clock
	Status    pdu.Status
	MessageID string // "" unless accepted
	IDNum     uint64 // the number MessageID writes
}

// Message is the submit's text: short_message, or message_payload when
// short_message is empty.
func (s Submit) Message() []byte {
	var msg []byte
	var tlvs pdu.TLVs
	switch b := s.PDU.Body.(type) {
	case *pdu.SubmitSM:
		msg, tlvs = b.Message, b.TLVs
	case *pdu.DataSM:
		tlvs = b.TLVs
	}
	if len(msg) == 0 {
		msg, _ = tlvs.Get(pdu.TagMessagePayload)
	}
	return msg
}

// Source is the submit's source address.
func (s Submit) Source() pdu.Address {
	switch b := s.PDU.Body.(type) {
	case *pdu.SubmitSM:
		return b.Source
	case *pdu.DataSM:
		return b.Source
	}
	return pdu.Address{}
}

// Dest is the submit's destination address.
func (s Submit) Dest() pdu.Address {
	switch b := s.PDU.Body.(type) {
	case *pdu.SubmitSM:
		return b.Dest
	case *pdu.DataSM:
		return b.Dest
	}
	return pdu.Address{}
}

// RegisteredDelivery is the submit's registered_delivery.
func (s Submit) RegisteredDelivery() byte {
	switch b := s.PDU.Body.(type) {
	case *pdu.SubmitSM:
		return b.RegisteredDelivery
	case *pdu.DataSM:
		return b.RegisteredDelivery
	}
	return 0
}

// Server is the simulated SMSC.
type Server struct {
	opts         Options
	reorderBatch int
	reorderWait  time.Duration
	window       int

	wg sync.WaitGroup // every goroutine the server started

	mu       sync.Mutex // guards the fields below and the fields of conn it says
	ln       net.Listener
	started  bool
	closed   bool
	conns    map[int]*conn
	lastConn int
	stall    chan struct{} // non-nil while stalled; closed on release
	changed  chan struct{} // closed and replaced on every change Wait may look for
	nSubmits int
	nextID   uint64
	submits  []Submit
	refused  []Submit
	binds    int
	maxOut   int
	enquires int        // enquire_link read from clients
	enqResps int        // enquire_link_resp read from clients
	receipts []*receipt // not acknowledged yet, in the order queued
	timers   map[*receipt]*time.Timer
	acked    []string
	refusals []string // keys of the receipts refused, once a refusal
	sent     int      // deliver_sm sent, again ones included
}

// receipt is a deliver_sm the server owes a system id until a bind of it
// acknowledges it.
type receipt struct {
	key      string // what Acked records
	systemID string
	body     *pdu.DeliverSM // nil until due
	state    receiptState
	held     bool // refused by the client: wait for its next bind
}

type receiptState uint8

const (
	receiptWaiting receiptState = iota // before Options.ReceiptDelay
	receiptQueued                      // due, not on a connection
	receiptSent                        // sent, no deliver_sm_resp yet
)

// New returns a server; Start starts it.
func New(opts Options) *Server {
	if opts.SystemID == "" {
		opts.SystemID = DefaultSystemID
	}
	if opts.FirstID == 0 {
		opts.FirstID = DefaultFirstID
	}
	s := &Server{
		opts:         opts,
		reorderBatch: cmpOr(opts.ReorderBatch, DefaultReorderBatch),
		reorderWait:  cmpOr(opts.ReorderWait, DefaultReorderWait),
		window:       cmpOr(opts.ReceiptWindow, DefaultReceiptWindow),
		conns:        map[int]*conn{},
		changed:      make(chan struct{}),
		nextID:       opts.FirstID,
		timers:       map[*receipt]*time.Timer{},
	}
	if opts.Silent {
		s.stall = make(chan struct{})
	}
	return s
}

// cmpOr is v, or def when v is not positive.
func cmpOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Start listens and returns the address to dial.
func (s *Server) Start() (string, error) {
	addr := s.opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return "", errors.New("smppsim: Start called twice or after Close")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s.started, s.ln = true, ln
	s.wg.Add(1)
	go s.accept(ln)
	return ln.Addr().String(), nil
}

// Close closes the listener and every connection, stops the receipt
// timers and waits for every goroutine of the server.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	ln := s.ln
	conns := s.connList()
	for r, t := range s.timers {
		t.Stop()
		delete(s.timers, r)
	}
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
	s.wg.Wait()
}

// connList is the connections by id; s.mu is held.
func (s *Server) connList() []*conn {
	out := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *conn) int { return a.id - b.id })
	return out
}

func (s *Server) accept(ln net.Listener) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return // closed; a test server has nothing to retry
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.lastConn++
		c := &conn{
			s: s, id: s.lastConn, nc: nc, done: make(chan struct{}),
			in: newQueue[inbound](), resps: newQueue[pending](), outbox: newQueue[pdu.PDU](),
			inflight: map[uint32]*receipt{},
		}
		s.conns[c.id] = c
		s.wg.Add(4)
		s.mu.Unlock()
		go c.read()
		go c.handle()
		go c.respond()
		go c.send()
	}
}

// notifyLocked wakes every Wait; s.mu is held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Wait returns when cond holds, checking it again after every change of
// the server's state (binds, submits, acknowledgements, counts), or with
// ctx's error. cond may call the server's methods.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Submits returns the accepted submits in the order accepted.
func (s *Server) Submits() []Submit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.submits)
}

// Refused returns the submits answered with an error status, in order.
// Those DropAfter dropped are in neither list.
func (s *Server) Refused() []Submit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refused)
}

// WaitSubmits waits until at least n submits were accepted and returns
// them.
func (s *Server) WaitSubmits(ctx context.Context, n int) ([]Submit, error) {
	var out []Submit
	err := s.Wait(ctx, func() bool {
		out = s.Submits()
		return len(out) >= n
	})
	return out, err
}

// MaxOutstanding is the most requests one connection had read and not
// answered at once.
func (s *Server) MaxOutstanding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxOut
}

// Outstanding is the requests read and not answered yet, over the open
// connections.
func (s *Server) Outstanding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.conns {
		n += c.outstanding
	}
	return n
}

// Conns is the number of connections bound now (an unbind ends a bind).
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.conns {
		if c.mode != 0 && !c.unbound {
			n++
		}
	}
	return n
}

// Binds is the number of successful binds so far.
func (s *Server) Binds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.binds
}

// Acked returns the keys of the receipts acknowledged with ESME_ROK, in
// order: the submit's message id (as in submit_sm_resp) for a receipt,
// the key given to Deliver otherwise. A receipt acknowledged once is not
// sent again.
func (s *Server) Acked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acked)
}

// WaitAcked waits until at least n receipts were acknowledged and returns
// their keys.
func (s *Server) WaitAcked(ctx context.Context, n int) ([]string, error) {
	var out []string
	err := s.Wait(ctx, func() bool {
		out = s.Acked()
		return len(out) >= n
	})
	return out, err
}

// Unacked returns the keys of the receipts not acknowledged yet: before
// their delay, queued, in flight or refused by the client.
func (s *Server) Unacked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.receipts))
	for i, r := range s.receipts {
		out[i] = r.key
	}
	return out
}

// Refusals returns the keys of the receipts a client answered with an
// error status (or generic_nack), in order, a key once for each refusal.
func (s *Server) Refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refusals)
}

// ReceiptsSent is the number of deliver_sm sent, again ones included.
func (s *Server) ReceiptsSent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// EnquireLinks is the number of enquire_link read from clients.
func (s *Server) EnquireLinks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enquires
}

// EnquireResps is the number of enquire_link_resp read from clients, the
// answers to Options.EnquireEvery.
func (s *Server) EnquireResps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enqResps
}

// DropAll closes every connection at once, whatever is in flight: the
// responses not written yet are lost, the receipts not acknowledged go
// to the next bind.
func (s *Server) DropAll() {
	s.mu.Lock()
	conns := s.connList()
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Stall with on makes the server a dead peer: it reads and counts
// requests but handles none and writes nothing (no response, receipt or
// enquire_link); without, it handles what was read, in order, and writes
// what was held.
func (s *Server) Stall(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case on && s.stall == nil:
		s.stall = make(chan struct{})
	case !on && s.stall != nil:
		close(s.stall)
		s.stall = nil
	}
	s.notifyLocked()
}

// errClosed stops a goroutine whose connection closed.
var errClosed = errors.New("smppsim: connection closed")

// waitRunning returns when the server is not stalled, or errClosed when
// done is closed first.
func (s *Server) waitRunning(done <-chan struct{}) error {
	for {
		s.mu.Lock()
		ch := s.stall
		s.mu.Unlock()
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
		case <-done:
			return errClosed
		}
	}
}

// Deliver queues sm for the binds of systemID like a receipt (the same
// window, acknowledgement and redelivery), e.g. a mobile-originated
// message or a receipt a test writes itself; key is what Acked records.
// The server sets the sequence number; sm must encode, and its slices are
// not to be modified after.
func (s *Server) Deliver(systemID, key string, sm pdu.DeliverSM) error {
	if _, err := pdu.Append(nil, pdu.PDU{Body: &sm}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("smppsim: server closed")
	}
	s.receipts = append(s.receipts, &receipt{key: key, systemID: systemID, body: &sm, state: receiptQueued})
	s.dispatchLocked(systemID)
	s.notifyLocked()
	return nil
}

// formatID writes id number n for a submit_sm_resp.
func (s *Server) formatID(n uint64) string {
	if s.opts.IDFunc != nil {
		return s.opts.IDFunc(n)
	}
	return writeID(n, s.opts.IDFormat)
}

func writeID(n uint64, f IDFormat) string {
	if f == IDHex {
		return strings.ToUpper(strconv.FormatUint(n, 16))
	}
	return strconv.FormatUint(n, 10)
}

// scheduleReceipt owes sub's system id a receipt after
// Options.ReceiptDelay.
func (s *Server) scheduleReceipt(sub Submit) {
	r := &receipt{key: sub.MessageID, systemID: sub.SystemID}
	if s.opts.ReceiptDelay <= 0 {
		body := s.receiptBody(sub)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		s.receipts = append(s.receipts, r)
		s.dueLocked(r, body)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.receipts = append(s.receipts, r)
	s.timers[r] = time.AfterFunc(s.opts.ReceiptDelay, func() {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		// Counted once the server is known to be open, so Close's Wait
		// covers the rest of the callback.
		s.wg.Add(1)
		s.mu.Unlock()
		defer s.wg.Done()
		// Built outside the lock: Stat and Err may call the server.
		body := s.receiptBody(sub)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		delete(s.timers, r)
		s.dueLocked(r, body)
	})
	s.notifyLocked()
}

// dueLocked queues r with its body and sends what can be sent; s.mu is
// held.
func (s *Server) dueLocked(r *receipt, body *pdu.DeliverSM) {
	r.body, r.state = body, receiptQueued
	s.dispatchLocked(r.systemID)
	s.notifyLocked()
}

// dispatchLocked hands the queued receipts of systemID, in order, to its
// receiver binds with room in their window; s.mu is held. It never
// blocks: each connection's sender writes them.
func (s *Server) dispatchLocked(systemID string) { s.dispatchToLocked(systemID, nil) }

// dispatchToLocked is dispatchLocked giving prefer the receipts while it
// has room: a new bind gets what its bind released.
func (s *Server) dispatchToLocked(systemID string, prefer *conn) {
	if s.closed {
		return
	}
	for _, r := range s.receipts {
		if r.systemID != systemID || r.state != receiptQueued || r.held {
			continue
		}
		c := prefer
		if c == nil || !s.canTakeLocked(c, systemID) {
			c = s.pickLocked(systemID)
		}
		if c == nil {
			return
		}
		c.seq++
		c.inflight[c.seq] = r
		r.state = receiptSent
		s.sent++
		c.outbox.push(pdu.PDU{Seq: c.seq, Body: r.body})
	}
}

// pickLocked is the receiver bind of systemID with the fewest receipts in
// flight and room for one more (the oldest of equals), or nil.
func (s *Server) pickLocked(systemID string) *conn {
	var best *conn
	for _, c := range s.conns {
		if !s.canTakeLocked(c, systemID) {
			continue
		}
		if best == nil || len(c.inflight) < len(best.inflight) || len(c.inflight) == len(best.inflight) && c.id < best.id {
			best = c
		}
	}
	return best
}

// canTakeLocked reports whether c may get a receipt of systemID now.
func (s *Server) canTakeLocked(c *conn, systemID string) bool {
	return c.receiving && !c.gone && !c.unbound && c.systemID == systemID && len(c.inflight) < s.window
}

// The message_state values by the stat of a receipt text, so the two
// forms of a receipt agree.
var messageStates = map[string]byte{
	"ENROUTE": 1, "DELIVRD": 2, "EXPIRED": 3, "DELETED": 4, "UNDELIV": 5, "ACCEPTD": 6, "UNKNOWN": 7, "REJECTD": 8,
}

// receiptBody is the receipt of sub as Options say, dated now.
func (s *Server) receiptBody(sub Submit) *pdu.DeliverSM {
	stat := "DELIVRD"
	if s.opts.Stat != nil {
		stat = s.opts.Stat(sub)
	}
	errCode := 0
	if s.opts.Err != nil {
		errCode = s.opts.Err(sub)
	}
	// The receipt travels back: from the handset to the submitter.
	d := &pdu.DeliverSM{ShortMessage: pdu.ShortMessage{
		Source:   clipAddr(sub.Dest()),
		Dest:     clipAddr(sub.Source()),
		ESMClass: pdu.ESMClassReceipt,
	}}
	if s.opts.ReceiptMode != TLVsOnly {
		id := sub.MessageID
		if s.opts.ReceiptIDFormat != IDDefault {
			id = writeID(sub.IDNum, s.opts.ReceiptIDFormat)
		}
		d.Message = []byte(ReceiptText(id, sub.At, s.opts.Clock.Now(), stat, errCode, sub.Message()))
	}
	if s.opts.ReceiptMode != TextOnly {
		state, ok := messageStates[stat]
		if !ok {
			state = messageStates["UNKNOWN"]
		}
		d.TLVs = pdu.TLVs{pdu.CStr(pdu.TagReceiptedMessageID, sub.MessageID), pdu.U8(pdu.TagMessageState, state)}
		if errCode != 0 {
			d.TLVs = append(d.TLVs, pdu.TLV{Tag: pdu.TagNetworkErrorCode, Value: []byte{3, byte(errCode >> 8), byte(errCode)}})
		}
	}
	return d
}

// clipAddr keeps a data_sm's address (up to 64 characters) within what
// deliver_sm carries (20), so that a receipt always encodes.
func clipAddr(a pdu.Address) pdu.Address {
	if len(a.Addr) > 20 {
		a.Addr = a.Addr[:20]
	}
	return a
}

// ReceiptText is a receipt's short_message in the text format most SMSCs
// send, though the protocol leaves it to each vendor:
//
//	id:<id> sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:<first 20 octets>
//
// dlvrd is 000 for any stat but DELIVRD. It is exported so a test can
// build the text it expects a client to parse.
func ReceiptText(id string, submitted, done time.Time, stat string, errCode int, msg []byte) string {
	dlvrd := "000"
	if stat == "DELIVRD" {
		dlvrd = "001"
	}
	const layout = "0601021504"
	return fmt.Sprintf("id:%s sub:001 dlvrd:%s submit date:%s done date:%s stat:%s err:%03d text:%s",
		id, dlvrd, submitted.Format(layout), done.Format(layout), stat, errCode, msg[:min(len(msg), 20)])
}

// conn is one ESME connection. Its reader reads and counts PDUs, its
// handler acts on them, its responder writes the submits' responses after
// their delay and order, its sender writes what the server sends of its
// own; so a stalled or slow part never stops the reading that counts the
// window.
type conn struct {
	s    *Server
	id   int
	nc   net.Conn
	done chan struct{}
	once sync.Once

	in     *queue[inbound]
	resps  *queue[pending]
	outbox *queue[pdu.PDU]

	wmu  sync.Mutex // one writer at a time
	wbuf []byte

	ending bool // the handler's own: after DropAfter or unbind, later requests are read, not handled

	// Guarded by s.mu.
	mode        pdu.BindMode // 0 before a bind
	systemID    string
	receiving   bool // bound as receiver or transceiver, bind_resp written
	unbound     bool
	gone        bool
	outstanding int
	accepted    int // submits accepted and not answered, for Options.Window
	submits     int
	seq         uint32 // of the server's own requests
	inflight    map[uint32]*receipt
	limiter     *rate.Limiter
}

// inbound is what the reader hands the handler.
type inbound struct {
	p       pdu.PDU
	derr    *pdu.DecodeError // a PDU the codec refused
	tooLong bool             // a command_length beyond MaxPDU: nack and close
	counted bool             // a request, counted outstanding until answered
	at      time.Time
}

// pending is a submit's response for the responder, or an order to end
// the connection after the responses before it.
type pending struct {
	p     pdu.PDU
	due   time.Time
	kind  pendingKind
	after func() // run once p is written

	accepted bool // answers an accepted submit: the window has room again
}

type pendingKind uint8

const (
	pendingResp   pendingKind = iota
	pendingDrop               // close without an answer (DropAfter)
	pendingUnbind             // write p (unbind_resp), then shut the connection
)

// close ends the connection and gives its receipts in flight back to the
// queue, for another bind. It must not be called with s.mu held.
func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.nc.Close()
		s := c.s
		s.mu.Lock()
		defer s.mu.Unlock()
		c.gone = true
		delete(s.conns, c.id)
		for _, r := range c.inflight {
			r.state = receiptQueued
		}
		clear(c.inflight)
		if c.mode != 0 {
			s.dispatchLocked(c.systemID)
		}
		s.notifyLocked()
	})
}

// write writes p; answers says it answers a counted request, whose count
// drops just before the write so the client cannot outrun it.
func (c *conn) write(p pdu.PDU, answers bool) error {
	s := c.s
	if err := s.waitRunning(c.done); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if answers {
		s.mu.Lock()
		c.outstanding--
		s.notifyLocked()
		s.mu.Unlock()
	}
	b, err := pdu.Append(c.wbuf[:0], p)
	if err != nil {
		// Only a bad option (an IDFunc id over 64 characters) gets here:
		// ending the connection makes the test see it.
		c.close()
		return err
	}
	c.wbuf = b
	if _, err := c.nc.Write(b); err != nil {
		c.close()
		return err
	}
	return nil
}

func (c *conn) read() {
	defer c.s.wg.Done()
	for {
		// A fresh buffer each time: the PDU's slices stay valid in the
		// queue and in Submits.
		p, _, err := pdu.Read(c.nc, nil, MaxPDU)
		at := time.Now()
		var derr *pdu.DecodeError
		switch {
		case err == nil:
			counted := !p.Body.Command().IsResponse()
			c.count(counted)
			c.in.push(inbound{p: p, counted: counted, at: at})
		case errors.As(err, &derr):
			counted := !derr.Command.IsResponse()
			c.count(counted)
			c.in.push(inbound{derr: derr, counted: counted, at: at})
		case errors.Is(err, pdu.ErrTooLong):
			c.count(true)
			c.in.push(inbound{tooLong: true, counted: true, at: at})
			return
		default:
			c.close()
			return
		}
	}
}

// count counts a request read.
func (c *conn) count(counted bool) {
	if !counted {
		return
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c.outstanding++
	s.maxOut = max(s.maxOut, c.outstanding)
	s.notifyLocked()
}

func (c *conn) handle() {
	defer c.s.wg.Done()
	for {
		in, ok := c.in.next(c.done, nil)
		if !ok || c.s.waitRunning(c.done) != nil {
			return
		}
		// After DropAfter or unbind, requests go unanswered, but the
		// client's acknowledgements still count: a client that acks a
		// receipt while unbinding must not get it again.
		if !c.ending || in.p.Body != nil && !in.counted {
			c.handleOne(in)
		}
	}
}

// errResp answers request p with st and no body.
func errResp(p pdu.PDU, st pdu.Status) pdu.PDU {
	return pdu.PDU{Status: st, Seq: p.Seq, Body: &pdu.Empty{ID: p.Body.Command() | pdu.RespBit}}
}

func (c *conn) handleOne(in inbound) {
	s := c.s
	switch {
	case in.tooLong:
		c.write(pdu.PDU{Status: pdu.ESME_RINVCMDLEN, Body: &pdu.Empty{ID: pdu.CmdGenericNack}}, true)
		c.close()
		return
	case in.derr != nil:
		c.write(pdu.PDU{Status: in.derr.Status, Seq: in.derr.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}}, in.counted)
		return
	}
	p := in.p
	s.mu.Lock()
	bound := c.mode != 0
	s.mu.Unlock()
	switch b := p.Body.(type) {
	case *pdu.Bind:
		c.bind(p, b)
	case *pdu.SubmitSM, *pdu.DataSM:
		if !bound {
			c.write(errResp(p, pdu.ESME_RINVBNDSTS), true)
			return
		}
		c.submit(in)
	case *pdu.DeliverSM:
		// An SMSC does not take deliver_sm from an ESME.
		c.write(pdu.PDU{Status: pdu.ESME_RINVCMDID, Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdGenericNack}}, true)
	case *pdu.DeliverSMResp:
		c.ack(p.Seq, p.Status)
	case *pdu.Empty:
		switch b.ID {
		case pdu.CmdEnquireLink:
			// Answered in any state: a keep-alive says nothing of a bind.
			s.mu.Lock()
			s.enquires++
			s.notifyLocked()
			s.mu.Unlock()
			c.write(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}}, true)
		case pdu.CmdUnbind:
			if !bound {
				c.write(errResp(p, pdu.ESME_RINVBNDSTS), true)
				return
			}
			c.ending = true
			s.mu.Lock()
			c.unbound = true
			s.notifyLocked()
			s.mu.Unlock()
			c.resps.push(pending{p: pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}}, kind: pendingUnbind})
		case pdu.CmdEnquireLinkResp:
			s.mu.Lock()
			s.enqResps++
			s.notifyLocked()
			s.mu.Unlock()
		case pdu.CmdGenericNack:
			// A nack of a deliver_sm refuses it like an error status.
			st := p.Status
			if st == pdu.ESME_ROK {
				st = pdu.ESME_RUNKNOWNERR
			}
			c.ack(p.Seq, st)
		}
	}
	// Other responses answer nothing the server sent: ignored.
}

func (c *conn) bind(p pdu.PDU, b *pdu.Bind) {
	s := c.s
	st := pdu.ESME_ROK
	s.mu.Lock()
	switch {
	case c.mode != 0:
		st = pdu.ESME_RALYBND
	case s.opts.Accounts != nil:
		if pw, ok := s.opts.Accounts[b.SystemID]; !ok {
			st = pdu.ESME_RINVSYSID
		} else if pw != b.Password {
			st = pdu.ESME_RINVPASWD
		}
	}
	if st == pdu.ESME_ROK {
		// Counted before bind_resp is written, so that a client that has
		// read it sees the bind in Binds and Conns.
		c.mode, c.systemID = b.Mode, b.SystemID
		s.binds++
		if s.opts.Rate > 0 {
			c.limiter = rate.NewLimiter(rate.Limit(s.opts.Rate), cmpOr(s.opts.Burst, 1))
		}
		s.notifyLocked()
	}
	s.mu.Unlock()
	if st != pdu.ESME_ROK {
		c.write(errResp(p, st), true)
		return
	}
	resp := &pdu.BindResp{Mode: b.Mode, SystemID: s.opts.SystemID, TLVs: pdu.TLVs{pdu.U8(pdu.TagSCInterfaceVersion, pdu.InterfaceVersion)}}
	if c.write(pdu.PDU{Seq: p.Seq, Body: resp}, true) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.gone {
		return
	}
	// Receipts only after bind_resp, which the client must read first.
	if b.Mode != pdu.Transmitter {
		c.receiving = true
		for _, r := range s.receipts {
			if r.systemID == c.systemID {
				r.held = false // a new bind is the redelivery SMSCs make
			}
		}
		s.dispatchToLocked(c.systemID, c)
	}
	if s.opts.EnquireEvery > 0 {
		s.wg.Add(1)
		go c.enquire()
	}
	s.notifyLocked()
}

func (c *conn) submit(in inbound) {
	s := c.s
	p := in.p
	s.mu.Lock()
	if c.mode == pdu.Receiver {
		s.mu.Unlock()
		c.write(errResp(p, pdu.ESME_RINVBNDSTS), true)
		return
	}
	c.submits++
	if s.opts.DropAfter > 0 && c.submits == s.opts.DropAfter {
		s.mu.Unlock()
		c.ending = true
		c.resps.push(pending{kind: pendingDrop})
		return
	}
	s.nSubmits++
	sub := Submit{Conn: c.id, SystemID: c.systemID, N: s.nSubmits, PDU: p, At: s.opts.Clock.Now()}
	st := pdu.ESME_ROK
	if c.limiter != nil && !c.limiter.AllowN(in.at, 1) {
		st = pdu.ESME_RTHROTTLED
	}
	if st == pdu.ESME_ROK && s.opts.Window > 0 && c.accepted >= s.opts.Window {
		st = cmp.Or(s.opts.WindowStatus, pdu.ESME_RTHROTTLED)
	}
	s.mu.Unlock()
	// The options' functions run without the lock: they may call the
	// server.
	if st == pdu.ESME_ROK && s.opts.QueueFull != nil && s.opts.QueueFull(sub.N) {
		st = pdu.ESME_RMSGQFUL
	}
	if st == pdu.ESME_ROK && s.opts.Fail != nil {
		st = s.opts.Fail(sub)
	}
	sub.Status = st
	s.mu.Lock()
	if st == pdu.ESME_ROK {
		c.accepted++
		sub.IDNum = s.nextID
		s.nextID++
		sub.MessageID = s.formatID(sub.IDNum)
		s.submits = append(s.submits, sub)
	} else {
		s.refused = append(s.refused, sub)
	}
	s.notifyLocked()
	s.mu.Unlock()

	resp := errResp(p, st)
	if st == pdu.ESME_ROK {
		if _, ok := p.Body.(*pdu.DataSM); ok {
			resp.Body = &pdu.DataSMResp{MessageID: sub.MessageID}
		} else {
			resp.Body = &pdu.SubmitSMResp{MessageID: sub.MessageID}
		}
	}
	var after func()
	if st == pdu.ESME_ROK && sub.RegisteredDelivery()&pdu.RegisteredDeliveryAll != 0 {
		if s.opts.EarlyReceipts {
			s.scheduleReceipt(sub)
		} else {
			after = func() { s.scheduleReceipt(sub) }
		}
	}
	c.resps.push(pending{p: resp, due: in.at.Add(s.opts.RespDelay), after: after, accepted: st == pdu.ESME_ROK})
}

// ack takes the client's answer to deliver_sm seq.
func (c *conn) ack(seq uint32, st pdu.Status) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := c.inflight[seq]
	if !ok {
		return
	}
	delete(c.inflight, seq)
	if st == pdu.ESME_ROK {
		s.acked = append(s.acked, r.key)
		s.receipts = slices.DeleteFunc(s.receipts, func(x *receipt) bool { return x == r })
	} else {
		r.state, r.held = receiptQueued, true
		s.refusals = append(s.refusals, r.key)
	}
	s.dispatchLocked(c.systemID)
	s.notifyLocked()
}

func (c *conn) respond() {
	s := c.s
	defer s.wg.Done()
	for {
		first, ok := c.resps.next(c.done, nil)
		if !ok {
			return
		}
		batch := []pending{first}
		if s.opts.Reorder && first.kind == pendingResp {
			t := time.NewTimer(s.reorderWait)
			for len(batch) < s.reorderBatch {
				it, ok := c.resps.next(c.done, t.C)
				if !ok {
					break
				}
				batch = append(batch, it)
				if it.kind != pendingResp {
					break
				}
			}
			t.Stop()
		}
		var end *pending
		if last := batch[len(batch)-1]; last.kind != pendingResp {
			end, batch = &last, batch[:len(batch)-1]
		}
		if s.opts.Reorder && len(batch) > 0 {
			// Dues rise with the order read: the last is the batch's.
			if !c.sleepUntil(batch[len(batch)-1].due) {
				return
			}
			slices.Reverse(batch)
		}
		for _, it := range batch {
			if !c.sleepUntil(it.due) {
				return
			}
			if it.accepted {
				s.mu.Lock()
				c.accepted--
				s.mu.Unlock()
			}
			if c.write(it.p, true) != nil {
				return
			}
			if it.after != nil {
				it.after()
			}
		}
		if end == nil {
			continue
		}
		if end.kind == pendingUnbind && c.write(end.p, true) == nil {
			c.shutdown()
			return
		}
		c.close()
		return
	}
}

// shutdown ends the connection after unbind_resp: the server's side is
// shut so the client reads the response and then EOF, and the reader
// closes the connection at the client's EOF, or after a second. Closing
// at once could reset the connection and lose the response.
func (c *conn) shutdown() {
	if tc, ok := c.nc.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(time.Second))
}

// sleepUntil waits until t; false when the connection closed first.
func (c *conn) sleepUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		select {
		case <-c.done:
			return false
		default:
			return true
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-c.done:
		return false
	}
}

// send writes the server's own requests: receipts and enquire_link.
func (c *conn) send() {
	defer c.s.wg.Done()
	for {
		p, ok := c.outbox.next(c.done, nil)
		if !ok || c.write(p, false) != nil {
			return
		}
	}
}

// enquire sends enquire_link every Options.EnquireEvery while not
// stalled: a dead peer does not probe.
func (c *conn) enquire() {
	s := c.s
	defer s.wg.Done()
	t := time.NewTicker(s.opts.EnquireEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		if s.stall == nil && !c.unbound {
			c.seq++
			c.outbox.push(pdu.PDU{Seq: c.seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLink}})
		}
		s.mu.Unlock()
	}
}

// queue is an unbounded FIFO between a connection's goroutines, so that
// the side that pushes never blocks.
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan struct{} // a token when items may be there
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// next pops the first item, waiting for one; false when done is closed or
// timeout fires first.
func (q *queue[T]) next(done <-chan struct{}, timeout <-chan time.Time) (T, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			var zero T
			q.items[0] = zero
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-done:
			var zero T
			return zero, false
		case <-timeout:
			var zero T
			return zero, false
		}
	}
}
