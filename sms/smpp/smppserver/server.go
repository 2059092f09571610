package smppserver

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// Gateway is what the server needs of the bulk SMS gateway;
// *sms.Gateway satisfies it.
type Gateway interface {
	// Authenticate checks a bind's credentials and address as an HTTP
	// submission's are checked.
	Authenticate(ctx context.Context, username, password string, client netip.Addr) error
	// SubmitFor submits a message of the bound account under the id the
	// server chose and answered.
	SubmitFor(ctx context.Context, account string, id sms.MessageID, sub sms.Submission) (sms.Accepted, error)
}

// The defaults of Options.
const (
	DefaultSystemID       = "msgkit"
	DefaultMaxBinds       = 10
	DefaultWindow         = 50
	DefaultEnquireEvery   = 30 * time.Second
	DefaultPartsTimeout   = time.Minute
	DefaultMaxPartsAcct   = 1000
	DefaultShutdownUnbind = 5 * time.Second
	DefaultDrainTimeout   = 5 * time.Second
	DefaultBindTimeout    = 30 * time.Second
)

// Options configure a Server. Zero values choose the defaults.
type Options struct {
	Logger *slog.Logger
	// Clock stamps what the server decides by: when a peer was last
	// heard, when a long message's first part came. The waits between
	// looks at it run on the runtime's timers.
	Clock msgkit.Clock
	// TLS, when set, wraps every connection Serve accepts.
	TLS *tls.Config
	// SystemID is the server's system_id in bind_*_resp.
	SystemID string
	// MaxBinds is the most binds one account holds at once on this
	// server; a bind beyond is ESME_RBINDFAIL.
	MaxBinds int
	// Window is the most requests of a bind the server reads ahead of
	// its answers; beyond it, it stops reading until one is answered.
	Window int
	// EnquireEvery: a bind silent this long gets an enquire_link; one
	// silent for DeadAfter (default 2 × EnquireEvery) is closed.
	EnquireEvery, DeadAfter time.Duration
	// BindTimeout: a connection not bound this long after it was
	// accepted is closed, whatever else it sends.
	BindTimeout time.Duration
	// PartsTimeout bounds the wait for the parts of a long message, and
	// MaxPartsPerAccount how many long messages of one account gather at
	// once (ESME_RMSGQFUL beyond).
	PartsTimeout       time.Duration
	MaxPartsPerAccount int
	// DrainTimeout bounds how long Shutdown waits, before it unbinds, for
	// the parts still to come of the long messages being gathered (see
	// the package doc).
	DrainTimeout time.Duration
	// NewID makes the id of a message; default sms.NewMessageID.
	NewID func() sms.MessageID
	// Metrics, when set, is where the server registers its metrics (see
	// the package doc); nil: none.
	Metrics prometheus.Registerer
}

// ErrServerClosed is what Serve returns after Shutdown.
var ErrServerClosed = errors.New("smppserver: server closed")

// Server serves ESMEs: it binds them with bulk SMS accounts and submits
// their messages through the gateway.
type Server struct {
	gw    Gateway
	opts  Options
	log   *slog.Logger
	parts *assembler
	dec   pdu.Decoder // SMPP 3.4's codec, its binds with an account's bounds (MaxSystemID, MaxPassword)
	m     *metrics    // nil without Options.Metrics

	ctx    context.Context // the gateway calls'; cancelled when Shutdown gives up
	cancel context.CancelFunc

	draining atomic.Bool // Shutdown began: no long message is begun

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	sessions  map[*session]struct{}
	binds     map[string]int // bound sessions by account
	receivers map[string]*receiving
	wg        sync.WaitGroup // sessions and the sweeper
	sweeping  bool
	stop      chan struct{} // closed by Shutdown
}

// New returns a server submitting through gw.
func New(gw Gateway, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SystemID == "" {
		opts.SystemID = DefaultSystemID
	}
	opts.MaxBinds = positive(opts.MaxBinds, DefaultMaxBinds)
	opts.Window = positive(opts.Window, DefaultWindow)
	opts.EnquireEvery = positive(opts.EnquireEvery, DefaultEnquireEvery)
	opts.DeadAfter = positive(opts.DeadAfter, 2*opts.EnquireEvery)
	opts.BindTimeout = positive(opts.BindTimeout, DefaultBindTimeout)
	opts.PartsTimeout = positive(opts.PartsTimeout, DefaultPartsTimeout)
	opts.MaxPartsPerAccount = positive(opts.MaxPartsPerAccount, DefaultMaxPartsAcct)
	opts.DrainTimeout = positive(opts.DrainTimeout, DefaultDrainTimeout)
	if opts.NewID == nil {
		opts.NewID = func() sms.MessageID { return sms.NewMessageID(opts.Clock.Now()) }
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		gw: gw, opts: opts, log: opts.Logger, dec: pdu.Decoder{MaxSystemID: MaxSystemID, MaxPassword: MaxPassword}, parts: newAssembler(opts.MaxPartsPerAccount, opts.PartsTimeout), m: newMetrics(opts.Metrics),
		ctx: ctx, cancel: cancel,
		listeners: map[net.Listener]struct{}{}, sessions: map[*session]struct{}{}, binds: map[string]int{}, receivers: map[string]*receiving{}, stop: make(chan struct{}),
	}
}

