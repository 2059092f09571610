package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

var _ sms.LedgerStore = (*SMSStore)(nil)

// ledger is the credit ledger under the SMSStore's lock: the explicit
// entries by account (top-ups, adjustments, refunds, carried) in id
// order, and the ledger id of each stored message, whose charge is an
// entry as long as the message is stored (as on PostgreSQL).
type ledger struct {
	nextID   int64
	explicit map[string][]sms.LedgerEntry
	charges  map[sms.MessageID]int64
}

func (l *ledger) id() int64 {
	l.nextID++
	return l.nextID
}

// openingLocked records an account's opening balance, if any.
func (s *SMSStore) openingLocked(a sms.Account) {
	if a.Balance.IsZero() {
		return
	}
	s.ledger.explicit[a.Username] = append(s.ledger.explicit[a.Username], sms.LedgerEntry{
		ID: s.ledger.id(), Account: a.Username, Kind: sms.LedgerCarried, Amount: a.Balance, Currency: a.Currency,
		At: storeTime(a.CreatedAt), Actor: sms.ActorOpening, Note: "opening balance",
	})
}

// removeMessageLocked deletes the stored message m and carries its
// charge into the account's ledger, so the law holds: into the
// account's last entry when that is a carried entry of retention (the
// trimming removes messages one by one, and an entry each would grow
// memory as the messages did), else into a new one.
func (s *SMSStore) removeMessageLocked(m sms.MessageRecord) {
	s.forgetMessageLocked(m.ID)
	delete(s.ledger.charges, m.ID)
	if m.Charged.IsZero() {
		return
	}
	es := s.ledger.explicit[m.Account]
	if n := len(es); n > 0 && es[n-1].Kind == sms.LedgerCarried && es[n-1].Actor == sms.ActorRetention {
		last := &es[n-1]
		last.Amount = last.Amount.Sub(m.Charged)
		if m.SubmittedAt.After(last.At) {
			last.At = m.SubmittedAt
		}
		return
	}
	s.ledger.explicit[m.Account] = append(es, sms.LedgerEntry{
		ID: s.ledger.id(), Account: m.Account, Kind: sms.LedgerCarried, Amount: m.Charged.Neg(), Currency: m.Currency,
		At: m.SubmittedAt, Actor: sms.ActorRetention, Note: "charges of removed messages",
	})
}

// ApplyLedger writes an explicit entry and changes the balance under the
// lock.
func (s *SMSStore) ApplyLedger(ctx context.Context, e sms.LedgerEntry) (sms.LedgerEntry, error) {
	if err := sms.CheckLedgerChange(e); err != nil {
		return sms.LedgerEntry{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts.rows[e.Account]
	if !ok {
		return sms.LedgerEntry{}, s.accounts.notFound(e.Account)
	}
	if err := sms.CheckLedgerFloor(a, e); err != nil {
		return sms.LedgerEntry{}, err
	}
	a.Balance = a.Balance.Add(e.Amount)
	s.accounts.rows[e.Account] = a
	e.ID, e.At, e.MessageID = s.ledger.id(), storeTime(e.At), ""
	e.BalanceAfter = decimal.NewNullDecimal(a.Balance)
	s.ledger.explicit[e.Account] = append(s.ledger.explicit[e.Account], e)
	return e, nil
}

// entriesLocked gathers the account's entries in the ledger's order (At,
// then ID).
func (s *SMSStore) entriesLocked(account string) []sms.LedgerEntry {
	out := slices.Clone(s.ledger.explicit[account])
	for id, m := range s.messages.rows {
		if m.Account != account {
			continue
		}
		out = append(out, chargeEntry(m, s.ledger.charges[id]))
	}
	slices.SortFunc(out, compareEntries)
	return out
}

func chargeEntry(m sms.MessageRecord, id int64) sms.LedgerEntry {
	return sms.LedgerEntry{ID: id, Account: m.Account, Kind: sms.LedgerCharge, Amount: m.Charged.Neg(), Currency: m.Currency,
		At: m.SubmittedAt, Actor: "account:" + m.Account, MessageID: m.ID}
}

func compareEntries(a, b sms.LedgerEntry) int {
	return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID))
}

// LedgerEntries lists the account's entries with msgkit.Apply.
func (s *SMSStore) LedgerEntries(ctx context.Context, account string, q msgkit.ListQuery) (msgkit.Page[sms.LedgerEntry], error) {
	s.mu.RLock()
	es := s.entriesLocked(account)
	s.mu.RUnlock()
	return msgkit.Apply(es, q, ledgerAttr)
}

// ledgerAttr is the getter of sms.LedgerListSpec()'s attributes.
func ledgerAttr(e sms.LedgerEntry, attr string) (msgkit.Value, bool) {
	switch attr {
	case "kind":
		return msgkit.StringValue(string(e.Kind)), true
	case "at":
		return msgkit.TimeValue(e.At), true
	case "amount":
		v, err := msgkit.NumberValue(e.Amount.String())
		return v, err == nil
	case "messageId":
		if e.MessageID == "" {
			return msgkit.Null(), true
		}
		return msgkit.StringValue(string(e.MessageID)), true
	case "id":
		return msgkit.IntValue(e.ID), true
	}
	return msgkit.Value{}, false
}

// LedgerPage returns the entries after the cursor with At in [from, to).
func (s *SMSStore) LedgerPage(ctx context.Context, account string, from, to time.Time, after sms.LedgerCursor, limit int) ([]sms.LedgerEntry, error) {
	from, to, after.At = storeTime(from), storeTime(to), storeTime(after.At)
	s.mu.RLock()
	es := s.entriesLocked(account)
	s.mu.RUnlock()
	out := []sms.LedgerEntry{}
	for _, e := range es {
		if len(out) >= limit {
			break
		}
		if e.At.Before(from) || !e.At.Before(to) || compareEntries(e, sms.LedgerEntry{At: after.At, ID: after.ID}) <= 0 {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Reconcile compares each account's balance with the sum of its entries.
func (s *SMSStore) Reconcile(ctx context.Context, account string) ([]sms.Discrepancy, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sums := map[string]decimal.Decimal{}
	for name, es := range s.ledger.explicit {
		for _, e := range es {
			sums[name] = sums[name].Add(e.Amount)
		}
	}
	for _, m := range s.messages.rows {
		sums[m.Account] = sums[m.Account].Sub(m.Charged)
	}
	var out []sms.Discrepancy
	for name, a := range s.accounts.rows {
		if account != "" && name != account {
			continue
		}
		if sum := sums[name]; !sum.Equal(a.Balance) {
			out = append(out, sms.Discrepancy{Account: name, Currency: a.Currency, Expected: sum, Actual: a.Balance, Difference: a.Balance.Sub(sum)})
		}
	}
	slices.SortFunc(out, func(a, b sms.Discrepancy) int { return cmp.Compare(a.Account, b.Account) })
	return out, nil
}
