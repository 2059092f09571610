package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/msgkittest"
	"golang.org/x/crypto/bcrypt"
)

const svc = msgkit.ServiceUUID("6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")

func newService(t testing.TB) (*auth.Service, *memstore.AuthStore, *msgkittest.Clock) {
	clock := msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	store := memstore.New().Auth()
	return auth.New(store, auth.Options{BcryptCost: bcrypt.MinCost, Clock: clock.Now}), store, clock
}

var office = netip.MustParseAddr("192.0.2.10")

func newClient(t testing.TB, s *auth.Service) (auth.Client, string) {
	c, secret, err := s.CreateClient(t.Context(), auth.ClientSpec{
		Name:       "shop",
		Networks:   []netip.Prefix{netip.MustParsePrefix("192.0.2.0/28")},
		Services:   []msgkit.ServiceUUID{svc},
		Privileges: []auth.Privilege{auth.PrivNews},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, secret
}

func wantCode(t *testing.T, err error, kind msgkit.Kind, code string) {
	t.Helper()
	if !errors.Is(err, kind) || msgkit.CodeOf(err) != code {
		t.Fatalf("error %v, want %v %s", err, kind, code)
	}
}

func TestClientCredentials(t *testing.T) {
	s, store, _ := newService(t)
	c, secret := newClient(t, s)
	if len(secret) < 40 {
		t.Fatalf("generated secret %q is short", secret)
	}
	stored, err := store.Client(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.SecretHash == secret || bcrypt.CompareHashAndPassword([]byte(stored.SecretHash), []byte(secret)) != nil {
		t.Fatal("the store does not hold a bcrypt hash of the secret")
	}

	tok, err := s.ClientCredentials(t.Context(), c.ID, secret, office)
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 {
		t.Errorf("token %+v", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok.AccessToken)
	if err != nil || len(raw) < 32 {
		t.Errorf("token %q carries %d bytes, want >= 32 random bytes", tok.AccessToken, len(raw))
	}
	if _, err := store.Token(t.Context(), sha256.Sum256([]byte(tok.AccessToken))); err != nil {
		t.Errorf("the store does not hold the token's hash: %v", err)
	}
	p, err := s.Verify(t.Context(), tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != c.ID || p.Kind != auth.SubjectClient || !p.ActsFor(svc) || !p.HasAny(auth.PrivNews) || p.HasAny(auth.PrivTestSystem) {
		t.Errorf("principal %+v", p)
	}
	if p.ActsFor("0b7e3c1a-9d2f-4c6e-b8a1-5f4e3d2c1b0a") {
		t.Error("a principal acts for a tenant it was not given")
	}
	other, err := s.ClientCredentials(t.Context(), c.ID, secret, netip.MustParseAddr("::ffff:192.0.2.11"))
	if err != nil {
		t.Fatalf("an IPv4-mapped address inside the range is refused: %v", err)
	}
	if other.AccessToken == tok.AccessToken {
		t.Error("two grants gave the same token")
	}

	_, err = s.ClientCredentials(t.Context(), c.ID, secret+"x", office)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidClient)
	_, err = s.ClientCredentials(t.Context(), "nobody", secret, office)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidClient)
	_, err = s.ClientCredentials(t.Context(), c.ID, "", office)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidClient)
	_, err = s.ClientCredentials(t.Context(), c.ID, secret, netip.MustParseAddr("198.51.100.7"))
	wantCode(t, err, msgkit.Forbidden, auth.CodeUnauthorizedClient)
	_, err = s.ClientCredentials(t.Context(), c.ID, secret+"x", netip.MustParseAddr("198.51.100.7"))
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidClient) // the address is told only to the secret's holder
}

func TestTokenExpiry(t *testing.T) {
	s, store, clock := newService(t)
	c, secret := newClient(t, s)
	tok, err := s.ClientCredentials(t.Context(), c.ID, secret, office)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(3599 * time.Second)
	if _, err := s.Verify(t.Context(), tok.AccessToken); err != nil {
		t.Fatalf("token refused before its expiry: %v", err)
	}
	clock.Advance(time.Second)
	_, err = s.Verify(t.Context(), tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	if _, err := store.Token(t.Context(), sha256.Sum256([]byte(tok.AccessToken))); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("an expired token presented is not deleted: %v", err)
	}
	for _, bad := range []string{"", "nonsense", tok.AccessToken + "x", string(make([]byte, 600))} {
		_, err := s.Verify(t.Context(), bad)
		wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)
	}
}

