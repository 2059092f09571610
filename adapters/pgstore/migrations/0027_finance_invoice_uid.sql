-- Every invoice has its invUid (finance.Service picks a version-4 UUID
-- for each invoice it creates; see finance's package doc). Invoices stored
-- before this migration have none: each gets a random UUID here
-- (gen_random_uuid, built in since PostgreSQL 13). The column is then NOT
-- NULL and UNIQUE: the unique index also serves invUid's equality filter
-- and sort in the listing, and a second invoice with a UID is Conflict.
-- The column stays text COLLATE "C", so the listing's text operators
-- (contains, startswith, …) and q apply to it as to other text.
UPDATE finance_invoices SET uid = gen_random_uuid()::text WHERE uid IS NULL;
ALTER TABLE finance_invoices ALTER COLUMN uid SET NOT NULL;
ALTER TABLE finance_invoices ADD CONSTRAINT finance_invoices_uid_key UNIQUE (uid);
