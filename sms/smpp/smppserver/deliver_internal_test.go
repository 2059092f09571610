package smppserver

import (
	"encoding/json"
	"testing"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// Whatever an outbox body holds, deliverOf never panics, and a deliver_sm
// it returns encodes and reads back.
func FuzzDeliverOf(f *testing.F) {
	for _, d := range []sms.BindDelivery{
		{Kind: sms.BindReceipt, MsgID: "m-1", Source: "38640123456", Dest: "MyShop", DestAlpha: true, Event: "DELIVERED", Text: "Hello"},
		{Kind: sms.BindReceipt, MsgID: "m-2", Source: "38640123456", Dest: "38640999999", Event: "UNDELIVERED", ErrorCode: 996},
		{Kind: sms.BindMessage, MsgID: "mo-1", Source: "38640123456", Dest: "1234", Text: "Привет", DCS: "UCS"},
		{Kind: sms.BindMessage, MsgID: "mo-2", Source: "38640123456", Dest: "1234", Text: string(make([]byte, 300)), DCS: "GSM"},
	} {
		b, _ := json.Marshal(d)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var d sms.BindDelivery
		if json.Unmarshal(body, &d) != nil {
			return
		}
		p, err := deliverOf(d)
		if err != nil {
			return
		}
		b, err := pdu.Append(nil, pdu.PDU{Seq: 7, Body: p})
		if err != nil {
			t.Fatalf("%+v does not encode: %v", d, err)
		}
		if _, err := pdu.Decode(b); err != nil {
			t.Fatalf("%+v does not read back: %v", d, err)
		}
	})
}
