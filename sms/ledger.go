package sms

import (
	"context"
	"iter"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// LedgerKind is what an entry of an account's credit ledger records.
type LedgerKind string

// The kinds of ledger entries.
const (
	// LedgerTopUp adds credit (a payment); its amount is positive.
	LedgerTopUp LedgerKind = "top_up"
	// LedgerAdjustment is an operator's correction, either sign.
	LedgerAdjustment LedgerKind = "adjustment"
	// LedgerCharge is an accepted message's charge (its Charged,
	// negative here). Charge entries are the stored messages themselves:
	// no store writes a row for them.
	LedgerCharge LedgerKind = "charge"
	// LedgerRefund gives a charge back. The platform gives none today
	// (a part that fails after acceptance stays charged); the kind is
	// kept so that a refund, when one is decided, is told from an
	// adjustment. Credit does not write it.
	LedgerRefund LedgerKind = "refund"
	// LedgerCarried holds what entries no longer stored added up to: the
	// charges of the messages retention removed (one entry per account
	// per removal), and an account's opening balance (created with one,
	// or before the ledger existed).
	LedgerCarried LedgerKind = "carried"
)

// Valid reports whether k is one of the kinds.
func (k LedgerKind) Valid() bool {
	switch k {
	case LedgerTopUp, LedgerAdjustment, LedgerCharge, LedgerRefund, LedgerCarried:
		return true
	}
	return false
}

// Limits of a ledger entry's texts.
const (
	MaxLedgerActor = 200 // characters
	MaxLedgerNote  = 500 // characters
)

// Actors of the entries the stores write themselves.
const (
	ActorRetention = "retention" // carried entries of removed messages
	ActorOpening   = "opening"   // an account's opening balance
)

// LedgerEntry is one change of an account's balance. An account's
// Balance always equals the sum of its entries' amounts (the ledger's
// law; Reconcile reports accounts where it does not hold).
type LedgerEntry struct {
	// ID is assigned by the store from one sequence for every entry
	// (charges included), increasing in the order entries are written.
	ID       int64
	Account  string
	Kind     LedgerKind
	Amount   decimal.Decimal // signed: charges are negative
	Currency string
	// BalanceAfter is the balance the entry left, where the store knows
	// it without cost: top-ups, adjustments and refunds. Charges and
	// carried entries leave it unset (acceptance writes the balance in
	// bulk and does not note it per message).
	BalanceAfter decimal.NullDecimal
	At           time.Time
	// Actor says who made the change ("client:crm", "operator:ana"); for
	// charges "account:" and the account, for carried entries
	// ActorRetention or ActorOpening.
	Actor string
	Note  string
	// MessageID is the charged message's, for charges only.
	MessageID MessageID
}

// CheckLedgerChange refuses an explicit entry (one that ApplyLedger
// writes) that no store writes: a kind other than top-up, adjustment or
// refund, a zero amount, a top-up or refund that is not positive, a
// missing currency or actor, texts too long. Both stores call it.
func CheckLedgerChange(e LedgerEntry) error {
	err := msgkit.New(msgkit.Invalid, CodeLedgerInvalid, "invalid ledger entry")
	switch e.Kind {
	case LedgerTopUp, LedgerRefund:
		if !e.Amount.IsPositive() {
			err.WithField("amount", "a "+strings.ReplaceAll(string(e.Kind), "_", "-")+" is a positive amount", "")
		}
	case LedgerAdjustment:
		if e.Amount.IsZero() {
			err.WithField("amount", "an adjustment is not zero", "")
		}
	default:
		err.WithField("kind", "only top_up, adjustment and refund entries are written", "")
	}
	if e.Account == "" {
		err.WithField("account", "the account is missing", "")
	}
	if e.Currency == "" {
		err.WithField("currency", "the currency is missing", "")
	}
	if e.Actor == "" || utf8.RuneCountInString(e.Actor) > MaxLedgerActor || !utf8.ValidString(e.Actor) {
		err.WithField("actor", "an actor has 1 to 200 characters", "")
	}
	if utf8.RuneCountInString(e.Note) > MaxLedgerNote || !utf8.ValidString(e.Note) {
		err.WithField("note", "a note has at most 500 characters", "")
	}
	if e.At.IsZero() {
		err.WithField("at", "the time is missing", "")
	}
	if len(err.Fields) > 0 {
		err.Message = err.Fields[0].Message
		return err
	}
	return nil
}

// CheckLedgerFloor refuses, with 113 (RC_NO_CREDIT), a change of the
// account that would take its balance below -CreditLimit; a currency
// other than the account's is Invalid naming the field. Both stores call
// it with the account as locked.
func CheckLedgerFloor(a Account, e LedgerEntry) error {
	if e.Currency != a.Currency {
		return msgkit.Invalidf(CodeLedgerInvalid, "currency", "the account's currency is %s, not %s", a.Currency, e.Currency)
	}
	if after := a.Balance.Add(e.Amount); after.LessThan(a.CreditLimit.Neg()) {
		return CodeNoCredit.Errorf("balance %s %s with %s would be below the floor %s", a.Balance, a.Currency, e.Amount, a.CreditLimit.Neg())
	}
	return nil
}

// Discrepancy is an account whose balance is not the sum of its ledger.
type Discrepancy struct {
	Account    string
	Currency   string
	Expected   decimal.Decimal // the sum of the entries
	Actual     decimal.Decimal // the balance
	Difference decimal.Decimal // Actual - Expected
}

// LedgerCursor is a position in an account's ledger in its order (At,
// then ID): the entries after it come next.
type LedgerCursor struct {
	At time.Time
	ID int64
}

// LedgerStore is what Credit needs of storage. memstore and pgstore
// implement it.
type LedgerStore interface {
	// ApplyLedger writes an explicit entry (checked by CheckLedgerChange)
	// and changes the account's balance by its amount, atomically, and
	// returns the entry with its ID and BalanceAfter. An unknown account
	// is NotFound; CheckLedgerFloor's refusals change nothing.
	ApplyLedger(ctx context.Context, e LedgerEntry) (LedgerEntry, error)
	// LedgerEntries lists an account's entries (LedgerListSpec's
	// attributes), in the ledger's order (At, then ID) unless sorted.
	LedgerEntries(ctx context.Context, account string, q msgkit.ListQuery) (msgkit.Page[LedgerEntry], error)
	// LedgerPage returns up to limit entries of the account with At in
	// [from, to) after the cursor, in the ledger's order.
	LedgerPage(ctx context.Context, account string, from, to time.Time, after LedgerCursor, limit int) ([]LedgerEntry, error)
	// Reconcile reports the accounts (one, or all when account is "")
	// whose balance differs from the sum of their entries, by username.
	Reconcile(ctx context.Context, account string) ([]Discrepancy, error)
}

// CodeLedgerInvalid is the code of a ledger change refused as Invalid.
const CodeLedgerInvalid = "ledger_entry_invalid"

// LedgerListSpec is what a listing of ledger entries filters and sorts
// by: kind, at (gte/lte ranges), amount and messageId; sort by at or id.
func LedgerListSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{
			"kind": msgkit.AttrString, "at": msgkit.AttrDateTime, "amount": msgkit.AttrNumber,
			"messageId": msgkit.AttrString, "id": msgkit.AttrNumber,
		},
		Sort:        []string{"at", "id"},
		MaxPageSize: 1000,
	}
}

