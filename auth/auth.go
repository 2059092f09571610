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
)

// Privileges lists every known privilege.
func Privileges() []Privilege {
	return []Privilege{
		PrivNews, PrivFinanceInvoicesView, PrivFinanceInvoicesOwnView, PrivFinanceInvoicesManage,
		PrivFinanceCustInvoicesManage, PrivFinanceSupplierInvoicesManage, PrivFinanceNettingInvoicesManage,
		PrivFinanceBalanceView, PrivFinanceBalanceOwnView, PrivFinanceReferenceManage, PrivTestSystem, PrivTestSystemManage, PrivUIComponents,
	}
}

// Valid reports whether p is a known privilege.
func (p Privilege) Valid() bool { return slices.Contains(Privileges(), p) }

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
}

// APIKey is a key of the X-API-Key header (routing provisioning). Only its
// SHA-256 is stored.
type APIKey struct {
	ID        string
	Name      string
	Hash      [32]byte
	CreatedAt time.Time
}

// Store keeps clients, users, tokens and API keys. Lookups of absent records
// answer msgkit.NotFound; creating a record whose key exists answers
// msgkit.Conflict.
type Store interface {
	CreateClient(ctx context.Context, c Client) error
	Client(ctx context.Context, id string) (Client, error)
	CreateUser(ctx context.Context, u User) error
	User(ctx context.Context, username string) (User, error)

	SaveToken(ctx context.Context, t Token) error
	Token(ctx context.Context, hash [32]byte) (Token, error)
	DeleteToken(ctx context.Context, hash [32]byte) error
	// DeleteExpiredTokens removes tokens that expired at or before now and
	// returns how many it removed.
	DeleteExpiredTokens(ctx context.Context, now time.Time) (int, error)

	CreateAPIKey(ctx context.Context, k APIKey) error
	APIKey(ctx context.Context, hash [32]byte) (APIKey, error)
}
