package bulksmsapi_test

import (
	"context"
	"net/http"
	"net/netip"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// The submissions the handler refuses itself (a body that does not
// decode) are counted by the gateway's metrics with those it answers.
func TestSendSMSCountsRefusals(t *testing.T) {
	reg := prometheus.NewRegistry()
	gw := sms.NewGateway(memstore.New().SMS(), sms.GatewayOptions{BcryptCost: bcrypt.MinCost, Metrics: reg})
	if _, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		t.Fatal(err)
	}
	h := bulksmsapi.Handler(gw, bulksmsapi.Options{})
	for body, status := range map[string]int{goodSMS: http.StatusAccepted, `{"type":`: bulksmsapi.StatusBusinessError, `[]`: bulksmsapi.StatusBusinessError} {
		if w := httpapitest.Serve(h, sendSMSRequest(body)); w.Code != status {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
	}
	counts := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "msgkit_sms_submissions_total" {
			for _, m := range f.GetMetric() {
				counts[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if counts["accepted"] != 1 || counts["109"] != 2 {
		t.Errorf("submissions by code %v, want 1 accepted and 2 refused with 109", counts)
	}
}
