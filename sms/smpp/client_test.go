package smpp_test

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// sink records status events, the parts the SMSC took (StatusAccepted)
// apart from what their receipts said; fail makes it refuse receipts'.
type sink struct {
	mu       sync.Mutex
	evs      []sms.StatusEvent
	accepted []sms.StatusEvent
	fail     bool
	got      chan struct{}
}

func newSink() *sink { return &sink{got: make(chan struct{}, 1000)} }

func (s *sink) HandleStatus(_ context.Context, ev sms.StatusEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Status == sms.StatusAccepted {
		s.accepted = append(s.accepted, ev)
		return nil
	}
	if s.fail {
		return errors.New("the store is down")
	}
	s.evs = append(s.evs, ev)
	select {
	case s.got <- struct{}{}:
	default: // a full channel wakes wait all the same
	}
	return nil
}

func (s *sink) setFail(v bool) {
	s.mu.Lock()
	s.fail = v
	s.mu.Unlock()
}

func (s *sink) events() []sms.StatusEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.evs)
}

// wait waits for n events in all.
func (s *sink) wait(t *testing.T, n int) []sms.StatusEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for len(s.events()) < n {
		select {
		case <-s.got:
		case <-deadline:
			t.Fatalf("%d status events, want %d", len(s.events()), n)
		}
	}
	return s.events()
}

type env struct {
	sim    *smppsim.Server
	client *smpp.Client
	store  smpp.Store
	sink   *sink
	cancel context.CancelFunc
	done   chan struct{}
}

// start runs a simulator with opts and a client bound to it with cfg.
func start(t *testing.T, opts smppsim.Options, cfg smpp.Config) *env {
	t.Helper()
	return startClocked(t, opts, cfg, nil)
}

// startClocked is start with the client on clock.
func startClocked(t *testing.T, opts smppsim.Options, cfg smpp.Config, clock msgkit.Clock) *env {
	t.Helper()
	return startWith(t, opts, cfg, smpp.Options{Clock: clock})
}

// startWith is start with the client's options but its Store.
func startWith(t *testing.T, opts smppsim.Options, cfg smpp.Config, copts smpp.Options) *env {
	t.Helper()
	if opts.Accounts == nil {
		opts.Accounts = map[string]string{"msgkit": "secret"}
	}
	sim := smppsim.New(opts)
	addr, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	cfg.Addr, cfg.Name = addr, "sim"
	if cfg.SystemID == "" {
		cfg.SystemID, cfg.Password = "msgkit", "secret"
	}
	cfg.MinBackoff, cfg.MaxBackoff = cmp.Or(cfg.MinBackoff, 20*time.Millisecond), cmp.Or(cfg.MaxBackoff, 100*time.Millisecond)
	cfg.Timeout = cmp.Or(cfg.Timeout, 2*time.Second)
	e := &env{sim: sim, store: memstore.New().SMPP(), sink: newSink(), done: make(chan struct{})}
	copts.Store = e.store
	e.client = smpp.New(cfg, copts)
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.client.Run(ctx, e.sink); close(e.done) }()
	t.Cleanup(e.stop)
	return e
}

func (e *env) stop() {
	e.cancel()
	<-e.done
}

func (e *env) waitBound(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for e.client.Bound() < n {
		if ctx.Err() != nil {
			t.Fatalf("%d binds up, want %d", e.client.Bound(), n)
		}
		time.Sleep(5 * time.Millisecond) // waiting for a condition, not a schedule
	}
}

func part(id string, num int, text string) sms.OutboundPart {
	return sms.OutboundPart{MsgID: sms.MessageID(id), PartNum: num, NumParts: 1, Sender: sms.Sender{Value: "msgkit"}, Receiver: "+38640123456", DCS: gsm.DCSGSM, Text: text,
		ExpiresAt: time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC)}
}

func send(t *testing.T, e *env, parts ...sms.OutboundPart) []error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	return e.client.Send(ctx, parts)
}

