package main

import (
	"context"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

func TestRun(t *testing.T) {
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "load", Enabled: true, Balance: decimal.RequireFromString("1000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.01")}},
	}}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bulksmsapi.Handler(gw, bulksmsapi.Options{}))
	defer srv.Close()

	r, err := run(context.Background(), config{URL: srv.URL + bulksmsapi.SendSMSPath, User: "load", Password: "pw", Receiver: "38640123456", N: 300, Workers: 4, Duration: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 300 || r.Accepted != 300 || r.P99 <= 0 || r.P50 > r.P99 {
		t.Fatalf("result %v", r)
	}
	a, _ := store.Account(t.Context(), "load")
	if !a.Balance.Equal(decimal.RequireFromString("994")) { // 300 × 2 parts × 0.01
		t.Errorf("balance %s, want 994", a.Balance)
	}
	r, err = run(context.Background(), config{URL: srv.URL + bulksmsapi.SendSMSPath, User: "load", Password: "wrong", Receiver: "38640123456", N: 10, Workers: 2, Duration: 30 * time.Second})
	if err != nil || r.Rejected != 10 {
		t.Fatalf("wrong password: %v, %v", r, err)
	}
}
