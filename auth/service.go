package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/secret"
	"golang.org/x/crypto/bcrypt"
)

// OAuth 2.0 error codes (RFC 6749 section 5.2) carried as msgkit.Error codes
// by the grant methods, so adapters can render the RFC's error body.
const (
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidClient        = "invalid_client"
	CodeInvalidGrant         = "invalid_grant"
	CodeUnauthorizedClient   = "unauthorized_client"
	CodeUnsupportedGrantType = "unsupported_grant_type"
)

// CodeClientUnstorable is the code of a client a store cannot keep
// (Invalid).
const CodeClientUnstorable = "client_invalid"

// Codes of verification failures.
const (
	CodeInvalidToken  = "invalid_token" // RFC 6750 section 3.1
	CodeInvalidAPIKey = "invalid_api_key"
)

// PasswordTokenTTL is the life of a password-grant token: the test
// system's interface fixes it at 3600 seconds.
const PasswordTokenTTL = 3600 * time.Second

// Options configure a Service. Zero values choose the defaults.
type Options struct {
	// TokenTTL is the life of client-credentials tokens; default 3600 s.
	TokenTTL time.Duration
	// BcryptCost hashes new secrets and passwords; default bcrypt.DefaultCost.
	// Tests may lower it to bcrypt.MinCost.
	BcryptCost int
	Clock      msgkit.Clock
	// Rand is the source of tokens, secrets and ids; default crypto/rand.
	Rand   io.Reader
	Logger *slog.Logger
	// Audit records every change of tenants, clients, users and API keys;
	// nil records none. *audit.Log satisfies it.
	Audit Auditor
}

// Auditor records an administrative change: the action on the resource
// with id, the record before and after (views without secrets; nil for
// none). The actor travels in ctx. A failure is the auditor's to log: the
// change stands, and the service answers it.
type Auditor interface {
	Record(ctx context.Context, action, resource, id string, before, after any) error
}

type noAudit struct{}

func (noAudit) Record(context.Context, string, string, string, any, any) error { return nil }

// Service issues and verifies credentials.
type Service struct {
	store   Store
	opts    Options
	secrets *secret.Checker // unknown clients and users cost a comparison too, so timing does not tell
}

// New returns a Service over store.
func New(store Store, opts Options) *Service {
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = 3600 * time.Second
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Audit == nil {
		opts.Audit = noAudit{}
	}
	return &Service{store: store, opts: opts, secrets: secret.NewChecker(opts.BcryptCost)}
}

// IssuedToken is the answer of a successful grant.
type IssuedToken struct {
	AccessToken string
	TokenType   string // always "Bearer"
	ExpiresIn   int    // seconds
}

// ClientSpec describes a client to create. Give Secret or SecretHash (a
// bcrypt hash, for secrets kept out of configuration files); with neither,
// a random secret is generated and returned once by CreateClient.
type ClientSpec struct {
	ID         string // default: a random UUID
	Name       string
	Secret     string
	SecretHash string
	Networks   []netip.Prefix
	Services   []msgkit.ServiceUUID
	Privileges []Privilege
}

// CreateClient registers an API client and returns it with its secret in
// clear when the secret was given or generated (empty when a hash was
// given). The secret is not kept and cannot be shown again.
func (s *Service) CreateClient(ctx context.Context, spec ClientSpec) (Client, string, error) {
	c := Client{
		ID: spec.ID, Name: spec.Name, Networks: spec.Networks,
		Services: spec.Services, Privileges: spec.Privileges,
		CreatedAt: s.opts.Clock.Now().UTC(),
	}
	if c.ID == "" {
		c.ID = uuid.Must(uuid.NewRandomFromReader(s.opts.Rand)).String()
	} else if err := checkName(CodeInvalidRequest, "id", c.ID, true); err != nil {
		return Client{}, "", err
	}
	if err := checkName(CodeInvalidRequest, "name", c.Name, false); err != nil {
		return Client{}, "", err
	}
	if err := validateGrants(c.Networks, c.Services, c.Privileges); err != nil {
		return Client{}, "", err
	}
	if len(c.Networks) == 0 {
		return Client{}, "", msgkit.Invalidf(CodeInvalidRequest, "networks", "a client needs at least one address it may authorise from")
	}
	secret := spec.Secret
	if secret == "" && spec.SecretHash == "" {
		var err error
		if secret, err = s.randomString(); err != nil {
			return Client{}, "", err
		}
	}
	hash, err := s.hashOrCheck(secret, spec.SecretHash, "secret")
	if err != nil {
		return Client{}, "", err
	}
	c.SecretHash = hash
	if err := s.store.CreateClient(ctx, c); err != nil {
		return Client{}, "", err
	}
	_ = s.opts.Audit.Record(ctx, "create", "client", c.ID, nil, viewOfClient(c))
	return c, secret, nil
}

// UserSpec describes a test system user; give Password or PasswordHash.
type UserSpec struct {
	Username     string
	Password     string
	PasswordHash string
	Services     []msgkit.ServiceUUID
	Privileges   []Privilege
}

