package auth

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
)

// Codes of the operator's administration.
const (
	CodeTenantSuspended = "tenant_suspended" // every tenant of the caller is suspended (or the path's is)
	CodeTenantInvalid   = "tenant_invalid"
	CodeTenantNotFound  = "tenant_not_found"
	CodeClientNotFound  = "client_not_found"
	CodeUserNotFound    = "user_not_found"
	CodeAPIKeyNotFound  = "api_key_not_found"
)

// maxName is the longest name of a tenant, client or API key, in
// characters.
const maxName = 200

// The listings of the administration: what each may filter (with the
// type), sort and search. Attribute names are those of the
// administration API's JSON.
var (
	TenantListSpec = msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"id": msgkit.AttrString, "name": msgkit.AttrString, "suspended": msgkit.AttrBool,
			"createdAt": msgkit.AttrDateTime, "updatedAt": msgkit.AttrDateTime},
		Sort:   []string{"id", "name", "createdAt", "updatedAt"},
		Search: []string{"id", "name"},
	}
	ClientListSpec = msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"id": msgkit.AttrString, "name": msgkit.AttrString, "createdAt": msgkit.AttrDateTime},
		Sort:   []string{"id", "name", "createdAt"},
		Search: []string{"id", "name"},
	}
	UserListSpec = msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"username": msgkit.AttrString, "createdAt": msgkit.AttrDateTime},
		Sort:   []string{"username", "createdAt"},
		Search: []string{"username"},
	}
	APIKeyListSpec = msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"id": msgkit.AttrString, "name": msgkit.AttrString, "createdAt": msgkit.AttrDateTime},
		Sort:   []string{"id", "name", "createdAt"},
		Search: []string{"id", "name"},
	}
)

// TenantAttr is attribute attr of t as TenantListSpec names it, for
// msgkit.Apply.
func TenantAttr(t Tenant, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(string(t.ID)), true
	case "name":
		return msgkit.StringValue(t.Name), true
	case "suspended":
		return msgkit.BoolValue(t.Suspended), true
	case "createdAt":
		return msgkit.TimeValue(t.CreatedAt), true
	case "updatedAt":
		return msgkit.TimeValue(t.UpdatedAt), true
	}
	return msgkit.Value{}, false
}

// ClientAttr is attribute attr of c as ClientListSpec names it.
func ClientAttr(c Client, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(c.ID), true
	case "name":
		return msgkit.StringValue(c.Name), true
	case "createdAt":
		return msgkit.TimeValue(c.CreatedAt), true
	}
	return msgkit.Value{}, false
}

// UserAttr is attribute attr of u as UserListSpec names it.
func UserAttr(u User, attr string) (msgkit.Value, bool) {
	switch attr {
	case "username":
		return msgkit.StringValue(u.Username), true
	case "createdAt":
		return msgkit.TimeValue(u.CreatedAt), true
	}
	return msgkit.Value{}, false
}

// APIKeyAttr is attribute attr of k as APIKeyListSpec names it.
func APIKeyAttr(k APIKey, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(k.ID), true
	case "name":
		return msgkit.StringValue(k.Name), true
	case "createdAt":
		return msgkit.TimeValue(k.CreatedAt), true
	}
	return msgkit.Value{}, false
}

// TenantNotFound is the error of an unknown tenant.
func TenantNotFound(id msgkit.ServiceUUID) error {
	return msgkit.Errorf(msgkit.NotFound, CodeTenantNotFound, "tenant %s not found", id)
}

// ClientNotFound is the error of an unknown client.
func ClientNotFound(id string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeClientNotFound, "client %s not found", msgkit.QuoteValue(id))
}

// UserNotFound is the error of an unknown user.
func UserNotFound(username string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeUserNotFound, "user %s not found", msgkit.QuoteValue(username))
}

// APIKeyNotFound is the error of an unknown API key id.
func APIKeyNotFound(id string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeAPIKeyNotFound, "API key %s not found", msgkit.QuoteValue(id))
}

