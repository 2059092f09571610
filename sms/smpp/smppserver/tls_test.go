package smppserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// testCert is a self-signed certificate for 127.0.0.1, made for the test,
// and the pool that trusts it.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// With Options.TLS, an ESME binds and submits over TLS, the certificate
// checked: PDU by PDU, and with the repository's client; a plain-text
// bind gets no answer in SMPP, and the server goes on.
func TestTLS(t *testing.T) {
	cert, pool := testCert(t)
	f := newFixture(t, smppserver.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}, nil)

	nc, err := tls.Dial("tcp", f.addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	e := &esme{nc: nc}
	if st := e.bind(t, pdu.Transceiver, "shop", "pw"); st != pdu.ESME_ROK {
		t.Fatalf("bind over TLS: %s", st)
	}
	r := e.call(t, submitSM("Over TLS", nil))
	if r.Status != pdu.ESME_ROK {
		t.Fatalf("submit_sm over TLS: %s", r.Status)
	}
	m, err := f.store.Message(t.Context(), sms.MessageID(r.Body.(*pdu.SubmitSMResp).MessageID))
	if err != nil || m.Parts[0].Text != "Over TLS" || m.Account != "shop" {
		t.Fatalf("the message: %+v, %v", m, err)
	}
	if state := nc.ConnectionState(); !state.HandshakeComplete || state.Version < tls.VersionTLS12 {
		t.Errorf("TLS state: %+v", state)
	}

	// The repository's client, in TLS, sends a long message.
	c, cstore := f.client(t, smpp.Config{TLS: &tls.Config{RootCAs: pool}})
	parts := outbound(t, "tls-1", "A long message over TLS. "+longText, gsm.DCSGSM, gsm.Ref8)
	if errs := c.Send(t.Context(), parts); errs != nil {
		t.Fatalf("Send over TLS: %v", errs)
	}
	keys := make([]smpp.PartKey, len(parts))
	for i := range parts {
		keys[i] = smpp.PartKey{MsgID: "tls-1", PartNum: i}
	}
	taken, err := cstore.SubmittedParts(t.Context(), keys)
	if err != nil || len(parts) < 2 || len(taken) != len(parts) {
		t.Fatalf("%d parts of %d taken, %v", len(taken), len(parts), err)
	}
	m, err = f.store.Message(t.Context(), sms.MessageID(taken[keys[0]].SMSCID))
	if err != nil || m.Parts[0].Text+m.Parts[1].Text != "A long message over TLS. "+longText {
		t.Errorf("the long message: %+v, %v", m, err)
	}

	// Plain text on the TLS listener: the handshake fails, nothing is
	// bound, and TLS binds go on.
	plain := dial(t, f.addr)
	plain.write(t, pdu.PDU{Seq: 1, Body: &pdu.Bind{Mode: pdu.Transmitter, SystemID: "shop", Password: "pw", Version: pdu.InterfaceVersion}})
	plain.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if p, _, err := pdu.Read(plain.nc, nil, 0); err == nil {
		t.Errorf("a plain-text bind answered %s %s", p.Body.Command(), p.Status)
	}
	waitFor(t, func() bool { return f.srv.Binds("shop") == 2 })
}

// longText is 200 septets: two parts.
const longText = "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789" +
	"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"

// A TLS handshake never begun counts within BindTimeout: the connection
// is closed.
func TestTLSHandshakeWithinBindTimeout(t *testing.T) {
	cert, _ := testCert(t)
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	f := newFixture(t, smppserver.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}, Clock: clock.Now,
		EnquireEvery: 40 * time.Millisecond, DeadAfter: time.Hour, BindTimeout: 100 * time.Millisecond}, nil)
	silent := dial(t, f.addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The clock moves until the server, whenever it took the
		// connection, finds it past its bind timeout.
		clock.Advance(100 * time.Millisecond)
		silent.nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := silent.nc.Read(make([]byte, 1))
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			break // closed
		}
		if time.Now().After(deadline) {
			t.Fatal("a connection without a TLS handshake is still open")
		}
	}
}
