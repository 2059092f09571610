-- A contact's web push subscription (its webpush channel's identifier,
-- set by a status change; NULL: none). The listing's
-- webpush_subscription=… finds the contact of a browser: an index on the
-- contacts that have one.
ALTER TABLE contacts ADD COLUMN webpush_subscription text COLLATE "C";
CREATE INDEX contacts_webpush_subscription ON contacts (service_uuid, webpush_subscription) WHERE webpush_subscription IS NOT NULL;
