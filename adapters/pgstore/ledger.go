package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

var _ sms.LedgerStore = (*SMSStore)(nil)

// applyLedgerSQL changes the balance and writes the entry in one
// statement, atomic as acceptSQL is: the conditional UPDATE takes the
// account row's lock (acceptance's too) and re-evaluates its floor on the
// balance the transaction before it committed, so concurrent changes and
// charges never take the balance below -credit_limit. The entry is
// written only when the UPDATE matched.
const applyLedgerSQL = `WITH acct AS (
	UPDATE sms_accounts SET balance = balance + $2::numeric
	WHERE username = $1 AND currency = $3 AND balance + $2::numeric >= -credit_limit
	RETURNING username, balance
)
INSERT INTO sms_ledger (account, kind, amount, currency, balance_after, at, actor, note)
SELECT username, $4, $2::numeric, $3, balance, $5, $6, $7 FROM acct
RETURNING id, balance_after::text`

// ApplyLedger writes an explicit entry and changes the balance by its
// amount, atomically. An unknown account is NotFound; another currency
// than the account's is Invalid; a balance that would go below
// -credit_limit is 113 (RC_NO_CREDIT). Nothing is changed then. The
// change goes through the account's accept queue (acceptBatcher): alone
// it is one statement (applyLedgerSQL); while the account submits, it is
// written in the transaction of the account's next batch, sharing its
// commit, so a top-up does not stall the account's acceptances.
func (s *SMSStore) ApplyLedger(ctx context.Context, e sms.LedgerEntry) (sms.LedgerEntry, error) {
	if err := sms.CheckLedgerChange(e); err != nil {
		return sms.LedgerEntry{}, err
	}
	if !storable(e.Account) {
		return sms.LedgerEntry{}, classify(pgx.ErrNoRows, "account", "account "+e.Account)
	}
	for _, f := range []struct{ name, v string }{{"currency", e.Currency}, {"actor", e.Actor}, {"note", e.Note}} {
		if !storable(f.v) {
			return sms.LedgerEntry{}, msgkit.Invalidf(sms.CodeLedgerInvalid, f.name, "%s must be valid UTF-8 without NUL characters", f.name)
		}
	}
	e.MessageID = ""
	return s.accepts.applyLedger(ctx, e)
}

// applyLedgerOne writes a lone ledger change with applyLedgerSQL. It
// returns the change's outcome, a refusal included, or an error after
// which nothing was written and no outcome holds.
func (s *SMSStore) applyLedgerOne(ctx context.Context, e sms.LedgerEntry) (ledgerOutcome, error) {
	var after string
	e.At = dbTime(e.At)
	err := s.pool.QueryRow(ctx, applyLedgerSQL, e.Account, numericText(e.Amount), e.Currency, string(e.Kind),
		e.At, e.Actor, e.Note).Scan(&e.ID, &after)
	if errors.Is(err, pgx.ErrNoRows) {
		a, err := s.Account(ctx, e.Account)
		if err != nil {
			return ledgerOutcome{err: err}, nil
		}
		if err := sms.CheckLedgerFloor(a, e); err != nil {
			return ledgerOutcome{err: err}, nil
		}
		// A concurrent change made room since: the refusal stands, as
		// nothing was written.
		return ledgerOutcome{err: sms.CodeNoCredit.Errorf("balance %s %s with %s was below the floor", a.Balance, a.Currency, e.Amount)}, nil
	}
	if err != nil {
		return ledgerOutcome{}, err
	}
	b, err := parseNumeric(after)
	if err != nil {
		return ledgerOutcome{err: storageError(err, "account ", e.Account)}, nil
	}
	e.BalanceAfter = decimal.NewNullDecimal(b)
	return ledgerOutcome{entry: e}, nil
}

// ledgerColumns are the columns of a listed entry, as scanLedgerEntry
// reads them.
const ledgerColumns = `e.id, e.account, e.kind, e.amount::text, e.currency, e.balance_after::text, e.at, e.actor, e.note, e.msg_id`

// ledgerTable lists an account's entries: the union of sms_ledger and the
// messages' charges (sms_ledger_entries, 0034_sms_ledger.sql), scoped to
// the account, which both branches' indexes lead with. Its order (at,
// id) walks them by time: a page of an account's ledger reads a merge of
// the two index ranges, sorted by id only within equal times.
var ledgerTable = listTable{
	From:   "sms_ledger_entries e",
	Select: ledgerColumns,
	Scope:  "e.account = $1",
	Attrs: map[string]listAttr{
		"kind":      {"e.kind", msgkit.AttrString},
		"at":        {"e.at", msgkit.AttrDateTime},
		"amount":    {"e.amount", msgkit.AttrNumber},
		"messageId": {"e.msg_id", msgkit.AttrString},
		"id":        {"e.id", msgkit.AttrNumber},
	},
	Order:      "e.at, e.id",
	CountApart: true,
}