func TestSendAndReceipt(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{})
	if errs := send(t, e, part("m1", 0, "Hello {world} €")); errs != nil {
		t.Fatalf("Send: %v", errs)
	}
	subs := e.sim.Submits()
	if len(subs) != 1 {
		t.Fatalf("%d submits", len(subs))
	}
	sm := subs[0].PDU.Body.(*pdu.SubmitSM)
	want := []byte{'H', 'e', 'l', 'l', 'o', ' ', 0x1B, 0x28, 'w', 'o', 'r', 'l', 'd', 0x1B, 0x29, ' ', 0x1B, 0x65} // unpacked septets, extension escapes
	if sm.Source != (pdu.Address{TON: 5, NPI: 0, Addr: "msgkit"}) || sm.Dest != (pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}) ||
		sm.DataCoding != 0 || sm.ESMClass != 0 || sm.RegisteredDelivery != 1 || sm.ValidityPeriod != "261125103000000+" || !slices.Equal(sm.Message, want) {
		t.Errorf("submit_sm %+v", sm.ShortMessage)
	}
	evs := e.sink.wait(t, 1)
	if evs[0].MsgID != "m1" || evs[0].PartNum != 0 || evs[0].Status != sms.StatusDelivered {
		t.Errorf("event %+v", evs[0])
	}
	// The part taken is reported too, in a batch of its own.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		e.sink.mu.Lock()
		acc := slices.Clone(e.sink.accepted)
		e.sink.mu.Unlock()
		if len(acc) == 1 && acc[0].MsgID == "m1" && acc[0].Status == sms.StatusAccepted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the part taken was reported %+v", acc)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := e.sim.WaitAcked(ctx, 1); err != nil {
		t.Fatalf("the receipt was not acknowledged: %v", err)
	}
	// A part the SMSC took is never sent again.
	if errs := send(t, e, part("m1", 0, "Hello {world} €")); errs != nil || len(e.sim.Submits()) != 1 {
		t.Errorf("a second Send of a taken part: %v, %d submits", errs, len(e.sim.Submits()))
	}
}

