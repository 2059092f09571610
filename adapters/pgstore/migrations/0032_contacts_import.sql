-- The import's identifier lookup (importMatches in contacts_import.go):
-- the contacts in use of one list whose mobile (or folded e-mail) is one
-- of a batch of keys. Without an index that holds all three conditions,
-- the planner has two ways in, both bad for a large list: the tenant's
-- number index (contacts_sort_mobile), filtering every other list's
-- contacts of the number, or the list's index (contacts_list_counts),
-- probing nothing by key and filtering all of the list's rows; the
-- second wins whenever the planner takes the list for small (a list an
-- import is filling before statistics know it, or a generic plan where
-- lists are small on average), and the lookup reads the whole list for
-- each batch of keys. These indexes answer the lookup with one probe a
-- key, whatever the list's estimate; their predicate is the lookup's
-- deleted IS NULL, so erased contacts take no entries.
CREATE INDEX contacts_import_mobile ON contacts (service_uuid, list_uuid, mobile) WHERE deleted IS NULL;
CREATE INDEX contacts_import_email ON contacts (service_uuid, list_uuid, email_fold) WHERE deleted IS NULL;
