package smppsim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

var t0 = time.Date(2025, 3, 1, 12, 34, 56, 0, time.UTC)

// esme is a raw client made of the codec alone, so the simulator is
// tested without the client it exists to test.
type esme struct {
	t   *testing.T
	nc  net.Conn
	seq uint32
}

func start(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s := New(opts)
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, addr
}

func dial(t *testing.T, addr string) *esme {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &esme{t: t, nc: nc}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (e *esme) writeRaw(b []byte) {
	e.t.Helper()
	if _, err := e.nc.Write(b); err != nil {
		e.t.Fatal(err)
	}
}

func (e *esme) sendPDU(p pdu.PDU) {
	e.t.Helper()
	b, err := pdu.Append(nil, p)
	if err != nil {
		e.t.Fatal(err)
	}
	e.writeRaw(b)
}

// send sends a request with the next sequence number and returns it.
func (e *esme) send(body pdu.Body) uint32 {
	e.t.Helper()
	e.seq++
	e.sendPDU(pdu.PDU{Seq: e.seq, Body: body})
	return e.seq
}

// read reads a PDU, failing the test after 10 seconds rather than
// hanging it.
func (e *esme) read() pdu.PDU {
	e.t.Helper()
	e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, _, err := pdu.Read(e.nc, nil, 0)
	if err != nil {
		e.t.Fatalf("read: %v", err)
	}
	return p
}

// readEnd expects the server to have closed the connection.
func (e *esme) readEnd() {
	e.t.Helper()
	e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, _, err := pdu.Read(e.nc, nil, 0)
	if err == nil {
		e.t.Fatalf("read %v, want the connection closed", p.Body.Command())
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		e.t.Fatal("the connection is still open")
	}
}

// expect reads a PDU and checks its command, status and sequence number.
func (e *esme) expect(cmd pdu.CommandID, st pdu.Status, seq uint32) pdu.PDU {
	e.t.Helper()
	p := e.read()
	if p.Body.Command() != cmd || p.Status != st || p.Seq != seq {
		e.t.Fatalf("got %v %v seq %d, want %v %v seq %d", p.Body.Command(), p.Status, p.Seq, cmd, st, seq)
	}
	return p
}

func (e *esme) bind(mode pdu.BindMode, id, pw string) pdu.PDU {
	e.t.Helper()
	e.send(&pdu.Bind{Mode: mode, SystemID: id, Password: pw, Version: pdu.InterfaceVersion})
	return e.read()
}

func (e *esme) mustBind(mode pdu.BindMode, id, pw string) {
	e.t.Helper()
	if p := e.bind(mode, id, pw); p.Status != pdu.ESME_ROK {
		e.t.Fatalf("bind: %v", p.Status)
	}
}

func sm(dest string, reg byte, text string) *pdu.SubmitSM {
	return &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		Source:             pdu.Address{TON: 5, Addr: "msgkit"},
		Dest:               pdu.Address{TON: 1, NPI: 1, Addr: dest},
		RegisteredDelivery: reg,
		Message:            []byte(text),
	}}
}

// submitOK submits and returns the message id of an ESME_ROK answer.
func (e *esme) submitOK(s *pdu.SubmitSM) string {
	e.t.Helper()
	seq := e.send(s)
	p := e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, seq)
	return p.Body.(*pdu.SubmitSMResp).MessageID
}