// TestCodings: UCS-2 and GSM, packed and unpacked; flash as class 0;
// 8-bit data with its ports (WAP push to 2948); long messages tied by an
// 8-bit or 16-bit reference in the header or by the SAR parameters.
func TestCodings(t *testing.T) {
	long := func(dcs gsm.DCS, text string) []sms.OutboundPart {
		return []sms.OutboundPart{
			{MsgID: "long", PartNum: 0, NumParts: 2, Sender: sms.Sender{Value: "4915550000", Numeric: true}, Receiver: "+4915123", DCS: dcs, Text: text, UDH: gsm.UDH{Ref: 7, Total: 2, Seq: 1}},
			{MsgID: "long", PartNum: 1, NumParts: 2, Sender: sms.Sender{Value: "4915550000", Numeric: true}, Receiver: "+4915123", DCS: dcs, Text: text, UDH: gsm.UDH{Ref: 7, Total: 2, Seq: 2}},
		}
	}
	for _, c := range []struct {
		name  string
		cfg   smpp.Config
		parts []sms.OutboundPart
		check func(t *testing.T, sms []*pdu.SubmitSM)
	}{
		{"UCS-2 flash", smpp.Config{}, []sms.OutboundPart{{MsgID: "u", Sender: sms.Sender{Value: "12345", Numeric: true}, Receiver: "+38640123456", DCS: gsm.DCSUCS, Text: "Привет 😀", Flash: true}},
			func(t *testing.T, s []*pdu.SubmitSM) {
				want := []byte{0x04, 0x1F, 0x04, 0x40, 0x04, 0x38, 0x04, 0x32, 0x04, 0x35, 0x04, 0x42, 0x00, 0x20, 0xD8, 0x3D, 0xDE, 0x00}
				if s[0].DataCoding != 0x18 || !slices.Equal(s[0].Message, want) || s[0].Source != (pdu.Address{TON: 3, NPI: 0, Addr: "12345"}) {
					t.Errorf("%x %x %+v", s[0].DataCoding, s[0].Message, s[0].Source)
				}
			}},
		{"GSM packed", smpp.Config{GSMPacked: true}, []sms.OutboundPart{part("p", 0, "hellohello")},
			func(t *testing.T, s []*pdu.SubmitSM) {
				// The classic "hellohello" user data of 3GPP TS 23.040 examples.
				want := []byte{0xE8, 0x32, 0x9B, 0xFD, 0x46, 0x97, 0xD9, 0xEC, 0x37}
				if !slices.Equal(s[0].Message, want) {
					t.Errorf("% x", s[0].Message)
				}
			}},
		{"WAP push", smpp.Config{}, []sms.OutboundPart{{MsgID: "w", Sender: sms.Sender{Value: "msgkit"}, Receiver: "+38640123456", DCS: gsm.DCSBinary, Data: []byte{0x01, 0x06}, UDH: gsm.UDH{DstPort: 2948, SrcPort: 9200}}},
			func(t *testing.T, s []*pdu.SubmitSM) {
				want := []byte{0x06, 0x05, 0x04, 0x0B, 0x84, 0x23, 0xF0, 0x01, 0x06}
				if s[0].DataCoding != 0x04 || s[0].ESMClass != 0x40 || !slices.Equal(s[0].Message, want) {
					t.Errorf("%x %x % x", s[0].DataCoding, s[0].ESMClass, s[0].Message)
				}
			}},
		{"UDH 8-bit", smpp.Config{}, long(gsm.DCSGSM, "ab"),
			func(t *testing.T, s []*pdu.SubmitSM) {
				ref := s[0].Message[3] // the client's, not the gateway's 7
				for i, sm := range s {
					want := []byte{0x05, 0x00, 0x03, ref, 2, byte(i + 1), 'a', 'b'}
					if sm.ESMClass != 0x40 || !slices.Equal(sm.Message, want) || sm.Source != (pdu.Address{TON: 1, NPI: 1, Addr: "4915550000"}) {
						t.Errorf("part %d: %x % x", i, sm.ESMClass, sm.Message)
					}
				}
			}},
		{"UDH 16-bit", smpp.Config{Concat: smpp.ConcatUDH16}, long(gsm.DCSUCS, "é"),
			func(t *testing.T, s []*pdu.SubmitSM) {
				ref := s[0].Message[3:5]
				for i, sm := range s {
					want := []byte{0x06, 0x08, 0x04, ref[0], ref[1], 2, byte(i + 1), 0x00, 0xE9}
					if sm.ESMClass != 0x40 || sm.DataCoding != 0x08 || !slices.Equal(sm.Message, want) {
						t.Errorf("part %d: % x", i, sm.Message)
					}
				}
			}},
		{"SAR", smpp.Config{Concat: smpp.ConcatSAR}, long(gsm.DCSGSM, "ab"),
			func(t *testing.T, s []*pdu.SubmitSM) {
				ref0, _ := s[0].TLVs.Uint(pdu.TagSarMsgRefNum)
				for i, sm := range s {
					ref, _ := sm.TLVs.Uint(pdu.TagSarMsgRefNum)
					total, _ := sm.TLVs.Uint(pdu.TagSarTotalSegments)
					seq, _ := sm.TLVs.Uint(pdu.TagSarSegmentSeqnum)
					if sm.ESMClass != 0 || string(sm.Message) != "ab" || ref != ref0 || total != 2 || seq != uint32(i+1) {
						t.Errorf("part %d: %x %q %v", i, sm.ESMClass, sm.Message, sm.TLVs)
					}
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, smppsim.Options{}, c.cfg)
			if errs := send(t, e, c.parts...); errs != nil {
				t.Fatal(errs)
			}
			var got []*pdu.SubmitSM
			for _, s := range e.sim.Submits() {
				got = append(got, s.PDU.Body.(*pdu.SubmitSM))
			}
			slices.SortFunc(got, func(a, b *pdu.SubmitSM) int {
				return slices.Compare(a.Message, b.Message)
			})
			if len(got) != len(c.parts) {
				t.Fatalf("%d submits", len(got))
			}
			c.check(t, got)
		})
	}
}

