-- The list-contacts membership filters (subscription_uuids, touchpoint_uuids,
-- interest_uuids; see contactFilterScope in contacts_filters.go) ask
-- whether a contact's memberships object has one of some keys
-- (options ?| array[...]), with a status (options ->> key).
--
-- GIN indexes over the keys find the few members of a small option,
-- touchpoint or interest. Contacts without memberships (NULL) take no
-- entries.
CREATE INDEX contacts_options_keys ON contacts USING gin (options);
CREATE INDEX contacts_touchpoints_keys ON contacts USING gin (touchpoints);
CREATE INDEX contacts_interests_keys ON contacts USING gin (interests);

-- A listing's total over many members (a third of a million contacts) is
-- an index-only scan of these, the memberships included, instead of a
-- visit to every member's row; contacts in use with memberships only.
CREATE INDEX contacts_options_members ON contacts (service_uuid) INCLUDE (options)
    WHERE options IS NOT NULL AND deleted IS NULL;
CREATE INDEX contacts_touchpoints_members ON contacts (service_uuid) INCLUDE (touchpoints)
    WHERE touchpoints IS NOT NULL AND deleted IS NULL;
CREATE INDEX contacts_interests_members ON contacts (service_uuid) INCLUDE (interests)
    WHERE interests IS NOT NULL AND deleted IS NULL;
