package auth_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
)

// A client registered by the operator gets a token with the client
// credentials grant from its own network only; the token speaks for the
// client's tenants and privileges until it expires.
func ExampleService_ClientCredentials() {
	ctx := context.Background()
	clock := msgkittest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	svc := auth.New(memstore.New().Auth(), auth.Options{Clock: clock.Now, BcryptCost: bcrypt.MinCost})
	shop := msgkit.ServiceUUID("6f1c2a9e-8d4b-4c1e-9a57-3b2d0e4f5a61")
	_, _, err := svc.CreateClient(ctx, auth.ClientSpec{
		ID: "crm", Name: "CRM", Secret: "s3cret-s3cret",
		Networks:   []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Services:   []msgkit.ServiceUUID{shop},
		Privileges: []auth.Privilege{auth.PrivNews},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = svc.ClientCredentials(ctx, "crm", "s3cret-s3cret", netip.MustParseAddr("198.51.100.7"))
	fmt.Println("from another network:", msgkit.CodeOf(err))
	_, err = svc.ClientCredentials(ctx, "crm", "guess", netip.MustParseAddr("192.0.2.10"))
	fmt.Println("a wrong secret:", msgkit.CodeOf(err))

	tok, err := svc.ClientCredentials(ctx, "crm", "s3cret-s3cret", netip.MustParseAddr("192.0.2.10"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.TokenType, tok.ExpiresIn)
	p, err := svc.Verify(ctx, tok.AccessToken)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Subject, "acts for the shop:", p.ActsFor(shop), "news:", p.HasAny(auth.PrivNews), "test system:", p.HasAny(auth.PrivTestSystem))

	clock.Advance(time.Hour)
	_, err = svc.Verify(ctx, tok.AccessToken)
	fmt.Println("an hour later:", msgkit.CodeOf(err))
	// Output:
	// from another network: unauthorized_client
	// a wrong secret: invalid_client
	// Bearer 3600
	// crm acts for the shop: true news: true test system: false
	// an hour later: invalid_token
}
