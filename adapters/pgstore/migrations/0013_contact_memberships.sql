-- A contact's touchpoint and interest memberships, kept like its
-- subscription option memberships (options): jsonb objects
-- {"<uuid>": "subscribed" | "unsubscribed"}, read and written with the
-- contact, so an erase is the row's DELETE alone.
ALTER TABLE contacts ADD COLUMN touchpoints jsonb, ADD COLUMN interests jsonb;