// CreateUser registers a user of the password grant.
func (s *Service) CreateUser(ctx context.Context, spec UserSpec) (User, error) {
	if spec.Username == "" || len(spec.Username) > 200 || !utf8.ValidString(spec.Username) || strings.ContainsAny(spec.Username, "\x00\r\n") {
		return User{}, msgkit.Invalidf(CodeInvalidRequest, "username", "username must be 1 to 200 characters without line breaks")
	}
	if spec.Password == "" && spec.PasswordHash == "" {
		return User{}, msgkit.Invalidf(CodeInvalidRequest, "password", "a user needs a password or a password hash")
	}
	if err := validateGrants(nil, spec.Services, spec.Privileges); err != nil {
		return User{}, err
	}
	hash, err := s.hashOrCheck(spec.Password, spec.PasswordHash, "password")
	if err != nil {
		return User{}, err
	}
	u := User{
		Username: spec.Username, PasswordHash: hash, Services: spec.Services,
		Privileges: spec.Privileges, CreatedAt: s.opts.Clock.Now().UTC(),
	}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return User{}, err
	}
	_ = s.opts.Audit.Record(ctx, "create", "user", u.Username, nil, viewOfUser(u))
	return u, nil
}

// CreateAPIKey registers an X-API-Key key. With key empty a random one is
// generated; either way the key is returned once and only its hash is kept.
func (s *Service) CreateAPIKey(ctx context.Context, name, key string) (APIKey, string, error) {
	if key == "" {
		var err error
		if key, err = s.randomString(); err != nil {
			return APIKey{}, "", err
		}
	}
	if err := checkName(CodeInvalidRequest, "name", name, false); err != nil {
		return APIKey{}, "", err
	}
	if len(key) < 16 {
		return APIKey{}, "", msgkit.Invalidf(CodeInvalidRequest, "key", "an API key has at least 16 characters")
	}
	k := APIKey{
		ID: uuid.Must(uuid.NewRandomFromReader(s.opts.Rand)).String(), Name: name,
		Hash: sha256.Sum256([]byte(key)), CreatedAt: s.opts.Clock.Now().UTC(),
	}
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		return APIKey{}, "", err
	}
	_ = s.opts.Audit.Record(ctx, "create", "api_key", k.ID, nil, apiKeyView{ID: k.ID, Name: k.Name})
	return k, key, nil
}

// ClientCredentials is the OAuth 2.0 client credentials grant (RFC 6749
// 4.4): the client authenticates as AuthenticateClient says, and gets a
// token for its tenants and privileges.
func (s *Service) ClientCredentials(ctx context.Context, clientID, clientSecret string, from netip.Addr) (IssuedToken, error) {
	c, err := s.AuthenticateClient(ctx, clientID, clientSecret, from)
	if err != nil {
		return IssuedToken{}, err
	}
	return s.issue(ctx, Principal{Kind: SubjectClient, Subject: c.ID, Services: c.Services, Privileges: c.Privileges}, s.opts.TokenTTL)
}

// AuthenticateClient checks a client's credentials. Unknown clients,
// wrong secrets and a missing id or secret are all invalid_client, and
// take the same time; a right secret from an address outside the client's
// networks is unauthorized_client, told only to whoever holds the secret.
func (s *Service) AuthenticateClient(ctx context.Context, clientID, clientSecret string, from netip.Addr) (Client, error) {
	if clientID == "" || clientSecret == "" {
		return Client{}, oauthErr(msgkit.Unauthorized, CodeInvalidClient, "client authentication failed")
	}
	c, err := secret.Check(ctx, s.secrets, s.store.Client, clientID, clientSecret, func(c Client) string { return c.SecretHash },
		oauthErr(msgkit.Unauthorized, CodeInvalidClient, "client authentication failed"))
	if err != nil {
		return Client{}, err
	}
	if !allowed(c.Networks, from) {
		return Client{}, oauthErr(msgkit.Forbidden, CodeUnauthorizedClient, "the client may not authorise from this address")
	}
	return c, nil
}

// Password is the OAuth 2.0 resource owner password grant (RFC 6749 4.3)
// of the test system: tokens live PasswordTokenTTL. The client is public:
// no client credentials are asked for, since the test system's interface shows none.
func (s *Service) Password(ctx context.Context, username, password string) (IssuedToken, error) {
	if username == "" || password == "" {
		return IssuedToken{}, oauthErr(msgkit.Invalid, CodeInvalidRequest, "username and password are required")
	}
	u, err := secret.Check(ctx, s.secrets, s.store.User, username, password, func(u User) string { return u.PasswordHash },
		oauthErr(msgkit.Invalid, CodeInvalidGrant, "wrong username or password"))
	if err != nil {
		return IssuedToken{}, err
	}
	return s.issue(ctx, Principal{Kind: SubjectUser, Subject: u.Username, Services: u.Services, Privileges: u.Privileges}, PasswordTokenTTL)
}

