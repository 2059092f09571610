package pdu_test

import (
	"bytes"
	"fmt"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// A submit_sm encoded for the wire and read back, and a response whose
// status is an SMSC's refusal, by its name.
func Example() {
	submit := &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		Source:             pdu.Address{TON: 5, NPI: 0, Addr: "MyShop"},
		Dest:               pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"},
		RegisteredDelivery: pdu.RegisteredDeliveryAll,
		Message:            []byte("Your order has shipped"),
	}}
	wire, err := pdu.Append(nil, pdu.PDU{Seq: 7, Body: submit})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(wire), "octets, a header of", pdu.HeaderLen)

	// Read takes one PDU off a connection into a buffer the next Read
	// reuses (the PDU's slices point into it).
	p, _, err := pdu.Read(bytes.NewReader(wire), nil, pdu.DefaultMaxPDU)
	if err != nil {
		fmt.Println(err)
		return
	}
	got := p.Body.(*pdu.SubmitSM)
	fmt.Printf("%s seq %d to %s: %q\n", p.Body.Command(), p.Seq, got.Dest.Addr, got.Message)

	refused, err := pdu.Append(nil, pdu.PDU{Status: pdu.ESME_RTHROTTLED, Seq: 7, Body: &pdu.SubmitSMResp{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := pdu.Decode(refused)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Body.Command(), resp.Status, resp.Body.Command().IsResponse())
	// Output:
	// 72 octets, a header of 16
	// submit_sm seq 7 to 38640123456: "Your order has shipped"
	// submit_sm_resp ESME_RTHROTTLED true
}
