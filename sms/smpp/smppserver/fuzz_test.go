package smppserver_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// sentinel is an enquire_link written after the fuzzed octets: its answer
// says the server read past them.
const sentinelSeq = 0x7FFFFFF0

// FuzzServerPDU feeds octets to a session as an ESME would. The server
// must not panic, must write only PDUs that decode, and, for octets that
// are one PDU, must answer a PDU the codec refuses with generic_nack and
// then read on (the sentinel's answer), or close the connection.
func FuzzServerPDU(f *testing.F) {
	for _, s := range []string{
		"0000001d 00000002 00000000 00000002 73686f7000 707700 00 34 00 00 00",
		"00000010 00000015 00000000 00000004",
		"00000034 00000004 00000000 00000005 00 0500 4d7953686f7000 0101 333836343031323334353600 400000 00 00 01000000 02 4869",
		"00000033 00000103 00000000 00000006 00 0500 4d7953686f7000 0101 333836343031323334353600 00 00 08 0424 0004 00480069",
		"00000014 00000002 00000000 0000000a 73686f70",
		"00000010 00000099 00000000 00000009",
		"00000010 00000006 00000000 0000000c",
		"7fffffff 00000004 00000000 00000001",
		"00000008 00000004",
		// A bind of a password longer than SMPP 3.4's 8.
		"0000002b 00000009 00000000 00000003 73686f7000 612d70617373776f72642d6f662d323000 00 34 00 00 00",
		// A bind, then a long message's part with UDH and one with SAR.
		"0000001d 00000009 00000000 00000001 73686f7000 707700 00 34 00 00 00" +
			"0000003a 00000004 00000000 00000002 00 0500 4d7953686f7000 0101 333836343031323334353600 400000 00 00 01000000 08 0500030902014869",
	} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		nc := pipeSession(t, &fakeGateway{}, smppserver.Options{Window: 4})
		sentinel, _ := pdu.Append(nil, pdu.PDU{Seq: sentinelSeq, Body: &pdu.Empty{ID: pdu.CmdEnquireLink}})
		go func() {
			nc.Write(in)
			nc.Write(sentinel)
		}()
		var whole bool // in is one PDU, whose length says so
		var derr *pdu.DecodeError
		if len(in) >= pdu.HeaderLen && int(binary.BigEndian.Uint32(in)) == len(in) {
			whole = true
			_, err := pdu.Decoder{MaxSystemID: smppserver.MaxSystemID, MaxPassword: smppserver.MaxPassword}.Decode(in)
			errors.As(err, &derr)
		}
		first := true
		for {
			// A bound wait: octets that announce more than they hold
			// leave the server waiting for the rest, as it should.
			wait := 20 * time.Millisecond
			if whole {
				wait = 5 * time.Second
			}
			nc.SetReadDeadline(time.Now().Add(wait))
			p, _, err := pdu.Read(nc, nil, 0)
			var ne net.Error
			switch {
			case err == nil:
			case errors.As(err, &ne) && ne.Timeout():
				if whole {
					t.Fatalf("one PDU (% x): no answer to the sentinel and no close", in)
				}
				return
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.ErrUnexpectedEOF):
				return // closed
			default:
				t.Fatalf("the server wrote what does not decode: %v", err)
			}
			if first && derr != nil && !derr.Command.IsResponse() && (p.Body.Command() != pdu.CmdGenericNack || p.Status != derr.Status) {
				t.Fatalf("% x refused (%v): answered %s %s, want generic_nack %s", in, derr, p.Body.Command(), p.Status, derr.Status)
			}
			first = false
			if p.Body.Command() == pdu.CmdEnquireLinkResp && p.Seq == sentinelSeq {
				return
			}
		}
	})
}
