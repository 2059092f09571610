package authtest

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// adminTests are the administration's contract: tenants, listings, and
// the changes that end a client's or user's tokens.
func adminTests() []struct {
	name string
	fn   func(t *testing.T, s auth.Store)
} {
	return []struct {
		name string
		fn   func(t *testing.T, s auth.Store)
	}{
		{"TenantRoundTrip", testTenantRoundTrip},
		{"TenantListing", testTenantListing},
		{"GrantsRegisterTenants", testGrantsRegisterTenants},
		{"TokenTellsSuspended", testTokenTellsSuspended},
		{"ReplaceClientEndsTokens", testReplaceClientEndsTokens},
		{"DeleteClientEndsTokens", testDeleteClientEndsTokens},
		{"UserChangesEndTokens", testUserChangesEndTokens},
		{"ClientUserKeyListings", testClientUserKeyListings},
		{"DeleteAPIKey", testDeleteAPIKey},
	}
}

var svcC = msgkit.ServiceUUID("0c0c0c0c-3333-4ccc-8ccc-00000000000c")

func tenant(id msgkit.ServiceUUID, name string) auth.Tenant {
	return auth.Tenant{ID: id, Name: name, CreatedAt: t0, UpdatedAt: t0}
}

func testTenantRoundTrip(t *testing.T, s auth.Store) {
	tn := tenant(svcA, "Shop d.o.o.")
	if err := s.CreateTenant(ctx(t), tn); err != nil {
		t.Fatal(err)
	}
	requireKind(t, s.CreateTenant(ctx(t), tenant(svcA, "again")), msgkit.Conflict)
	got, err := s.Tenant(ctx(t), svcA)
	if err != nil {
		t.Fatal(err)
	}
	want := tn
	want.CreatedAt, want.UpdatedAt = storedTime(t0), storedTime(t0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tenant (-want +got):\n%s", diff)
	}
	_, err = s.Tenant(ctx(t), svcB)
	requireKind(t, err, msgkit.NotFound)

	changed := got
	changed.Name, changed.Suspended, changed.UpdatedAt = "Shop", true, t0.Add(time.Hour)
	changed.CreatedAt = t0.Add(48 * time.Hour) // not the store's to change
	if err := s.ReplaceTenant(ctx(t), changed); err != nil {
		t.Fatal(err)
	}
	got, err = s.Tenant(ctx(t), svcA)
	if err != nil {
		t.Fatal(err)
	}
	want.Name, want.Suspended, want.UpdatedAt = "Shop", true, storedTime(t0.Add(time.Hour))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replaced tenant (-want +got):\n%s", diff)
	}
	requireKind(t, s.ReplaceTenant(ctx(t), tenant(svcB, "nobody")), msgkit.NotFound)
}

func testTenantListing(t *testing.T, s auth.Store) {
	for i, tn := range []auth.Tenant{tenant(svcC, "Cafe"), tenant(svcA, "Anchor"), tenant(svcB, "bakery")} {
		tn.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
		tn.Suspended = i == 2
		if err := s.CreateTenant(ctx(t), tn); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(q msgkit.ListQuery) ([]msgkit.ServiceUUID, int) {
		t.Helper()
		page, err := s.Tenants(ctx(t), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []msgkit.ServiceUUID
		for _, tn := range page.Items {
			out = append(out, tn.ID)
		}
		return out, page.Total
	}
	got, total := ids(msgkit.ListQuery{})
	if diff := cmp.Diff([]msgkit.ServiceUUID{svcB, svcC, svcA}, got); diff != "" || total != 3 {
		t.Errorf("by id (-want +got), total %d:\n%s", total, diff)
	}
	got, _ = ids(msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "createdAt", Desc: true}}, PageNumber: 1, PageSize: 2})
	if diff := cmp.Diff([]msgkit.ServiceUUID{svcB, svcA}, got); diff != "" {
		t.Errorf("newest first, page of 2 (-want +got):\n%s", diff)
	}
	got, total = ids(msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "suspended", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.BoolValue(false)}}}})
	if diff := cmp.Diff([]msgkit.ServiceUUID{svcC, svcA}, got); diff != "" || total != 2 {
		t.Errorf("not suspended (-want +got), total %d:\n%s", total, diff)
	}
}

