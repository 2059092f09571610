package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/shopspring/decimal"
)

// demoCredentials are made at start when no bootstrap file is given, so a
// newcomer can call the platform at once. They are printed once and never
// stored in clear.
type demoCredentials struct {
	Service      msgkit.ServiceUUID
	ClientID     string
	ClientSecret string
	Username     string
	Password     string
	APIKey       string
	SMSUser      string
	SMSPassword  string
}

func createDemo(ctx context.Context, s platform) (demoCredentials, error) {
	svc := s.auth
	d := demoCredentials{Service: msgkit.ServiceUUID(uuid.NewString()), Username: "demo-" + uuid.NewString()[:8]}
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	c, secret, err := svc.CreateClient(ctx, auth.ClientSpec{
		Name: "demo client", Networks: local,
		Services: []msgkit.ServiceUUID{d.Service}, Privileges: auth.Privileges(),
	})
	if err != nil {
		return d, fmt.Errorf("demo client: %w", err)
	}
	d.ClientID, d.ClientSecret = c.ID, secret
	d.Password = uuid.NewString()
	if _, err := svc.CreateUser(ctx, auth.UserSpec{
		Username: d.Username, Password: d.Password,
		Services: []msgkit.ServiceUUID{d.Service}, Privileges: []auth.Privilege{auth.PrivTestSystem},
	}); err != nil {
		return d, fmt.Errorf("demo user: %w", err)
	}
	if _, d.APIKey, err = svc.CreateAPIKey(ctx, "demo routing key", ""); err != nil {
		return d, fmt.Errorf("demo API key: %w", err)
	}
	d.SMSUser, d.SMSPassword = "demo-sms-"+uuid.NewString()[:8], uuid.NewString()
	if _, err := s.sms.CreateAccount(ctx, sms.AccountSpec{Password: d.SMSPassword, Account: sms.Account{
		Username: d.SMSUser, Networks: local, Enabled: true, Currency: "EUR",
		Balance: decimal.RequireFromString("100"), Throughput: 1000, Prices: demoPrices,
	}}); err != nil {
		return d, fmt.Errorf("demo bulk SMS account: %w", err)
	}
	return d, nil
}

// demoPrices is the demo account's price list (EUR per physical SMS).
var demoPrices = []sms.Price{
	{Prefix: "1", Price: decimal.RequireFromString("0.0100")},
	{Prefix: "386", Price: decimal.RequireFromString("0.0350")},
	{Prefix: "38640", Price: decimal.RequireFromString("0.0300")},
	{Prefix: "44", Price: decimal.RequireFromString("0.0400")},
	{Prefix: "49", Price: decimal.RequireFromString("0.0750")},
}

// The simulated network of the demo: most numbers are delivered a second
// after submission; German numbers starting 4915 are absent twice first,
// 4917 numbers do not exist, and 4916 numbers never answer (validity
// expiry reports them).
var demoDelivery = simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: 100 * time.Millisecond, Delay: time.Second}

func demoNetworkRules() []simnet.Rule {
	return []simnet.Rule{
		{Prefix: "4915", Outcome: simnet.Outcome{Kind: simnet.Absent, AcceptDelay: 100 * time.Millisecond, Delay: time.Second, Attempts: 2, RetryEvery: 5 * time.Second}},
		{Prefix: "4916", Outcome: simnet.Outcome{Kind: simnet.Silent, AcceptDelay: 100 * time.Millisecond}},
		{Prefix: "4917", Outcome: simnet.Outcome{Kind: simnet.Unknown, AcceptDelay: 100 * time.Millisecond, Delay: time.Second}},
	}
}

// print writes the credentials and the first calls a newcomer makes.
func (d demoCredentials) print(w io.Writer, base, smsBase string) {
	fmt.Fprintf(w, `
msgkit demo credentials (shown once; they live as long as this process on the memory store)
  tenant (serviceUuid):  %[2]s
  API client:            client_id=%[3]s client_secret=%[4]s (from 127.0.0.1 or ::1)
  test system user:      username=%[5]s password=%[6]s
  routing X-API-Key:     %[7]s
  bulk SMS account:      username=%[9]s password=%[10]s (100 EUR)

Try:
  TOKEN=$(curl -s %[1]s/oauth2/access-token -d grant_type=client_credentials -d client_id=%[3]s -d client_secret=%[4]s | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
  curl -s %[1]s/oauth2/token-info -H "Authorization: Bearer $TOKEN"
  curl -s %[1]s/news/v1/services/00000000-0000-4000-8000-000000000000/cds/contacts -H "Authorization: Bearer $TOKEN"
  curl -s %[8]s/bulk/sendsms -d '{"type":"text","auth":{"username":"%[9]s","password":"%[10]s"},"sender":"Demo","receiver":"38640123456","dcs":"GSM","text":"Hello from msgkit"}'

`, base, d.Service, d.ClientID, d.ClientSecret, d.Username, d.Password, d.APIKey, smsBase, d.SMSUser, d.SMSPassword)
}
