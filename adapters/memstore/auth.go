package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

var _ auth.Store = (*Store)(nil)

// authData holds deep copies, so callers can never change what the store
// holds through a slice they passed in or got back (tokens excepted, see
// Token).
type authData struct {
	guarded
	clients map[string]auth.Client
	users   map[string]auth.User
	tokens  map[[32]byte]auth.Token
	keys    map[[32]byte]auth.APIKey
}

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
func (s *Store) CreateClient(ctx context.Context, c auth.Client) error {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.clients[c.ID]; ok {
		return msgkit.Errorf(msgkit.Conflict, "client_exists", "client %s exists", c.ID)
	}
	c.CreatedAt = c.CreatedAt.Truncate(time.Microsecond).UTC()
	d.clients[c.ID] = cloneClient(c)
	return nil
}

// Client returns the client with id, or NotFound.
func (s *Store) Client(ctx context.Context, id string) (auth.Client, error) {
	d := &s.auth
	d.mu.RLock()
	defer d.mu.RUnlock()
	c, ok := d.clients[id]
	if !ok {
		return auth.Client{}, msgkit.Errorf(msgkit.NotFound, "client_not_found", "client %s not found", id)
	}
	return cloneClient(c), nil
}

// CreateUser stores u; an existing username is a Conflict.
func (s *Store) CreateUser(ctx context.Context, u auth.User) error {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.users[u.Username]; ok {
		return msgkit.Errorf(msgkit.Conflict, "user_exists", "user %s exists", u.Username)
	}
	u.CreatedAt = u.CreatedAt.Truncate(time.Microsecond).UTC()
	d.users[u.Username] = cloneUser(u)
	return nil
}

// User returns the user, or NotFound.
func (s *Store) User(ctx context.Context, username string) (auth.User, error) {
	d := &s.auth
	d.mu.RLock()
	defer d.mu.RUnlock()
	u, ok := d.users[username]
	if !ok {
		return auth.User{}, msgkit.Errorf(msgkit.NotFound, "user_not_found", "user %s not found", username)
	}
	return cloneUser(u), nil
}

// SaveToken stores t; an existing hash is a Conflict.
func (s *Store) SaveToken(ctx context.Context, t auth.Token) error {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tokens[t.Hash]; ok {
		return msgkit.New(msgkit.Conflict, "token_exists", "token exists")
	}
	t.IssuedAt = t.IssuedAt.Truncate(time.Microsecond).UTC()
	t.Principal.ExpiresAt = t.Principal.ExpiresAt.Truncate(time.Microsecond).UTC()
	t.Principal.Services = slices.Clone(t.Principal.Services)
	t.Principal.Privileges = slices.Clone(t.Principal.Privileges)
	d.tokens[t.Hash] = t
	return nil
}

// Token returns the token with hash, or NotFound. Its slices are shared
// with the store and must not be modified: verification runs on every
// request and copies would cost allocations.
func (s *Store) Token(ctx context.Context, hash [32]byte) (auth.Token, error) {
	d := &s.auth
	d.mu.RLock()
	t, ok := d.tokens[hash]
	d.mu.RUnlock()
	if !ok {
		return auth.Token{}, msgkit.New(msgkit.NotFound, "token_not_found", "token not found")
	}
	return t, nil
}

// DeleteToken removes the token with hash, or answers NotFound.
func (s *Store) DeleteToken(ctx context.Context, hash [32]byte) error {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tokens[hash]; !ok {
		return msgkit.New(msgkit.NotFound, "token_not_found", "token not found")
	}
	delete(d.tokens, hash)
	return nil
}

// DeleteExpiredTokens removes tokens expired at or before now.
func (s *Store) DeleteExpiredTokens(ctx context.Context, now time.Time) (int, error) {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for h, t := range d.tokens {
		if !t.Principal.ExpiresAt.After(now) {
			delete(d.tokens, h)
			n++
		}
	}
	return n, nil
}

// CreateAPIKey stores k; an existing hash or id is a Conflict.
func (s *Store) CreateAPIKey(ctx context.Context, k auth.APIKey) error {
	d := &s.auth
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.keys[k.Hash]; ok {
		return msgkit.New(msgkit.Conflict, "api_key_exists", "API key exists")
	}
	for _, other := range d.keys {
		if other.ID == k.ID {
			return msgkit.New(msgkit.Conflict, "api_key_exists", "API key exists")
		}
	}
	k.CreatedAt = k.CreatedAt.Truncate(time.Microsecond).UTC()
	d.keys[k.Hash] = k
	return nil
}

// APIKey returns the key with hash, or NotFound.
func (s *Store) APIKey(ctx context.Context, hash [32]byte) (auth.APIKey, error) {
	d := &s.auth
	d.mu.RLock()
	defer d.mu.RUnlock()
	k, ok := d.keys[hash]
	if !ok {
		return auth.APIKey{}, msgkit.New(msgkit.NotFound, "api_key_not_found", "API key not found")
	}
	return k, nil
}
