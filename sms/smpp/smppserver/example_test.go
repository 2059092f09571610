package smppserver_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// An ESME binds with a bulk SMS account and submits a message: the
// gateway charges and queues it as it would an HTTP submission.
func Example() {
	ctx := context.Background()
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	gw.CreateAccount(ctx, sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}})

	srv := smppserver.New(gw, smppserver.Options{})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)

	// The ESME's side, written PDU by PDU.
	nc, _ := net.Dial("tcp", ln.Addr().String())
	defer nc.Close()
	call := func(seq uint32, body pdu.Body) pdu.PDU {
		b, _ := pdu.Append(nil, pdu.PDU{Seq: seq, Body: body})
		nc.Write(b)
		p, _, _ := pdu.Read(nc, nil, 0)
		return p
	}
	bound := call(1, &pdu.Bind{Mode: pdu.Transmitter, SystemID: "shop", Password: "pw", Version: pdu.InterfaceVersion})
	fmt.Println(bound.Body.Command(), bound.Status)
	resp := call(2, &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{
		Source: pdu.Address{TON: 5, Addr: "MyShop"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"},
		Message: []byte("Your order has shipped"),
	}})
	fmt.Println(resp.Body.Command(), resp.Status)
	m, _ := store.Message(ctx, sms.MessageID(resp.Body.(*pdu.SubmitSMResp).MessageID))
	fmt.Println(len(m.Parts), "part,", m.Charged, m.Currency, "charged")
	// Output:
	// bind_transmitter_resp ESME_ROK
	// submit_sm_resp ESME_ROK
	// 1 part, 0.05 EUR charged
}
