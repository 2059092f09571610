package sms

import (
	"net/netip"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/sms/gsm"
)

// DefaultValidity is how long the network tries to deliver a part unless the
// account says otherwise: the validity the bulk SMS interface gives.
const DefaultValidity = 24 * time.Hour

// Account is a bulk SMS customer account: the credentials of the request's
// auth object, where it may send from, what it may send and what it pays.
type Account struct {
	Username     string
	PasswordHash string         // bcrypt; the password is never stored
	Networks     []netip.Prefix // client addresses allowed to submit (104 otherwise)
	Enabled      bool
	Balance      decimal.Decimal
	// CreditLimit (postpaid credit, not below zero) lets the balance go
	// down to -CreditLimit; 0 is prepaid: the balance stays at or above
	// zero.
	CreditLimit decimal.Decimal
	Currency    string        // ISO 4217, e.g. EUR
	Validity    time.Duration // 0 means DefaultValidity
	Throughput  int           // submissions per second; 0 means unlimited
	MaxParts    int           // parts one message may have; 0 means MaxParts (255)
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
	if a.MaxParts > 0 && a.MaxParts < gsm.MaxParts {
		return a.MaxParts
	}
	return gsm.MaxParts
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