func (s *Service) issue(ctx context.Context, p Principal, ttl time.Duration) (IssuedToken, error) {
	token, err := s.randomString()
	if err != nil {
		return IssuedToken{}, err
	}
	now := s.opts.Clock.Now().UTC()
	p.ExpiresAt = now.Add(ttl)
	if err := s.store.SaveToken(ctx, Token{Hash: sha256.Sum256([]byte(token)), Principal: p, IssuedAt: now}); err != nil {
		return IssuedToken{}, err
	}
	return IssuedToken{AccessToken: token, TokenType: "Bearer", ExpiresIn: int(ttl / time.Second)}, nil
}

// Verify returns the principal of a bearer token. Unknown and expired
// tokens are Unauthorized (invalid_token); an expired token is deleted.
func (s *Service) Verify(ctx context.Context, token string) (Principal, error) {
	if token == "" || len(token) > 512 {
		return Principal{}, msgkit.New(msgkit.Unauthorized, CodeInvalidToken, "invalid access token")
	}
	hash := sha256.Sum256([]byte(token))
	t, err := s.store.Token(ctx, hash)
	if errors.Is(err, msgkit.NotFound) {
		return Principal{}, msgkit.New(msgkit.Unauthorized, CodeInvalidToken, "invalid access token")
	}
	if err != nil {
		return Principal{}, err
	}
	if !s.opts.Clock.Now().Before(t.Principal.ExpiresAt) {
		if err := s.store.DeleteToken(ctx, hash); err != nil && !errors.Is(err, msgkit.NotFound) {
			s.opts.Logger.WarnContext(ctx, "deleting an expired token", "err", err)
		}
		return Principal{}, msgkit.New(msgkit.Unauthorized, CodeInvalidToken, "the access token expired")
	}
	return active(t)
}

// active is t's principal without its suspended tenants; a principal
// whose every tenant is suspended is refused (tenant_suspended), one
// without tenants (the operator's) never is.
func active(t Token) (Principal, error) {
	p := t.Principal
	if len(t.Suspended) == 0 {
		return p, nil
	}
	p.Services = slices.DeleteFunc(slices.Clone(p.Services), func(s msgkit.ServiceUUID) bool { return slices.Contains(t.Suspended, s) })
	p.Suspended = t.Suspended
	if len(p.Services) == 0 {
		return Principal{}, msgkit.New(msgkit.Forbidden, CodeTenantSuspended, "the tenant is suspended")
	}
	return p, nil
}

// VerifyAPIKey returns the API key matching key, or Unauthorized.
func (s *Service) VerifyAPIKey(ctx context.Context, key string) (APIKey, error) {
	if key == "" || len(key) > 512 {
		return APIKey{}, msgkit.New(msgkit.Unauthorized, CodeInvalidAPIKey, "invalid API key")
	}
	k, err := s.store.APIKey(ctx, sha256.Sum256([]byte(key)))
	if errors.Is(err, msgkit.NotFound) {
		return APIKey{}, msgkit.New(msgkit.Unauthorized, CodeInvalidAPIKey, "invalid API key")
	}
	return k, err
}

// PurgeExpired deletes every expired token; servers call it periodically.
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	return s.store.DeleteExpiredTokens(ctx, s.opts.Clock.Now())
}

// randomString is 256 bits from the configured source, base64url encoded.
func (s *Service) randomString() (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(s.opts.Rand, b[:]); err != nil {
		return "", msgkit.Wrap(err, msgkit.Internal, "random", "no randomness")
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// hashOrCheck hashes secret, or checks that hash is a bcrypt hash.
func (s *Service) hashOrCheck(secret, hash, field string) (string, error) {
	if hash != "" {
		if secret != "" {
			return "", msgkit.Invalidf(CodeInvalidRequest, field, "give the %s or its hash, not both", field)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return "", msgkit.Invalidf(CodeInvalidRequest, field+"_hash", "the %s hash is not a bcrypt hash", field)
		}
		return hash, nil
	}
	if len(secret) > 72 {
		return "", msgkit.Invalidf(CodeInvalidRequest, field, "a %s has at most 72 bytes", field)
	}
	return s.secrets.Hash(secret)
}

func validateGrants(nets []netip.Prefix, services []msgkit.ServiceUUID, privs []Privilege) error {
	e := msgkit.New(msgkit.Invalid, CodeInvalidRequest, "invalid grants")
	for _, n := range nets {
		if !n.IsValid() {
			e.WithField("networks", "an address range is invalid", "")
		}
	}
	for _, svc := range services {
		if c, err := msgkit.ParseServiceUUID(string(svc)); err != nil || c != svc {
			e.WithField("services", "service "+string(svc)+" is not a canonical UUID", "")
		}
	}
	for _, p := range privs {
		if !p.Valid() {
			e.WithField("privileges", "unknown privilege "+string(p), "")
		}
	}
	if len(e.Fields) > 0 {
		e.Message = e.Fields[0].Message
		return e
	}
	return nil
}

func allowed(nets []netip.Prefix, from netip.Addr) bool {
	from = from.Unmap()
	for _, n := range nets {
		if n.Contains(from) {
			return true
		}
	}
	return false
}

func oauthErr(kind msgkit.Kind, code, msg string) error { return msgkit.New(kind, code, msg) }
