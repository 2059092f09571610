package main

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// A receipt goes to a receiving bind of the account on any replica: an
// ESME submits through a transmitter bind on one of two servers sharing a
// PostgreSQL store and receives on a receiver bind on the other. The
// first replica's dispatcher, with no receiving bind, holds each receipt;
// the second's takes it and sends it. Every receipt comes once.
func TestReceiptsOnAnyReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two server processes; the full suite runs it")
	}
	t.Parallel()
	cfg := pgConfig(t)
	servers := startServers(t, 2, "-store", "postgres", "-pg", cfg.pgDSN, "-pg-schema", cfg.pgSchema, "-bootstrap", esmeBootstrap(t, "esme", "esme-pw"), "-demo", "false",
		"-addr", "127.0.0.1:0", "-sms-http", "127.0.0.1:0", "-smpp-server", "127.0.0.1:0", "-log-level", "info")
	t.Cleanup(func() {
		if t.Failed() {
			for i, p := range servers {
				t.Logf("server %d's warnings and errors:\n%s", i, strings.Join(p.tail(regexp.MustCompile(`level=(WARN|ERROR)`), 30), "\n"))
			}
		}
	})
	esme := func(p *serverProcess, mode pdu.BindMode) net.Conn {
		_, line, _ := p.lastLog(smppServerListening)
		nc, err := net.Dial("tcp", smppServerListening.FindStringSubmatch(line)[1])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		esmeWrite(t, nc, pdu.PDU{Seq: 1, Body: &pdu.Bind{Mode: mode, SystemID: "esme", Password: "esme-pw", Version: pdu.InterfaceVersion}})
		if r := esmeRead(t, nc, 10*time.Second); r.Status != pdu.ESME_ROK {
			t.Fatalf("bind: %s", r.Status)
		}
		return nc
	}
	tx, rx := esme(servers[0], pdu.Transmitter), esme(servers[1], pdu.Receiver)
	began := time.Now()
	const n = 5
	ids := map[string]int{}
	for i := range n {
		esmeWrite(t, tx, pdu.PDU{Seq: uint32(2 + i), Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"},
			Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}, RegisteredDelivery: 1, Message: []byte("Hello over two replicas")}}})
		r := esmeRead(t, tx, 10*time.Second)
		resp, ok := r.Body.(*pdu.SubmitSMResp)
		if r.Status != pdu.ESME_ROK || !ok {
			t.Fatalf("submit_sm: %s", r.Status)
		}
		ids[resp.MessageID] = 0
	}
	for got := 0; got < n; {
		p := esmeRead(t, rx, 30*time.Second)
		switch b := p.Body.(type) {
		case *pdu.DeliverSM:
			esmeWrite(t, rx, pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
			rc, _, err := smpp.ReceiptOf(b)
			if _, ours := ids[rc.ID]; err != nil || !ours || rc.State != smpp.StateDelivered {
				t.Fatalf("receipt %+v, %v", rc, err)
			}
			ids[rc.ID]++
			got++
		case *pdu.Empty:
			if b.ID == pdu.CmdEnquireLink {
				esmeWrite(t, rx, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
			}
		}
	}
	// Each round a receipt is claimed by either replica, held for 2 to
	// 3 s by the first: the last of five waits about three rounds.
	t.Logf("%d receipts in %s", n, time.Since(began))
	for id, c := range ids {
		if c != 1 {
			t.Errorf("%s: %d receipts", id, c)
		}
	}
	// None more comes: each went once.
	rx.SetReadDeadline(time.Now().Add(3 * time.Second))
	if p, _, err := pdu.Read(rx, nil, 0); err == nil {
		if _, dup := p.Body.(*pdu.DeliverSM); dup {
			t.Errorf("a receipt again: %+v", p.Body)
		}
	}
	if _, _, ok := servers[0].lastLog(regexp.MustCompile(`level=ERROR`)); ok {
		t.Error("an error was logged")
	}
}

func esmeWrite(t *testing.T, nc net.Conn, p pdu.PDU) {
	t.Helper()
	b, err := pdu.Append(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(b); err != nil {
		t.Fatal(err)
	}
}

func esmeRead(t *testing.T, nc net.Conn, within time.Duration) pdu.PDU {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(within))
	p, _, err := pdu.Read(nc, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
