// Package authtest is the contract every auth.Store implementation meets.
// memstore and pgstore both call Run; a behaviour that differs
// between them is a bug.
package authtest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// Run runs the contract against stores made by newStore, one
// fresh, empty store per subtest. The subtests run in parallel, so
// newStore must give each its own store (a schema each, on PostgreSQL).
func Run(t *testing.T, newStore func(t *testing.T) auth.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s auth.Store)
	}{
		{"ClientRoundTrip", testClientRoundTrip},
		{"ClientNotFoundAndConflict", testClientNotFoundAndConflict},
		{"ClientCopies", testClientCopies},
		{"UserRoundTrip", testUserRoundTrip},
		{"TokenLifecycle", testTokenLifecycle},
		{"DeleteExpiredTokens", testDeleteExpiredTokens},
		{"APIKeys", testAPIKeys},
		{"ConcurrentTokens", testConcurrentTokens},
	}
	tests = append(tests, adminTests()...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

var (
	svcA = msgkit.ServiceUUID("6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
	svcB = msgkit.ServiceUUID("0b7e3c1a-9d2f-4c6e-b8a1-5f4e3d2c1b0a")
	// t0 has nanoseconds and a zone on purpose: stores keep microseconds in UTC.
	t0 = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.FixedZone("CET", 3600))
)

func ctx(t *testing.T) context.Context { return t.Context() }

func requireKind(t *testing.T, err error, kind msgkit.Kind) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
}

func sampleClient(id string) auth.Client {
	return auth.Client{
		ID:         id,
		Name:       "Shop backend",
		SecretHash: "$2a$04$abcdefghijklmnopqrstuu5Cq2Zk0bF2bS0mB0D3Y5yW8bZK1ZQzS",
		Networks:   []netip.Prefix{netip.MustParsePrefix("192.0.2.10/32"), netip.MustParsePrefix("2001:db8::/48")},
		Services:   []msgkit.ServiceUUID{svcA, svcB},
		Privileges: []auth.Privilege{auth.PrivNews, auth.PrivFinanceBalanceView},
		CreatedAt:  t0,
	}
}

// stored is what a store gives back for a record written at t0.
func storedTime(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

var equate = cmp.Options{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })}

func testClientRoundTrip(t *testing.T, s auth.Store) {
	c := sampleClient("client-1")
	if err := s.CreateClient(ctx(t), c); err != nil {
		t.Fatal(err)
	}
	got, err := s.Client(ctx(t), "client-1")
	if err != nil {
		t.Fatal(err)
	}
	want := c
	want.CreatedAt = storedTime(c.CreatedAt)
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("client (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt in %v, want UTC", got.CreatedAt.Location())
	}
	bare := auth.Client{ID: "client-2", SecretHash: "h", CreatedAt: t0}
	if err := s.CreateClient(ctx(t), bare); err != nil {
		t.Fatal(err)
	}
	got, err = s.Client(ctx(t), "client-2")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Networks)+len(got.Services)+len(got.Privileges) != 0 || got.SecretHash != "h" {
		t.Errorf("a client without grants came back as %+v", got)
	}
}

func testClientNotFoundAndConflict(t *testing.T, s auth.Store) {
	_, err := s.Client(ctx(t), "nobody")
	requireKind(t, err, msgkit.NotFound)
	if err := s.CreateClient(ctx(t), sampleClient("c")); err != nil {
		t.Fatal(err)
	}
	other := sampleClient("c")
	other.Name = "impostor"
	requireKind(t, s.CreateClient(ctx(t), other), msgkit.Conflict)
	got, err := s.Client(ctx(t), "c")
	if err != nil || got.Name != "Shop backend" {
		t.Fatalf("a conflicting create changed the client: %+v, %v", got, err)
	}
	_, err = s.User(ctx(t), "c")
	requireKind(t, err, msgkit.NotFound)
}

func testClientCopies(t *testing.T, s auth.Store) {
	c := sampleClient("c")
	if err := s.CreateClient(ctx(t), c); err != nil {
		t.Fatal(err)
	}
	c.Services[0] = "changed"
	got, err := s.Client(ctx(t), "c")
	if err != nil {
		t.Fatal(err)
	}
	if got.Services[0] != svcA {
		t.Fatal("the store kept the caller's slice")
	}
	got.Privileges[0] = "changed"
	again, err := s.Client(ctx(t), "c")
	if err != nil {
		t.Fatal(err)
	}
	if again.Privileges[0] != auth.PrivNews {
		t.Fatal("the store handed out its own slice")
	}
}

func testUserRoundTrip(t *testing.T, s auth.Store) {
	u := auth.User{
		Username: "tester@example.com", PasswordHash: "$2a$04$hash",
		Services: []msgkit.ServiceUUID{svcB}, Privileges: []auth.Privilege{auth.PrivTestSystem}, CreatedAt: t0,
	}
	if err := s.CreateUser(ctx(t), u); err != nil {
		t.Fatal(err)
	}
	got, err := s.User(ctx(t), u.Username)
	if err != nil {
		t.Fatal(err)
	}
	want := u
	want.CreatedAt = storedTime(t0)
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	requireKind(t, s.CreateUser(ctx(t), u), msgkit.Conflict)
	_, err = s.User(ctx(t), "Tester@example.com")
	requireKind(t, err, msgkit.NotFound) // usernames are exact
}

