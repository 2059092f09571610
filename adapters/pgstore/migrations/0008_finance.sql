-- finance: business partners and invoices (finance.Store).
--
-- Amounts are numeric without a fixed scale, written and read as decimal
-- text, so a value keeps its scale (0.0450 stays 0.0450). Civil dates are
-- date, NULL for a zero msgkit.Date. Times are timestamptz to the
-- microsecond; insert_dt and status_dt hold Go's zero instant
-- (0001-01-01 00:00:00 UTC) when unset, as the statusDt attribute of the
-- listing is never null, while sync_status_dt and delivery_dt are NULL
-- when unset, as syncStatusDt is null then. The currency is its ISO 4217
-- numeric code, 0 for none.
--
-- The text columns that the invoice listing filters and sorts by are NULL
-- for an empty string (never ''), because the listing reads an empty
-- attribute as null: a plain column then is the attribute, which an index
-- can serve. They compare byte by byte (COLLATE "C"), as the listing
-- compares strings, so their indexes serve it. The other text columns
-- keep '' as it is.
--
-- A record's parts that are only read and written with it are one column
-- each: the items a jsonb array (decimals as JSON strings, so they keep
-- their scale), the payment a jsonb object (NULL: none), and the sync
-- document bytea, byte for byte as given. The source record is two ids,
-- both NULL when there is none.
--
-- No foreign key from an invoice to finance_partners: an invoice carries
-- its partner's data as it was when it was made, and the store keeps an
-- invoice whether or not the partner was stored, as memstore does.

CREATE TABLE finance_partners (
    id         bigint PRIMARY KEY,
    name       text   NOT NULL,
    short_name text   NOT NULL,
    attn       text   NOT NULL,
    address    text   NOT NULL,
    address2   text   NOT NULL,
    post       text   NOT NULL,
    city       text   NOT NULL,
    po_box     text   NOT NULL,
    vat_number text   NOT NULL,
    country    bigint NOT NULL,
    type       text   NOT NULL
);

CREATE TABLE finance_invoices (
    id                   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance_id          bigint      NOT NULL,
    owner_id             bigint      NOT NULL,
    uid                  text        COLLATE "C" CHECK (uid <> ''),

    class                text        COLLATE "C" CHECK (class <> ''),
    data_source          text        COLLATE "C" CHECK (data_source <> ''),
    domain               text        COLLATE "C" CHECK (domain <> ''),
    selector             text        COLLATE "C" CHECK (selector <> ''),

    cust_id              bigint      NOT NULL,
    cust_name            text        COLLATE "C" CHECK (cust_name <> ''),
    cust_short_name      text        COLLATE "C" CHECK (cust_short_name <> ''),
    cust_attn            text        NOT NULL,
    cust_address         text        NOT NULL,
    cust_address2        text        NOT NULL,
    cust_post            text        NOT NULL,
    cust_city            text        NOT NULL,
    cust_po_box          text        COLLATE "C" CHECK (cust_po_box <> ''),
    cust_vat_number      text        NOT NULL,
    cust_country         bigint      NOT NULL,
    cust_type            text        COLLATE "C" CHECK (cust_type <> ''),

    inv_type             bigint      NOT NULL,
    template_id          bigint      NOT NULL,
    lang                 text        NOT NULL,
    inv_number_fix       text        COLLATE "C" CHECK (inv_number_fix <> ''),
    supplier_inv_number  text        NOT NULL,
    inv_number           text        NOT NULL,
    inv_period           text        COLLATE "C" CHECK (inv_period <> ''),
    owner_vat_number     text        NOT NULL,

    inv_date             date,
    invoicing_date       date,
    delivery_date        date,
    inv_due_date         date,
    inv_period_start     date,
    inv_period_end       date,

    currency             integer     NOT NULL,   -- ISO 4217 numeric; 0: none
    vat_in_price         smallint    NOT NULL,   -- finance.Entry: 0 net, 1 gross
    vat_in_total         bigint      NOT NULL,
    vat_percent          numeric     NOT NULL,
    cash_round           boolean     NOT NULL,

    amount_no_vat        numeric     NOT NULL,
    amount_vat           numeric     NOT NULL,
    vat                  numeric     NOT NULL,
    rounding             numeric     NOT NULL,
    total                numeric     NOT NULL,
    total_paid           numeric     NOT NULL,
    total_unpaid         numeric     NOT NULL,

    status               text        COLLATE "C" CHECK (status <> ''),
    payment_status       text        COLLATE "C" CHECK (payment_status <> ''),
    sync_status          text        COLLATE "C" CHECK (sync_status <> ''),
    docs_delivery_status text        COLLATE "C" CHECK (docs_delivery_status <> ''),
    collection_mode      text        COLLATE "C" CHECK (collection_mode <> ''),
    collection_lead_id   bigint      NOT NULL,
    netting_invoice_id   bigint      NOT NULL,
    reminder_status      text        NOT NULL,
    comment              text        NOT NULL,
    document_sync        bytea,      -- byte for byte; NULL: nil

    items                jsonb       CHECK (jsonb_typeof(items) = 'array'),   -- NULL: nil
    payment              jsonb       CHECK (jsonb_typeof(payment) = 'object'), -- NULL: none
    source_billing_id    bigint,
    source_credit_id     bigint,
    CHECK ((source_billing_id IS NULL) = (source_credit_id IS NULL)),

    insert_dt            timestamptz NOT NULL,
    status_dt            timestamptz NOT NULL,
    sync_status_dt       timestamptz,
    delivery_dt          timestamptz
);

-- The indexes of the invoice listing (ListInvoices). A listing counts
-- every row that passes its filters (count(*) OVER ()) and selects only
-- the ids of its page, so an index serves it by narrowing those rows and
-- by holding every column the filters, the sort and the condition on
-- deleted invoices read, so that the scan is index-only and never visits
-- the table (once vacuum has marked its pages all-visible). Newest first
-- (-invDate, then id) is the order the lists are read in most.
--   - status (with the payment status) and the invoice date: a status
--     filter, with or without a payment status filter, sorted by date;
--   - the invoice date alone: date ranges and the unfiltered list by date;
--   - the partner, as numeric: the listing binds numbers as numeric, and a
--     bigint column compared with numeric is cast, which an index on the
--     plain column cannot serve; the -own scopes compare the same way;
--   - the total: amount ranges.
-- No partial index leaves out deleted invoices: they are few, and each
-- index reads status where the condition needs it.
CREATE INDEX finance_invoices_status_idx ON finance_invoices (status, inv_date DESC NULLS FIRST, id)
    INCLUDE (payment_status);
CREATE INDEX finance_invoices_date_idx ON finance_invoices (inv_date DESC NULLS FIRST, id) INCLUDE (status);
CREATE INDEX finance_invoices_cust_idx ON finance_invoices ((cust_id::numeric), id);
CREATE INDEX finance_invoices_total_idx ON finance_invoices (total);
