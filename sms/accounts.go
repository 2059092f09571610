package sms

import (
	"context"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/secret"
)

// AccountStore is what Accounts needs of storage. memstore and pgstore
// implement it.
type AccountStore interface {
	CreateAccount(ctx context.Context, a Account) error
	Account(ctx context.Context, username string) (Account, error)
	// Accounts lists the accounts by q (AccountListSpec), by username
	// unless q sorts them.
	Accounts(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Account], error)
	// UpdateAccount runs fn on the stored account, locked against other
	// changes of it, and saves what fn leaves but the username, balance,
	// currency and creation time, which no update changes; fn's error
	// saves nothing. An unknown account is NotFound.
	UpdateAccount(ctx context.Context, username string, fn func(*Account) error) (Account, error)
}

// AccountListSpec is the listing of accounts.
var AccountListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{
		"username": msgkit.AttrString, "tenant": msgkit.AttrString, "enabled": msgkit.AttrBool,
		"currency": msgkit.AttrString, "createdAt": msgkit.AttrDateTime,
	},
	Sort:   []string{"username", "createdAt"},
	Search: []string{"username"},
}

// AccountAttr is attribute attr of a as AccountListSpec names it.
func AccountAttr(a Account, attr string) (msgkit.Value, bool) {
	switch attr {
	case "username":
		return msgkit.StringValue(a.Username), true
	case "tenant":
		return msgkit.StringValue(string(a.Tenant)), true
	case "enabled":
		return msgkit.BoolValue(a.Enabled), true
	case "currency":
		return msgkit.StringValue(a.Currency), true
	case "createdAt":
		return msgkit.TimeValue(a.CreatedAt), true
	}
	return msgkit.Value{}, false
}

// CodeAccountNotFound is the code of an unknown account in the
// administration.
const CodeAccountNotFound = "account_not_found"

// AccountNotFound is the error of an unknown account.
func AccountNotFound(username string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeAccountNotFound, "account %s not found", msgkit.QuoteValue(username))
}

// Auditor records an administrative change: the action on the resource
// with id, the record before and after (nil for none). The actor travels
// in ctx; a failure is the auditor's to log. *audit.Log satisfies it.
type Auditor interface {
	Record(ctx context.Context, action, resource, id string, before, after any) error
}

type noAudit struct{}

func (noAudit) Record(context.Context, string, string, string, any, any) error { return nil }

// AccountsOptions configure Accounts. Zero values choose the defaults.
type AccountsOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// BcryptCost hashes passwords; default bcrypt.DefaultCost.
	BcryptCost int
	// Audit records every change; nil records none.
	Audit Auditor
}

// Accounts is the front door of bulk SMS account administration: create,
// list, read, change, suspend and resume, price lists. Balances change
// through Credit only. A change reaches gateways within their
// CredentialTTL (one minute by default): they keep verified accounts that
// long.
type Accounts struct {
	store   AccountStore
	opts    AccountsOptions
	secrets *secret.Checker
}

// NewAccounts returns Accounts over store.
func NewAccounts(store AccountStore, opts AccountsOptions) *Accounts {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.BcryptCost == 0 {
		opts.BcryptCost = bcrypt.DefaultCost
	}
	if opts.Audit == nil {
		opts.Audit = noAudit{}
	}
	return &Accounts{store: store, opts: opts, secrets: secret.NewChecker(opts.BcryptCost)}
}

// accountView is an account as the audit trail records it: never its
// password hash, nor its balance, which the ledger records.
type accountView struct {
	Username               string              `json:"username"`
	Tenant                 msgkit.ServiceUUID  `json:"tenant"`
	Enabled                bool                `json:"enabled"`
	Networks               []string            `json:"networks"`
	Currency               string              `json:"currency"`
	CreditLimit            string              `json:"creditLimit"`
	Validity               string              `json:"validity"`
	Throughput             int                 `json:"throughput"`
	MaxParts               int                 `json:"maxParts"`
	BlacklistedSenderWords map[string][]string `json:"blacklistedSenderWords"`
	Prices                 int                 `json:"prices"`
	InboundURL             string              `json:"inboundUrl,omitempty"`
	PasswordChanged        bool                `json:"passwordChanged,omitempty"`
}

func viewOf(a Account) accountView {
	nets := make([]string, len(a.Networks))
	for i, n := range a.Networks {
		nets[i] = n.String()
	}
	return accountView{Username: a.Username, Tenant: a.Tenant, Enabled: a.Enabled, Networks: nets, Currency: a.Currency,
		CreditLimit: a.CreditLimit.String(), Validity: a.validity().String(), Throughput: a.Throughput, MaxParts: a.MaxParts,
		BlacklistedSenderWords: a.BlacklistedSenderWords, Prices: len(a.Prices), InboundURL: a.InboundURL}
}

// Create registers an account (see Gateway.CreateAccount for the rules,
// which are the same).
func (s *Accounts) Create(ctx context.Context, spec AccountSpec) (Account, error) {
	a, err := prepareAccount(spec, s.secrets, s.opts.Clock)
	if err != nil {
		return Account{}, err
	}
	if err := s.store.CreateAccount(ctx, a); err != nil {
		return Account{}, err
	}
	_ = s.opts.Audit.Record(ctx, "create", "sms_account", a.Username, nil, viewOf(a))
	return a, nil
}

// Get returns an account.
func (s *Accounts) Get(ctx context.Context, username string) (Account, error) {
	a, err := s.store.Account(ctx, username)
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Account{}, AccountNotFound(username)
	}
	return a, err
}

