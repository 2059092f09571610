package bulksmsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/shopspring/decimal"
)

// Example mounts bulk SMS in a server of one's own: the gateway on the
// in-memory store, a transmitter handing accepted parts to the simulated
// network (which reports back to the gateway), and the handler on one's
// own mux beside one's other routes.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	store := memstore.New().SMS()
	network := simnet.New(simnet.Options{})
	transmitter := sms.NewTransmitter(store, network, sms.TransmitterOptions{})
	gateway := sms.NewGateway(store, sms.GatewayOptions{Transmitter: transmitter})
	go transmitter.Run(ctx)
	go network.Run(ctx, gateway, 100*time.Millisecond)

	if _, err := gateway.CreateAccount(ctx, sms.AccountSpec{Password: "s3cret", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10.00"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.02")}},
	}}); err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("POST "+bulksmsapi.SendSMSPath, bulksmsapi.Handler(gateway, bulksmsapi.Options{}))
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "my own route") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)

	resp, err := http.Post("http://"+ln.Addr().String()+bulksmsapi.SendSMSPath, "application/json", strings.NewReader(
		`{"type":"text","auth":{"username":"shop","password":"s3cret"},"sender":"Shop","receiver":"38640123456","text":"Your order has shipped"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var accepted struct {
		MsgID    string `json:"msgId"`
		NumParts int    `json:"numParts"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&accepted); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, accepted.NumParts, accepted.MsgID != "")
	// Output: 202 1 true
}