func TestBind(t *testing.T) {
	s, addr := start(t, Options{SystemID: "SIM", Accounts: map[string]string{"alice": "secret", "bob": "pw"}})
	for _, mode := range []pdu.BindMode{pdu.Transmitter, pdu.Receiver, pdu.Transceiver} {
		e := dial(t, addr)
		p := e.bind(mode, "alice", "secret")
		r, ok := p.Body.(*pdu.BindResp)
		if !ok || p.Status != pdu.ESME_ROK || r.Mode != mode || r.SystemID != "SIM" || p.Seq != 1 {
			t.Fatalf("%v: %+v %+v", mode, p, p.Body)
		}
		if v, ok := r.TLVs.Uint(pdu.TagSCInterfaceVersion); !ok || v != 0x34 {
			t.Fatalf("%v: sc_interface_version %x %v", mode, v, ok)
		}
		e.send(&pdu.Bind{Mode: pdu.Transceiver, SystemID: "bob", Password: "pw"})
		e.expect(pdu.CmdBindTransceiverResp, pdu.ESME_RALYBND, 2)
		if mode == pdu.Receiver {
			seq := e.send(sm("38640111222", 0, "hi"))
			e.expect(pdu.CmdSubmitSMResp, pdu.ESME_RINVBNDSTS, seq)
		}
	}
	if s.Binds() != 3 || s.Conns() != 3 {
		t.Fatalf("Binds %d Conns %d, want 3 and 3", s.Binds(), s.Conns())
	}

	e := dial(t, addr)
	seq := e.send(sm("38640111222", 0, "hi"))
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_RINVBNDSTS, seq)
	seq = e.send(&pdu.DataSM{Dest: pdu.Address{Addr: "1"}})
	e.expect(pdu.CmdDataSMResp, pdu.ESME_RINVBNDSTS, seq)
	seq = e.send(&pdu.Empty{ID: pdu.CmdUnbind})
	e.expect(pdu.CmdUnbindResp, pdu.ESME_RINVBNDSTS, seq)
	seq = e.send(&pdu.Empty{ID: pdu.CmdEnquireLink})
	e.expect(pdu.CmdEnquireLinkResp, pdu.ESME_ROK, seq)
	for _, c := range []struct {
		id, pw string
		want   pdu.Status
	}{{"alice", "wrong", pdu.ESME_RINVPASWD}, {"carol", "secret", pdu.ESME_RINVSYSID}} {
		if p := e.bind(pdu.Transmitter, c.id, c.pw); p.Status != c.want || p.Body.Command() != pdu.CmdBindTransmitterResp {
			t.Fatalf("%s/%s: %v %v, want %v", c.id, c.pw, p.Body.Command(), p.Status, c.want)
		}
	}
	// A failed bind leaves the connection open for another try.
	e.mustBind(pdu.Transmitter, "bob", "pw")
	if s.Binds() != 4 || s.Conns() != 4 {
		t.Fatalf("Binds %d Conns %d, want 4 and 4", s.Binds(), s.Conns())
	}
}

func TestNilAccountsBindAnyone(t *testing.T) {
	_, addr := start(t, Options{})
	e := dial(t, addr)
	p := e.bind(pdu.Transceiver, "anyone", "x")
	if p.Status != pdu.ESME_ROK || p.Body.(*pdu.BindResp).SystemID != DefaultSystemID {
		t.Fatalf("%v %+v", p.Status, p.Body)
	}
}

func TestSubmitIDs(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		want []string
	}{
		{"decimal", Options{}, []string{"40960", "40961"}},
		{"hex", Options{IDFormat: IDHex}, []string{"A000", "A001"}},
		{"first id", Options{FirstID: 9, IDFormat: IDDecimal}, []string{"9", "10"}},
		{"func", Options{IDFunc: func(n uint64) string { return "m-" + strconv.FormatUint(n, 36) }}, []string{"m-vls", "m-vlt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, addr := start(t, c.opts)
			e := dial(t, addr)
			e.mustBind(pdu.Transmitter, "alice", "")
			got := []string{e.submitOK(sm("38640111222", 0, "one"))}
			seq := e.send(&pdu.DataSM{Dest: pdu.Address{Addr: "38640333444"}, TLVs: pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte("two")}}})
			p := e.expect(pdu.CmdDataSMResp, pdu.ESME_ROK, seq)
			got = append(got, p.Body.(*pdu.DataSMResp).MessageID)
			if !slices.Equal(got, c.want) {
				t.Fatalf("ids %q, want %q", got, c.want)
			}
			subs := s.Submits()
			if len(subs) != 2 {
				t.Fatalf("%d submits", len(subs))
			}
			for i, sub := range subs {
				if sub.Conn != 1 || sub.SystemID != "alice" || sub.N != i+1 || sub.MessageID != c.want[i] || sub.Status != pdu.ESME_ROK {
					t.Fatalf("submit %d: %+v", i, sub)
				}
			}
			if string(subs[0].Message()) != "one" || subs[0].Dest().Addr != "38640111222" || subs[0].Source().Addr != "msgkit" {
				t.Fatalf("submit_sm recorded as %+v", subs[0].PDU.Body)
			}
			if string(subs[1].Message()) != "two" || subs[1].Dest().Addr != "38640333444" {
				t.Fatalf("data_sm recorded as %+v", subs[1].PDU.Body)
			}
		})
	}
}

