package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

var _ auth.Store = (*AuthStore)(nil)

// AuthStore keeps API clients, users, tokens and API keys in memory. Its
// records are deep copies, so callers can never change what the store
// holds through a slice they passed in or got back (tokens excepted, see
// Token).
type AuthStore struct {
	mu      sync.RWMutex
	tenants *table[msgkit.ServiceUUID, auth.Tenant]
	clients *table[string, auth.Client]
	users   *table[string, auth.User]
	tokens  *table[[32]byte, auth.Token]
	keys    *table[[32]byte, auth.APIKey]
}

func newAuthStore() *AuthStore {
	s := &AuthStore{}
	s.tenants = newTable(&s.mu, "tenant", func(id msgkit.ServiceUUID) string { return "tenant " + string(id) },
		func(t auth.Tenant) auth.Tenant {
			t.CreatedAt, t.UpdatedAt = storedTime(t.CreatedAt), storedTime(t.UpdatedAt)
			return t
		}, nil)
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

// CreateTenant stores t; an existing id is a Conflict.
func (s *AuthStore) CreateTenant(ctx context.Context, t auth.Tenant) error {
	return s.tenants.insert(t.ID, t)
}

// Tenant returns the tenant with id, or NotFound.
func (s *AuthStore) Tenant(ctx context.Context, id msgkit.ServiceUUID) (auth.Tenant, error) {
	return s.tenants.get(id)
}

// Tenants lists the tenants by q, by id unless q sorts them.
func (s *AuthStore) Tenants(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.Tenant], error) {
	return list(&s.mu, s.tenants, q, auth.TenantAttr)
}

// ReplaceTenant saves t's name, suspension and UpdatedAt.
func (s *AuthStore) ReplaceTenant(ctx context.Context, t auth.Tenant) error {
	return s.tenants.update(t.ID, func(old *auth.Tenant) error {
		t.CreatedAt = old.CreatedAt
		*old = s.tenants.copyIn(t)
		return nil
	})
}

// register registers each of services not registered yet, named by its
// id; the caller holds mu.
func (s *AuthStore) register(services []msgkit.ServiceUUID, at time.Time) {
	for _, id := range services {
		if _, ok := s.tenants.rows[id]; !ok {
			s.tenants.rows[id] = s.tenants.copyIn(auth.Tenant{ID: id, Name: string(id), CreatedAt: at, UpdatedAt: at})
		}
	}
}

// list is msgkit.Apply over t's records in key order, under mu.
func list[K cmp.Ordered, V any](mu *sync.RWMutex, t *table[K, V], q msgkit.ListQuery, get msgkit.Getter[V]) (msgkit.Page[V], error) {
	mu.RLock()
	keys := slices.Sorted(maps.Keys(t.rows))
	rows := make([]V, len(keys))
	for i, k := range keys {
		rows[i] = t.rows[k]
	}
	mu.RUnlock()
	page, err := msgkit.Apply(rows, q, get)
	for i, v := range page.Items {
		page.Items[i] = t.copyOut(v)
	}
	return page, err
}

// CreateClient stores c and registers its tenants; an existing id is a
// Conflict.
func (s *AuthStore) CreateClient(ctx context.Context, c auth.Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.clients.insertLocked(c.ID, c); err != nil {
		return err
	}
	s.register(c.Services, c.CreatedAt)
	return nil
}

// Client returns the client with id, or NotFound.
func (s *AuthStore) Client(ctx context.Context, id string) (auth.Client, error) {
	return s.clients.get(id)
}

// Clients lists the clients by q, by id unless q sorts them.
func (s *AuthStore) Clients(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.Client], error) {
	return list(&s.mu, s.clients, q, auth.ClientAttr)
}

// ReplaceClient saves c over the stored client, registers its tenants and
// deletes its tokens.
func (s *AuthStore) ReplaceClient(ctx context.Context, c auth.Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.clients.updateLocked(c.ID, func(old *auth.Client) error {
		c.CreatedAt = old.CreatedAt
		*old = s.clients.copyIn(c)
		return nil
	})
	if err != nil {
		return err
	}
	s.register(c.Services, c.CreatedAt)
	s.deleteTokensLocked(auth.SubjectClient, c.ID)
	return nil
}

