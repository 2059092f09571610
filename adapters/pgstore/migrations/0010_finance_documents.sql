-- finance documents export: the operator data the export adds to invoices
-- (finance.ExportStore). Each table is written by one Put, which creates
-- or replaces; none has a foreign key, as the data may arrive in any
-- order (a record's account after the record, a document's rows before
-- the invoice), as memstore keeps it.
--
-- Amounts and rates are numeric without a fixed scale, written and read
-- as decimal text, so a value keeps its scale. Currencies are ISO 4217
-- numeric codes, 0 for none. Custom attributes and connections are read
-- and written only with their record: a jsonb array each, a custom
-- attribute's value kept as the JSON text it was given, in a JSON string,
-- so that it comes back byte for byte.
--
-- The text columns the documents listing filters and sorts by are NULL
-- for an empty string, as the listing reads an empty attribute as null.

CREATE TABLE finance_billing_accounts (
    id                bigint  PRIMARY KEY,
    instance_id       bigint  NOT NULL,
    biz_partner_id    bigint  NOT NULL,
    currency          integer NOT NULL,
    billing_type      text    NOT NULL,
    name              text    NOT NULL,
    custom_attributes jsonb   NOT NULL CHECK (jsonb_typeof(custom_attributes) = 'array'),
    sms_connections   jsonb   NOT NULL CHECK (jsonb_typeof(sms_connections) = 'array'),
    mnp_connections   jsonb   NOT NULL CHECK (jsonb_typeof(mnp_connections) = 'array')
);

-- The billing account of each billing record (kind 1) and credit record
-- (kind 2), finance.RecordKind: the two kinds number their records
-- apart.
CREATE TABLE finance_source_records (
    kind       smallint NOT NULL CHECK (kind IN (1, 2)),
    id         bigint   NOT NULL,
    account_id bigint   NOT NULL,
    PRIMARY KEY (kind, id)
);

-- A document's traffic reports, in the order given (ord). Times are NULL
-- for the zero time; MCC and MNC are text, as their leading zeros count.
CREATE TABLE finance_traffic_reports (
    invoice_id             bigint      NOT NULL,
    ord                    integer     NOT NULL,
    biz_partner_id         bigint      NOT NULL,
    biz_partner_brief_name text        NOT NULL,
    biz_partner_ext_ref_id text        NOT NULL,
    billing_account_id     bigint      NOT NULL,
    billing_account_name   text        NOT NULL,
    country_id             bigint      NOT NULL,
    country_name           text        NOT NULL,
    country_code2          text        NOT NULL,
    operator_id            bigint      NOT NULL,
    operator_name          text        NOT NULL,
    mcc                    text        NOT NULL,
    mnc                    text        NOT NULL,
    start_dt               timestamptz,
    end_dt                 timestamptz,
    sms_count              bigint      NOT NULL,
    currency               integer     NOT NULL,
    price                  numeric     NOT NULL,
    total_amount           numeric     NOT NULL,
    PRIMARY KEY (invoice_id, ord)
);

-- A partner's reference in the external finance system (the documents'
-- bizPartnerExternalRefId) and custom attributes.
CREATE TABLE finance_partner_exports (
    partner_id        bigint PRIMARY KEY,
    external_ref_id   text   COLLATE "C" CHECK (external_ref_id <> ''),
    custom_attributes jsonb  NOT NULL CHECK (jsonb_typeof(custom_attributes) = 'array')
);

-- The invoice types (an invoice's inv_type): documentTypeName and
-- selfBilling.
CREATE TABLE finance_document_types (
    id           bigint  PRIMARY KEY,
    name         text    COLLATE "C" CHECK (name <> ''),
    self_billing boolean NOT NULL
);

-- A document's domestic currency and rate; the domestic amounts are
-- computed from the invoice's when listed, rounded to the currency's
-- decimals (kept here, as finance.Currency has them).
CREATE TABLE finance_document_domestic (
    invoice_id bigint  PRIMARY KEY,
    currency   integer NOT NULL,
    decimals   integer NOT NULL,
    rate       numeric NOT NULL CHECK (rate > 0)
);