func TestThrottle(t *testing.T) {
	// So slow a rate that no token comes back during the test: the
	// bucket's depth alone decides.
	s, addr := start(t, Options{Rate: 0.001, Burst: 2})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	var seqs []uint32
	for range 4 {
		seqs = append(seqs, e.send(sm("38640111222", 0, "x")))
	}
	for i, want := range []pdu.Status{pdu.ESME_ROK, pdu.ESME_ROK, pdu.ESME_RTHROTTLED, pdu.ESME_RTHROTTLED} {
		e.expect(pdu.CmdSubmitSMResp, want, seqs[i])
	}
	// The bucket is the connection's.
	e2 := dial(t, addr)
	e2.mustBind(pdu.Transmitter, "alice", "")
	e2.submitOK(sm("38640111222", 0, "x"))
	if len(s.Submits()) != 3 || len(s.Refused()) != 2 || s.Refused()[1].Status != pdu.ESME_RTHROTTLED || s.Refused()[1].MessageID != "" {
		t.Fatalf("submits %+v refused %+v", s.Submits(), s.Refused())
	}
}

func TestQueueFullAndFail(t *testing.T) {
	s, addr := start(t, Options{
		QueueFull: func(n int) bool { return n == 2 },
		Fail: func(sub Submit) pdu.Status {
			if sub.Dest().Addr == "666" {
				return pdu.ESME_RINVDSTADR
			}
			return pdu.ESME_ROK
		},
	})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	e.submitOK(sm("38640111222", 0, "1"))
	seq := e.send(sm("38640111222", 0, "2"))
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_RMSGQFUL, seq)
	seq = e.send(sm("666", 0, "3"))
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_RINVDSTADR, seq)
	if id := e.submitOK(sm("38640111222", 0, "4")); id != "40961" {
		t.Fatalf("refused submits took ids: the next is %s", id)
	}
	ref := s.Refused()
	if len(s.Submits()) != 2 || len(ref) != 2 || ref[0].N != 2 || ref[1].N != 3 || ref[1].Status != pdu.ESME_RINVDSTADR {
		t.Fatalf("refused %+v", ref)
	}
}

func TestReceipts(t *testing.T) {
	const text = "hello world, this is longer than twenty"
	clock := func() time.Time { return t0 }
	for _, c := range []struct {
		name     string
		opts     Options
		wantText string
		wantTLVs bool
		state    byte
	}{
		{"text", Options{ReceiptMode: TextOnly},
			"id:40961 sub:001 dlvrd:001 submit date:2503011234 done date:2503011234 stat:DELIVRD err:000 text:hello world, this is", false, 2},
		{"tlvs", Options{ReceiptMode: TLVsOnly}, "", true, 2},
		{"both, hex in the text", Options{ReceiptIDFormat: IDHex},
			"id:A001 sub:001 dlvrd:001 submit date:2503011234 done date:2503011234 stat:DELIVRD err:000 text:hello world, this is", true, 2},
		{"undelivered", Options{ReceiptIDFormat: IDDecimal, IDFormat: IDHex, Stat: func(Submit) string { return "UNDELIV" }, Err: func(Submit) int { return 1 }},
			"id:40961 sub:001 dlvrd:000 submit date:2503011234 done date:2503011234 stat:UNDELIV err:001 text:hello world, this is", true, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Clock = clock
			s, addr := start(t, c.opts)
			e := dial(t, addr)
			e.mustBind(pdu.Transceiver, "alice", "")
			e.submitOK(sm("38640111222", 0, "no receipt asked"))
			id := e.submitOK(sm("38640111222", pdu.RegisteredDeliveryAll, text))
			p := e.read()
			d, ok := p.Body.(*pdu.DeliverSM)
			if !ok {
				t.Fatalf("got %v, want deliver_sm", p.Body.Command())
			}
			if d.ESMClass != pdu.ESMClassReceipt || d.Source.Addr != "38640111222" || d.Dest.Addr != "msgkit" {
				t.Fatalf("receipt %+v", d)
			}
			if string(d.Message) != c.wantText {
				t.Fatalf("text %q\nwant %q", d.Message, c.wantText)
			}
			rid, hasID := d.TLVs.CString(pdu.TagReceiptedMessageID)
			state, hasState := d.TLVs.Uint(pdu.TagMessageState)
			if hasID != c.wantTLVs || hasState != c.wantTLVs || c.wantTLVs && (rid != id || byte(state) != c.state) {
				t.Fatalf("TLVs %+v (id %s)", d.TLVs, id)
			}
			if ne, ok := d.TLVs.NetworkError(); ok != (c.opts.Err != nil) || ok && ne != (pdu.NetworkErrorCode{Type: 3, Code: 1}) {
				t.Fatalf("network_error_code %+v %v", ne, ok)
			}
			if got := s.Unacked(); !slices.Equal(got, []string{id}) {
				t.Fatalf("Unacked %q before the ack", got)
			}
			e.sendPDU(pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
			acked, err := s.WaitAcked(ctxFor(t), 1)
			if err != nil || !slices.Equal(acked, []string{id}) || len(s.Unacked()) != 0 {
				t.Fatalf("Acked %q (%v), Unacked %q", acked, err, s.Unacked())
			}
		})
	}
}