// List lists the accounts by q (AccountListSpec).
func (s *Accounts) List(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Account], error) {
	return s.store.Accounts(ctx, q)
}

// AccountChange is a change of an account; nil members stay.
type AccountChange struct {
	Password               *string
	Networks               *[]netip.Prefix
	Enabled                *bool // false suspends the account, true resumes it
	Tenant                 *msgkit.ServiceUUID
	CreditLimit            *decimal.Decimal
	Validity               *time.Duration
	Throughput             *int
	MaxParts               *int
	BlacklistedSenderWords *map[string][]string
	Prices                 *[]Price
	InboundURL             *string // "" removes it
}

// Update changes an account by ch under the rules of an account; a credit
// limit that the balance is below already is refused (the balance must
// stay at or above -CreditLimit; top it up first).
func (s *Accounts) Update(ctx context.Context, username string, ch AccountChange) (Account, error) {
	var hash string
	if ch.Password != nil {
		if *ch.Password == "" || len(*ch.Password) > MaxPasswordBytes {
			return Account{}, msgkit.Invalidf(CodeAccountInvalid, "password", "a password has 1 to 72 bytes")
		}
		h, err := s.secrets.Hash(*ch.Password)
		if err != nil {
			return Account{}, err
		}
		hash = h
	}
	var before Account
	a, err := s.store.UpdateAccount(ctx, username, func(a *Account) error {
		before = a.Clone()
		if hash != "" {
			a.PasswordHash = hash
		}
		if ch.Networks != nil {
			a.Networks = slices.Clone(*ch.Networks)
		}
		if ch.Enabled != nil {
			a.Enabled = *ch.Enabled
		}
		if ch.Tenant != nil {
			a.Tenant = *ch.Tenant
		}
		if ch.CreditLimit != nil {
			a.CreditLimit = *ch.CreditLimit
		}
		if ch.Validity != nil {
			a.Validity = *ch.Validity
		}
		if ch.Throughput != nil {
			a.Throughput = *ch.Throughput
		}
		if ch.MaxParts != nil {
			a.MaxParts = *ch.MaxParts
		}
		if ch.BlacklistedSenderWords != nil {
			a.BlacklistedSenderWords = maps.Clone(*ch.BlacklistedSenderWords)
		}
		if ch.Prices != nil {
			a.Prices = slices.Clone(*ch.Prices)
		}
		if ch.InboundURL != nil {
			a.InboundURL = *ch.InboundURL
		}
		return checkSettings(*a)
	})
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Account{}, AccountNotFound(username)
	}
	if err != nil {
		return Account{}, err
	}
	action := "update"
	switch {
	case before.Enabled && !a.Enabled:
		action = "suspend"
	case !before.Enabled && a.Enabled:
		action = "resume"
	}
	after := viewOf(a)
	after.PasswordChanged = hash != ""
	_ = s.opts.Audit.Record(ctx, action, "sms_account", username, viewOf(before), after)
	return a, nil
}

// checkSettings refuses settings no account may have (Invalid,
// account_invalid, naming the field).
func checkSettings(a Account) error {
	e := msgkit.New(msgkit.Invalid, CodeAccountInvalid, "invalid account")
	if a.CreditLimit.IsNegative() {
		e.WithField("creditLimit", "a credit limit is not negative", "")
	} else if a.Balance.LessThan(a.CreditLimit.Neg()) {
		e.WithField("creditLimit", "the balance "+a.Balance.String()+" is below the credit limit's floor: top the account up first", "")
	}
	for _, n := range a.Networks {
		if !n.IsValid() {
			e.WithField("networks", "a network is not a valid address range", "")
			break
		}
	}
	if a.Validity < 0 || a.Validity > 7*24*time.Hour {
		e.WithField("validity", "a validity is 0 (the default, 24 hours) to 7 days", "")
	}
	if a.Throughput < 0 || a.Throughput > 1_000_000 {
		e.WithField("throughput", "a throughput is 0 (unlimited) to 1,000,000 a second", "")
	}
	if a.MaxParts < 0 || a.MaxParts > 255 {
		e.WithField("maxParts", "maxParts is 0 (255) to 255", "")
	}
	if a.Tenant != "" {
		if t, err := msgkit.ParseServiceUUID(string(a.Tenant)); err != nil || t != a.Tenant {
			e.WithField("tenant", "a tenant is a UUID in lower case", "")
		}
	}
	if a.InboundURL != "" && !CheckReportURL(a.InboundURL) {
		e.WithField("inboundUrl", "inboundUrl must be an absolute http or https URL of at most 2048 bytes", "")
	}
	if err := CheckPrices(a.Prices); err != nil {
		if me, ok := err.(*msgkit.Error); ok && len(me.Fields) > 0 {
			e.WithField(me.Fields[0].Name, me.Fields[0].Message, "")
		}
	}
	if len(e.Fields) > 0 {
		e.Message = e.Fields[0].Message
		return e
	}
	return nil
}

// Clone is a copy of a sharing no slice or map with it; stores keep and
// hand out clones.
func (a Account) Clone() Account {
	a.Networks = slices.Clone(a.Networks)
	a.Prices = slices.Clone(a.Prices)
	if a.BlacklistedSenderWords != nil {
		m := make(map[string][]string, len(a.BlacklistedSenderWords))
		for k, v := range a.BlacklistedSenderWords {
			m[k] = slices.Clone(v)
		}
		a.BlacklistedSenderWords = m
	}
	return a
}
