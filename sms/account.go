package sms

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"

	"github.com/msgkit/msgkit/sms/gsm"
)

// DefaultValidity is how long the network tries to deliver a part unless the
// account says otherwise: the validity the bulk SMS interface gives.
const DefaultValidity = 24 * time.Hour

// The bounds of an account's credentials, in bytes: a username of at most
// MaxUsernameBytes, a password of at most MaxPasswordBytes (bcrypt's).
const (
	MaxUsernameBytes = 200
	MaxPasswordBytes = 72
)

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
	Prices []Price
	// Tenant is the operator's customer the account belongs to; "" for
	// none. A suspended tenant's accounts are refused as disabled ones
	// (103), seen within GatewayOptions.CredentialTTL.
	Tenant msgkit.ServiceUUID
	// InboundURL is where messages from the network that the inbound
	// routing records hand to this account by smpp_connect_id are posted
	// (package inbound); "" for none. An absolute http or https URL
	// (CheckReportURL), dialled through the egress policy as report URLs
	// are.
	InboundURL string
	CreatedAt  time.Time
}

// Price is one line of a price list, in the account's currency.
type Price struct {
	Prefix string
	Price  decimal.Decimal
	// ValidFrom and ValidTo bound the UTC days the line holds, both
	// included; a zero date leaves that end open. Lines of one prefix
	// never overlap (CheckPrices), so a new price is given as a line from
	// the day it starts, the old one ending the day before.
	ValidFrom, ValidTo msgkit.Date
}

// validOn reports whether the line holds on day d.
func (p Price) validOn(d msgkit.Date) bool {
	return (p.ValidFrom.IsZero() || !d.Before(p.ValidFrom)) && (p.ValidTo.IsZero() || !d.After(p.ValidTo))
}

// MaxPrices is the most lines a price list may have.
const MaxPrices = 10_000

// CheckPrices refuses a price list no account may have: a prefix that is
// not 1 to 15 digits, a negative price, a line ending before it starts,
// two lines of one prefix holding on a common day, more than MaxPrices
// lines. The error is Invalid (account_invalid) naming prices[i].
func CheckPrices(ps []Price) error {
	if len(ps) > MaxPrices {
		return msgkit.Invalidf(CodeAccountInvalid, "prices", "a price list has at most %d lines", MaxPrices)
	}
	byPrefix := map[string][]int{}
	for i, p := range ps {
		field := fmt.Sprintf("prices[%d]", i)
		switch {
		case p.Prefix == "" || len(p.Prefix) > 15 || !allDigits(p.Prefix):
			return msgkit.Invalidf(CodeAccountInvalid, field+".prefix", "a prefix is 1 to 15 digits of E.164 without '+'")
		case p.Price.IsNegative():
			return msgkit.Invalidf(CodeAccountInvalid, field+".price", "a price is not below zero")
		case !p.ValidFrom.IsZero() && !p.ValidTo.IsZero() && p.ValidTo.Before(p.ValidFrom):
			return msgkit.Invalidf(CodeAccountInvalid, field+".validTo", "a line ends on or after the day it starts")
		}
		for _, j := range byPrefix[p.Prefix] {
			if overlap(ps[j], p) {
				return msgkit.Invalidf(CodeAccountInvalid, field, "prefix %s has two lines on a common day (prices[%d] too)", p.Prefix, j)
			}
		}
		byPrefix[p.Prefix] = append(byPrefix[p.Prefix], i)
	}
	return nil
}

// overlap reports whether two lines hold on a common day.
func overlap(a, b Price) bool {
	aEndsBeforeB := !a.ValidTo.IsZero() && !b.ValidFrom.IsZero() && a.ValidTo.Before(b.ValidFrom)
	bEndsBeforeA := !b.ValidTo.IsZero() && !a.ValidFrom.IsZero() && b.ValidTo.Before(a.ValidFrom)
	return !aEndsBeforeB && !bEndsBeforeA
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

// PriceFor returns the price of one part to the receiver on day on (UTC):
// the longest matching prefix among the lines that hold that day.
func (a Account) PriceFor(to MSISDN, on msgkit.Date) (decimal.Decimal, bool) {
	digits := to.Digits()
	best, found := -1, false
	var price decimal.Decimal
	for _, p := range a.Prices {
		if len(p.Prefix) > best && strings.HasPrefix(digits, p.Prefix) && p.validOn(on) {
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