func TestReceiptWaitsForReceiver(t *testing.T) {
	s, addr := start(t, Options{ReceiptDelay: time.Millisecond})
	tx := dial(t, addr)
	tx.mustBind(pdu.Transmitter, "alice", "")
	id := tx.submitOK(sm("38640111222", pdu.RegisteredDeliveryAll, "x"))
	ctx := ctxFor(t)
	if err := s.Wait(ctx, func() bool { return len(s.Unacked()) == 1 }); err != nil {
		t.Fatal(err)
	}
	other := dial(t, addr)
	other.mustBind(pdu.Receiver, "bob", "")
	rx := dial(t, addr)
	rx.mustBind(pdu.Receiver, "alice", "")
	p := rx.read()
	if d, ok := p.Body.(*pdu.DeliverSM); !ok || d.TLVs == nil {
		t.Fatalf("got %v, want the receipt", p.Body.Command())
	} else if rid, _ := d.TLVs.CString(pdu.TagReceiptedMessageID); rid != id {
		t.Fatalf("receipt of %s, want %s", rid, id)
	}
	if s.ReceiptsSent() != 1 {
		t.Fatalf("ReceiptsSent %d", s.ReceiptsSent())
	}
}

func TestReceiptRedelivery(t *testing.T) {
	s, addr := start(t, Options{ReceiptMode: TLVsOnly})
	ctx := ctxFor(t)
	receiptOf := func(e *esme) (string, uint32) {
		t.Helper()
		p := e.read()
		d, ok := p.Body.(*pdu.DeliverSM)
		if !ok {
			t.Fatalf("got %v, want deliver_sm", p.Body.Command())
		}
		id, _ := d.TLVs.CString(pdu.TagReceiptedMessageID)
		return id, p.Seq
	}

	a := dial(t, addr)
	a.mustBind(pdu.Transceiver, "alice", "")
	id1 := a.submitOK(sm("38640111222", 1, "one"))
	if got, _ := receiptOf(a); got != id1 {
		t.Fatalf("receipt %s, want %s", got, id1)
	}
	// Not acknowledged: the connection ends and the receipt is owed.
	a.nc.Close()
	if err := s.Wait(ctx, func() bool { return s.Conns() == 0 }); err != nil {
		t.Fatal(err)
	}

	b := dial(t, addr)
	b.mustBind(pdu.Transceiver, "alice", "")
	got, seq := receiptOf(b)
	if got != id1 {
		t.Fatalf("after reconnect: receipt %s, want %s", got, id1)
	}
	// Refused by the client (its store failed): kept for the next bind,
	// not sent again on this one.
	b.sendPDU(pdu.PDU{Status: pdu.ESME_RX_T_APPN, Seq: seq, Body: &pdu.DeliverSMResp{}})
	if err := s.Wait(ctx, func() bool { return slices.Equal(s.Refusals(), []string{id1}) }); err != nil {
		t.Fatalf("Refusals %q", s.Refusals())
	}
	id2 := b.submitOK(sm("38640111222", 1, "two"))
	got, seq = receiptOf(b)
	if got != id2 {
		t.Fatalf("receipt %s, want %s (the refused one waits for a bind)", got, id2)
	}
	b.sendPDU(pdu.PDU{Seq: seq, Body: &pdu.DeliverSMResp{}})
	if _, err := s.WaitAcked(ctx, 1); err != nil {
		t.Fatal(err)
	}

	c := dial(t, addr)
	c.mustBind(pdu.Receiver, "alice", "")
	got, seq = receiptOf(c)
	if got != id1 {
		t.Fatalf("on the next bind: receipt %s, want %s", got, id1)
	}
	c.sendPDU(pdu.PDU{Seq: seq, Body: &pdu.DeliverSMResp{}})
	acked, err := s.WaitAcked(ctx, 2)
	if err != nil || !slices.Equal(acked, []string{id2, id1}) || s.ReceiptsSent() != 4 || len(s.Unacked()) != 0 {
		t.Fatalf("Acked %q (%v), sent %d, unacked %q", acked, err, s.ReceiptsSent(), s.Unacked())
	}
}

