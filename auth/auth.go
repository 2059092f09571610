package auth

import (
	"context"
	"net/netip"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
)

// Privilege is a permission a client or user holds.
type Privilege string

// The privileges of the interfaces: the finance interface's privileges for
// finance, news for the customer data storage and campaign API, testsystem
// for the SMS route test system, and msgkit's own: testsystem.manage for
// an operator of the test system, who changes the platform's reference
// lists (categories, suppliers, gates and their routes) every user shares
// (without it a user changes only the records it made), ui-components
// for UI components' data through the integration proxy, and
// finance-reference.manage for an operator who keeps the finance reference
// data invoices and the documents export read (business partners, billing
// accounts, document types, invoice configurations): operator data, which
// no -own privilege reaches.
const (
	PrivNews                          Privilege = "news"
	PrivFinanceInvoicesView           Privilege = "finance-invoices.view"
	PrivFinanceInvoicesOwnView        Privilege = "finance-invoices-own.view"
	PrivFinanceInvoicesManage         Privilege = "finance-invoices.manage"
	PrivFinanceCustInvoicesManage     Privilege = "finance-cust-invoices.manage"
	PrivFinanceSupplierInvoicesManage Privilege = "finance-supplier-invoices.manage"
	PrivFinanceNettingInvoicesManage  Privilege = "finance-netting-invoices.manage"
	PrivFinanceBalanceView            Privilege = "finance-balance-view"
	PrivFinanceBalanceOwnView         Privilege = "finance-balance-own-view"
	PrivFinanceReferenceManage        Privilege = "finance-reference.manage"
	PrivTestSystem                    Privilege = "testsystem"
	PrivTestSystemManage              Privilege = "testsystem.manage"
	PrivUIComponents                  Privilege = "ui-components"

	// The operator's administration: operator-wide, never a tenant's. A
	// caller holding one acts on every tenant's records of its kind, so
	// none is given with a tenant's grants by default.
	PrivAdminTenants Privilege = "admin.tenants" // tenants: create, list, suspend, resume
	PrivAdminClients Privilege = "admin.clients" // API clients, users and API keys
	PrivAdminAudit   Privilege = "admin.audit"   // the audit trail of administrative changes
	// PrivAdminComponents puts, lists and deletes UI components, whoever's
	// tenant they serve.
	PrivAdminComponents Privilege = "admin.ui-components"
	// PrivAdminAccounts creates, reads and changes bulk SMS accounts
	// (suspension, tenant, prices, credit limit).
	PrivAdminAccounts Privilege = "admin.accounts"
	// PrivAdminCredit tops up and adjusts accounts' credit, and reads,
	// exports and reconciles their ledgers.
	PrivAdminCredit Privilege = "admin.credit"
	// PrivAdminTrace finds messages and shows them whole, their
	// receivers masked; PrivAdminTraceReceivers shows receivers whole.
	PrivAdminTrace          Privilege = "admin.trace"
	PrivAdminTraceReceivers Privilege = "admin.trace.receivers"
)

// Privileges lists every known privilege.
func Privileges() []Privilege {
	return []Privilege{
		PrivNews, PrivFinanceInvoicesView, PrivFinanceInvoicesOwnView, PrivFinanceInvoicesManage,
		PrivFinanceCustInvoicesManage, PrivFinanceSupplierInvoicesManage, PrivFinanceNettingInvoicesManage,
		PrivFinanceBalanceView, PrivFinanceBalanceOwnView, PrivFinanceReferenceManage, PrivTestSystem, PrivTestSystemManage, PrivUIComponents,
		PrivAdminTenants, PrivAdminClients, PrivAdminAudit, PrivAdminComponents, PrivAdminAccounts, PrivAdminCredit,
		PrivAdminTrace, PrivAdminTraceReceivers,
	}
}

// AdminPrivileges lists the operator's administration privileges, which
// reach every tenant.
func AdminPrivileges() []Privilege {
	return []Privilege{PrivAdminTenants, PrivAdminClients, PrivAdminAudit, PrivAdminComponents, PrivAdminAccounts, PrivAdminCredit,
		PrivAdminTrace, PrivAdminTraceReceivers}
}

// TenantPrivileges lists the privileges that act within the tenants a
// caller acts for: Privileges without AdminPrivileges.
func TenantPrivileges() []Privilege {
	return slices.DeleteFunc(Privileges(), func(p Privilege) bool { return slices.Contains(AdminPrivileges(), p) })
}

// Valid reports whether p is a known privilege.
func (p Privilege) Valid() bool { return slices.Contains(Privileges(), p) }

