package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
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
}

func createDemo(ctx context.Context, svc *auth.Service) (demoCredentials, error) {
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
	return d, nil
}

// print writes the credentials and the first calls a newcomer makes.
func (d demoCredentials) print(w io.Writer, base string) {
	fmt.Fprintf(w, `
msgkit demo credentials (shown once; they live as long as this process on the memory store)
  tenant (serviceUuid):  %[2]s
  API client:            client_id=%[3]s client_secret=%[4]s (from 127.0.0.1 or ::1)
  test system user:      username=%[5]s password=%[6]s
  routing X-API-Key:     %[7]s

Try:
  TOKEN=$(curl -s %[1]s/oauth2/access-token -d grant_type=client_credentials -d client_id=%[3]s -d client_secret=%[4]s | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
  curl -s %[1]s/oauth2/token-info -H "Authorization: Bearer $TOKEN"
  curl -s %[1]s/news/v1/services/00000000-0000-4000-8000-000000000000/cds/contacts -H "Authorization: Bearer $TOKEN"

`, base, d.Service, d.ClientID, d.ClientSecret, d.Username, d.Password, d.APIKey)
}