// TestWindow: never more submit_sm outstanding than the window, however
// many parts wait, with answers late and out of order; every part taken.
func TestWindow(t *testing.T) {
	e := start(t, smppsim.Options{RespDelay: 5 * time.Millisecond, Reorder: true}, smpp.Config{Window: 8})
	var parts []sms.OutboundPart
	for i := range 200 {
		parts = append(parts, part(fmt.Sprintf("w%d", i), 0, "x"))
	}
	if errs := send(t, e, parts...); errs != nil {
		t.Fatal(errs)
	}
	if n := len(e.sim.Submits()); n != 200 {
		t.Errorf("%d submits", n)
	}
	if m := e.sim.MaxOutstanding(); m > 8+1 { // +1: an enquire_link may be in flight
		t.Errorf("%d outstanding, window 8", m)
	}
	taken, _ := e.store.SubmittedParts(t.Context(), []smpp.PartKey{{MsgID: "w0"}, {MsgID: "w199"}})
	if len(taken) != 2 {
		t.Errorf("the store holds %v", taken)
	}
}

// TestThrottled: ESME_RTHROTTLED and ESME_RMSGQFUL are RateLimited and
// the bind rests; other statuses are refusals or temporary.
func TestThrottled(t *testing.T) {
	e := start(t, smppsim.Options{
		QueueFull: func(n int) bool { return n == 2 },
		Fail: func(s smppsim.Submit) pdu.Status {
			switch s.Dest().Addr {
			case "38640000001":
				return pdu.ESME_RINVDSTADR
			case "38640000002":
				return pdu.ESME_RSYSERR
			case "38640000003":
				return pdu.ESME_RINVESMCLASS
			}
			return pdu.ESME_ROK
		},
	}, smpp.Config{Throttled: time.Hour})
	ok := part("a", 0, "x")
	full := part("b", 0, "x")
	bad := part("c", 0, "x")
	bad.Receiver = "+38640000001"
	sys := part("d", 0, "x")
	sys.Receiver = "+38640000002"
	esm := part("e", 0, "x")
	esm.Receiver = "+38640000003"
	errs := send(t, e, ok, full)
	if errs == nil || errs[0] != nil || msgkit.KindOf(errs[1]) != msgkit.RateLimited {
		t.Fatalf("queue full: %v", errs)
	}
	// The only bind rests: a Send now is RateLimited without a submit.
	before := len(e.sim.Submits()) + len(e.sim.Refused())
	if errs := send(t, e, bad); msgkit.KindOf(errs[0]) != msgkit.RateLimited || len(e.sim.Submits())+len(e.sim.Refused()) != before {
		t.Errorf("a resting bind: %v", errs)
	}

	e2 := start(t, smppsim.Options{Fail: func(s smppsim.Submit) pdu.Status {
		return map[string]pdu.Status{"38640000001": pdu.ESME_RINVDSTADR, "38640000002": pdu.ESME_RSYSERR, "38640000003": pdu.ESME_RINVESMCLASS}[s.Dest().Addr]
	}}, smpp.Config{})
	errs = send(t, e2, bad, sys, esm)
	var r *sms.Refusal
	if !errors.As(errs[0], &r) || r.Code != sms.DLRUndeliverable {
		t.Errorf("ESME_RINVDSTADR: %v", errs[0])
	}
	if msgkit.KindOf(errs[1]) != msgkit.Unavailable {
		t.Errorf("ESME_RSYSERR: %v", errs[1])
	}
	if !errors.As(errs[2], &r) || r.Code != sms.DLRSupplierRejected {
		t.Errorf("ESME_RINVESMCLASS: %v", errs[2])
	}
}

