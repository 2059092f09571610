-- The credit ledger of bulk SMS accounts (see sms.LedgerEntry): every
-- change of an account's balance is an entry, and the balance is always
-- the sum of the account's entries.
--
-- Charges are not written twice: the charge of an accepted message is its
-- sms_messages row (charged, submitted_at, id), which acceptance writes
-- anyway, so the ledger costs acceptance no tuple and no statement. Every
-- other entry (top-ups, adjustments, refunds, and the carried entries by
-- which retention keeps the sum of the messages it removes, and opening
-- balances) is a row of sms_ledger. The view sms_ledger_entries is the
-- union of both, which the listing engine reads.
--
-- Entry ids come from one sequence for both tables: sms_messages gets a
-- ledger_id column whose default draws from it (no index: listings walk
-- an account's entries by time, on sms_messages_account_idx, the index
-- acceptance already keeps, and break ties by id). Adding the column
-- with a volatile default rewrites sms_messages once.

CREATE SEQUENCE sms_ledger_seq;

ALTER TABLE sms_messages ADD COLUMN ledger_id bigint NOT NULL DEFAULT nextval('sms_ledger_seq');

CREATE TABLE sms_ledger (
    id            bigint      PRIMARY KEY DEFAULT nextval('sms_ledger_seq'),
    account       text        NOT NULL,
    kind          text        NOT NULL CHECK (kind IN ('top_up', 'adjustment', 'refund', 'carried')),
    amount        numeric     NOT NULL,
    currency      text        NOT NULL,
    balance_after numeric,    -- NULL for carried entries
    at            timestamptz NOT NULL,
    actor         text        NOT NULL CHECK (char_length(actor) <= 200),
    note          text        NOT NULL CHECK (char_length(note) <= 500)
);

CREATE INDEX sms_ledger_account_idx ON sms_ledger (account, at, id);

-- Postpaid credit: the balance may go down to -credit_limit. The floor
-- replaces 0002's CHECK (balance >= 0); acceptance and ApplyLedger test
-- it in their conditional UPDATEs, and this check backs them up.
ALTER TABLE sms_accounts ADD COLUMN credit_limit numeric NOT NULL DEFAULT 0 CHECK (credit_limit >= 0);
ALTER TABLE sms_accounts DROP CONSTRAINT sms_accounts_balance_check;
ALTER TABLE sms_accounts ADD CONSTRAINT sms_accounts_balance_floor CHECK (balance >= -credit_limit);

-- The balances before the ledger: an opening entry per account makes the
-- law hold for the messages stored now.
INSERT INTO sms_ledger (account, kind, amount, currency, at, actor, note)
SELECT a.username, 'carried', a.balance + COALESCE(m.charged, 0), a.currency, a.created_at, 'opening', 'opening balance'
FROM sms_accounts a
LEFT JOIN (SELECT account, sum(charged) AS charged FROM sms_messages GROUP BY account) m ON m.account = a.username
WHERE a.balance + COALESCE(m.charged, 0) <> 0;

CREATE VIEW sms_ledger_entries AS
SELECT l.id, l.account, l.kind, l.amount, l.currency, l.balance_after, l.at, l.actor, l.note,
    NULL::text COLLATE "C" AS msg_id
FROM sms_ledger l
UNION ALL
SELECT m.ledger_id, m.account, 'charge', -m.charged, m.currency, NULL, m.submitted_at, 'account:' || m.account, '',
    m.id
FROM sms_messages m;
