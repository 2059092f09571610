package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	networks, err := clientColumns(c)
	if err != nil {
		return err
	}
	q := `WITH c AS (
		INSERT INTO auth_clients (id, name, secret_hash, networks, services, privileges, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
	)` + registerTenantsSQL("$5", "$7") + `SELECT`
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

// clientColumns refuses text of c that auth_clients cannot hold and
// returns its networks as stored.
func clientColumns(c auth.Client) ([]string, error) {
	if err := cmp.Or(
		invalidText("client", "id", c.ID),
		invalidText("client", "name", c.Name),
		invalidText("client", "secretHash", c.SecretHash),
		invalidText("client", "services", c.Services...),
		invalidText("client", "privileges", c.Privileges...),
	); err != nil {
		return nil, err
	}
	return prefixStrings(c.Networks)
}

// checkUser refuses text of u that auth_users cannot hold.
func checkUser(u auth.User) error {
	return cmp.Or(
		invalidText("user", "username", u.Username),
		invalidText("user", "passwordHash", u.PasswordHash),
		invalidText("user", "services", u.Services...),
		invalidText("user", "privileges", u.Privileges...),
	)
}

// CreateUser stores u; an existing username is a Conflict. CreatedAt is
// kept to the microsecond.
func (s *AuthStore) CreateUser(ctx context.Context, u auth.User) error {
	if err := checkUser(u); err != nil {
		return err
	}
	q := `WITH u AS (
		INSERT INTO auth_users (username, password_hash, services, privileges, created_at)
		VALUES ($1, $2, $3, $4, $5)
	)` + registerTenantsSQL("$3", "$5") + `SELECT`
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
	// The suspended tenants are probed in auth_tenants_suspended_idx, one
	// probe per tenant of the token (a token acts for one or a few); they
	// are sorted here, which costs less than a sort in the plan.
	const q = `SELECT kind, subject, services, privileges, expires_at, issued_at,
			ARRAY(SELECT n.id FROM auth_tenants n WHERE n.id = ANY (t.services) AND n.suspended)
		FROM auth_tokens t WHERE hash = $1`
	t := auth.Token{Hash: hash}
	p := &t.Principal
	var (
		kind                            int16
		services, privileges, suspended []string
	)
	err := s.pool.QueryRow(ctx, q, hash[:]).Scan(&kind, &p.Subject, &services, &privileges, &p.ExpiresAt, &t.IssuedAt, &suspended)
	if err != nil {
		return auth.Token{}, classify(err, "token", "token")
	}
	if kind < 0 || kind > 255 {
		return auth.Token{}, storageError(fmt.Errorf("token kind %d out of range", kind))
	}
	p.Kind = auth.SubjectKind(kind)
	p.Services, p.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	if len(suspended) > 0 {
		t.Suspended = stringsAs[msgkit.ServiceUUID](suspended)
		slices.Sort(t.Suspended)
	}
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

// registerTenantsSQL is the part of a WITH statement that registers the
// tenants of the text[] parameter services not registered yet, named by
// their id, at the timestamptz parameter at; the statement ends with
// SELECT after it. A statement whose other part fails (a client that
// exists) registers none.
func registerTenantsSQL(services, at string) string {
	return `, registered AS (
		INSERT INTO auth_tenants (id, name, suspended, created_at, updated_at)
		SELECT s, s, false, ` + at + `, ` + at + ` FROM unnest(` + services + `::text[]) s
		ON CONFLICT (id) DO NOTHING
	)
	`
}

// tenantsTable is the listing of tenants (auth.TenantListSpec).
var tenantsTable = listTable{
	From: "auth_tenants t", Select: "t.id, t.name, t.suspended, t.created_at, t.updated_at", Scope: "TRUE",
	Attrs: map[string]listAttr{
		"id": {"t.id", msgkit.AttrString}, "name": {"t.name", msgkit.AttrString}, "suspended": {"t.suspended", msgkit.AttrBool},
		"createdAt": {"t.created_at", msgkit.AttrDateTime}, "updatedAt": {"t.updated_at", msgkit.AttrDateTime},
	},
	Order: `t.id COLLATE "C"`,
}

func scanTenant(row pgx.CollectableRow) (t auth.Tenant, err error) {
	err = row.Scan(&t.ID, &t.Name, &t.Suspended, &t.CreatedAt, &t.UpdatedAt)
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, err
}

// CreateTenant stores t; an existing id is a Conflict.
func (s *AuthStore) CreateTenant(ctx context.Context, t auth.Tenant) error {
	if err := cmp.Or(invalidText("tenant", "id", t.ID), invalidText("tenant", "name", t.Name)); err != nil {
		return err
	}
	const q = `INSERT INTO auth_tenants (id, name, suspended, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`
	_, err := s.pool.Exec(ctx, q, t.ID, t.Name, t.Suspended, dbTime(t.CreatedAt), dbTime(t.UpdatedAt))
	return classify(err, "tenant", "tenant "+string(t.ID))
}

// Tenant returns the tenant with id, or NotFound.
func (s *AuthStore) Tenant(ctx context.Context, id msgkit.ServiceUUID) (auth.Tenant, error) {
	if !storable(string(id)) {
		return auth.Tenant{}, classify(pgx.ErrNoRows, "tenant", "tenant "+string(id))
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+tenantsTable.Select+` FROM auth_tenants t WHERE t.id = $1`, id)
	t, err := pgx.CollectExactlyOneRow(rows, scanTenant)
	return t, classify(err, "tenant", "tenant "+string(id))
}

// Tenants lists the tenants by q, by id unless q sorts them.
func (s *AuthStore) Tenants(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.Tenant], error) {
	return listPage(ctx, s.pool, &tenantsTable, q, scanTenant)
}