var ledgerNone = nothingOf(ledgerTable)

// scanLedgerEntry reads a row of ledgerColumns.
func scanLedgerEntry(row pgx.CollectableRow) (sms.LedgerEntry, error) {
	var (
		e            sms.LedgerEntry
		kind, amount string
		after, msgID pgtype.Text
		c            conversion
	)
	if err := row.Scan(&e.ID, &e.Account, &kind, &amount, &e.Currency, &after, &e.At, &e.Actor, &e.Note, &msgID); err != nil {
		return sms.LedgerEntry{}, err
	}
	e.Kind = sms.LedgerKind(kind)
	e.Amount = c.numeric("amount", amount)
	if after.Valid {
		e.BalanceAfter = decimal.NewNullDecimal(c.numeric("balance_after", after.String))
	}
	if msgID.Valid {
		e.MessageID = sms.MessageID(msgID.String)
	}
	e.At = e.At.UTC()
	if c.err != nil {
		return sms.LedgerEntry{}, storageError(c.err, "ledger entry ", e.ID)
	}
	return e, nil
}

// LedgerEntries lists the account's entries through the listing engine.
func (s *SMSStore) LedgerEntries(ctx context.Context, account string, q msgkit.ListQuery) (msgkit.Page[sms.LedgerEntry], error) {
	t := &ledgerTable
	if !storable(account) {
		t = ledgerNone
	}
	return listPage(ctx, s.pool, t, q, scanLedgerEntry, account)
}

// ledgerPageSQL is a keyset page of an account's ledger in its order.
// Both branches of the view walk their index ((account, submitted_at) of
// sms_messages, (account, at, id) of sms_ledger) from the cursor's time
// and stop at the limit, so an export reads about the entries it
// returns, page after page, whatever the account's size.
const ledgerPageSQL = `SELECT ` + ledgerColumns + ` FROM sms_ledger_entries e
WHERE e.account = $1 AND e.at >= $2 AND e.at < $3 AND e.at >= $4 AND (e.at, e.id) > ($4, $5)
ORDER BY e.at, e.id
LIMIT $6`

// LedgerPage returns up to limit entries of the account with At in
// [from, to) after the cursor, in the ledger's order.
func (s *SMSStore) LedgerPage(ctx context.Context, account string, from, to time.Time, after sms.LedgerCursor, limit int) ([]sms.LedgerEntry, error) {
	if !storable(account) || limit <= 0 {
		return []sms.LedgerEntry{}, nil
	}
	cursor := after.At
	if cursor.IsZero() {
		cursor = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC) // before every entry, within timestamptz's range
	}
	rows, err := s.pool.Query(ctx, ledgerPageSQL, account, dbTime(from), dbTime(to), dbTime(cursor), after.ID, limit)
	if err != nil {
		return nil, classify(err, "ledger", "ledger of "+account)
	}
	es, err := pgx.CollectRows(rows, scanLedgerEntry)
	if err != nil {
		return nil, classify(err, "ledger", "ledger of "+account)
	}
	if es == nil {
		es = []sms.LedgerEntry{}
	}
	return es, nil
}

// reconcileSQL compares each account's balance (of one, or every one
// when $1 is empty) with the sum of its entries, in one snapshot: an
// acceptance changes the balance and inserts its message in one
// transaction, so no commit is seen half.
const reconcileSQL = `SELECT a.username, a.currency, a.balance::text, (COALESCE(l.s, 0) - COALESCE(m.s, 0))::text
FROM sms_accounts a
LEFT JOIN LATERAL (SELECT sum(amount) AS s FROM sms_ledger WHERE account = a.username) l ON true
LEFT JOIN LATERAL (SELECT sum(charged) AS s FROM sms_messages WHERE account = a.username) m ON true
WHERE ($1 = '' OR a.username = $1) AND a.balance <> COALESCE(l.s, 0) - COALESCE(m.s, 0)
ORDER BY a.username`

// Reconcile reports the accounts whose balance is not the sum of their
// entries, by username.
func (s *SMSStore) Reconcile(ctx context.Context, account string) ([]sms.Discrepancy, error) {
	if !storable(account) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, reconcileSQL, account)
	if err != nil {
		return nil, classify(err, "ledger", "reconciliation")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sms.Discrepancy, error) {
		var (
			d            sms.Discrepancy
			balance, sum string
			c            conversion
		)
		if err := row.Scan(&d.Account, &d.Currency, &balance, &sum); err != nil {
			return d, err
		}
		d.Actual, d.Expected = c.numeric("balance", balance), c.numeric("sum", sum)
		d.Difference = d.Actual.Sub(d.Expected)
		return d, c.err
	})
	if err != nil {
		return nil, classify(err, "ledger", "reconciliation")
	}
	return out, nil
}
