package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

var _ sms.AccountStore = (*SMSStore)(nil)

// accountsTable is the listing of accounts (sms.AccountListSpec).
var accountsTable = listTable{
	From: "sms_accounts a", Select: accountColumns, Scope: "TRUE",
	Attrs: map[string]listAttr{
		"username": {"a.username", msgkit.AttrString}, "tenant": {"a.tenant", msgkit.AttrString},
		"enabled": {"a.enabled", msgkit.AttrBool}, "currency": {"a.currency", msgkit.AttrString},
		"createdAt": {"a.created_at", msgkit.AttrDateTime},
	},
	Order: `a.username COLLATE "C"`,
}

// Accounts lists the accounts by q, by username unless q sorts them.
func (s *SMSStore) Accounts(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[sms.Account], error) {
	return listPage(ctx, s.pool, &accountsTable, q, scanSMSAccount)
}

// UpdateAccount runs fn on the account locked FOR UPDATE (acceptance
// waits for it, as it waits for another acceptance of the account) and
// saves what fn leaves but the username, balance, currency and creation
// time.
func (s *SMSStore) UpdateAccount(ctx context.Context, username string, fn func(*sms.Account) error) (sms.Account, error) {
	if !storable(username) {
		return sms.Account{}, classify(pgx.ErrNoRows, "account", "account "+username)
	}
	var out sms.Account
	err := inTx(ctx, s.pool, s.log, "updating an account", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT `+accountColumns+` FROM sms_accounts a WHERE username = $1 FOR UPDATE`, username)
		stored, err := pgx.CollectExactlyOneRow(rows, scanSMSAccount)
		if err != nil {
			return err
		}
		a := stored
		if err := fn(&a); err != nil {
			return final{err}
		}
		a.Username, a.Balance, a.Currency, a.CreatedAt = stored.Username, stored.Balance, stored.Currency, stored.CreatedAt
		if err := checkAccount(a); err != nil {
			return final{err}
		}
		if err := invalidText("account", "tenant", a.Tenant); err != nil {
			return final{err}
		}
		networks, err := prefixStrings(a.Networks)
		if err != nil {
			return final{err}
		}
		blacklist, err := blacklistDoc(a.BlacklistedSenderWords)
		if err != nil {
			return final{err}
		}
		pl := priceColumns(a.Prices)
		_, err = tx.Exec(ctx, `UPDATE sms_accounts SET password_hash = $2, networks = $3, enabled = $4, credit_limit = $5::numeric,
			validity_ms = $6, throughput = $7, max_parts = $8, blacklist = $9, price_prefixes = $10, price_values = $11::text[]::numeric[],
			price_from = $12, price_to = $13, tenant = $14, inbound_url = $15 WHERE username = $1`,
			username, a.PasswordHash, networks, a.Enabled, numericText(a.CreditLimit), a.Validity.Milliseconds(), int32(a.Throughput),
			int32(a.MaxParts), blacklist, pl.prefixes, pl.values, pl.from, pl.to, string(a.Tenant), a.InboundURL)
		out = a
		return err
	})
	if f, ok := errors.AsType[final](err); ok {
		return sms.Account{}, f.err
	}
	if err != nil {
		return sms.Account{}, classify(err, "account", "account "+username)
	}
	return out, nil
}
