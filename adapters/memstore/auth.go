package memstore

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit/auth"
)

var _ auth.Store = (*AuthStore)(nil)

// AuthStore keeps API clients, users, tokens and API keys in memory. Its
// records are deep copies, so callers can never change what the store
// holds through a slice they passed in or got back (tokens excepted, see
// Token).
type AuthStore struct {
	mu      sync.RWMutex
	clients *table[string, auth.Client]
	users   *table[string, auth.User]
	tokens  *table[[32]byte, auth.Token]
	keys    *table[[32]byte, auth.APIKey]
}

func newAuthStore() *AuthStore {
	s := &AuthStore{}
	s.clients = newTable(&s.mu, "client", func(id string) string { return "client " + id },
		func(c auth.Client) auth.Client {
			c.CreatedAt = storedTime(c.CreatedAt)
			return cloneClient(c)
		}, cloneClient)
	s.users = newTable(&s.mu, "user", func(name string) string { return "user " + name },
		func(u auth.User) auth.User {
			u.CreatedAt = storedTime(u.CreatedAt)
			return cloneUser(u)
		}, cloneUser)
	s.tokens = newTable(&s.mu, "token", func([32]byte) string { return "token" },
		func(t auth.Token) auth.Token {
			t.IssuedAt = storedTime(t.IssuedAt)
			t.Principal.ExpiresAt = storedTime(t.Principal.ExpiresAt)
			t.Principal.Services = slices.Clone(t.Principal.Services)
			t.Principal.Privileges = slices.Clone(t.Principal.Privileges)
			return t
		}, nil) // see Token
	s.keys = newTable(&s.mu, "api_key", func([32]byte) string { return "API key" },
		func(k auth.APIKey) auth.APIKey {
			k.CreatedAt = storedTime(k.CreatedAt)
			return k
		}, nil)
	return s
}

// storedTime is a time as every store keeps it: microseconds, UTC.
func storedTime(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

func cloneClient(c auth.Client) auth.Client {
	c.Networks = slices.Clone(c.Networks)
	c.Services = slices.Clone(c.Services)
	c.Privileges = slices.Clone(c.Privileges)
	return c
}

func cloneUser(u auth.User) auth.User {
	u.Services = slices.Clone(u.Services)
	u.Privileges = slices.Clone(u.Privileges)
	return u
}

// CreateClient stores c; an existing id is a Conflict.
func (s *AuthStore) CreateClient(ctx context.Context, c auth.Client) error {
	return s.clients.insert(c.ID, c)
}

// Client returns the client with id, or NotFound.
func (s *AuthStore) Client(ctx context.Context, id string) (auth.Client, error) {
	return s.clients.get(id)
}

// CreateUser stores u; an existing username is a Conflict.
func (s *AuthStore) CreateUser(ctx context.Context, u auth.User) error {
	return s.users.insert(u.Username, u)
}

// User returns the user, or NotFound.
func (s *AuthStore) User(ctx context.Context, username string) (auth.User, error) {
	return s.users.get(username)
}

// SaveToken stores t; an existing hash is a Conflict.
func (s *AuthStore) SaveToken(ctx context.Context, t auth.Token) error {
	return s.tokens.insert(t.Hash, t)
}

// Token returns the token with hash, or NotFound. Its slices are shared
// with the store and must not be modified: verification runs on every
// request and copies would cost allocations.
func (s *AuthStore) Token(ctx context.Context, hash [32]byte) (auth.Token, error) {
	return s.tokens.get(hash)
}

// DeleteToken removes the token with hash, or answers NotFound.
func (s *AuthStore) DeleteToken(ctx context.Context, hash [32]byte) error {
	return s.tokens.delete(hash)
}

// DeleteExpiredTokens removes tokens expired at or before now.
func (s *AuthStore) DeleteExpiredTokens(ctx context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for h, t := range s.tokens.rows {
		if !t.Principal.ExpiresAt.After(now) {
			delete(s.tokens.rows, h)
			n++
		}
	}
	return n, nil
}

// CreateAPIKey stores k; an existing hash or id is a Conflict.
func (s *AuthStore) CreateAPIKey(ctx context.Context, k auth.APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, other := range s.keys.rows {
		if other.ID == k.ID {
			return s.keys.exists(k.Hash)
		}
	}
	return s.keys.insertLocked(k.Hash, k)
}

// APIKey returns the key with hash, or NotFound.
func (s *AuthStore) APIKey(ctx context.Context, hash [32]byte) (auth.APIKey, error) {
	return s.keys.get(hash)
}