// notFoundAs turns a store's NotFound into the domain's error.
func notFoundAs(err, nf error) error {
	if msgkit.KindOf(err) == msgkit.NotFound {
		return nf
	}
	return err
}

// The views of records in the audit trail: what an operator reads of a
// change, never a secret or its hash.
type (
	tenantView struct {
		ID        msgkit.ServiceUUID `json:"id"`
		Name      string             `json:"name"`
		Suspended bool               `json:"suspended"`
	}
	clientView struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Networks   []string `json:"networks"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	}
	userView struct {
		Username   string   `json:"username"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
		// PasswordChanged marks the change that set a new password.
		PasswordChanged bool `json:"passwordChanged,omitempty"`
	}
	apiKeyView struct {
		ID   string `json:"id"`
		Name string `json:"name,omitempty"`
	}
)

func viewOfTenant(t Tenant) tenantView {
	return tenantView{ID: t.ID, Name: t.Name, Suspended: t.Suspended}
}

func viewOfClient(c Client) clientView {
	nets := make([]string, len(c.Networks))
	for i, n := range c.Networks {
		nets[i] = n.String()
	}
	return clientView{ID: c.ID, Name: c.Name, Networks: nets, Services: strs(c.Services), Privileges: strs(c.Privileges)}
}

func viewOfUser(u User) userView {
	return userView{Username: u.Username, Services: strs(u.Services), Privileges: strs(u.Privileges)}
}

func strs[T ~string](in []T) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(s)
	}
	return out
}

// TenantSpec describes a tenant to register.
type TenantSpec struct {
	ID   msgkit.ServiceUUID // default: a random UUID
	Name string
}

// CreateTenant registers a tenant. An id registered already is Conflict.
func (s *Service) CreateTenant(ctx context.Context, spec TenantSpec) (Tenant, error) {
	t := Tenant{ID: spec.ID, Name: spec.Name}
	if t.ID == "" {
		t.ID = msgkit.ServiceUUID(uuid.Must(uuid.NewRandomFromReader(s.opts.Rand)).String())
	} else if id, err := msgkit.ParseServiceUUID(string(t.ID)); err != nil {
		return Tenant{}, msgkit.Invalidf(CodeTenantInvalid, "id", "the tenant's id must be a UUID")
	} else {
		t.ID = id
	}
	if err := checkName(CodeTenantInvalid, "name", t.Name, true); err != nil {
		return Tenant{}, err
	}
	t.CreatedAt = s.opts.Clock.Now().UTC()
	t.UpdatedAt = t.CreatedAt
	if err := s.store.CreateTenant(ctx, t); err != nil {
		return Tenant{}, err
	}
	_ = s.opts.Audit.Record(ctx, "create", "tenant", string(t.ID), nil, viewOfTenant(t))
	return s.store.Tenant(ctx, t.ID)
}

// Tenant returns a registered tenant.
func (s *Service) Tenant(ctx context.Context, id msgkit.ServiceUUID) (Tenant, error) {
	t, err := s.store.Tenant(ctx, id)
	return t, notFoundAs(err, TenantNotFound(id))
}

// TenantSuspended reports whether tenant id is suspended; an
// unregistered tenant is not.
func (s *Service) TenantSuspended(ctx context.Context, id msgkit.ServiceUUID) (bool, error) {
	t, err := s.store.Tenant(ctx, id)
	if msgkit.KindOf(err) == msgkit.NotFound {
		return false, nil
	}
	return t.Suspended, err
}

// Tenants lists the registered tenants by q (TenantListSpec).
func (s *Service) Tenants(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Tenant], error) {
	return s.store.Tenants(ctx, q)
}

// TenantChange is a change of a tenant; nil members stay.
type TenantChange struct {
	Name      *string
	Suspended *bool
}

