package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

var _ auth.Store = (*AuthStore)(nil)

// AuthStore keeps API clients, users, tokens and API keys.
type AuthStore struct {
	pool *pgxpool.Pool
}

// CreateClient stores c; an existing id is a Conflict. CreatedAt is kept
// to the microsecond.
func (s *AuthStore) CreateClient(ctx context.Context, c auth.Client) error {
	if err := cmp.Or(
		invalidText("client", "id", c.ID),
		invalidText("client", "name", c.Name),
		invalidText("client", "secretHash", c.SecretHash),
		invalidText("client", "services", c.Services...),
		invalidText("client", "privileges", c.Privileges...),
	); err != nil {
		return err
	}
	networks, err := prefixStrings(c.Networks)
	if err != nil {
		return err
	}
	const q = `INSERT INTO auth_clients (id, name, secret_hash, networks, services, privileges, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	_, err = s.pool.Exec(ctx, q, c.ID, c.Name, c.SecretHash, networks, c.Services, c.Privileges, dbTime(c.CreatedAt))
	return classify(err, "client", "client "+c.ID)
}

// Client returns the client with id, or NotFound.
func (s *AuthStore) Client(ctx context.Context, id string) (auth.Client, error) {
	if !storable(id) {
		return auth.Client{}, classify(pgx.ErrNoRows, "client", "client "+id)
	}
	const q = `SELECT name, secret_hash, networks, services, privileges, created_at
		FROM auth_clients WHERE id = $1`
	c := auth.Client{ID: id}
	var networks, services, privileges []string
	err := s.pool.QueryRow(ctx, q, id).Scan(&c.Name, &c.SecretHash, &networks, &services, &privileges, &c.CreatedAt)
	if err != nil {
		return auth.Client{}, classify(err, "client", "client "+id)
	}
	c.Services, c.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	if c.Networks, err = parsePrefixes(networks); err != nil {
		return auth.Client{}, storageError(err, "client ", id)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

// CreateUser stores u; an existing username is a Conflict. CreatedAt is
// kept to the microsecond.
func (s *AuthStore) CreateUser(ctx context.Context, u auth.User) error {
	if err := cmp.Or(
		invalidText("user", "username", u.Username),
		invalidText("user", "passwordHash", u.PasswordHash),
		invalidText("user", "services", u.Services...),
		invalidText("user", "privileges", u.Privileges...),
	); err != nil {
		return err
	}
	const q = `INSERT INTO auth_users (username, password_hash, services, privileges, created_at)
		VALUES ($1, $2, $3, $4, $5)`
	_, err := s.pool.Exec(ctx, q, u.Username, u.PasswordHash, u.Services, u.Privileges, dbTime(u.CreatedAt))
	return classify(err, "user", "user "+u.Username)
}

// User returns the user, or NotFound.
func (s *AuthStore) User(ctx context.Context, username string) (auth.User, error) {
	if !storable(username) {
		return auth.User{}, classify(pgx.ErrNoRows, "user", "user "+username)
	}
	const q = `SELECT password_hash, services, privileges, created_at
		FROM auth_users WHERE username = $1`
	u := auth.User{Username: username}
	var services, privileges []string
	err := s.pool.QueryRow(ctx, q, username).Scan(&u.PasswordHash, &services, &privileges, &u.CreatedAt)
	if err != nil {
		return auth.User{}, classify(err, "user", "user "+username)
	}
	u.Services, u.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	u.CreatedAt = u.CreatedAt.UTC()
	return u, nil
}

// SaveToken stores t; an existing hash is a Conflict. IssuedAt and
// ExpiresAt are kept to the microsecond.
func (s *AuthStore) SaveToken(ctx context.Context, t auth.Token) error {
	p := t.Principal
	if err := cmp.Or(
		invalidText("token", "subject", p.Subject),
		invalidText("token", "services", p.Services...),
		invalidText("token", "privileges", p.Privileges...),
	); err != nil {
		return err
	}
	const q = `INSERT INTO auth_tokens (hash, kind, subject, services, privileges, expires_at, issued_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	_, err := s.pool.Exec(ctx, q, t.Hash[:], int16(p.Kind), p.Subject, p.Services, p.Privileges,
		dbTime(p.ExpiresAt), dbTime(t.IssuedAt))
	return classify(err, "token", "token")
}

// Token returns the token with hash, or NotFound. It does not look at the
// expiry; the caller decides what an expired token means.
func (s *AuthStore) Token(ctx context.Context, hash [32]byte) (auth.Token, error) {
	const q = `SELECT kind, subject, services, privileges, expires_at, issued_at
		FROM auth_tokens WHERE hash = $1`
	t := auth.Token{Hash: hash}
	p := &t.Principal
	var (
		kind                 int16
		services, privileges []string
	)
	err := s.pool.QueryRow(ctx, q, hash[:]).Scan(&kind, &p.Subject, &services, &privileges, &p.ExpiresAt, &t.IssuedAt)
	if err != nil {
		return auth.Token{}, classify(err, "token", "token")
	}
	if kind < 0 || kind > 255 {
		return auth.Token{}, storageError(fmt.Errorf("token kind %d out of range", kind))
	}
	p.Kind = auth.SubjectKind(kind)
	p.Services, p.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	p.ExpiresAt = p.ExpiresAt.UTC()
	t.IssuedAt = t.IssuedAt.UTC()
	return t, nil
}

// DeleteToken removes the token with hash, or answers NotFound.
func (s *AuthStore) DeleteToken(ctx context.Context, hash [32]byte) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM auth_tokens WHERE hash = $1`, hash[:])
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return classify(err, "token", "token")
}

// DeleteExpiredTokens removes tokens that expired at or before now, to the
// microsecond, and returns how many it removed.
func (s *AuthStore) DeleteExpiredTokens(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM auth_tokens WHERE expires_at <= $1`, dbTime(now))
	if err != nil {
		return 0, classify(err, "token", "token")
	}
	return int(tag.RowsAffected()), nil
}