func positive[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Serve accepts ESMEs on ln until Shutdown, and returns ErrServerClosed
// then; another error of ln ends it with that error.
func (s *Server) Serve(ln net.Listener) error {
	if s.opts.TLS != nil {
		ln = tls.NewListener(ln, s.opts.TLS)
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.startSweeperLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Out of descriptors and the like: wait, as net/http does.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.log.Warn("smpp server: accept failed; retrying", "err", err, "retry_in", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		s.ServeConn(nc)
	}
}

// ServeConn serves one ESME connection in goroutines of its own, for a
// listener of the caller's (Serve's connections are served so). After
// Shutdown it closes nc.
func (s *Server) ServeConn(nc net.Conn) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return
	}
	c := newSession(s, nc)
	s.sessions[c] = struct{}{}
	s.startSweeperLocked()
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		c.run()
		s.mu.Lock()
		delete(s.sessions, c)
		s.mu.Unlock()
	}()
}

// Shutdown stops accepting, unbinds every bind (after answering what it
// read) and closes every connection, waiting for them until ctx ends;
// then it closes what is left and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.stop)
	}
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
	s.drain(ctx)
	s.mu.Lock()
	sessions := make([]*session, 0, len(s.sessions))
	for c := range s.sessions {
		sessions = append(sessions, c)
	}
	s.mu.Unlock()
	for _, c := range sessions {
		go c.unbindAndClose()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancel()
		return nil
	case <-ctx.Done():
		s.cancel()
		for _, c := range sessions {
			c.close("shutdown gave up")
		}
		<-done
		return ctx.Err()
	}
}

// drain lets the long messages being gathered complete before the binds
// are unbound: their parts still come and are taken, and so are whole
// messages, while the first parts of new long messages are answered
// ESME_RMSGQFUL, to be sent again after the restart or to another
// replica. It waits until none is gathering, for at most DrainTimeout or
// until ctx ends.
func (s *Server) drain(ctx context.Context) {
	s.draining.Store(true)
	deadline := time.NewTimer(s.opts.DrainTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for s.parts.pending() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			s.log.Warn("smpp server: long messages still gathering at shutdown; their parts are lost", "messages", s.parts.pending())
			return
		case <-tick.C:
		}
	}
}

// Draining reports whether Shutdown began: from then on no long message
// is begun.
func (s *Server) Draining() bool { return s.draining.Load() }

// startSweeperLocked starts the goroutine that drops long messages past
// PartsTimeout; s.mu is held.
func (s *Server) startSweeperLocked() {
	if s.sweeping {
		return
	}
	s.sweeping = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(max(s.opts.PartsTimeout/4, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sweep()
			}
		}
	}()
}

// sweep drops the long messages whose parts did not all come within
// PartsTimeout.
func (s *Server) sweep() {
	for k, g := range s.parts.sweep(s.opts.Clock.Now()) {
		s.dropped(k, g)
	}
}

func (s *Server) dropped(k partKey, g *gathering) {
	s.log.Warn("smpp server: a long message's parts did not all come in time; dropped", "account", k.account, "msg_id", g.id,
		"parts", len(g.parts), "received", g.have, "since", g.started)
	s.m.incomplete()
}

// receiving is an account's receiver and transceiver binds on this
// server, which take turns at its deliveries.
type receiving struct {
	sessions []*session
	next     int
}

// bindAccount counts a bind of account unless it holds MaxBinds; a
// receiver or transceiver bind takes the account's deliveries too.
func (s *Server) bindAccount(account string, mode pdu.BindMode, c *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.binds[account] >= s.opts.MaxBinds {
		return false
	}
	s.binds[account]++
	if mode == pdu.Receiver || mode == pdu.Transceiver {
		r := s.receivers[account]
		if r == nil {
			r = &receiving{}
			s.receivers[account] = r
		}
		r.sessions = append(r.sessions, c)
	}
	return true
}

func (s *Server) unbindAccount(account string, c *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.binds[account]--; s.binds[account] <= 0 {
		delete(s.binds, account)
	}
	if r := s.receivers[account]; r != nil {
		if i := slices.Index(r.sessions, c); i >= 0 {
			r.sessions = slices.Delete(r.sessions, i, i+1)
		}
		if len(r.sessions) == 0 {
			delete(s.receivers, account)
		}
	}
}

// receiver is the next of account's binds that takes deliveries and is
// not unbinding; nil when there is none.
func (s *Server) receiver(account string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.receivers[account]
	if r == nil {
		return nil
	}
	for range r.sessions {
		r.next = (r.next + 1) % len(r.sessions)
		if c := r.sessions[r.next]; c.receiving() {
			return c
		}
	}
	return nil
}

// Binds is how many binds account holds on this server now.
func (s *Server) Binds(account string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.binds[account]
}

// Gathering is how many long messages are waiting for parts.
func (s *Server) Gathering() int { return s.parts.pending() }

// errResp answers request p with st and no body.
func errResp(p pdu.PDU, st pdu.Status) pdu.PDU {
	return pdu.PDU{Status: st, Seq: p.Seq, Body: &pdu.Empty{ID: p.Body.Command() | pdu.RespBit}}
}