// UpdateTenant renames, suspends or resumes a tenant. A suspended
// tenant's clients and users are refused from their next request (see
// Verify); its records stay, and resuming lets them in again.
func (s *Service) UpdateTenant(ctx context.Context, id msgkit.ServiceUUID, ch TenantChange) (Tenant, error) {
	t, err := s.Tenant(ctx, id)
	if err != nil {
		return Tenant{}, err
	}
	before := t
	if ch.Name != nil {
		if err := checkName(CodeTenantInvalid, "name", *ch.Name, true); err != nil {
			return Tenant{}, err
		}
		t.Name = *ch.Name
	}
	if ch.Suspended != nil {
		t.Suspended = *ch.Suspended
	}
	t.UpdatedAt = s.opts.Clock.Now().UTC()
	if err := s.store.ReplaceTenant(ctx, t); err != nil {
		return Tenant{}, notFoundAs(err, TenantNotFound(id))
	}
	action := "update"
	switch {
	case t.Suspended && !before.Suspended:
		action = "suspend"
	case !t.Suspended && before.Suspended:
		action = "resume"
	}
	_ = s.opts.Audit.Record(ctx, action, "tenant", string(id), viewOfTenant(before), viewOfTenant(t))
	return t, nil
}

// Client returns a client (its secret's hash included: callers that show
// it leave that out).
func (s *Service) Client(ctx context.Context, id string) (Client, error) {
	c, err := s.store.Client(ctx, id)
	return c, notFoundAs(err, ClientNotFound(id))
}

// Clients lists the clients by q (ClientListSpec).
func (s *Service) Clients(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Client], error) {
	return s.store.Clients(ctx, q)
}

// ClientChange is a change of a client's grants; nil members stay.
type ClientChange struct {
	Name       *string
	Networks   *[]netip.Prefix
	Services   *[]msgkit.ServiceUUID
	Privileges *[]Privilege
}

// UpdateClient changes a client's name, networks, tenants or privileges.
// Its tokens end with the change (a token is a snapshot of the grants),
// so the client asks for a new one.
func (s *Service) UpdateClient(ctx context.Context, id string, ch ClientChange) (Client, error) {
	c, err := s.Client(ctx, id)
	if err != nil {
		return Client{}, err
	}
	before := viewOfClient(c)
	if ch.Name != nil {
		if err := checkName(CodeInvalidRequest, "name", *ch.Name, false); err != nil {
			return Client{}, err
		}
		c.Name = *ch.Name
	}
	if ch.Networks != nil {
		c.Networks = slices.Clone(*ch.Networks)
	}
	if ch.Services != nil {
		c.Services = slices.Clone(*ch.Services)
	}
	if ch.Privileges != nil {
		c.Privileges = slices.Clone(*ch.Privileges)
	}
	if err := validateGrants(c.Networks, c.Services, c.Privileges); err != nil {
		return Client{}, err
	}
	if len(c.Networks) == 0 {
		return Client{}, msgkit.Invalidf(CodeInvalidRequest, "networks", "a client needs at least one address it may authorise from")
	}
	if err := s.store.ReplaceClient(ctx, c); err != nil {
		return Client{}, notFoundAs(err, ClientNotFound(id))
	}
	_ = s.opts.Audit.Record(ctx, "update", "client", id, before, viewOfClient(c))
	return c, nil
}

// RotateClientSecret gives a client a new random secret, returned once.
// The old secret and every token issued with it stop working at once.
func (s *Service) RotateClientSecret(ctx context.Context, id string) (Client, string, error) {
	c, err := s.Client(ctx, id)
	if err != nil {
		return Client{}, "", err
	}
	secret, err := s.randomString()
	if err != nil {
		return Client{}, "", err
	}
	if c.SecretHash, err = s.secrets.Hash(secret); err != nil {
		return Client{}, "", err
	}
	if err := s.store.ReplaceClient(ctx, c); err != nil {
		return Client{}, "", notFoundAs(err, ClientNotFound(id))
	}
	_ = s.opts.Audit.Record(ctx, "rotate_secret", "client", id, nil, viewOfClient(c))
	return c, secret, nil
}

// RevokeClient deletes a client; its tokens stop working at once.
func (s *Service) RevokeClient(ctx context.Context, id string) error {
	c, err := s.Client(ctx, id)
	if err != nil {
		return err
	}
	if err := s.store.DeleteClient(ctx, id); err != nil {
		return notFoundAs(err, ClientNotFound(id))
	}
	_ = s.opts.Audit.Record(ctx, "delete", "client", id, viewOfClient(c), nil)
	return nil
}