// TestDropMidWindow: a bind that drops with submits in flight fails
// those as Unavailable; sent again, the ones the SMSC answered are not
// sent twice, and the others go on the new bind.
func TestDropMidWindow(t *testing.T) {
	e := start(t, smppsim.Options{DropAfter: 6}, smpp.Config{Window: 10})
	var parts []sms.OutboundPart
	for i := range 10 {
		parts = append(parts, part(fmt.Sprintf("d%d", i), 0, "x"))
	}
	errs := send(t, e, parts...)
	lost := 0
	for _, err := range errs {
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Unavailable {
				t.Fatalf("a lost part: %v", err)
			}
			lost++
		}
	}
	// The first 5 are answered and the 6th is lost with the connection;
	// those after it are lost too, unless the client has bound again
	// before their turn and they went on the new bind (about 3 runs in
	// 100 under -race).
	answered := len(e.sim.Submits())
	if answered < 5 || lost < 1 || answered+lost != 10 {
		t.Fatalf("%d answered, %d lost; want 5 or more answered, the rest (the 6th at least) lost", answered, lost)
	}
	e.waitBound(t, 1)
	// The new connection drops at its 6th submit too: 5 go through.
	if errs := send(t, e, parts...); errs != nil {
		t.Fatalf("again: %v", errs)
	}
	if n := len(e.sim.Submits()); n != 10 {
		t.Errorf("%d submits in all, want 10: nothing sent twice", n)
	}
}

// TestReceiptAckedAfterStored: a receipt whose event the sink does not
// take is not acknowledged, and the SMSC's redelivery after a reconnect
// is.
func TestReceiptAckedAfterStored(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{})
	e.sink.setFail(true)
	if errs := send(t, e, part("r", 0, "x")); errs != nil {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := e.sim.Wait(ctx, func() bool { return e.sim.ReceiptsSent() >= 1 && len(e.sim.Unacked()) == 1 }); err != nil {
		t.Fatal("the receipt was not sent")
	}
	if len(e.sim.Acked()) != 0 {
		t.Fatal("a receipt not stored was acknowledged")
	}
	e.sink.setFail(false)
	e.sim.DropAll()
	if _, err := e.sim.WaitAcked(ctx, 1); err != nil {
		t.Fatalf("the redelivered receipt: %v", err)
	}
	if evs := e.sink.wait(t, 1); evs[0].MsgID != "r" {
		t.Errorf("events %v", evs)
	}
}

// TestReceiptMatching: ids in hex in the response and decimal in the
// receipt text (or the other way), text only or parameters only; an
// early receipt overtaking its response; states mapped.
func TestReceiptMatching(t *testing.T) {
	for _, c := range []struct {
		name string
		opts smppsim.Options
	}{
		{"hex answer, decimal text", smppsim.Options{IDFormat: smppsim.IDHex, ReceiptIDFormat: smppsim.IDDecimal, ReceiptMode: smppsim.TextOnly}},
		{"decimal answer, hex text", smppsim.Options{IDFormat: smppsim.IDDecimal, ReceiptIDFormat: smppsim.IDHex, ReceiptMode: smppsim.TextOnly}},
		{"padded answer", smppsim.Options{IDFunc: func(n uint64) string { return fmt.Sprintf("%010X", n) }, ReceiptIDFormat: smppsim.IDDecimal, ReceiptMode: smppsim.TextOnly}},
		{"parameters only", smppsim.Options{IDFormat: smppsim.IDHex, ReceiptMode: smppsim.TLVsOnly}},
		{"receipt before the answer", smppsim.Options{RespDelay: 300 * time.Millisecond, EarlyReceipts: true}},
		{"undelivered", smppsim.Options{Stat: func(smppsim.Submit) string { return "UNDELIV" }, Err: func(smppsim.Submit) int { return 1 }}},
		{"expired", smppsim.Options{Stat: func(smppsim.Submit) string { return "EXPIRED" }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, c.opts, smpp.Config{})
			if errs := send(t, e, part("m", 0, "x")); errs != nil {
				t.Fatal(errs)
			}
			ev := e.sink.wait(t, 1)[0]
			want := sms.StatusDelivered
			switch c.name {
			case "undelivered":
				want = sms.StatusPermanentFailure
				if ev.ErrorCode != sms.DLRSubscriberUnknown {
					t.Errorf("error code %d", ev.ErrorCode)
				}
			case "expired":
				want = sms.StatusExpired
			}
			if ev.MsgID != "m" || ev.Status != want {
				t.Errorf("event %+v", ev)
			}
		})
	}
}

