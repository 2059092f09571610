package auth_test

import (
	"net/netip"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

const other = msgkit.ServiceUUID("0b7e3c1a-9d2f-4c6e-b8a1-5f4e3d2c1b0a")

// A suspended tenant's callers are refused from their next request; its
// other tenants' calls go on without it; resuming lets them in again.
func TestSuspendedTenant(t *testing.T) {
	s, _, _ := newService(t)
	ctx := t.Context()
	c, secret, err := s.CreateClient(ctx, auth.ClientSpec{ID: "two", Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/28")},
		Services: []msgkit.ServiceUUID{svc, other}, Privileges: []auth.Privilege{auth.PrivNews}})
	if err != nil {
		t.Fatal(err)
	}
	_, oneSecret := newClient(t, s) // svc only
	one, _ := s.Clients(ctx, msgkit.ListQuery{})
	tok, err := s.ClientCredentials(ctx, c.ID, secret, office)
	if err != nil {
		t.Fatal(err)
	}
	var oneID string
	for _, cl := range one.Items {
		if cl.ID != "two" {
			oneID = cl.ID
		}
	}
	oneTok, err := s.ClientCredentials(ctx, oneID, oneSecret, office)
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	if _, err := s.UpdateTenant(ctx, svc, auth.TenantChange{Suspended: &yes}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Verify(ctx, tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if p.ActsFor(svc) || !p.ActsFor(other) || len(p.Suspended) != 1 || p.Suspended[0] != svc {
		t.Errorf("a client of a suspended and an active tenant: services %v, suspended %v", p.Services, p.Suspended)
	}
	_, err = s.Verify(ctx, oneTok.AccessToken)
	wantCode(t, err, msgkit.Forbidden, auth.CodeTenantSuspended)
	if _, err := s.UpdateTenant(ctx, svc, auth.TenantChange{Suspended: &no}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Verify(ctx, oneTok.AccessToken); err != nil || !p.ActsFor(svc) {
		t.Errorf("after resuming: %v, %v", p.Services, err)
	}
}

func TestTenantRules(t *testing.T) {
	s, _, clock := newService(t)
	ctx := t.Context()
	tn, err := s.CreateTenant(ctx, auth.TenantSpec{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msgkit.ParseServiceUUID(string(tn.ID)); err != nil || !tn.CreatedAt.Equal(clock.Now()) {
		t.Errorf("a new tenant: %+v", tn)
	}
	_, err = s.CreateTenant(ctx, auth.TenantSpec{ID: tn.ID, Name: "again"})
	wantCode(t, err, msgkit.Conflict, "tenant_exists")
	for _, bad := range []auth.TenantSpec{{Name: ""}, {Name: "  "}, {Name: "a\nb"}, {ID: "not-a-uuid", Name: "x"}} {
		_, err := s.CreateTenant(ctx, bad)
		wantCode(t, err, msgkit.Invalid, auth.CodeTenantInvalid)
	}
	// Upper case is the same tenant, kept canonical.
	upper := msgkit.ServiceUUID("0B7E3C1A-9D2F-4C6E-B8A1-5F4E3D2C1B0A")
	if got, err := s.CreateTenant(ctx, auth.TenantSpec{ID: upper, Name: "x"}); err != nil || got.ID != other {
		t.Errorf("an upper-case id: %+v, %v", got, err)
	}
	_, err = s.Tenant(ctx, svc)
	wantCode(t, err, msgkit.NotFound, auth.CodeTenantNotFound)
	name := "Shop d.o.o."
	clock.Advance(1e9)
	got, err := s.UpdateTenant(ctx, tn.ID, auth.TenantChange{Name: &name})
	if err != nil || got.Name != name || got.Suspended || !got.UpdatedAt.After(got.CreatedAt) {
		t.Errorf("renamed: %+v, %v", got, err)
	}
	_, err = s.UpdateTenant(ctx, svc, auth.TenantChange{Name: &name})
	wantCode(t, err, msgkit.NotFound, auth.CodeTenantNotFound)
}

// Every change of a client ends its tokens; a rotated secret replaces the
// old one; a revoked client is gone with its tokens.
func TestClientAdministration(t *testing.T) {
	s, _, _ := newService(t)
	ctx := t.Context()
	c, secret := newClient(t, s)
	tok, err := s.ClientCredentials(ctx, c.ID, secret, office)
	if err != nil {
		t.Fatal(err)
	}
	privs := []auth.Privilege{auth.PrivNews, auth.PrivUIComponents}
	got, err := s.UpdateClient(ctx, c.ID, auth.ClientChange{Privileges: &privs})
	if err != nil || len(got.Privileges) != 2 || got.Name != "shop" {
		t.Fatalf("updated: %+v, %v", got, err)
	}
	_, err = s.Verify(ctx, tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	bad := []auth.Privilege{"root"}
	_, err = s.UpdateClient(ctx, c.ID, auth.ClientChange{Privileges: &bad})
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidRequest)
	none := []netip.Prefix{}
	_, err = s.UpdateClient(ctx, c.ID, auth.ClientChange{Networks: &none})
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidRequest)

	tok, err = s.ClientCredentials(ctx, c.ID, secret, office)
	if err != nil {
		t.Fatal(err)
	}
	_, fresh, err := s.RotateClientSecret(ctx, c.ID)
	if err != nil || fresh == secret || len(fresh) < 40 {
		t.Fatalf("rotated: %q, %v", fresh, err)
	}
	_, err = s.ClientCredentials(ctx, c.ID, secret, office)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidClient)
	_, err = s.Verify(ctx, tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	tok, err = s.ClientCredentials(ctx, c.ID, fresh, office)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeClient(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Verify(ctx, tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	wantCode(t, s.RevokeClient(ctx, c.ID), msgkit.NotFound, auth.CodeClientNotFound)
	_, _, err = s.RotateClientSecret(ctx, c.ID)
	wantCode(t, err, msgkit.NotFound, auth.CodeClientNotFound)
}

func TestUserAndKeyAdministration(t *testing.T) {
	s, _, _ := newService(t)
	ctx := t.Context()
	if _, err := s.CreateUser(ctx, auth.UserSpec{Username: "tester", Password: "first", Services: []msgkit.ServiceUUID{svc},
		Privileges: []auth.Privilege{auth.PrivTestSystem}}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.Password(ctx, "tester", "first")
	if err != nil {
		t.Fatal(err)
	}
	pw := "second"
	if _, err := s.UpdateUser(ctx, "tester", auth.UserChange{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Verify(ctx, tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	_, err = s.Password(ctx, "tester", "first")
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidGrant)
	if _, err := s.Password(ctx, "tester", "second"); err != nil {
		t.Fatal(err)
	}
	empty := ""
	_, err = s.UpdateUser(ctx, "tester", auth.UserChange{Password: &empty})
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidRequest)
	if err := s.DeleteUser(ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	_, err = s.User(ctx, "tester")
	wantCode(t, err, msgkit.NotFound, auth.CodeUserNotFound)

	k, key, err := s.CreateAPIKey(ctx, "provisioning", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyAPIKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAPIKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.VerifyAPIKey(ctx, key)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidAPIKey)
	wantCode(t, s.RevokeAPIKey(ctx, k.ID), msgkit.NotFound, auth.CodeAPIKeyNotFound)
}
