package memstore

import "github.com/shopspring/decimal"

// SetBalanceBehindLedger sets an account's balance without an entry, as
// corruption would, for the reconciliation's test.
func (s *SMSStore) SetBalanceBehindLedger(username string, b decimal.Decimal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts.rows[username]
	a.Balance = b
	s.accounts.rows[username] = a
}