// TestDeadPeer: an SMSC that stops answering is dropped after the
// dead-peer time and bound again once it answers.
func TestDeadPeer(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{EnquireEvery: 20 * time.Millisecond, DeadAfter: 100 * time.Millisecond})
	e.waitBound(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := e.sim.Wait(ctx, func() bool { return e.sim.EnquireLinks() >= 2 }); err != nil {
		t.Fatal("no enquire_link")
	}
	e.sim.Stall(true)
	for e.client.Bound() != 0 {
		if ctx.Err() != nil {
			t.Fatal("a silent SMSC was not dropped")
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.sim.Stall(false)
	e.waitBound(t, 1)
	if e.sim.Binds() < 2 {
		t.Errorf("%d binds", e.sim.Binds())
	}
}

// TestBindRefused: a wrong password keeps the client retrying with
// backoff; Send waits for a bind while its context allows.
func TestBindRefused(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{SystemID: "msgkit", Password: "wrong"})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	errs := e.client.Send(ctx, []sms.OutboundPart{part("x", 0, "x")})
	if msgkit.KindOf(errs[0]) != msgkit.Unavailable || e.client.Bound() != 0 {
		t.Errorf("without a bind: %v", errs)
	}
	if n := len(e.sim.Submits()); n != 0 {
		t.Errorf("%d submits", n)
	}
}

// TestTransmitterAndReceiver: a transmitter sends and a receiver bind of
// the same system id takes the receipts.
func TestTransmitterAndReceiver(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{Mode: pdu.Transmitter, Binds: 2, Receivers: 1})
	e.waitBound(t, 2)
	var parts []sms.OutboundPart
	for i := range 20 {
		parts = append(parts, part(fmt.Sprintf("t%d", i), 0, "x"))
	}
	if errs := send(t, e, parts...); errs != nil {
		t.Fatal(errs)
	}
	e.sink.wait(t, 20)
	conns := map[int]bool{}
	for _, s := range e.sim.Submits() {
		conns[s.Conn] = true
	}
	if len(conns) != 2 {
		t.Errorf("submits on %d connections, want both transmitters", len(conns))
	}
}

// TestTLS: a connection configured with TLS binds, sends and takes
// receipts through it (a TLS front to the simulator, with the test
// server certificate of net/http/httptest).
func TestTLS(t *testing.T) {
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}})
	plain, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	certSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	certSrv.StartTLS()
	certSrv.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: certSrv.TLS.Certificates})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", plain)
				if err != nil {
					return
				}
				defer s.Close()
				go io.Copy(s, c)
				io.Copy(c, s)
			}()
		}
	}()
	roots := x509.NewCertPool()
	roots.AddCert(certSrv.Certificate())
	snk := newSink()
	c := smpp.New(smpp.Config{Addr: ln.Addr().String(), TLS: &tls.Config{RootCAs: roots}, SystemID: "msgkit", Password: "secret", Timeout: 2 * time.Second},
		smpp.Options{Store: memstore.New().SMPP()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, snk); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	sendCtx, stop := context.WithTimeout(t.Context(), 10*time.Second)
	defer stop()
	if errs := c.Send(sendCtx, []sms.OutboundPart{part("tls", 0, "over TLS")}); errs != nil {
		t.Fatal(errs)
	}
	if evs := snk.wait(t, 1); evs[0].MsgID != "tls" || evs[0].Status != sms.StatusDelivered {
		t.Errorf("event %+v", evs[0])
	}
	// An SMSC whose certificate the client does not trust is not bound.
	bad := smpp.New(smpp.Config{Addr: ln.Addr().String(), TLS: &tls.Config{}, SystemID: "msgkit", Password: "secret"},
		smpp.Options{Store: memstore.New().SMPP()})
	badCtx, badCancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer badCancel()
	go bad.Run(badCtx, newSink())
	if errs := bad.Send(badCtx, []sms.OutboundPart{part("x", 0, "x")}); msgkit.KindOf(errs[0]) != msgkit.Unavailable {
		t.Errorf("an untrusted SMSC: %v", errs)
	}
}