// ReplaceTenant saves t's name, suspension and UpdatedAt.
func (s *AuthStore) ReplaceTenant(ctx context.Context, t auth.Tenant) error {
	if err := cmp.Or(invalidText("tenant", "id", t.ID), invalidText("tenant", "name", t.Name)); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE auth_tenants SET name = $2, suspended = $3, updated_at = $4 WHERE id = $1`,
		t.ID, t.Name, t.Suspended, dbTime(t.UpdatedAt))
	return affected(tag, err, "tenant", "tenant "+string(t.ID))
}

// affected classifies the outcome of a statement that changes one row by
// key: no row is NotFound.
func affected(tag pgconn.CommandTag, err error, thing, what string) error {
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return classify(err, thing, what)
}

// clientsTable is the listing of clients (auth.ClientListSpec).
var clientsTable = listTable{
	From: "auth_clients c", Select: "c.id, c.name, c.secret_hash, c.networks, c.services, c.privileges, c.created_at", Scope: "TRUE",
	Attrs: map[string]listAttr{
		"id": {"c.id", msgkit.AttrString}, "name": {"c.name", msgkit.AttrString}, "createdAt": {"c.created_at", msgkit.AttrDateTime},
	},
	Order: `c.id COLLATE "C"`,
}

func scanClient(row pgx.CollectableRow) (auth.Client, error) {
	var (
		c                              auth.Client
		networks, services, privileges []string
	)
	if err := row.Scan(&c.ID, &c.Name, &c.SecretHash, &networks, &services, &privileges, &c.CreatedAt); err != nil {
		return auth.Client{}, err
	}
	c.Services, c.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	var err error
	if c.Networks, err = parsePrefixes(networks); err != nil {
		return auth.Client{}, storageError(err, "client ", c.ID)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

// Clients lists the clients by q, by id unless q sorts them.
func (s *AuthStore) Clients(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.Client], error) {
	return listPage(ctx, s.pool, &clientsTable, q, scanClient)
}

// ReplaceClient saves c over the stored client, registers its tenants and
// deletes its tokens, in one statement.
func (s *AuthStore) ReplaceClient(ctx context.Context, c auth.Client) error {
	networks, err := clientColumns(c)
	if err != nil {
		return err
	}
	q := `WITH c AS (
		UPDATE auth_clients SET name = $2, secret_hash = $3, networks = $4, services = $5, privileges = $6
		WHERE id = $1 RETURNING created_at
	), tokens AS (
		DELETE FROM auth_tokens WHERE subject = $1 AND kind = 1 AND EXISTS (SELECT FROM c)
	)` + registerTenantsSQL("(SELECT $5::text[] FROM c)", "(SELECT created_at FROM c)") + `SELECT count(*) FROM c`
	return oneChanged(s.pool.QueryRow(ctx, q, c.ID, c.Name, c.SecretHash, networks, c.Services, c.Privileges), "client", "client "+c.ID)
}

// DeleteClient deletes the client and its tokens.
func (s *AuthStore) DeleteClient(ctx context.Context, id string) error {
	return s.deleteSubject(ctx, "auth_clients", "id", auth.SubjectClient, "client", id)
}

// deleteSubject deletes the client or user id (of table, by its key
// column) with every token issued to it, in one statement.
func (s *AuthStore) deleteSubject(ctx context.Context, table, key string, kind auth.SubjectKind, thing, id string) error {
	if !storable(id) {
		return classify(pgx.ErrNoRows, thing, thing+" "+id)
	}
	q := `WITH d AS (DELETE FROM ` + table + ` WHERE ` + key + ` = $1 RETURNING 1),
		tokens AS (DELETE FROM auth_tokens WHERE subject = $1 AND kind = $2 AND EXISTS (SELECT FROM d))
		SELECT count(*) FROM d`
	return oneChanged(s.pool.QueryRow(ctx, q, id, int16(kind)), thing, thing+" "+id)
}

// oneChanged classifies the count of rows a statement changed by key: none
// is NotFound.
func oneChanged(row pgx.Row, thing, what string) error {
	var n int
	err := row.Scan(&n)
	if err == nil && n == 0 {
		err = pgx.ErrNoRows
	}
	return classify(err, thing, what)
}

// usersTable is the listing of users (auth.UserListSpec).
var usersTable = listTable{
	From: "auth_users u", Select: "u.username, u.password_hash, u.services, u.privileges, u.created_at", Scope: "TRUE",
	Attrs: map[string]listAttr{
		"username": {"u.username", msgkit.AttrString}, "createdAt": {"u.created_at", msgkit.AttrDateTime},
	},
	Order: `u.username COLLATE "C"`,
}

func scanUser(row pgx.CollectableRow) (auth.User, error) {
	var (
		u                    auth.User
		services, privileges []string
	)
	if err := row.Scan(&u.Username, &u.PasswordHash, &services, &privileges, &u.CreatedAt); err != nil {
		return auth.User{}, err
	}
	u.Services, u.Privileges = stringsAs[msgkit.ServiceUUID](services), stringsAs[auth.Privilege](privileges)
	u.CreatedAt = u.CreatedAt.UTC()
	return u, nil
}

// Users lists the users by q, by username unless q sorts them.
func (s *AuthStore) Users(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.User], error) {
	return listPage(ctx, s.pool, &usersTable, q, scanUser)
}

// ReplaceUser saves u over the stored user, registers its tenants and
// deletes its tokens, in one statement.
func (s *AuthStore) ReplaceUser(ctx context.Context, u auth.User) error {
	if err := checkUser(u); err != nil {
		return err
	}
	q := `WITH u AS (
		UPDATE auth_users SET password_hash = $2, services = $3, privileges = $4
		WHERE username = $1 RETURNING created_at
	), tokens AS (
		DELETE FROM auth_tokens WHERE subject = $1 AND kind = 2 AND EXISTS (SELECT FROM u)
	)` + registerTenantsSQL("(SELECT $3::text[] FROM u)", "(SELECT created_at FROM u)") + `SELECT count(*) FROM u`
	return oneChanged(s.pool.QueryRow(ctx, q, u.Username, u.PasswordHash, u.Services, u.Privileges), "user", "user "+u.Username)
}

// DeleteUser deletes the user and its tokens.
func (s *AuthStore) DeleteUser(ctx context.Context, username string) error {
	return s.deleteSubject(ctx, "auth_users", "username", auth.SubjectUser, "user", username)
}

// apiKeysTable is the listing of API keys (auth.APIKeyListSpec).
var apiKeysTable = listTable{
	From: "auth_api_keys k", Select: "k.hash, k.id, k.name, k.created_at", Scope: "TRUE",
	Attrs: map[string]listAttr{
		"id": {"k.id", msgkit.AttrString}, "name": {"k.name", msgkit.AttrString}, "createdAt": {"k.created_at", msgkit.AttrDateTime},
	},
	Order: `k.id COLLATE "C"`,
}

// APIKeys lists the API keys by q, by id unless q sorts them.
func (s *AuthStore) APIKeys(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[auth.APIKey], error) {
	return listPage(ctx, s.pool, &apiKeysTable, q, func(row pgx.CollectableRow) (auth.APIKey, error) {
		var (
			k    auth.APIKey
			hash []byte
		)
		if err := row.Scan(&hash, &k.ID, &k.Name, &k.CreatedAt); err != nil {
			return auth.APIKey{}, err
		}
		copy(k.Hash[:], hash)
		k.CreatedAt = k.CreatedAt.UTC()
		return k, nil
	})
}

// DeleteAPIKey deletes the key with id, or answers NotFound.
func (s *AuthStore) DeleteAPIKey(ctx context.Context, id string) error {
	if !storable(id) {
		return classify(pgx.ErrNoRows, "api_key", "API key "+id)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM auth_api_keys WHERE id = $1`, id)
	return affected(tag, err, "api_key", "API key "+id)
}