// Tenant is a customer of the operator: the service UUID its clients act
// for in every family, its name, and whether it is suspended. A suspended
// tenant's calls are refused in every family (see Service.Verify); its
// records stay.
type Tenant struct {
	ID        msgkit.ServiceUUID
	Name      string
	Suspended bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Client is an API client of the OAuth 2.0 client credentials flow: a
// server-side application registered by the operator.
type Client struct {
	ID         string
	Name       string
	SecretHash string         // bcrypt hash of the client secret; the secret itself is never stored
	Networks   []netip.Prefix // addresses it may authorise from (a single address is a /32 or /128)
	Services   []msgkit.ServiceUUID
	Privileges []Privilege
	CreatedAt  time.Time
}

// User is a person of the test system's password grant (the test system's security).
type User struct {
	Username     string
	PasswordHash string // bcrypt
	Services     []msgkit.ServiceUUID
	Privileges   []Privilege
	CreatedAt    time.Time
}

// SubjectKind tells whether a token was issued to a client or a user.
type SubjectKind uint8

// The subject kinds.
const (
	SubjectClient SubjectKind = iota + 1
	SubjectUser
)

// Principal is who a verified token speaks for, and what it may do: a
// snapshot of the client's or user's tenants and privileges at issue time.
type Principal struct {
	Kind       SubjectKind
	Subject    string // client id or username
	Services   []msgkit.ServiceUUID
	Privileges []Privilege
	ExpiresAt  time.Time
	// Suspended are tenants the principal was given that are suspended
	// now: Services holds them no more, and a family that names a tenant
	// answers them tenant_suspended rather than as tenants of another.
	Suspended []msgkit.ServiceUUID
}

// ActsFor reports whether the principal may act for the tenant.
func (p Principal) ActsFor(svc msgkit.ServiceUUID) bool { return slices.Contains(p.Services, svc) }

// HasAny reports whether the principal holds at least one of privs.
func (p Principal) HasAny(privs ...Privilege) bool {
	for _, want := range privs {
		if slices.Contains(p.Privileges, want) {
			return true
		}
	}
	return false
}

// Token is an issued access token as stored: only the SHA-256 of the token
// is kept, never the token.
type Token struct {
	Hash      [32]byte
	Principal Principal
	IssuedAt  time.Time
	// Suspended are the principal's tenants suspended now, in id order, as
	// the store reads them with the token (never a snapshot), so a
	// suspension takes effect on the next request on every replica.
	Suspended []msgkit.ServiceUUID
}

// APIKey is a key of the X-API-Key header (routing provisioning). Only its
// SHA-256 is stored.
type APIKey struct {
	ID        string
	Name      string
	Hash      [32]byte
	CreatedAt time.Time
}

// Store keeps tenants, clients, users, tokens and API keys. Lookups of
// absent records answer msgkit.NotFound; creating a record whose key
// exists answers msgkit.Conflict. Listings take a query of the ListSpec
// of their kind (TenantListSpec, ClientListSpec, UserListSpec,
// APIKeyListSpec) and order by the record's key unless it sorts.
type Store interface {
	CreateTenant(ctx context.Context, t Tenant) error
	Tenant(ctx context.Context, id msgkit.ServiceUUID) (Tenant, error)
	Tenants(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Tenant], error)
	// ReplaceTenant saves t's name, suspension and UpdatedAt over the
	// stored tenant's.
	ReplaceTenant(ctx context.Context, t Tenant) error

	// CreateClient stores c and registers each tenant of c.Services that
	// is not registered yet (named by its id), in one step.
	CreateClient(ctx context.Context, c Client) error
	Client(ctx context.Context, id string) (Client, error)
	Clients(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Client], error)
	// ReplaceClient saves c over the stored client (all but CreatedAt),
	// registers its tenants as CreateClient does and deletes every token
	// issued to it, in one step: a changed client's grants and secret
	// hold from the next request, on every replica.
	ReplaceClient(ctx context.Context, c Client) error
	// DeleteClient deletes the client with every token issued to it.
	DeleteClient(ctx context.Context, id string) error

	// CreateUser, ReplaceUser and DeleteUser are the client's methods for
	// users of the password grant.
	CreateUser(ctx context.Context, u User) error
	User(ctx context.Context, username string) (User, error)
	Users(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[User], error)
	ReplaceUser(ctx context.Context, u User) error
	DeleteUser(ctx context.Context, username string) error

	SaveToken(ctx context.Context, t Token) error
	Token(ctx context.Context, hash [32]byte) (Token, error)
	DeleteToken(ctx context.Context, hash [32]byte) error
	// DeleteExpiredTokens removes tokens that expired at or before now and
	// returns how many it removed.
	DeleteExpiredTokens(ctx context.Context, now time.Time) (int, error)

	CreateAPIKey(ctx context.Context, k APIKey) error
	APIKey(ctx context.Context, hash [32]byte) (APIKey, error)
	APIKeys(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[APIKey], error)
	// DeleteAPIKey deletes the key with id (not its hash).
	DeleteAPIKey(ctx context.Context, id string) error
}
