-- A contact's WhatsApp opt status (in, out; NULL: none), set by the
-- import's insert_opt_channels and update_opt_channels. The import
-- matches contacts through the indexes of 0012 (contacts_sort_mobile on
-- (service_uuid, mobile), the segmentation indexes of the folded text
-- columns).
ALTER TABLE contacts ADD COLUMN opt_status_whatsapp text COLLATE "C";