func token(n int, expires time.Time) auth.Token {
	return auth.Token{
		Hash: sha256.Sum256(fmt.Appendf(nil, "token-%d", n)),
		Principal: auth.Principal{
			Kind: auth.SubjectClient, Subject: "client-1",
			Services: []msgkit.ServiceUUID{svcA}, Privileges: []auth.Privilege{auth.PrivNews},
			ExpiresAt: expires,
		},
		IssuedAt: t0,
	}
}

func testTokenLifecycle(t *testing.T, s auth.Store) {
	tok := token(1, t0.Add(time.Hour))
	if err := s.SaveToken(ctx(t), tok); err != nil {
		t.Fatal(err)
	}
	requireKind(t, s.SaveToken(ctx(t), tok), msgkit.Conflict)
	got, err := s.Token(ctx(t), tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	want := tok
	want.IssuedAt = storedTime(t0)
	want.Principal.ExpiresAt = storedTime(t0.Add(time.Hour))
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}
	user := token(2, t0.Add(time.Hour))
	user.Principal.Kind, user.Principal.Subject = auth.SubjectUser, "tester"
	if err := s.SaveToken(ctx(t), user); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Token(ctx(t), user.Hash); err != nil || got.Principal.Kind != auth.SubjectUser || got.Principal.Subject != "tester" {
		t.Fatalf("user token came back as %+v, %v", got.Principal, err)
	}
	if err := s.DeleteToken(ctx(t), tok.Hash); err != nil {
		t.Fatal(err)
	}
	_, err = s.Token(ctx(t), tok.Hash)
	requireKind(t, err, msgkit.NotFound)
	requireKind(t, s.DeleteToken(ctx(t), tok.Hash), msgkit.NotFound)
	if _, err := s.Token(ctx(t), user.Hash); err != nil {
		t.Fatalf("deleting one token removed another: %v", err)
	}
}

func testDeleteExpiredTokens(t *testing.T, s auth.Store) {
	now := t0.Add(time.Hour)
	expired := []auth.Token{token(1, now.Add(-time.Second)), token(2, now)} // at now counts as expired
	alive := []auth.Token{token(3, now.Add(time.Microsecond)), token(4, now.Add(time.Hour))}
	for _, tok := range append(append([]auth.Token{}, expired...), alive...) {
		if err := s.SaveToken(ctx(t), tok); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeleteExpiredTokens(ctx(t), now)
	if err != nil || n != len(expired) {
		t.Fatalf("DeleteExpiredTokens = %d, %v; want %d", n, err, len(expired))
	}
	for _, tok := range expired {
		_, err := s.Token(ctx(t), tok.Hash)
		requireKind(t, err, msgkit.NotFound)
	}
	for _, tok := range alive {
		if _, err := s.Token(ctx(t), tok.Hash); err != nil {
			t.Errorf("a live token was purged: %v", err)
		}
	}
	if n, err := s.DeleteExpiredTokens(ctx(t), now); err != nil || n != 0 {
		t.Errorf("second purge = %d, %v; want 0", n, err)
	}
}

func testAPIKeys(t *testing.T, s auth.Store) {
	k := auth.APIKey{ID: "key-1", Name: "provisioning", Hash: sha256.Sum256([]byte("secret-key-1")), CreatedAt: t0}
	if err := s.CreateAPIKey(ctx(t), k); err != nil {
		t.Fatal(err)
	}
	got, err := s.APIKey(ctx(t), k.Hash)
	if err != nil {
		t.Fatal(err)
	}
	want := k
	want.CreatedAt = storedTime(t0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("key (-want +got):\n%s", diff)
	}
	_, err = s.APIKey(ctx(t), sha256.Sum256([]byte("other")))
	requireKind(t, err, msgkit.NotFound)
	sameHash := k
	sameHash.ID = "key-2"
	requireKind(t, s.CreateAPIKey(ctx(t), sameHash), msgkit.Conflict)
	sameID := k
	sameID.Hash = sha256.Sum256([]byte("secret-key-2"))
	requireKind(t, s.CreateAPIKey(ctx(t), sameID), msgkit.Conflict)
}

func testConcurrentTokens(t *testing.T, s auth.Store) {
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			tok := token(i, t0.Add(time.Hour))
			if err := s.SaveToken(ctx(t), tok); err != nil {
				errs <- err
				return
			}
			if _, err := s.Token(ctx(t), tok.Hash); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n2, err := s.DeleteExpiredTokens(ctx(t), t0.Add(2*time.Hour)); err != nil || n2 != n {
		t.Errorf("purge after concurrent saves = %d, %v; want %d", n2, err, n)
	}
}
