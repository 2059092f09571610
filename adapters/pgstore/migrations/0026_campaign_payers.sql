-- The payers of campaigns (campaign.Store's SetPayer and Payer; see
-- campaign_payer.go): a row per tenant that has one, naming the bulk SMS
-- account (its username) the tenant's sms campaigns are charged to. A
-- tenant without a row has none; removing a payer deletes its row. The
-- runner reads a tenant's row once a page by its primary key.
CREATE TABLE campaign_payers (
    service_uuid text COLLATE "C" PRIMARY KEY,
    account      text NOT NULL
);
