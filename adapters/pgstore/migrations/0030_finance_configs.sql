-- The default invoice configurations an operator adds at run time
-- (finance.ConfigStore), one per invoice type and template language,
-- beside the built-in ones finance.Options.Configs holds. Putting one
-- also records its type in finance_document_types, in one transaction.
-- Text is COLLATE "C", so the stores order languages alike.
CREATE TABLE finance_configs (
    type_id             bigint      NOT NULL,
    template_lang       text        COLLATE "C" NOT NULL,
    instance_id         bigint      NOT NULL,
    name                text        NOT NULL,
    status              text        NOT NULL,
    domain              text        NOT NULL,
    data_source         text        NOT NULL,
    data_source_default text        NOT NULL,
    doc_class           text        NOT NULL,
    self_billing        text        NOT NULL,
    self_billing_of_type bigint     NOT NULL,
    collection_code     text        NOT NULL,
    selector            text        NOT NULL,
    co_owner_id         bigint      NOT NULL,
    template_id         bigint      NOT NULL,
    template_name       text        NOT NULL,
    template_file_name  text        NOT NULL,
    doc_factory_params  text        NOT NULL,
    comment             text        NOT NULL,
    status_dt           timestamptz NOT NULL,
    PRIMARY KEY (type_id, template_lang)
);