func testGrantsRegisterTenants(t *testing.T, s auth.Store) {
	if err := s.CreateTenant(ctx(t), tenant(svcA, "Named before")); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateClient(ctx(t), sampleClient("c1")); err != nil { // svcA, svcB
		t.Fatal(err)
	}
	if a, err := s.Tenant(ctx(t), svcA); err != nil || a.Name != "Named before" {
		t.Errorf("a registered tenant after a client named it: %+v, %v", a, err)
	}
	b, err := s.Tenant(ctx(t), svcB)
	if err != nil || b.Name != string(svcB) || b.Suspended {
		t.Errorf("the client's new tenant: %+v, %v; want registered, named by its id", b, err)
	}
	// A failed create registers nothing.
	dup := sampleClient("c1")
	dup.Services = []msgkit.ServiceUUID{svcC}
	requireKind(t, s.CreateClient(ctx(t), dup), msgkit.Conflict)
	_, err = s.Tenant(ctx(t), svcC)
	requireKind(t, err, msgkit.NotFound)
	u := auth.User{Username: "u", PasswordHash: "h", Services: []msgkit.ServiceUUID{svcC}, CreatedAt: t0}
	if err := s.CreateUser(ctx(t), u); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenant(ctx(t), svcC); err != nil {
		t.Errorf("the user's tenant: %v", err)
	}
}

func testTokenTellsSuspended(t *testing.T, s auth.Store) {
	if err := s.CreateClient(ctx(t), sampleClient("client-1")); err != nil {
		t.Fatal(err)
	}
	tok := token(1, t0.Add(time.Hour))
	tok.Principal.Services = []msgkit.ServiceUUID{svcA, svcB}
	if err := s.SaveToken(ctx(t), tok); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Token(ctx(t), tok.Hash); err != nil || len(got.Suspended) != 0 {
		t.Fatalf("before a suspension: %v, %v", got.Suspended, err)
	}
	b, err := s.Tenant(ctx(t), svcB)
	if err != nil {
		t.Fatal(err)
	}
	b.Suspended = true
	if err := s.ReplaceTenant(ctx(t), b); err != nil {
		t.Fatal(err)
	}
	got, err := s.Token(ctx(t), tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]msgkit.ServiceUUID{svcB}, got.Suspended); diff != "" {
		t.Errorf("suspended (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]msgkit.ServiceUUID{svcA, svcB}, got.Principal.Services); diff != "" {
		t.Errorf("the token's own tenants changed (-want +got):\n%s", diff)
	}
}

// tokensOf saves a token of each subject (n numbers them) and returns
// their hashes.
func tokensOf(t *testing.T, s auth.Store, n int, subjects ...auth.Principal) [][32]byte {
	t.Helper()
	out := make([][32]byte, len(subjects))
	for i, p := range subjects {
		p.ExpiresAt = t0.Add(time.Hour)
		tok := auth.Token{Hash: sha256.Sum256(fmt.Appendf(nil, "token-%d-%d", n, i)), Principal: p, IssuedAt: t0}
		if err := s.SaveToken(ctx(t), tok); err != nil {
			t.Fatal(err)
		}
		out[i] = tok.Hash
	}
	return out
}

// alive reports which of the tokens the store still has.
func alive(t *testing.T, s auth.Store, hashes [][32]byte) []bool {
	t.Helper()
	out := make([]bool, len(hashes))
	for i, h := range hashes {
		_, err := s.Token(ctx(t), h)
		if err != nil && msgkit.KindOf(err) != msgkit.NotFound {
			t.Fatal(err)
		}
		out[i] = err == nil
	}
	return out
}

// subjects are a client c1's token, another client's, and a user's named
// like the client.
var subjects = []auth.Principal{
	{Kind: auth.SubjectClient, Subject: "c1"},
	{Kind: auth.SubjectClient, Subject: "c2"},
	{Kind: auth.SubjectUser, Subject: "c1"},
}