func TestPurgeExpired(t *testing.T) {
	s, _, clock := newService(t)
	c, secret := newClient(t, s)
	for range 3 {
		if _, err := s.ClientCredentials(t.Context(), c.ID, secret, office); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.PurgeExpired(t.Context()); err != nil || n != 0 {
		t.Fatalf("purged %d, %v before expiry", n, err)
	}
	clock.Advance(time.Hour)
	if n, err := s.PurgeExpired(t.Context()); err != nil || n != 3 {
		t.Fatalf("purged %d, %v; want 3", n, err)
	}
}

func TestPasswordGrant(t *testing.T) {
	s, _, clock := newService(t)
	if _, err := s.CreateUser(t.Context(), auth.UserSpec{Username: "tester", Password: "correct horse", Services: []msgkit.ServiceUUID{svc}, Privileges: []auth.Privilege{auth.PrivTestSystem}}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.Password(t.Context(), "tester", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if tok.ExpiresIn != 3600 {
		t.Errorf("password tokens live %d s, the OAuth interface says 3600", tok.ExpiresIn)
	}
	p, err := s.Verify(t.Context(), tok.AccessToken)
	if err != nil || p.Kind != auth.SubjectUser || p.Subject != "tester" || !p.HasAny(auth.PrivTestSystem) {
		t.Fatalf("principal %+v, %v", p, err)
	}
	clock.Advance(auth.PasswordTokenTTL)
	_, err = s.Verify(t.Context(), tok.AccessToken)
	wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidToken)

	_, err = s.Password(t.Context(), "tester", "wrong")
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidGrant)
	_, err = s.Password(t.Context(), "nobody", "correct horse")
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidGrant)
	_, err = s.Password(t.Context(), "tester", "")
	wantCode(t, err, msgkit.Invalid, auth.CodeInvalidRequest)
	_, err = s.CreateUser(t.Context(), auth.UserSpec{Username: "tester", Password: "x"})
	wantCode(t, err, msgkit.Conflict, "user_exists")
}

func TestSecretHashes(t *testing.T) {
	s, _, _ := newService(t)
	hash, _ := bcrypt.GenerateFromPassword([]byte("from-vault"), bcrypt.MinCost)
	c, secret, err := s.CreateClient(t.Context(), auth.ClientSpec{
		ID: "ops", SecretHash: string(hash), Networks: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")},
	})
	if err != nil || secret != "" {
		t.Fatalf("CreateClient with a hash = %q, %v", secret, err)
	}
	if _, err := s.ClientCredentials(t.Context(), c.ID, "from-vault", office); err != nil {
		t.Fatalf("the hashed secret does not verify: %v", err)
	}
	_, secret, err = s.CreateClient(t.Context(), auth.ClientSpec{ID: "given", Secret: "s3cret-given", Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.10/32")}})
	if err != nil || secret != "s3cret-given" {
		t.Fatalf("CreateClient with a secret = %q, %v", secret, err)
	}
}

func TestCreateValidation(t *testing.T) {
	s, _, _ := newService(t)
	nets := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	tests := []struct {
		name  string
		spec  auth.ClientSpec
		field string
	}{
		{"no networks", auth.ClientSpec{}, "networks"},
		{"invalid network", auth.ClientSpec{Networks: []netip.Prefix{{}}}, "networks"},
		{"bad service", auth.ClientSpec{Networks: nets, Services: []msgkit.ServiceUUID{"not-a-uuid"}}, "services"},
		{"upper-case service", auth.ClientSpec{Networks: nets, Services: []msgkit.ServiceUUID{"6F1C2A8E-3B4D-4E5F-8A9B-0C1D2E3F4A5B"}}, "services"},
		{"unknown privilege", auth.ClientSpec{Networks: nets, Privileges: []auth.Privilege{"root"}}, "privileges"},
		{"bad hash", auth.ClientSpec{Networks: nets, SecretHash: "plain"}, "secret_hash"},
		{"secret and hash", auth.ClientSpec{Networks: nets, Secret: "a", SecretHash: "$2a$04$x"}, "secret"},
		{"long secret", auth.ClientSpec{Networks: nets, Secret: string(make([]byte, 73))}, "secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.CreateClient(t.Context(), tc.spec)
			var e *msgkit.Error
			if !errors.As(err, &e) || e.Kind != msgkit.Invalid || len(e.Fields) == 0 || e.Fields[0].Name != tc.field {
				t.Fatalf("error %v, want Invalid naming %s", err, tc.field)
			}
		})
	}
}

func TestAPIKeys(t *testing.T) {
	s, store, _ := newService(t)
	k, key, err := s.CreateAPIKey(t.Context(), "routing", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.APIKey(t.Context(), sha256.Sum256([]byte(key))); err != nil || got.ID != k.ID {
		t.Fatalf("stored key %+v, %v", got, err)
	}
	if got, err := s.VerifyAPIKey(t.Context(), key); err != nil || got.Name != "routing" {
		t.Fatalf("VerifyAPIKey = %+v, %v", got, err)
	}
	for _, bad := range []string{"", key + "x", "short"} {
		_, err := s.VerifyAPIKey(t.Context(), bad)
		wantCode(t, err, msgkit.Unauthorized, auth.CodeInvalidAPIKey)
	}
	if _, _, err := s.CreateAPIKey(t.Context(), "weak", "short"); !errors.Is(err, msgkit.Invalid) {
		t.Errorf("a short key is accepted: %v", err)
	}
	if _, given, err := s.CreateAPIKey(t.Context(), "given", "demo-routing-key-0001"); err != nil || given != "demo-routing-key-0001" {
		t.Errorf("a given key: %q, %v", given, err)
	}
}

func BenchmarkVerify(b *testing.B) {
	s, _, _ := newService(b)
	c, secret := newClient(b, s)
	tok, err := s.ClientCredentials(b.Context(), c.ID, secret, office)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Verify(b.Context(), tok.AccessToken); err != nil {
			b.Fatal(err)
		}
	}
}