func TestReceiptWindow(t *testing.T) {
	s, addr := start(t, Options{ReceiptWindow: 1, ReceiptMode: TLVsOnly})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	e.send(sm("1", 1, "a"))
	e.send(sm("2", 1, "b"))
	var receipts []pdu.PDU
	for len(receipts) < 1 {
		if p := e.read(); p.Body.Command() == pdu.CmdDeliverSM {
			receipts = append(receipts, p)
		}
	}
	// Both submits answered, one receipt out: the window holds the other.
	if err := s.Wait(ctxFor(t), func() bool { return len(s.Submits()) == 2 && len(s.Unacked()) == 2 }); err != nil {
		t.Fatal(err)
	}
	if n := s.ReceiptsSent(); n != 1 {
		t.Fatalf("%d receipts out with a window of 1", n)
	}
	e.sendPDU(pdu.PDU{Seq: receipts[0].Seq, Body: &pdu.DeliverSMResp{}})
	for p := e.read(); ; p = e.read() {
		if p.Body.Command() == pdu.CmdDeliverSM {
			if id, _ := p.Body.(*pdu.DeliverSM).TLVs.CString(pdu.TagReceiptedMessageID); id != "40961" {
				t.Fatalf("second receipt for %s", id)
			}
			break
		}
	}
}

func TestEarlyReceipts(t *testing.T) {
	// A response that never comes in the test's time: the receipt must
	// come first.
	_, addr := start(t, Options{RespDelay: time.Hour, EarlyReceipts: true})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	e.send(sm("38640111222", 1, "x"))
	if p := e.read(); p.Body.Command() != pdu.CmdDeliverSM {
		t.Fatalf("got %v, want the receipt before submit_sm_resp", p.Body.Command())
	}
}

func TestDeliver(t *testing.T) {
	s, addr := start(t, Options{})
	mo := pdu.DeliverSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{Addr: "38640111222"}, Dest: pdu.Address{Addr: "1234"}, Message: []byte("STOP")}}
	if err := s.Deliver("alice", "mo-1", mo); err != nil {
		t.Fatal(err)
	}
	if err := s.Deliver("alice", "bad", pdu.DeliverSM{ShortMessage: pdu.ShortMessage{Message: make([]byte, 300)}}); err == nil {
		t.Fatal("a deliver_sm that cannot encode was queued")
	}
	e := dial(t, addr)
	e.mustBind(pdu.Receiver, "alice", "")
	p := e.read()
	if d, ok := p.Body.(*pdu.DeliverSM); !ok || string(d.Message) != "STOP" {
		t.Fatalf("got %v %+v", p.Body.Command(), p.Body)
	}
	e.sendPDU(pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
	if acked, err := s.WaitAcked(ctxFor(t), 1); err != nil || acked[0] != "mo-1" {
		t.Fatalf("Acked %q %v", acked, err)
	}
}