func testReplaceClientEndsTokens(t *testing.T, s auth.Store) {
	for _, id := range []string{"c1", "c2"} {
		if err := s.CreateClient(ctx(t), sampleClient(id)); err != nil {
			t.Fatal(err)
		}
	}
	hashes := tokensOf(t, s, 1, subjects...)
	c := sampleClient("c1")
	c.Name, c.SecretHash, c.Services, c.Privileges = "Renamed", "new-hash", []msgkit.ServiceUUID{svcC}, []auth.Privilege{auth.PrivTestSystem}
	c.Networks = c.Networks[:1]
	c.CreatedAt = t0.Add(time.Hour) // not the store's to change
	if err := s.ReplaceClient(ctx(t), c); err != nil {
		t.Fatal(err)
	}
	got, err := s.Client(ctx(t), "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := c
	want.CreatedAt = storedTime(t0)
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("replaced client (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, true}, alive(t, s, hashes)); diff != "" {
		t.Errorf("tokens alive after the replace, c1's client token first (-want +got):\n%s", diff)
	}
	if _, err := s.Tenant(ctx(t), svcC); err != nil {
		t.Errorf("the replaced client's new tenant: %v", err)
	}
	requireKind(t, s.ReplaceClient(ctx(t), sampleClient("nobody")), msgkit.NotFound)
}

func testDeleteClientEndsTokens(t *testing.T, s auth.Store) {
	for _, id := range []string{"c1", "c2"} {
		if err := s.CreateClient(ctx(t), sampleClient(id)); err != nil {
			t.Fatal(err)
		}
	}
	hashes := tokensOf(t, s, 2, subjects...)
	if err := s.DeleteClient(ctx(t), "c1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Client(ctx(t), "c1")
	requireKind(t, err, msgkit.NotFound)
	if diff := cmp.Diff([]bool{false, true, true}, alive(t, s, hashes)); diff != "" {
		t.Errorf("tokens alive after the delete (-want +got):\n%s", diff)
	}
	requireKind(t, s.DeleteClient(ctx(t), "c1"), msgkit.NotFound)
	if _, err := s.Client(ctx(t), "c2"); err != nil {
		t.Errorf("deleting c1 removed c2: %v", err)
	}
}

func testUserChangesEndTokens(t *testing.T, s auth.Store) {
	u := auth.User{Username: "c1", PasswordHash: "h1", Services: []msgkit.ServiceUUID{svcA}, Privileges: []auth.Privilege{auth.PrivTestSystem}, CreatedAt: t0}
	if err := s.CreateUser(ctx(t), u); err != nil {
		t.Fatal(err)
	}
	hashes := tokensOf(t, s, 3, subjects...)
	u.PasswordHash, u.Services, u.Privileges = "h2", []msgkit.ServiceUUID{svcB}, nil
	if err := s.ReplaceUser(ctx(t), u); err != nil {
		t.Fatal(err)
	}
	got, err := s.User(ctx(t), "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := u
	want.CreatedAt = storedTime(t0)
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("replaced user (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true, false}, alive(t, s, hashes)); diff != "" {
		t.Errorf("tokens alive after the user's replace (-want +got):\n%s", diff)
	}
	hashes = tokensOf(t, s, 4, subjects[2])
	if err := s.DeleteUser(ctx(t), "c1"); err != nil {
		t.Fatal(err)
	}
	if alive(t, s, hashes)[0] {
		t.Error("a deleted user's token lives")
	}
	requireKind(t, s.DeleteUser(ctx(t), "c1"), msgkit.NotFound)
	requireKind(t, s.ReplaceUser(ctx(t), u), msgkit.NotFound)
}

func testClientUserKeyListings(t *testing.T, s auth.Store) {
	for i, id := range []string{"b", "a", "C"} {
		c := sampleClient(id)
		c.Name = "client " + id
		c.CreatedAt = t0.Add(time.Duration(i) * time.Second)
		if err := s.CreateClient(ctx(t), c); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateUser(ctx(t), auth.User{Username: id, PasswordHash: "h", CreatedAt: c.CreatedAt}); err != nil {
			t.Fatal(err)
		}
		k := auth.APIKey{ID: "key-" + id, Name: "key " + id, Hash: sha256.Sum256([]byte(id)), CreatedAt: c.CreatedAt}
		if err := s.CreateAPIKey(ctx(t), k); err != nil {
			t.Fatal(err)
		}
	}
	clients, err := s.Clients(ctx(t), msgkit.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range clients.Items {
		got = append(got, c.ID)
	}
	// Byte order: capitals first.
	if diff := cmp.Diff([]string{"C", "a", "b"}, got); diff != "" || clients.Total != 3 {
		t.Errorf("clients by id (-want +got):\n%s", diff)
	}
	want := sampleClient("a")
	want.Name, want.CreatedAt = "client a", storedTime(t0.Add(time.Second))
	if diff := cmp.Diff(want, clients.Items[1], equate); diff != "" {
		t.Errorf("a listed client (-want +got):\n%s", diff)
	}
	users, err := s.Users(ctx(t), msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "createdAt", Desc: true}}, PageNumber: 2, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(users.Items) != 1 || users.Items[0].Username != "b" || users.Total != 3 {
		t.Errorf("users, oldest on page 2 of 2: %+v (total %d)", users.Items, users.Total)
	}
	keys, err := s.APIKeys(ctx(t), msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "name", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("key a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys.Items) != 1 || keys.Items[0].ID != "key-a" || keys.Items[0].Hash != sha256.Sum256([]byte("a")) {
		t.Errorf("keys named key a: %+v", keys.Items)
	}
}

func testDeleteAPIKey(t *testing.T, s auth.Store) {
	k := auth.APIKey{ID: "key-1", Name: "provisioning", Hash: sha256.Sum256([]byte("secret-key-1")), CreatedAt: t0}
	if err := s.CreateAPIKey(ctx(t), k); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAPIKey(ctx(t), "key-1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.APIKey(ctx(t), k.Hash)
	requireKind(t, err, msgkit.NotFound)
	requireKind(t, s.DeleteAPIKey(ctx(t), "key-1"), msgkit.NotFound)
}
