package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
)

// authFamily is OAuth 2.0 and the credentials of every REST family: the
// token endpoint and token-info under /oauth2/, the hourly purge of
// expired tokens, the bootstrap sections tenants, clients, users and
// apiKeys, and the demo's tenant, clients, test system user and routing
// API key.
func authFamily(svc *auth.Service, opts httpapi.Options) family {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return family{
		name: "auth",
		api:  map[string]http.Handler{"/oauth2/": httpapi.OAuthHandler(opts)},
		docs: []apiDoc{{"oauth", httpapi.OAuthOpenAPI(), restServers}},
		jobs: []func(context.Context){every(time.Minute, "purging expired tokens", logger, svc.PurgeExpired)},
		sections: []section{
			{"tenants", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
				return applyEach("tenants", raw, func(t bootstrapTenant) error {
					_, err := svc.CreateTenant(ctx, auth.TenantSpec{ID: msgkit.ServiceUUID(t.ID), Name: t.Name})
					return err
				})
			}},
			{"clients", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
				return applyEach("clients", raw, func(c bootstrapClient) error { return createClient(ctx, svc, c, secret) })
			}},
			{"users", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
				return applyEach("users", raw, func(u bootstrapUser) error { return createUser(ctx, svc, u, secret) })
			}},
			{"apiKeys", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
				return applyEach("apiKeys", raw, func(k bootstrapAPIKey) error { return createAPIKey(ctx, svc, k, secret) })
			}},
		},
		demo: func(ctx context.Context, d *demoCredentials) error { return authDemo(ctx, svc, d) },
	}
}

// The bootstrap sections of auth. Each secret may be given in clear, as a
// bcrypt hash, or as the name of an environment variable holding it.
// Tenants come first, so that the clients and users given them find them
// with their names.
type (
	bootstrapTenant struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	bootstrapClient struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Secret     string   `json:"secret"`
		SecretHash string   `json:"secretHash"`
		SecretEnv  string   `json:"secretEnv"`
		Networks   []string `json:"networks"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	}
	bootstrapUser struct {
		Username     string   `json:"username"`
		Password     string   `json:"password"`
		PasswordHash string   `json:"passwordHash"`
		PasswordEnv  string   `json:"passwordEnv"`
		Services     []string `json:"services"`
		Privileges   []string `json:"privileges"`
	}
	bootstrapAPIKey struct {
		Name   string `json:"name"`
		Key    string `json:"key"`
		KeyEnv string `json:"keyEnv"`
	}
)

func createClient(ctx context.Context, svc *auth.Service, c bootstrapClient, secret secretSource) error {
	s, err := secret.get(c.Secret, c.SecretEnv)
	if err != nil {
		return err
	}
	nets, err := prefixes(c.Networks)
	if err != nil {
		return err
	}
	_, _, err = svc.CreateClient(ctx, auth.ClientSpec{
		ID: c.ID, Name: c.Name, Secret: s, SecretHash: c.SecretHash, Networks: nets,
		Services: serviceUUIDs(c.Services), Privileges: privileges(c.Privileges),
	})
	return err
}

func createUser(ctx context.Context, svc *auth.Service, u bootstrapUser, secret secretSource) error {
	p, err := secret.get(u.Password, u.PasswordEnv)
	if err != nil {
		return err
	}
	_, err = svc.CreateUser(ctx, auth.UserSpec{
		Username: u.Username, Password: p, PasswordHash: u.PasswordHash,
		Services: serviceUUIDs(u.Services), Privileges: privileges(u.Privileges),
	})
	return err
}

func createAPIKey(ctx context.Context, svc *auth.Service, k bootstrapAPIKey, secret secretSource) error {
	key, err := secret.get(k.Key, k.KeyEnv)
	if err != nil {
		return err
	}
	if key == "" {
		return errors.New("a key or keyEnv is required")
	}
	_, _, err = svc.CreateAPIKey(ctx, k.Name, key)
	return err
}

// authDemo registers a tenant with an API client holding every tenant
// privilege, an operator client holding the administration's, a test
// system user and a routing API key, all usable from this machine.
func authDemo(ctx context.Context, svc *auth.Service, d *demoCredentials) error {
	d.Service, d.Username = msgkit.ServiceUUID(uuid.NewString()), "demo-"+uuid.NewString()[:8]
	if _, err := svc.CreateTenant(ctx, auth.TenantSpec{ID: d.Service, Name: "Demo shop"}); err != nil {
		return fmt.Errorf("demo tenant: %w", err)
	}
	c, secret, err := svc.CreateClient(ctx, auth.ClientSpec{
		Name: "demo client", Networks: demoNetworks(),
		Services: []msgkit.ServiceUUID{d.Service}, Privileges: auth.TenantPrivileges(),
	})
	if err != nil {
		return fmt.Errorf("demo client: %w", err)
	}
	d.ClientID, d.ClientSecret = c.ID, secret
	op, secret, err := svc.CreateClient(ctx, auth.ClientSpec{Name: "demo operator", Networks: demoNetworks(), Privileges: auth.AdminPrivileges()})
	if err != nil {
		return fmt.Errorf("demo operator client: %w", err)
	}
	d.OperatorID, d.OperatorSecret = op.ID, secret
	d.Password = uuid.NewString()
	if _, err := svc.CreateUser(ctx, auth.UserSpec{
		Username: d.Username, Password: d.Password,
		Services: []msgkit.ServiceUUID{d.Service}, Privileges: []auth.Privilege{auth.PrivTestSystem},
	}); err != nil {
		return fmt.Errorf("demo user: %w", err)
	}
	if _, d.APIKey, err = svc.CreateAPIKey(ctx, "demo routing key", ""); err != nil {
		return fmt.Errorf("demo API key: %w", err)
	}
	return nil
}

// demoNetworks is where demo credentials may be used from: this machine.
func demoNetworks() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}
