package memstore

import (
	"context"
	"maps"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

var _ sms.AccountStore = (*SMSStore)(nil)

// Accounts lists the accounts by q, by username unless q sorts them.
func (s *SMSStore) Accounts(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[sms.Account], error) {
	s.mu.RLock()
	all := make([]sms.Account, 0, len(s.accounts.rows))
	for _, name := range slices.Sorted(maps.Keys(s.accounts.rows)) {
		all = append(all, s.accounts.rows[name])
	}
	s.mu.RUnlock()
	page, err := msgkit.Apply(all, q, sms.AccountAttr)
	for i, a := range page.Items {
		page.Items[i] = cloneAccount(a)
	}
	return page, err
}

// UpdateAccount runs fn on a copy of the account under the lock and keeps
// what it changed but the username, balance, currency and creation time.
func (s *SMSStore) UpdateAccount(ctx context.Context, username string, fn func(*sms.Account) error) (sms.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.accounts.rows[username]
	if !ok {
		return sms.Account{}, s.accounts.notFound(username)
	}
	a := cloneAccount(stored)
	if err := fn(&a); err != nil {
		return sms.Account{}, err
	}
	a.Username, a.Balance, a.Currency, a.CreatedAt = stored.Username, stored.Balance, stored.Currency, stored.CreatedAt
	if err := a.CheckBalance(); err != nil {
		return sms.Account{}, err
	}
	s.accounts.rows[username] = cloneAccount(a)
	return a, nil
}
