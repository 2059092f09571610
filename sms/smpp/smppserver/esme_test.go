package smppserver_test

import (
	"net"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// esme is a raw ESME connection for tests that write PDUs one by one.
type esme struct {
	nc  net.Conn
	seq uint32
}

func dial(t testing.TB, addr string) *esme {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &esme{nc: nc}
}

func (e *esme) write(t testing.TB, p pdu.PDU) {
	t.Helper()
	b, err := pdu.Append(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.nc.Write(b); err != nil {
		t.Fatal(err)
	}
}

func (e *esme) read(t testing.TB) pdu.PDU {
	t.Helper()
	e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, _, err := pdu.Read(e.nc, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// call writes a request with the next sequence number and reads its
// answer, answering the server's enquire_link on the way.
func (e *esme) call(t testing.TB, p pdu.PDU) pdu.PDU {
	t.Helper()
	e.seq++
	p.Seq = e.seq
	e.write(t, p)
	for {
		r := e.read(t)
		if r.Body.Command() == pdu.CmdEnquireLink {
			e.write(t, pdu.PDU{Seq: r.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
			continue
		}
		if r.Seq != p.Seq {
			t.Fatalf("answer %s seq %d to seq %d", r.Body.Command(), r.Seq, p.Seq)
		}
		return r
	}
}

func (e *esme) bind(t testing.TB, mode pdu.BindMode, user, pw string) pdu.Status {
	t.Helper()
	return e.call(t, pdu.PDU{Body: &pdu.Bind{Mode: mode, SystemID: user, Password: pw, Version: pdu.InterfaceVersion}}).Status
}

// submitSM is a GSM submit_sm from MyShop to +38640123456; udh, when
// set, leads the message and sets UDHI.
func submitSM(text string, udh []byte) pdu.PDU {
	sm := &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		Source: pdu.Address{TON: 5, Addr: "MyShop"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"},
		Message: append(append([]byte{}, udh...), text...),
	}}
	if udh != nil {
		sm.ESMClass = pdu.ESMClassUDHI
	}
	return pdu.PDU{Body: sm}
}

func udh8(ref, total, seq byte) []byte { return []byte{5, 0x00, 3, ref, total, seq} }
