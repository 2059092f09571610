package smppserver_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// fakeGateway binds "shop" with "pw", refuses the receiver "999" as
// having no route, and records what it accepted.
type fakeGateway struct {
	mu   sync.Mutex
	subs []sms.Submission
}

func (g *fakeGateway) Authenticate(_ context.Context, user, pw string, _ netip.Addr) error {
	if user != "shop" || pw != "pw" {
		return sms.CodeNoAccount.Errorf("credentials match no account")
	}
	return nil
}

func (g *fakeGateway) SubmitFor(_ context.Context, account string, id sms.MessageID, sub sms.Submission) (sms.Accepted, error) {
	if sub.Receiver == "999" {
		return sms.Accepted{}, sms.CodeNoRoute.FieldErrorf("receiver", "no route")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.subs = append(g.subs, sub)
	return sms.Accepted{MsgID: id, NumParts: 1}, nil
}

func (g *fakeGateway) accepted() []sms.Submission {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]sms.Submission{}, g.subs...)
}

// ids numbers message ids id-1, id-2, ...
func ids() func() sms.MessageID {
	var mu sync.Mutex
	n := 0
	return func() sms.MessageID {
		mu.Lock()
		defer mu.Unlock()
		n++
		return sms.MessageID(fmt.Sprintf("id-%d", n))
	}
}

// pipeSession serves one end of a pipe and returns the other.
func pipeSession(t testing.TB, gw smppserver.Gateway, opts smppserver.Options) net.Conn {
	t.Helper()
	if opts.NewID == nil {
		opts.NewID = ids()
	}
	srv := smppserver.New(gw, opts)
	server, client := net.Pipe()
	srv.ServeConn(server)
	t.Cleanup(func() {
		client.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return client
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each PDU's octets in, the answer's octets out, in the order of a
// session.
func TestVectors(t *testing.T) {
	gw := &fakeGateway{}
	nc := pipeSession(t, gw, smppserver.Options{})
	for _, v := range []struct{ name, in, out string }{
		{"submit_sm before a bind",
			"00000034 00000004 00000000 00000001  00 0500 4d7953686f7000 0101 333836343031323334353600 000000 00 00 01000000 02 4869",
			"00000010 80000004 00000004 00000001"},
		{"bind_transmitter",
			"0000001d 00000002 00000000 00000002  73686f7000 707700 00 34 00 00 00",
			"0000001c 80000002 00000000 00000002  6d73676b697400 0210 0001 34"},
		{"bind_transceiver on a bound connection",
			"0000001d 00000009 00000000 00000003  73686f7000 707700 00 34 00 00 00",
			"00000010 80000009 00000005 00000003"},
		{"enquire_link",
			"00000010 00000015 00000000 00000004",
			"00000010 80000015 00000000 00000004"},
		{"submit_sm GSM",
			"00000034 00000004 00000000 00000005  00 0500 4d7953686f7000 0101 333836343031323334353600 000000 00 00 01000000 02 4869",
			"00000015 80000004 00000000 00000005  69642d3100"},
		{"data_sm UCS-2 in message_payload",
			"00000033 00000103 00000000 00000006  00 0500 4d7953686f7000 0101 333836343031323334353600 00 00 08 0424 0004 00480069",
			"00000015 80000103 00000000 00000006  69642d3200"},
		{"submit_sm the gateway refuses (114, no route)",
			"0000002c 00000004 00000000 00000007  00 0500 4d7953686f7000 0101 39393900 000000 00 00 01000000 02 4869",
			"00000010 80000004 0000000b 00000007"},
		{"submit_sm of data_coding 3",
			"00000034 00000004 00000000 00000008  00 0500 4d7953686f7000 0101 333836343031323334353600 000000 00 00 01000300 02 4869",
			"00000010 80000004 00000045 00000008"},
		{"an unknown command",
			"00000010 00000099 00000000 00000009",
			"00000010 80000000 00000003 00000009"},
		{"a bind without its NUL",
			"00000014 00000002 00000000 0000000a  73686f70",
			"00000010 80000000 00000002 0000000a"},
		{"deliver_sm from an ESME",
			"00000034 00000005 00000000 0000000b  00 0500 4d7953686f7000 0101 333836343031323334353600 000000 00 00 01000000 02 4869",
			"00000010 80000000 00000003 0000000b"},
		{"unbind",
			"00000010 00000006 00000000 0000000c",
			"00000010 80000006 00000000 0000000c"},
	} {
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Write(unhex(t, v.in)); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		_, got, err := pdu.Read(nc, nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if want := unhex(t, v.out); string(got) != string(want) {
			t.Errorf("%s:\n got % x\nwant % x", v.name, got, want)
		}
	}
	// After unbind_resp the server shuts its side.
	if _, _, err := pdu.Read(nc, nil, 0); err == nil {
		t.Error("the connection goes on after unbind")
	}
	final := int64(sms.RecommendedDLRMask)
	want := []sms.Submission{
		// registered_delivery 1: every final event, to the account's binds.
		{Type: "text", Sender: "MyShop", Receiver: "38640123456", DCS: "GSM", Text: "Hi", DLRMask: &final, DLRToBinds: true},
		{Type: "text", Sender: "MyShop", Receiver: "38640123456", DCS: "UCS", Text: "Hi"},
	}
	if diff := cmp.Diff(want, gw.accepted(), cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("submissions (-want +got):\n%s", diff)
	}
}

// A PDU longer than the server reads is answered generic_nack
// ESME_RINVCMDLEN, and its connection closed.
func TestTooLongPDU(t *testing.T) {
	nc := pipeSession(t, &fakeGateway{}, smppserver.Options{})
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	go nc.Write(unhex(t, "7fffffff 00000004 00000000 00000001"))
	_, got, err := pdu.Read(nc, nil, 0)
	if err != nil || hex.EncodeToString(got) != "0000001080000000000000020000000"+"0" {
		t.Fatalf("% x, %v", got, err)
	}
	if _, _, err := pdu.Read(nc, nil, 0); err == nil {
		t.Fatal("the connection goes on")
	}
}
