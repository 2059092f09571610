-- The invoice listing's filters and sorts on what it joins to an invoice
-- (the owner's names, the type's name and self-billing, the partner's
-- reference: finance.View) read the invoice's owner_id, inv_type and
-- cust_id to join. The status index (0008) holds them too, so that a
-- listing by status and date with such a filter stays an index-only scan
-- of the invoices, joined to the small operator tables, instead of
-- visiting every matching invoice's row for three ids.
DROP INDEX finance_invoices_status_idx;
CREATE INDEX finance_invoices_status_idx ON finance_invoices (status, inv_date DESC NULLS FIRST, id)
    INCLUDE (payment_status, owner_id, inv_type, cust_id);
