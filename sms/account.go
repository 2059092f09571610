package sms

import (
	"context"
	"net/netip"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// DefaultValidity is how long the network tries to deliver a part unless the
// account says otherwise (document 3, section 8).
const DefaultValidity = 24 * time.Hour

// Account is a bulk SMS customer account: the credentials of the request's
// auth object, where it may send from, what it may send and what it pays.
type Account struct {
	Username     string
	PasswordHash string         // bcrypt; the password is never stored
	Networks     []netip.Prefix // client addresses allowed to submit (104 otherwise)
	Enabled      bool
	Balance      decimal.Decimal
	Currency     string        // ISO 4217, e.g. EUR
	Validity     time.Duration // 0 means DefaultValidity
	Throughput   int           // submissions per second; 0 means unlimited
	MaxParts     int           // parts one message may have; 0 means MaxParts (255)
	// BlacklistedSenderWords holds, by destination region (ISO 3166-1
	// alpha-2, as libphonenumber names it), words a sender must not
	// contain; matched case-insensitively.
	BlacklistedSenderWords map[string][]string
	// Prices is the price list: the price of one physical SMS by
	// destination prefix (E.164 digits without '+'; country, or MCC/MNC
	// level such as an operator's number range). The longest matching
	// prefix wins; a destination no prefix matches is not allowed (114).
	Prices    []Price
	CreatedAt time.Time
}

// Price is one line of a price list.
type Price struct {
	Prefix string
	Price  decimal.Decimal
}

// validity is the account's message validity.
func (a Account) validity() time.Duration {
	if a.Validity > 0 {
		return a.Validity
	}
	return DefaultValidity
}

func (a Account) maxParts() int {
	if a.MaxParts > 0 && a.MaxParts < MaxParts {
		return a.MaxParts
	}
	return MaxParts
}

// PriceFor returns the price of one part to the receiver: the longest
// matching prefix of the price list.
func (a Account) PriceFor(to MSISDN) (decimal.Decimal, bool) {
	digits := to.Digits()
	best, found := -1, false
	var price decimal.Decimal
	for _, p := range a.Prices {
		if len(p.Prefix) > best && strings.HasPrefix(digits, p.Prefix) {
			best, price, found = len(p.Prefix), p.Price, true
		}
	}
	return price, found
}

// blacklistedWord returns the first word of the destination region's
// blacklist that the sender contains.
func (a Account) blacklistedWord(region, sender string) (string, bool) {
	lower := strings.ToLower(sender)
	for _, w := range a.BlacklistedSenderWords[region] {
		if w != "" && strings.Contains(lower, strings.ToLower(w)) {
			return w, true
		}
	}
	return "", false
}

// MessageRecord is an accepted message as the Store keeps it.
type MessageRecord struct {
	ID          MessageID
	Account     string
	Type        string // "text" or "wsi"
	Sender      Sender
	Receiver    MSISDN
	DCS         DCS
	Flash       bool
	DLRMask     DLRMask
	DLRURL      string
	Custom      []byte // the submission's custom JSON object, echoed in reports
	PartPrice   decimal.Decimal
	Charged     decimal.Decimal // PartPrice × len(Parts)
	Currency    string
	SubmittedAt time.Time
	ExpiresAt   time.Time
	Parts       []PartRecord
}

// PartRecord is one physical SMS of a message and where it is.
type PartRecord struct {
	Num       int // 0-based, as reports number parts
	Text      string
	Data      []byte
	Units     int
	UDH       UDH
	State     PartState
	ErrorCode DLRError
	UpdatedAt time.Time
}

// Store keeps accounts and messages. Absent records are msgkit.NotFound,
// duplicates msgkit.Conflict.
type Store interface {
	CreateAccount(ctx context.Context, a Account) error
	Account(ctx context.Context, username string) (Account, error)
	// AddBalance adds delta (negative to take away) to the balance and
	// returns the new one; a result below zero is refused with 113.
	AddBalance(ctx context.Context, username string, delta decimal.Decimal) (decimal.Decimal, error)
	// Accept charges m.Charged to the account and saves m, atomically: under
	// any concurrency the balance never goes below zero and no saved message
	// is uncharged. A balance below the charge is 113 (RC_NO_CREDIT) with
	// nothing changed.
	Accept(ctx context.Context, m MessageRecord) error
	Message(ctx context.Context, id MessageID) (MessageRecord, error)
	// TakeThroughput counts one submission of the account in the second
	// of now and reports whether it stays within limit per second. Replicas
	// sharing a store share the count.
	TakeThroughput(ctx context.Context, username string, now time.Time, limit int) (bool, error)

	OutboxStore
}
