package pgstore

import (
	"context"
	"crypto/sha256"
	"errors"
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/audit/audittest"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/auth/authtest"
)

func TestAuthContract(t *testing.T) {
	t.Parallel()
	authtest.Run(t, func(t *testing.T) auth.Store { return newTestAuth(t) })
}

// The tests below cover what is particular to PostgreSQL; the contract
// suite covers the rest.

func TestAuthNilAndEmptySlicesRoundTrip(t *testing.T) {
	t.Parallel()
	s := newTestAuth(t)
	ctx := t.Context()
	clients := []auth.Client{
		{ID: "nil", SecretHash: "h"},
		{ID: "empty", SecretHash: "h", Networks: []netip.Prefix{}, Services: []msgkit.ServiceUUID{}, Privileges: []auth.Privilege{}},
		{ID: "unmasked", SecretHash: "h", Networks: []netip.Prefix{
			netip.MustParsePrefix("10.1.2.3/8"), netip.MustParsePrefix("::ffff:192.0.2.1/128"), netip.MustParsePrefix("0.0.0.0/0"),
		}},
	}
	for _, c := range clients {
		if err := s.CreateClient(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Client(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		// No EquateEmpty: nil and empty are told apart.
		if diff := cmp.Diff(c, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
			t.Errorf("client %s (-want +got):\n%s", c.ID, diff)
		}
	}
}

func TestAuthZeroTimesRoundTrip(t *testing.T) {
	t.Parallel()
	s := newTestAuth(t)
	ctx := t.Context()
	tok := auth.Token{Hash: sha256.Sum256([]byte("zero")), Principal: auth.Principal{Kind: auth.SubjectUser, Subject: "u"}}
	if err := s.SaveToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	got, err := s.Token(ctx, tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IssuedAt.IsZero() || !got.Principal.ExpiresAt.IsZero() {
		t.Errorf("zero times came back as %v, %v", got.IssuedAt, got.Principal.ExpiresAt)
	}
}

func TestAuthUnstorableText(t *testing.T) {
	t.Parallel()
	s := newTestAuth(t)
	ctx := t.Context()
	for _, key := range []string{"nul\x00byte", "bad\xffutf8"} {
		if _, err := s.Client(ctx, key); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("Client(%q) = %v, want not found", key, err)
		}
		if _, err := s.User(ctx, key); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("User(%q) = %v, want not found", key, err)
		}
	}
	writes := []struct {
		name  string
		err   error
		field string
	}{
		{"client id", s.CreateClient(ctx, auth.Client{ID: "a\x00"}), "id"},
		{"client service", s.CreateClient(ctx, auth.Client{ID: "a", Services: []msgkit.ServiceUUID{"\xff"}}), "services"},
		{"user name", s.CreateUser(ctx, auth.User{Username: "u\xff"}), "username"},
		{"token subject", s.SaveToken(ctx, auth.Token{Principal: auth.Principal{Subject: "\x00"}}), "subject"},
		{"api key name", s.CreateAPIKey(ctx, auth.APIKey{ID: "k", Name: "\x00"}), "name"},
		{"invalid prefix", s.CreateClient(ctx, auth.Client{ID: "b", Networks: []netip.Prefix{{}}}), "networks"},
	}
	for _, w := range writes {
		e, ok := errors.AsType[*msgkit.Error](w.err)
		if !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != w.field {
			t.Errorf("%s: error %v, want invalid naming %s", w.name, w.err, w.field)
		}
	}
	if _, err := s.Client(ctx, "a"); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("a refused client was stored: %v", err)
	}
}

func TestAuthCorruptRowIsInternal(t *testing.T) {
	t.Parallel()
	s := newTestAuth(t)
	ctx := t.Context()
	_, err := s.pool.Exec(ctx, `INSERT INTO auth_clients (id, name, secret_hash, networks, created_at)
		VALUES ('c', '', 'h', '{not-a-prefix}', now())`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Client(ctx, "c")
	if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage {
		t.Fatalf("error %v, want internal %s", err, CodeStorage)
	}
}

func TestAuthClosedStoreIsInternal(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	db.Close()
	_, err := db.Auth().Token(t.Context(), [32]byte{})
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Kind != msgkit.Internal || e.Code != CodeStorage || e.Message != "storage error" || e.Err == nil {
		t.Fatalf("error %#v, want internal %s with a generic message and its cause", err, CodeStorage)
	}
}

func TestAuthCancelledContext(t *testing.T) {
	t.Parallel()
	s := newTestAuth(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.User(ctx, "u")
	if !errors.Is(err, context.Canceled) || msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("error %v, want internal wrapping context.Canceled", err)
	}
}

func BenchmarkTokenLookup(b *testing.B) {
	s := newTestAuth(b)
	ctx := b.Context()
	now := time.Now()
	tok := auth.Token{
		Hash: sha256.Sum256([]byte("bench")),
		Principal: auth.Principal{
			Kind: auth.SubjectClient, Subject: "client-1",
			Services:   []msgkit.ServiceUUID{"6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"},
			Privileges: []auth.Privilege{auth.PrivNews, auth.PrivFinanceBalanceView},
			ExpiresAt:  now.Add(time.Hour),
		},
		IssuedAt: now,
	}
	if err := s.SaveToken(ctx, tok); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := s.Token(ctx, tok.Hash)
		if err != nil {
			b.Fatal(err)
		}
		if got.Principal.Subject != "client-1" {
			b.Fatalf("subject %q", got.Principal.Subject)
		}
	}
}

// newTestAuth is newTestDB's auth store.
func newTestAuth(tb testing.TB) *AuthStore {
	tb.Helper()
	return newTestDB(tb).Auth()
}

func TestAuditContract(t *testing.T) {
	t.Parallel()
	audittest.Run(t, func(t *testing.T) audit.Store { return newTestDB(t).Audit() })
}
