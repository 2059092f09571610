-- The tenants (serviceUuid) of business partners (finance.PartnerTenants):
-- a caller with an -own finance privilege sees the documents of the
-- partners its tenants are. One tenant per partner; looked up by tenant.
CREATE TABLE finance_partner_tenants (
    partner      bigint PRIMARY KEY,
    service_uuid text   NOT NULL
);

CREATE INDEX finance_partner_tenants_service ON finance_partner_tenants (service_uuid, partner);
