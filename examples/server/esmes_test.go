package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// -smpp-server serves ESMEs with the bulk SMS family's gateway: a bind
// with a bootstrap account's credentials is refused for a wrong password
// and made with the right one, a submit_sm is accepted with its message
// id, and its delivery receipt comes as a deliver_sm over the bind.
func TestESMEServer(t *testing.T) {
	cfg := parse(t, "-bootstrap", esmeBootstrap(t, "esme", "esme-pw"), "-demo", "false", "-smpp-server", "127.0.0.1:0")
	l, _ := startPlatform(t, cfg)
	if l.SMPPServer == "" {
		t.Fatal("no SMPP server listening")
	}
	nc, err := net.Dial("tcp", l.SMPPServer)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	call := func(seq uint32, body pdu.Body) pdu.PDU {
		t.Helper()
		b, err := pdu.Append(nil, pdu.PDU{Seq: seq, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		nc.Write(b)
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		p, _, err := pdu.Read(nc, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := call(1, &pdu.Bind{Mode: pdu.Transceiver, SystemID: "esme", Password: "wrong", Version: pdu.InterfaceVersion}); p.Status != pdu.ESME_RINVPASWD {
		t.Fatalf("a wrong password: %s", p.Status)
	}
	if p := call(2, &pdu.Bind{Mode: pdu.Transceiver, SystemID: "esme", Password: "esme-pw", Version: pdu.InterfaceVersion}); p.Status != pdu.ESME_ROK {
		t.Fatalf("bind: %s", p.Status)
	}
	p := call(3, &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"},
		Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}, RegisteredDelivery: 1, Message: []byte("Hello over SMPP")}})
	r, ok := p.Body.(*pdu.SubmitSMResp)
	if p.Status != pdu.ESME_ROK || !ok || r.MessageID == "" {
		t.Fatalf("submit_sm: %s %+v", p.Status, p.Body)
	}
	// The network delivers it, and its receipt comes over the bind.
	for {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		p, _, err := pdu.Read(nc, nil, 0)
		if err != nil {
			t.Fatalf("waiting for the receipt: %v", err)
		}
		b, err := pdu.Append(nil, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
		d, isDeliver := p.Body.(*pdu.DeliverSM)
		if isDeliver {
			b, err = pdu.Append(nil, pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
		}
		if err != nil {
			t.Fatal(err)
		}
		nc.Write(b)
		if !isDeliver {
			continue
		}
		rc, isReceipt, err := smpp.ReceiptOf(d)
		if !isReceipt || err != nil || rc.ID != r.MessageID || rc.State != smpp.StateDelivered {
			t.Fatalf("deliver_sm %q: receipt %v %+v, %v; want DELIVRD of %s", d.Message, isReceipt, rc, err, r.MessageID)
		}
		return
	}
}

// -smpp-server-tls true serves ESMEs in TLS with -tls-cert and -tls-key:
// an ESME that trusts the certificate binds, with a password longer than
// SMPP 3.4's 8 characters, and submits; plain text gets no bind.
func TestESMEServerTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	const password = "a-bulk-sms-password" // 19 characters
	cfg := parse(t, "-bootstrap", esmeBootstrap(t, "esme-over-tls", password), "-demo", "false", "-smpp-server", "127.0.0.1:0", "-smpp-server-tls", "true",
		"-tls-cert", certFile, "-tls-key", keyFile)
	l, _ := startPlatform(t, cfg)
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the certificate does not read")
	}
	nc, err := tls.Dial("tcp", l.SMPPServer, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("TLS to -smpp-server: %v", err)
	}
	defer nc.Close()
	read := func() pdu.PDU {
		t.Helper()
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		p, _, err := pdu.Read(nc, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The bind written by hand: pdu.Append keeps SMPP 3.4's 8 characters.
	body := append(append(append([]byte("esme-over-tls\x00"), password...), 0), 0, pdu.InterfaceVersion, 0, 0, 0)
	bind := binary.BigEndian.AppendUint32(nil, uint32(pdu.HeaderLen+len(body)))
	bind = binary.BigEndian.AppendUint32(bind, uint32(pdu.CmdBindTransceiver))
	bind = binary.BigEndian.AppendUint32(bind, 0)
	bind = binary.BigEndian.AppendUint32(bind, 1)
	nc.Write(append(bind, body...))
	if p := read(); p.Body.Command() != pdu.CmdBindTransceiverResp || p.Status != pdu.ESME_ROK {
		t.Fatalf("bind over TLS: %s %s", p.Body.Command(), p.Status)
	}
	b, err := pdu.Append(nil, pdu.PDU{Seq: 2, Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"},
		Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}, ValidityPeriod: "000000010000000R", Message: []byte("Hello over TLS")}}})
	if err != nil {
		t.Fatal(err)
	}
	nc.Write(b)
	if p := read(); p.Status != pdu.ESME_ROK || p.Seq != 2 || p.Body.(*pdu.SubmitSMResp).MessageID == "" {
		t.Fatalf("submit_sm over TLS: %s %+v", p.Status, p.Body)
	}
	if nc.ConnectionState().PeerCertificates[0].Subject.CommonName != "127.0.0.1" {
		t.Errorf("served with another certificate: %v", nc.ConnectionState().PeerCertificates[0].Subject)
	}

	plain, err := net.Dial("tcp", l.SMPPServer)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.Write(append(bind, body...))
	plain.SetReadDeadline(time.Now().Add(10 * time.Second))
	if p, _, err := pdu.Read(plain, nil, 0); err == nil {
		t.Errorf("a plain-text bind on the TLS listener answered %s %s", p.Body.Command(), p.Status)
	}
}

// esmeBootstrap writes a bootstrap file with one bulk SMS account, user
// with password, from 127.0.0.1, for ESMEs' tests, and returns its path.
func esmeBootstrap(t testing.TB, user, password string) string {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	boot := filepath.Join(t.TempDir(), "bootstrap.json")
	if err := os.WriteFile(boot, []byte(`{"smsAccounts": [{"username": "`+user+`", "passwordHash": "`+string(hash)+
		`", "networks": ["127.0.0.1"], "balance": "100000000", "currency": "EUR", "validity": "1h", "prices": {"386": "0.01"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return boot
}