// TestResponseTimeout: a submit_sm the SMSC does not answer within the
// timeout is Unavailable, to be tried again, and frees its window place.
func TestResponseTimeout(t *testing.T) {
	e := start(t, smppsim.Options{}, smpp.Config{Timeout: 100 * time.Millisecond, Window: 1, EnquireEvery: time.Hour})
	e.waitBound(t, 1)
	e.sim.Stall(true)
	begin := time.Now()
	errs := send(t, e, part("slow1", 0, "x"), part("slow2", 0, "x"))
	if msgkit.KindOf(errs[0]) != msgkit.Unavailable || msgkit.KindOf(errs[1]) != msgkit.Unavailable {
		t.Fatalf("unanswered parts: %v", errs)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("two unanswered parts through a window of 1 took %v", took)
	}
}

// heldStore is a Store whose SaveSubmitted waits for release: a replica
// slow to save what its SMSC took.
type heldStore struct {
	smpp.Store
	release chan struct{}
}

func (s *heldStore) SaveSubmitted(ctx context.Context, subs []smpp.Submitted) error {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.SaveSubmitted(ctx, subs)
}

// missCounter is a Store that tells missed of each PartsOf that found
// nothing.
type missCounter struct {
	smpp.Store
	missed chan struct{}
}

func (s *missCounter) PartsOf(ctx context.Context, conn string, ids []string) (map[string]smpp.Submitted, error) {
	got, err := s.Store.PartsOf(ctx, conn, ids)
	if err == nil && len(got) == 0 {
		select {
		case s.missed <- struct{}{}:
		default:
		}
	}
	return got, err
}

// TestReceiptOfAReplica: a receipt that reaches one client for a part a
// replica sharing its Store submitted, before the replica saved the
// part's record, waits for the record (asking the Store again) instead
// of being dropped, and its event goes to the client that took it.
func TestReceiptOfAReplica(t *testing.T) {
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}})
	addr, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	shared := memstore.New().SMPP()
	slow := &heldStore{Store: shared, release: make(chan struct{})}
	looking := &missCounter{Store: shared, missed: make(chan struct{}, 16)}
	cfg := smpp.Config{Name: "sim", Addr: addr, SystemID: "msgkit", Password: "secret", Timeout: 5 * time.Second,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
	sender := cfg
	sender.Mode = pdu.Transmitter // no receipts: they all go to the other client
	ownSink, otherSink := newSink(), newSink()
	clients := []*smpp.Client{smpp.New(sender, smpp.Options{Store: slow}), smpp.New(cfg, smpp.Options{Store: looking})}
	sinks := []*sink{ownSink, otherSink}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i, c := range clients {
		wg.Go(func() { c.Run(ctx, sinks[i]) })
	}
	for deadline := time.Now().Add(10 * time.Second); clients[0].Bound() < 1 || clients[1].Bound() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the clients did not bind")
		}
	}
	sent := make(chan []error, 1)
	go func() {
		sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
		defer scancel()
		sent <- clients[0].Send(sctx, []sms.OutboundPart{part("r1", 0, "x")})
	}()
	// The other client looks the receipt's part up with its batch, then
	// alone, and finds nothing: the sender has not saved it yet.
	for range 2 {
		select {
		case <-looking.missed:
		case <-time.After(10 * time.Second):
			t.Fatal("the receipt's part was not looked up")
		}
	}
	close(slow.release)
	if errs := <-sent; errs != nil {
		t.Fatalf("Send: %v", errs)
	}
	evs := otherSink.wait(t, 1)
	if evs[0].MsgID != "r1" || evs[0].Status != sms.StatusDelivered {
		t.Errorf("event %+v", evs[0])
	}
	if got := ownSink.events(); len(got) != 0 {
		t.Errorf("the sender's sink got receipts' events %+v", got)
	}
	actx, acancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer acancel()
	if _, err := sim.WaitAcked(actx, 1); err != nil {
		t.Fatalf("the receipt was not acknowledged: %v", err)
	}
}

