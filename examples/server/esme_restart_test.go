package main

import (
	"context"
	"net"
	"strings"
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

// restartKeepsGatheredParts: the SMPP server keeps the parts of a long
// message it answered ESME_ROK across a graceful restart (it waits for
// the rest before it unbinds, or keeps them in the store). Until it does,
// a restart that falls between two parts of a message loses the message
// without a word to the ESME (TestESMELongMessageAcrossRestart fails, and
// is skipped): the new process holds the later parts for PartsTimeout and
// drops them.
const restartKeepsGatheredParts = false

// TestESMELongMessageAcrossRestart: an ESME sends the first part of a
// long message, answered ESME_ROK, msgkit is stopped gracefully (it
// unbinds the ESME) and started again, and the ESME sends the second part
// to the new process, as Kannel does with the parts a restart left
// unanswered. The message is whole in msgkit once: a part answered
// ESME_ROK is msgkit's to keep.
func TestESMELongMessageAcrossRestart(t *testing.T) {
	if !restartKeepsGatheredParts {
		t.Skip("known loss: the parts of a long message gathered in memory die with a graceful stop (restartKeepsGatheredParts)")
	}
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
	// The stopping server unbinds the ESME, which answers.
	unbound := make(chan struct{})
	go func() {
		defer close(unbound)
		for {
			q, err := first.read()
			if err != nil {
				return
			}
			first.answer(q)
		}
	}()
	p.restart(t)
	<-unbound
	second := bindRawESME(t, p.smppAddr)
	if r := second.call(2, part(1)); r.Status != pdu.ESME_ROK {
		t.Fatalf("part 2: %s", r.Status)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var got map[string]*storedMessage
	if !waitFor(15*time.Second, func() bool {
		var err error
		got, err = p.messages(ctx)
		return err == nil && len(got) > 0
	}) {
		t.Fatal("msgkit has no message: the part answered ESME_ROK before the restart was lost")
	}
	s := got["+38643000001"]
	if s == nil || s.copies != 1 || s.text != text[0]+text[1] {
		t.Errorf("msgkit has %+v, want one message of %q", s, text[0]+text[1])
	}
}