func TestDropAfter(t *testing.T) {
	s, addr := start(t, Options{DropAfter: 3})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	var seqs []uint32
	for i := range 4 {
		seqs = append(seqs, e.send(sm("38640111222", 0, strconv.Itoa(i))))
	}
	// The submits before the third are answered, the third and the one
	// after are lost with the connection.
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, seqs[0])
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, seqs[1])
	e.readEnd()
	if err := s.Wait(ctxFor(t), func() bool { return s.Conns() == 0 }); err != nil {
		t.Fatal(err)
	}
	if n, r := len(s.Submits()), len(s.Refused()); n != 2 || r != 0 {
		t.Fatalf("%d submits, %d refused", n, r)
	}
	// It counts per connection.
	e = dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	e.submitOK(sm("38640111222", 0, "again"))
	e.submitOK(sm("38640111222", 0, "again"))
	e.send(sm("38640111222", 0, "lost"))
	e.readEnd()
}

func TestMaxOutstanding(t *testing.T) {
	s, addr := start(t, Options{})
	ctx := ctxFor(t)
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	// In lockstep the count never reaches 2: it drops before each answer
	// is written.
	for range 50 {
		e.submitOK(sm("38640111222", 0, "x"))
	}
	if n := s.MaxOutstanding(); n != 1 {
		t.Fatalf("MaxOutstanding %d in lockstep, want 1", n)
	}
	// Stalled, the server still reads and counts.
	s.Stall(true)
	var seqs []uint32
	for range 5 {
		seqs = append(seqs, e.send(sm("38640111222", 0, "x")))
	}
	if err := s.Wait(ctx, func() bool { return s.Outstanding() == 5 }); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Submits()); n != 50 {
		t.Fatalf("a stalled server handled submits: %d", n)
	}
	s.Stall(false)
	for _, seq := range seqs {
		e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, seq)
	}
	if n, o := s.MaxOutstanding(), s.Outstanding(); n != 5 || o != 0 {
		t.Fatalf("MaxOutstanding %d, Outstanding %d; want 5 and 0", n, o)
	}
}

func TestReorder(t *testing.T) {
	// A batch that must fill: the test controls what arrives.
	s, addr := start(t, Options{Reorder: true, ReorderBatch: 4, ReorderWait: time.Minute})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	s.Stall(true)
	var seqs []uint32
	for range 4 {
		seqs = append(seqs, e.send(sm("38640111222", 0, "x")))
	}
	if err := s.Wait(ctxFor(t), func() bool { return s.Outstanding() == 4 }); err != nil {
		t.Fatal(err)
	}
	s.Stall(false)
	for i := 3; i >= 0; i-- {
		p := e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, seqs[i])
		if id := p.Body.(*pdu.SubmitSMResp).MessageID; id != strconv.Itoa(40960+i) {
			t.Fatalf("seq %d got id %s", seqs[i], id)
		}
	}
	if s.MaxOutstanding() != 4 {
		t.Fatalf("MaxOutstanding %d", s.MaxOutstanding())
	}
}

func TestReorderPartialBatch(t *testing.T) {
	s, addr := start(t, Options{Reorder: true, ReorderWait: 50 * time.Millisecond})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	s.Stall(true)
	a, b := e.send(sm("1", 0, "x")), e.send(sm("2", 0, "x"))
	if err := s.Wait(ctxFor(t), func() bool { return s.Outstanding() == 2 }); err != nil {
		t.Fatal(err)
	}
	s.Stall(false)
	// Two of a batch of four: they go when the wait ends, reversed.
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, b)
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, a)
}

func TestRespDelay(t *testing.T) {
	_, addr := start(t, Options{RespDelay: 30 * time.Millisecond})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	begin := time.Now()
	e.submitOK(sm("1", 0, "x"))
	if d := time.Since(begin); d < 30*time.Millisecond {
		t.Fatalf("answered after %v", d)
	}
}