// DeleteClient deletes the client and its tokens.
func (s *AuthStore) DeleteClient(ctx context.Context, id string) error {
	return deleteSubject(s, s.clients, auth.SubjectClient, id)
}

// deleteSubject deletes the client or user id of t with its tokens,
// under the store's lock.
func deleteSubject[V any](s *AuthStore, t *table[string, V], kind auth.SubjectKind, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := t.rows[id]; !ok {
		return t.notFound(id)
	}
	delete(t.rows, id)
	s.deleteTokensLocked(kind, id)
	return nil
}

// deleteTokensLocked deletes the tokens issued to a subject; the caller
// holds mu.
func (s *AuthStore) deleteTokensLocked(kind auth.SubjectKind, subject string) {
	maps.DeleteFunc(s.tokens.rows, func(_ [32]byte, t auth.Token) bool {
		return t.Principal.Kind == kind && t.Principal.Subject == subject
	})
}

// CreateUser stores u and registers its tenants; an existing username is
// a Conflict.
func (s *AuthStore) CreateUser(ctx context.Context, u auth.User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.users.insertLocked(u.Username, u); err != nil {
		return err
	}
	s.register(u.Services, u.CreatedAt)
	return nil
}

// User returns the user, or NotFound.
func (s *AuthStore) User(ctx context.Context, username string) (auth.User, error) {
	return s.users.get(username)
}

// Users lists the users by q, by username unless q sorts them.
func (s *AuthStore) Users(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.User], error) {
	return list(&s.mu, s.users, q, auth.UserAttr)
}

// ReplaceUser saves u over the stored user, registers its tenants and
// deletes its tokens.
func (s *AuthStore) ReplaceUser(ctx context.Context, u auth.User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.users.updateLocked(u.Username, func(old *auth.User) error {
		u.CreatedAt = old.CreatedAt
		*old = s.users.copyIn(u)
		return nil
	})
	if err != nil {
		return err
	}
	s.register(u.Services, u.CreatedAt)
	s.deleteTokensLocked(auth.SubjectUser, u.Username)
	return nil
}

// DeleteUser deletes the user and its tokens.
func (s *AuthStore) DeleteUser(ctx context.Context, username string) error {
	return deleteSubject(s, s.users, auth.SubjectUser, username)
}

// SaveToken stores t; an existing hash is a Conflict.
func (s *AuthStore) SaveToken(ctx context.Context, t auth.Token) error {
	return s.tokens.insert(t.Hash, t)
}

// Token returns the token with hash, or NotFound, with its tenants
// suspended now. Its slices are shared with the store and must not be
// modified: verification runs on every request and copies would cost
// allocations.
func (s *AuthStore) Token(ctx context.Context, hash [32]byte) (auth.Token, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tokens.rows[hash]
	if !ok {
		return auth.Token{}, s.tokens.notFound(hash)
	}
	for _, id := range t.Principal.Services {
		if s.tenants.rows[id].Suspended {
			t.Suspended = append(t.Suspended, id)
		}
	}
	slices.Sort(t.Suspended)
	return t, nil
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

// APIKeys lists the API keys by q, by id unless q sorts them.
func (s *AuthStore) APIKeys(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.APIKey], error) {
	s.mu.RLock()
	keys := slices.SortedFunc(maps.Values(s.keys.rows), func(a, b auth.APIKey) int { return cmp.Compare(a.ID, b.ID) })
	s.mu.RUnlock()
	return msgkit.Apply(keys, q, auth.APIKeyAttr)
}

// DeleteAPIKey deletes the key with id, or answers NotFound.
func (s *AuthStore) DeleteAPIKey(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, k := range s.keys.rows {
		if k.ID == id {
			delete(s.keys.rows, h)
			return nil
		}
	}
	return msgkit.New(msgkit.NotFound, "api_key_not_found", "API key "+id+" not found")
}
