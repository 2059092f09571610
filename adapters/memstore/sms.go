package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
)

var _ sms.Store = (*Store)(nil)

// smsData holds accounts and messages; one lock makes Accept atomic.
type smsData struct {
	guarded
	accounts   map[string]sms.Account
	messages   map[sms.MessageID]sms.MessageRecord
	throughput map[string]window
	outbox     outbox
}

// window counts an account's submissions in one second.
type window struct {
	second int64
	count  int
}

func (d *smsData) init() {
	d.accounts = map[string]sms.Account{}
	d.messages = map[sms.MessageID]sms.MessageRecord{}
	d.throughput = map[string]window{}
	d.outbox.reports = map[int64]*queuedReport{}
	d.outbox.finished = map[sms.ReportState]int{}
}

func cloneAccount(a sms.Account) sms.Account {
	a.Networks = slices.Clone(a.Networks)
	a.Prices = slices.Clone(a.Prices)
	if a.BlacklistedSenderWords != nil {
		m := make(map[string][]string, len(a.BlacklistedSenderWords))
		for k, v := range a.BlacklistedSenderWords {
			m[k] = slices.Clone(v)
		}
		a.BlacklistedSenderWords = m
	}
	a.CreatedAt = a.CreatedAt.Truncate(time.Microsecond).UTC()
	a.Validity = a.Validity.Truncate(time.Millisecond) // pgstore keeps milliseconds
	return a
}

func cloneMessage(m sms.MessageRecord) sms.MessageRecord {
	m.Custom = slices.Clone(m.Custom)
	m.Parts = slices.Clone(m.Parts)
	slices.SortFunc(m.Parts, func(a, b sms.PartRecord) int { return a.Num - b.Num })
	for i := range m.Parts {
		m.Parts[i].Data = slices.Clone(m.Parts[i].Data)
		m.Parts[i].UpdatedAt = m.Parts[i].UpdatedAt.Truncate(time.Microsecond).UTC()
	}
	m.SubmittedAt = m.SubmittedAt.Truncate(time.Microsecond).UTC()
	m.ExpiresAt = m.ExpiresAt.Truncate(time.Microsecond).UTC()
	return m
}

func accountNotFound(username string) error {
	return msgkit.Errorf(msgkit.NotFound, "account_not_found", "account %s not found", username)
}

// CreateAccount stores a; an existing username is a Conflict.
func (s *Store) CreateAccount(ctx context.Context, a sms.Account) error {
	if a.Balance.IsNegative() {
		return msgkit.Invalidf("account_invalid", "balance", "balance must not be negative")
	}
	d := &s.sms
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.accounts[a.Username]; ok {
		return msgkit.Errorf(msgkit.Conflict, "account_exists", "account %s exists", a.Username)
	}
	d.accounts[a.Username] = cloneAccount(a)
	return nil
}

// Account returns the account, or NotFound.
func (s *Store) Account(ctx context.Context, username string) (sms.Account, error) {
	d := &s.sms
	d.mu.RLock()
	defer d.mu.RUnlock()
	a, ok := d.accounts[username]
	if !ok {
		return sms.Account{}, accountNotFound(username)
	}
	return cloneAccount(a), nil
}

// AddBalance adds delta; a result below zero is 113 with nothing changed.
func (s *Store) AddBalance(ctx context.Context, username string, delta decimal.Decimal) (decimal.Decimal, error) {
	d := &s.sms
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.accounts[username]
	if !ok {
		return decimal.Decimal{}, accountNotFound(username)
	}
	b := a.Balance.Add(delta)
	if b.IsNegative() {
		return a.Balance, sms.CodeNoCredit.Errorf("balance %s %s is below %s", a.Balance, a.Currency, delta.Neg())
	}
	a.Balance = b
	d.accounts[username] = a
	return b, nil
}

// Accept charges m.Charged and saves m under one lock.
func (s *Store) Accept(ctx context.Context, m sms.MessageRecord) error {
	if m.Charged.IsNegative() {
		return msgkit.Invalidf("message_invalid", "charged", "a charge is not negative")
	}
	d := &s.sms
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.accounts[m.Account]
	if !ok {
		return accountNotFound(m.Account)
	}
	if _, ok := d.messages[m.ID]; ok {
		return msgkit.Errorf(msgkit.Conflict, "message_exists", "message %s exists", m.ID)
	}
	if a.Balance.LessThan(m.Charged) {
		return sms.CodeNoCredit.Errorf("balance %s %s is below the charge %s", a.Balance, a.Currency, m.Charged)
	}
	a.Balance = a.Balance.Sub(m.Charged)
	d.accounts[m.Account] = a
	d.messages[m.ID] = cloneMessage(m)
	return nil
}

// Message returns the message with its parts, or NotFound.
func (s *Store) Message(ctx context.Context, id sms.MessageID) (sms.MessageRecord, error) {
	d := &s.sms
	d.mu.RLock()
	defer d.mu.RUnlock()
	m, ok := d.messages[id]
	if !ok {
		return sms.MessageRecord{}, msgkit.Errorf(msgkit.NotFound, "message_not_found", "message %s not found", id)
	}
	return cloneMessage(m), nil
}

// TakeThroughput counts a submission in the second of now.
func (s *Store) TakeThroughput(ctx context.Context, username string, now time.Time, limit int) (bool, error) {
	if limit <= 0 {
		return true, nil
	}
	d := &s.sms
	d.mu.Lock()
	defer d.mu.Unlock()
	sec := now.Unix()
	w := d.throughput[username]
	switch {
	case sec > w.second:
		w = window{second: sec}
	case sec < w.second:
		// A replica whose clock lags counts in the newer second, so that
		// skewed clocks cannot reset the window back and forth.
	}
	w.count++
	d.throughput[username] = w
	return w.count <= limit, nil
}