// User returns a user of the password grant.
func (s *Service) User(ctx context.Context, username string) (User, error) {
	u, err := s.store.User(ctx, username)
	return u, notFoundAs(err, UserNotFound(username))
}

// Users lists the users by q (UserListSpec).
func (s *Service) Users(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[User], error) {
	return s.store.Users(ctx, q)
}

// UserChange is a change of a user; nil members stay.
type UserChange struct {
	Password   *string
	Services   *[]msgkit.ServiceUUID
	Privileges *[]Privilege
}

// UpdateUser changes a user's password, tenants or privileges; the
// user's tokens end with the change.
func (s *Service) UpdateUser(ctx context.Context, username string, ch UserChange) (User, error) {
	u, err := s.User(ctx, username)
	if err != nil {
		return User{}, err
	}
	before := viewOfUser(u)
	if ch.Services != nil {
		u.Services = slices.Clone(*ch.Services)
	}
	if ch.Privileges != nil {
		u.Privileges = slices.Clone(*ch.Privileges)
	}
	if err := validateGrants(nil, u.Services, u.Privileges); err != nil {
		return User{}, err
	}
	if ch.Password != nil {
		if *ch.Password == "" {
			return User{}, msgkit.Invalidf(CodeInvalidRequest, "password", "a password cannot be empty")
		}
		if u.PasswordHash, err = s.hashOrCheck(*ch.Password, "", "password"); err != nil {
			return User{}, err
		}
	}
	if err := s.store.ReplaceUser(ctx, u); err != nil {
		return User{}, notFoundAs(err, UserNotFound(username))
	}
	after := viewOfUser(u)
	after.PasswordChanged = ch.Password != nil
	_ = s.opts.Audit.Record(ctx, "update", "user", username, before, after)
	return u, nil
}

// DeleteUser deletes a user; its tokens stop working at once.
func (s *Service) DeleteUser(ctx context.Context, username string) error {
	u, err := s.User(ctx, username)
	if err != nil {
		return err
	}
	if err := s.store.DeleteUser(ctx, username); err != nil {
		return notFoundAs(err, UserNotFound(username))
	}
	_ = s.opts.Audit.Record(ctx, "delete", "user", username, viewOfUser(u), nil)
	return nil
}

// APIKeys lists the API keys (never the keys: they are not kept) by q
// (APIKeyListSpec).
func (s *Service) APIKeys(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[APIKey], error) {
	return s.store.APIKeys(ctx, q)
}

// RevokeAPIKey deletes the API key with id; it stops working at once.
func (s *Service) RevokeAPIKey(ctx context.Context, id string) error {
	if err := s.store.DeleteAPIKey(ctx, id); err != nil {
		return notFoundAs(err, APIKeyNotFound(id))
	}
	_ = s.opts.Audit.Record(ctx, "delete", "api_key", id, apiKeyView{ID: id}, nil)
	return nil
}

// checkName refuses a name a record cannot have: longer than maxName
// characters, with control characters, or (when required) empty.
func checkName(code, field, name string, required bool) error {
	switch {
	case required && strings.TrimSpace(name) == "":
		return msgkit.Invalidf(code, field, "%s is required", field)
	case utf8.RuneCountInString(name) > maxName:
		return msgkit.Invalidf(code, field, "%s has at most %d characters", field, maxName)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return msgkit.Invalidf(code, field, "%s must be UTF-8 without control characters", field)
	}
	return nil
}

// ParseNetworks reads the networks a client may authorise from, as
// addresses ("192.0.2.10", a /32 or /128) or ranges ("192.0.2.0/24",
// masked to the range). One that is neither is Invalid naming field.
func ParseNetworks(field string, in []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(in))
	for _, s := range in {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, msgkit.Invalidf(CodeInvalidRequest, field, "network %s is neither an address nor a range", msgkit.QuoteValue(s))
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