func TestEnquireLink(t *testing.T) {
	s, addr := start(t, Options{EnquireEvery: 5 * time.Millisecond})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	seq := e.send(&pdu.Empty{ID: pdu.CmdEnquireLink})
	for answered := false; !answered; {
		p := e.read()
		switch p.Body.Command() {
		case pdu.CmdEnquireLinkResp:
			if p.Seq != seq || p.Status != pdu.ESME_ROK {
				t.Fatalf("enquire_link_resp %v seq %d", p.Status, p.Seq)
			}
			answered = true
		case pdu.CmdEnquireLink:
			e.sendPDU(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
		default:
			t.Fatalf("got %v", p.Body.Command())
		}
	}
	// The server's own enquire_link, answered.
	p := e.read()
	if p.Body.Command() != pdu.CmdEnquireLink {
		t.Fatalf("got %v, want enquire_link", p.Body.Command())
	}
	e.sendPDU(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
	if err := s.Wait(ctxFor(t), func() bool { return s.EnquireResps() >= 1 }); err != nil {
		t.Fatal(err)
	}
	if s.EnquireLinks() != 1 {
		t.Fatalf("EnquireLinks %d", s.EnquireLinks())
	}
}

func TestUnbind(t *testing.T) {
	s, addr := start(t, Options{RespDelay: 20 * time.Millisecond})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")
	sub := e.send(sm("1", 0, "x"))
	unbind := e.send(&pdu.Empty{ID: pdu.CmdUnbind})
	// The response still due goes out before unbind_resp.
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, sub)
	e.expect(pdu.CmdUnbindResp, pdu.ESME_ROK, unbind)
	e.readEnd()
	e.nc.Close()
	if err := s.Wait(ctxFor(t), func() bool { return s.Conns() == 0 && s.Outstanding() == 0 }); err != nil {
		t.Fatal(err)
	}
}

// TestAckWhileUnbinding acknowledges a receipt after unbind: the
// acknowledgement counts, so the receipt is not owed again.
func TestAckWhileUnbinding(t *testing.T) {
	s, addr := start(t, Options{})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	id := e.submitOK(sm("1", 1, "x"))
	d := e.read()
	if d.Body.Command() != pdu.CmdDeliverSM {
		t.Fatalf("got %v", d.Body.Command())
	}
	unbind := e.send(&pdu.Empty{ID: pdu.CmdUnbind})
	e.sendPDU(pdu.PDU{Seq: d.Seq, Body: &pdu.DeliverSMResp{}})
	e.expect(pdu.CmdUnbindResp, pdu.ESME_ROK, unbind)
	if acked, err := s.WaitAcked(ctxFor(t), 1); err != nil || acked[0] != id {
		t.Fatalf("Acked %q %v", acked, err)
	}
}

func TestMalformed(t *testing.T) {
	_, addr := start(t, Options{})
	e := dial(t, addr)
	e.mustBind(pdu.Transmitter, "alice", "")

	// enquire_link with an octet of body.
	b, _ := pdu.Append(nil, pdu.PDU{Seq: 7, Body: &pdu.Empty{ID: pdu.CmdEnquireLink}})
	b = append(b, 0)
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	e.writeRaw(b)
	e.expect(pdu.CmdGenericNack, pdu.ESME_RINVCMDLEN, 7)

	// A command no SMPP 3.4 ESME sends.
	b, _ = pdu.Append(nil, pdu.PDU{Seq: 8, Body: &pdu.Empty{ID: 0x00000999}})
	e.writeRaw(b)
	e.expect(pdu.CmdGenericNack, pdu.ESME_RINVCMDID, 8)

	// A service_type of six characters.
	b, _ = pdu.Append(nil, pdu.PDU{Seq: 9, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{ServiceType: "ABCDE"}}})
	b = slices.Insert(b, pdu.HeaderLen, 'X')
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	e.writeRaw(b)
	e.expect(pdu.CmdGenericNack, pdu.ESME_RINVSERTYP, 9)

	// Still in step after them.
	e.submitOK(sm("1", 0, "x"))

	// Too long to read: answered, and the connection ends.
	var head [16]byte
	binary.BigEndian.PutUint32(head[:], MaxPDU+1)
	binary.BigEndian.PutUint32(head[4:], uint32(pdu.CmdSubmitSM))
	e.writeRaw(head[:])
	e.expect(pdu.CmdGenericNack, pdu.ESME_RINVCMDLEN, 0)
	e.readEnd()
}

func TestSilentAndStall(t *testing.T) {
	s, addr := start(t, Options{Silent: true})
	ctx := ctxFor(t)
	e := dial(t, addr)
	seq := e.send(&pdu.Bind{Mode: pdu.Transceiver, SystemID: "alice"})
	if err := s.Wait(ctx, func() bool { return s.Outstanding() == 1 }); err != nil {
		t.Fatal(err)
	}
	if s.Binds() != 0 {
		t.Fatal("a silent server bound")
	}
	s.Stall(false)
	e.expect(pdu.CmdBindTransceiverResp, pdu.ESME_ROK, seq)

	s.Stall(true)
	seq = e.send(&pdu.Empty{ID: pdu.CmdEnquireLink})
	if err := s.Wait(ctx, func() bool { return s.Outstanding() == 1 }); err != nil {
		t.Fatal(err)
	}
	if s.EnquireLinks() != 0 {
		t.Fatal("a stalled server answered enquire_link")
	}
	s.Stall(false)
	e.expect(pdu.CmdEnquireLinkResp, pdu.ESME_ROK, seq)
}