// TestClock: the client stamps acceptances with its clock, and decides by
// it how long a throttled bind rests and whether a silent SMSC is dead,
// so a test's clock that stands still holds both until it is moved.
func TestClock(t *testing.T) {
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)

	t.Run("acceptances", func(t *testing.T) {
		clock := msgkittest.NewClock(at)
		e := startClocked(t, smppsim.Options{}, smpp.Config{}, clock.Now)
		if errs := send(t, e, part("m1", 0, "hi")); errs != nil {
			t.Fatal(errs)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) { // waiting for a condition
			e.sink.mu.Lock()
			acc := slices.Clone(e.sink.accepted)
			e.sink.mu.Unlock()
			if len(acc) == 1 {
				if !acc[0].At.Equal(at) {
					t.Errorf("accepted at %v, want the clock's %v", acc[0].At, at)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("acceptances %+v", acc)
			}
		}
	})

	t.Run("a throttled bind rests until the clock says", func(t *testing.T) {
		clock := msgkittest.NewClock(at)
		e := startClocked(t, smppsim.Options{QueueFull: func(n int) bool { return n == 1 }}, smpp.Config{Throttled: time.Minute}, clock.Now)
		if errs := send(t, e, part("a", 0, "x")); errs == nil || msgkit.KindOf(errs[0]) != msgkit.RateLimited {
			t.Fatalf("queue full: %v", errs)
		}
		if errs := send(t, e, part("b", 0, "x")); errs == nil || msgkit.KindOf(errs[0]) != msgkit.RateLimited || len(e.sim.Submits()) != 0 {
			t.Fatalf("a resting bind: %v, %d submits", errs, len(e.sim.Submits()))
		}
		clock.Advance(time.Minute)
		if errs := send(t, e, part("b", 0, "x")); errs != nil || len(e.sim.Submits()) != 1 {
			t.Errorf("after the rest by the clock: %v, %d submits", errs, len(e.sim.Submits()))
		}
	})

	t.Run("a silent SMSC is dead when the clock says", func(t *testing.T) {
		clock := msgkittest.NewClock(at)
		e := startClocked(t, smppsim.Options{}, smpp.Config{EnquireEvery: 10 * time.Millisecond, DeadAfter: 30 * time.Millisecond}, clock.Now)
		e.waitBound(t, 1)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		e.sim.Stall(true)
		// Six enquire_link unanswered, six looks at the clock over more
		// than DeadAfter of real time: the clock has not moved, so the
		// bind lives.
		if err := e.sim.Wait(ctx, func() bool { return e.sim.Outstanding() >= 6 }); err != nil {
			t.Fatalf("the bind stopped asking (%d enquire_link unanswered): dropped by real time", e.sim.Outstanding())
		}
		if e.client.Bound() != 1 {
			t.Fatal("a silent SMSC was dropped before the clock passed DeadAfter")
		}
		clock.Advance(31 * time.Millisecond)
		for e.client.Bound() != 0 {
			if ctx.Err() != nil {
				t.Fatal("a silent SMSC was not dropped once the clock passed DeadAfter")
			}
			time.Sleep(5 * time.Millisecond) // waiting for a condition, not a schedule
		}
	})
}

// TestShutdownRecordsLateAnswers: a shutdown (Run's and Send's contexts
// ending together, as on SIGTERM) with a submit_sm on the wire gives up on
// the Send, but the bind unbinds and the SMSC's answer, which comes before
// its unbind_resp, is still recorded: the part is not sent again by the
// next process on the same Store.
func TestShutdownRecordsLateAnswers(t *testing.T) {
	e := start(t, smppsim.Options{RespDelay: 200 * time.Millisecond}, smpp.Config{EnquireEvery: time.Hour})
	e.waitBound(t, 1)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan []error, 1)
	go func() { errc <- e.client.Send(ctx, []sms.OutboundPart{part("late", 0, "x")}) }()
	wctx, wcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer wcancel()
	if err := e.sim.Wait(wctx, func() bool { return len(e.sim.Submits()) == 1 }); err != nil {
		t.Fatal("the SMSC got no submit_sm")
	}
	cancel()
	e.stop()
	if errs := <-errc; errs == nil || msgkit.KindOf(errs[0]) != msgkit.Unavailable {
		t.Errorf("Send on a shutdown: %v, want the part Unavailable", errs)
	}
	taken, err := e.store.SubmittedParts(t.Context(), []smpp.PartKey{{MsgID: "late", PartNum: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if len(taken) != 1 {
		t.Error("the SMSC's answer, read while the bind unbound, was not recorded: the part would be sent again")
	}
}
