package main

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// rawESME is an SMPP connection the test drives PDU by PDU.
type rawESME struct {
	t  *testing.T
	nc net.Conn
}

// bindRawESME binds a transceiver to addr with the ESME account.
func bindRawESME(t *testing.T, addr string) *rawESME {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	e := &rawESME{t: t, nc: nc}
	if p := e.call(1, &pdu.Bind{Mode: pdu.Transceiver, SystemID: esmeUser, Password: esmePassword, Version: pdu.InterfaceVersion}); p.Status != pdu.ESME_ROK {
		t.Fatalf("bind: %s", p.Status)
	}
	return e
}

func (e *rawESME) write(p pdu.PDU) {
	e.t.Helper()
	b, err := pdu.Append(nil, p)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.nc.Write(b); err != nil {
		e.t.Fatal(err)
	}
}

func (e *rawESME) read() (pdu.PDU, error) {
	e.nc.SetReadDeadline(time.Now().Add(15 * time.Second))
	p, _, err := pdu.Read(e.nc, nil, 0)
	return p, err
}

// call sends a request and returns its response, answering what the
// server asks meanwhile (enquire_link, receipts).
func (e *rawESME) call(seq uint32, body pdu.Body) pdu.PDU {
	e.t.Helper()
	e.write(pdu.PDU{Seq: seq, Body: body})
	for {
		p, err := e.read()
		if err != nil {
			e.t.Fatalf("waiting for the answer to %d: %v", seq, err)
		}
		if p.Seq == seq {
			return p
		}
		e.answer(p)
	}
}

// answer answers a request of the server.
func (e *rawESME) answer(p pdu.PDU) {
	switch b := p.Body.(type) {
	case *pdu.DeliverSM:
		e.write(pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
	case *pdu.Empty:
		switch b.ID {
		case pdu.CmdEnquireLink:
			e.write(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
		case pdu.CmdUnbind:
			e.write(pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdUnbindResp}})
		}
	}
}

// TestESMELongMessageAcrossRestart: an ESME sends the first part of a
// long message, answered ESME_ROK; msgkit is told to stop (SIGTERM), the
// ESME sends the second part on the same bind, as Kannel sends the parts
// of a message one after the other, and then answers the server's unbind;
// msgkit is started again. The message is whole in msgkit once, and
// delivered: a part answered ESME_ROK is msgkit's to keep, and the drain
// of a graceful stop takes the parts still to come.
func TestESMELongMessageAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server processes and restarts one; the full suite runs it")
	}
	t.Parallel()
	p := startESMEPlatform(t)
	text := [2]string{strings.Repeat("a", 153), "and the end"}
	part := func(n int) *pdu.SubmitSM {
		udh := []byte{0x05, 0x00, 0x03, 0x77, 2, byte(n + 1)}
		return &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38643000001"},
			ESMClass: 0x40, RegisteredDelivery: 1, Message: append(udh, text[n]...)}}
	}
	first := bindRawESME(t, p.smppAddr)
	if r := first.call(2, part(0)); r.Status != pdu.ESME_ROK {
		t.Fatalf("part 1: %s", r.Status)
	}
	old := p.servers[0]
	old.cmd.Process.Signal(syscall.SIGTERM)
	if r := first.call(3, part(1)); r.Status != pdu.ESME_ROK {
		t.Fatalf("part 2, sent as the server stops: %s", r.Status)
	}
	// The stopping server unbinds the ESME, which answers.
	for {
		q, err := first.read()
		if err != nil {
			break
		}
		first.answer(q)
	}
	old.wait(t)
	p.servers = append(p.servers, startServer(t, p.args...))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var got map[string]*storedMessage
	if !waitFor(15*time.Second, func() bool {
		var err error
		got, err = p.messages(ctx)
		return err == nil && allDelivered(got, 1)
	}) {
		t.Fatalf("msgkit has %d messages, not delivered: the parts answered ESME_ROK across the stop were lost", len(got))
	}
	s := got["+38643000001"]
	if s == nil || len(got) != 1 || s.copies != 1 || s.text != text[0]+text[1] {
		t.Errorf("msgkit has %+v, want one message of %q", s, text[0]+text[1])
	}
	p.checkNetwork(t, got, func(r string) string { return r })
}