func TestDropAll(t *testing.T) {
	s, addr := start(t, Options{RespDelay: time.Hour})
	a, b := dial(t, addr), dial(t, addr)
	a.mustBind(pdu.Transmitter, "alice", "")
	b.mustBind(pdu.Receiver, "alice", "")
	a.send(sm("1", 0, "in flight"))
	if err := s.Wait(ctxFor(t), func() bool { return len(s.Submits()) == 1 }); err != nil {
		t.Fatal(err)
	}
	s.DropAll()
	a.readEnd()
	b.readEnd()
	if s.Conns() != 0 {
		t.Fatalf("Conns %d after DropAll", s.Conns())
	}
	c := dial(t, addr)
	c.mustBind(pdu.Transmitter, "alice", "")
	if s.Binds() != 3 || s.Conns() != 1 {
		t.Fatalf("Binds %d Conns %d", s.Binds(), s.Conns())
	}
}

// TestClose closes a server with something pending everywhere: a delayed
// response, a receipt timer, enquire_link ticking, a stalled connection.
// Close must return, its goroutines stopped.
func TestClose(t *testing.T) {
	s := New(Options{RespDelay: time.Hour, ReceiptDelay: time.Hour, EnquireEvery: time.Millisecond})
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	e.send(sm("1", 1, "x"))
	e2 := dial(t, addr)
	e2.mustBind(pdu.Transceiver, "bob", "")
	e3 := dial(t, addr)
	if err := s.Wait(ctxFor(t), func() bool { return len(s.Submits()) == 1 && s.Outstanding() == 1 }); err != nil {
		t.Fatal(err)
	}
	s.Stall(true)
	e3.send(&pdu.Bind{Mode: pdu.Transmitter, SystemID: "carol"})
	s.Close()
	s.Close()
	// What was written before Close (enquire_link) is read, then the end.
	e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		p, _, err := pdu.Read(e.nc, nil, 0)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("the connection is still open")
		}
		if err != nil {
			break
		}
		if p.Body.Command() != pdu.CmdEnquireLink {
			t.Fatalf("read %v after Close", p.Body.Command())
		}
	}
	if _, err := s.Start(); err == nil {
		t.Fatal("Start after Close")
	}
}

func TestReceiptText(t *testing.T) {
	got := ReceiptText("1A", t0, t0.Add(time.Hour), "EXPIRED", 27, []byte("short"))
	want := "id:1A sub:001 dlvrd:000 submit date:2503011234 done date:2503011334 stat:EXPIRED err:027 text:short"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if !bytes.HasSuffix([]byte(ReceiptText("1", t0, t0, "DELIVRD", 0, []byte("12345678901234567890X"))), []byte("text:12345678901234567890")) {
		t.Fatal("text not cut at 20 octets")
	}
}

// TestWindow: with Options.Window, submits beyond the accepted ones
// still unanswered are refused with WindowStatus; once answered, the
// window has room again.
func TestWindow(t *testing.T) {
	s, addr := start(t, Options{Window: 2, WindowStatus: pdu.ESME_RMSGQFUL, RespDelay: 50 * time.Millisecond})
	e := dial(t, addr)
	e.mustBind(pdu.Transceiver, "alice", "")
	a := e.send(sm("38640111222", 0, "1"))
	b := e.send(sm("38640111222", 0, "2"))
	c := e.send(sm("38640111222", 0, "3"))
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, a)
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_ROK, b)
	e.expect(pdu.CmdSubmitSMResp, pdu.ESME_RMSGQFUL, c)
	e.submitOK(sm("38640111222", 0, "4"))
	if len(s.Submits()) != 3 || len(s.Refused()) != 1 {
		t.Fatalf("%d accepted, %d refused", len(s.Submits()), len(s.Refused()))
	}
}
