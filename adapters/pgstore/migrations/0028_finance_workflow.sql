-- The workflow values an invoice keeps (finance.Invoice): its processing
-- status, a partner's dispute and when it last changed, the invoicing
-- date policy and the sync mode. Text columns are NULL for "" and compare
-- byte by byte, as the other listed text columns (0008). Invoices stored
-- before this migration get what finance.Create gives a new one: processing
-- status none, sync mode disabled, the rest NULL (a constant default adds a
-- column without rewriting the table); every write names every column,
-- so the defaults serve only those rows.
ALTER TABLE finance_invoices
    ADD COLUMN processing_status     text COLLATE "C" DEFAULT 'none' CHECK (processing_status <> ''),
    ADD COLUMN dispute_status        text COLLATE "C" CHECK (dispute_status <> ''),
    ADD COLUMN dispute_status_dt     timestamptz,
    ADD COLUMN invoicing_date_policy text COLLATE "C" CHECK (invoicing_date_policy <> ''),
    ADD COLUMN sync_mode             text COLLATE "C" DEFAULT 'disabled' CHECK (sync_mode <> '');
