package smppserver_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// rawBind is a bind_transceiver's octets, written by hand: pdu.Append
// keeps SMPP 3.4's bounds, as a strict ESME would.
func rawBind(seq uint32, systemID, password string) []byte {
	body := append(append(append(append([]byte(systemID), 0), password...), 0), 0, pdu.InterfaceVersion, 0, 0, 0)
	b := binary.BigEndian.AppendUint32(nil, uint32(pdu.HeaderLen+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(pdu.CmdBindTransceiver))
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, seq)
	return append(b, body...)
}

// A bind's system_id and password may be as long as an account's
// username and password (MaxSystemID, MaxPassword), beyond SMPP 3.4's 15
// and 8; longer ones are refused by the codec, generic_nack with the
// field's status.
func TestLongCredentials(t *testing.T) {
	f := newFixture(t, smppserver.Options{}, nil)
	longest := strings.Repeat("u", smppserver.MaxSystemID)
	for _, acct := range []struct{ user, pw string }{
		{"bulk-account-of-a-shop", "a-password-of-24-octets!"},
		{longest, strings.Repeat("p", smppserver.MaxPassword)},
	} {
		_, err := f.gw.CreateAccount(t.Context(), sms.AccountSpec{Password: acct.pw, Account: sms.Account{
			Username: acct.user, Networks: f.networks(), Enabled: true, Balance: decimal.RequireFromString("1"), Currency: "EUR",
			Prices: []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, user, pw string
		cmd            pdu.CommandID
		want           pdu.Status
	}{
		{"SMPP 3.4's bounds", "shop", "pw", pdu.CmdBindTransceiverResp, pdu.ESME_ROK},
		{"a username of 22, a password of 24", "bulk-account-of-a-shop", "a-password-of-24-octets!", pdu.CmdBindTransceiverResp, pdu.ESME_ROK},
		{"at the bounds", longest, strings.Repeat("p", smppserver.MaxPassword), pdu.CmdBindTransceiverResp, pdu.ESME_ROK},
		{"a wrong long password", "bulk-account-of-a-shop", "a-password-of-24-octets?", pdu.CmdBindTransceiverResp, pdu.ESME_RINVPASWD},
		{"a password beyond", "bulk-account-of-a-shop", strings.Repeat("p", smppserver.MaxPassword+1), pdu.CmdGenericNack, pdu.ESME_RINVPASWD},
		{"a system_id beyond", longest + "u", "pw", pdu.CmdGenericNack, pdu.ESME_RINVSYSID},
	} {
		e := dial(t, f.addr)
		e.nc.Write(rawBind(7, c.user, c.pw))
		r := e.read(t)
		if r.Body.Command() != c.cmd || r.Status != c.want || r.Seq != 7 {
			t.Errorf("%s: %s %s seq %d, want %s %s", c.name, r.Body.Command(), r.Status, r.Seq, c.cmd, c.want)
			continue
		}
		if c.want == pdu.ESME_ROK {
			e.seq = 7
			if r := e.call(t, submitSM("Hi", nil)); r.Status != pdu.ESME_ROK {
				t.Errorf("%s: submit_sm %s", c.name, r.Status)
			}
		}
	}
}

// A connection not bound BindTimeout (by Options.Clock) after it was
// accepted is closed, though it keeps the link alive and tried a bind;
// a bound one is not.
func TestBindTimeout(t *testing.T) {
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	// The keeper looks every 10 ms; the clock decides.
	f := newFixture(t, smppserver.Options{Clock: clock.Now, EnquireEvery: 40 * time.Millisecond, DeadAfter: time.Hour, BindTimeout: 100 * time.Millisecond}, nil)
	idle, refused, bound := dial(t, f.addr), dial(t, f.addr), dial(t, f.addr)
	if r := idle.call(t, pdu.PDU{Body: &pdu.Empty{ID: pdu.CmdEnquireLink}}); r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	if st := refused.bind(t, pdu.Transmitter, "shop", "wrong"); st != pdu.ESME_RINVPASWD {
		t.Fatal(st)
	}
	if st := bound.bind(t, pdu.Transceiver, "shop", "pw"); st != pdu.ESME_ROK {
		t.Fatal(st)
	}
	// Short of the timeout: each gets an enquire_link (the keeper looked
	// at this time) and stays.
	clock.Advance(60 * time.Millisecond)
	for _, e := range []*esme{idle, refused, bound} {
		p := e.read(t)
		if p.Body.Command() != pdu.CmdEnquireLink {
			t.Fatalf("%s, want enquire_link", p.Body.Command())
		}
		e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
	}
	if r := idle.call(t, pdu.PDU{Body: &pdu.Empty{ID: pdu.CmdEnquireLink}}); r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	// At the timeout: the unbound ones are closed.
	clock.Advance(40 * time.Millisecond)
	for name, e := range map[string]*esme{"idle": idle, "refused": refused} {
		e.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			p, _, err := pdu.Read(e.nc, nil, 0)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("%s: not closed", name)
				}
				if !errors.Is(err, io.EOF) {
					t.Logf("%s: closed: %v", name, err)
				}
				break
			}
			if p.Body.Command() != pdu.CmdEnquireLink {
				t.Fatalf("%s: %s, want the connection closed", name, p.Body.Command())
			}
		}
	}
	// The bind stays, long after.
	clock.Advance(time.Second)
	p := bound.read(t)
	if p.Body.Command() != pdu.CmdEnquireLink {
		t.Fatalf("%s, want enquire_link", p.Body.Command())
	}
	bound.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
	if r := bound.call(t, submitSM("still bound", nil)); r.Status != pdu.ESME_ROK || f.srv.Binds("shop") != 1 {
		t.Errorf("submit_sm on the bind: %s, %d binds", r.Status, f.srv.Binds("shop"))
	}
}