// CreditOptions configure a Credit. Zero values choose the defaults.
type CreditOptions struct {
	Clock msgkit.Clock
	// ExportPage is how many entries Export reads per store call; default
	// 1,000.
	ExportPage int
	// Audit records every top-up and adjustment in the administration's
	// trail too; nil records none (the ledger records them either way).
	Audit Auditor
}

// Credit is the front door of the accounts' credit ledger: top-ups and
// adjustments, listings, exports and reconciliation. Charges are written
// by the Gateway's acceptance, carried entries by retention.
type Credit struct {
	store LedgerStore
	opts  CreditOptions
}

// NewCredit returns a Credit over store.
func NewCredit(store LedgerStore, opts CreditOptions) *Credit {
	opts.ExportPage = cmpOr(opts.ExportPage, 1000)
	if opts.Audit == nil {
		opts.Audit = noAudit{}
	}
	return &Credit{store: store, opts: opts}
}

// Change is a top-up or an adjustment as a caller asks for it.
type Change struct {
	Account  string
	Amount   decimal.Decimal
	Currency string // must be the account's
	Actor    string // who asks, for the audit ("client:crm")
	Note     string // a reference or reason, at most MaxLedgerNote characters
}

// TopUp adds a positive amount to the account's balance and records it.
func (c *Credit) TopUp(ctx context.Context, ch Change) (LedgerEntry, error) {
	return c.apply(ctx, LedgerTopUp, ch)
}

// Adjust changes the account's balance by a non-zero amount of either
// sign and records it; a change below the account's floor (-CreditLimit)
// is 113 and changes nothing.
func (c *Credit) Adjust(ctx context.Context, ch Change) (LedgerEntry, error) {
	return c.apply(ctx, LedgerAdjustment, ch)
}

func (c *Credit) apply(ctx context.Context, kind LedgerKind, ch Change) (LedgerEntry, error) {
	e := LedgerEntry{Account: ch.Account, Kind: kind, Amount: ch.Amount, Currency: ch.Currency,
		Actor: ch.Actor, Note: ch.Note, At: c.opts.Clock.Now().UTC()}
	if err := CheckLedgerChange(e); err != nil {
		return LedgerEntry{}, err
	}
	e, err := c.store.ApplyLedger(ctx, e)
	if err != nil {
		return LedgerEntry{}, err
	}
	_ = c.opts.Audit.Record(ctx, string(kind), "sms_account", e.Account, nil, struct {
		Entry    int64  `json:"entry"`
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
		Balance  string `json:"balanceAfter"`
		Note     string `json:"note"`
	}{e.ID, e.Amount.String(), e.Currency, e.BalanceAfter.Decimal.String(), e.Note})
	return e, nil
}

// Entries lists the account's entries (see LedgerListSpec).
func (c *Credit) Entries(ctx context.Context, account string, q msgkit.ListQuery) (msgkit.Page[LedgerEntry], error) {
	return c.store.LedgerEntries(ctx, account, q)
}

// Export yields the account's entries with At in [from, to), in the
// ledger's order (At, then ID), reading them a page at a time by keyset,
// so an export of any length holds one page in memory and no long
// transaction in the store. The first error ends it.
func (c *Credit) Export(ctx context.Context, account string, from, to time.Time) iter.Seq2[LedgerEntry, error] {
	return func(yield func(LedgerEntry, error) bool) {
		var after LedgerCursor // before every entry
		for {
			page, err := c.store.LedgerPage(ctx, account, from, to, after, c.opts.ExportPage)
			if err != nil {
				yield(LedgerEntry{}, err)
				return
			}
			for _, e := range page {
				if !yield(e, nil) {
					return
				}
			}
			if len(page) < c.opts.ExportPage {
				return
			}
			last := page[len(page)-1]
			after = LedgerCursor{At: last.At, ID: last.ID}
		}
	}
}

// Reconcile reports the accounts (one, or all when account is "") whose
// balance differs from the sum of their ledger entries.
func (c *Credit) Reconcile(ctx context.Context, account string) ([]Discrepancy, error) {
	return c.store.Reconcile(ctx, account)
}