// CreateAPIKey stores k; an existing hash or id is a Conflict. CreatedAt
// is kept to the microsecond.
func (s *AuthStore) CreateAPIKey(ctx context.Context, k auth.APIKey) error {
	if err := cmp.Or(
		invalidText("api_key", "id", k.ID),
		invalidText("api_key", "name", k.Name),
	); err != nil {
		return err
	}
	const q = `INSERT INTO auth_api_keys (hash, id, name, created_at) VALUES ($1, $2, $3, $4)`
	_, err := s.pool.Exec(ctx, q, k.Hash[:], k.ID, k.Name, dbTime(k.CreatedAt))
	return classify(err, "api_key", "API key")
}

// APIKey returns the key with hash, or NotFound.
func (s *AuthStore) APIKey(ctx context.Context, hash [32]byte) (auth.APIKey, error) {
	const q = `SELECT id, name, created_at FROM auth_api_keys WHERE hash = $1`
	k := auth.APIKey{Hash: hash}
	err := s.pool.QueryRow(ctx, q, hash[:]).Scan(&k.ID, &k.Name, &k.CreatedAt)
	if err != nil {
		return auth.APIKey{}, classify(err, "api_key", "API key")
	}
	k.CreatedAt = k.CreatedAt.UTC()
	return k, nil
}

// dbTime is t as PostgreSQL keeps it: timestamptz has microsecond
// precision, so the store truncates explicitly rather than leave the
// rounding to the driver, and a value read back equals the one written.
func dbTime(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

// prefixStrings renders networks as text for a text[] column, keeping a
// nil slice nil. An invalid (zero) prefix could not be read back, so it is
// refused.
func prefixStrings(networks []netip.Prefix) ([]string, error) {
	if networks == nil {
		return nil, nil
	}
	out := make([]string, len(networks))
	for i, p := range networks {
		if !p.IsValid() {
			return nil, msgkit.Invalidf(auth.CodeClientUnstorable, "networks", "networks[%d] is not a valid network prefix", i)
		}
		out[i] = p.String()
	}
	return out, nil
}

// parsePrefixes is the inverse of prefixStrings.
func parsePrefixes(ss []string) ([]netip.Prefix, error) {
	if ss == nil {
		return nil, nil
	}
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("stored network %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// stringsAs converts scanned text to a slice of a string type, keeping a
// nil slice nil. Scanning into []string takes pgx's fast path; scanning
// into a slice of a named type goes through reflection on every row.
func stringsAs[T ~string](ss []string) []T {
	if ss == nil {
		return nil
	}
	out := make([]T, len(ss))
	for i, s := range ss {
		out[i] = T(s)
	}
	return out
}
