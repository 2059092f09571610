-- Netting statements' and collection leads' members (finance.Store's
-- SetMembership and the listing's nettingInvoiceId and collectionLeadId
-- filters). A move reads a group's other members by the plain column:
-- the partial indexes hold only members (most invoices are in no group,
-- 0). The listing compares nullif(column, 0) as numeric, as it binds
-- numbers: the expression indexes serve its equality and in filters.
CREATE INDEX finance_invoices_netting_idx ON finance_invoices (netting_invoice_id) WHERE netting_invoice_id <> 0;
CREATE INDEX finance_invoices_lead_idx ON finance_invoices (collection_lead_id) WHERE collection_lead_id <> 0;
CREATE INDEX finance_invoices_netting_num_idx ON finance_invoices ((nullif(netting_invoice_id, 0)::numeric));
CREATE INDEX finance_invoices_lead_num_idx ON finance_invoices ((nullif(collection_lead_id, 0)::numeric));
