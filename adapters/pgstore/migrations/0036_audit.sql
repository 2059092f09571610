-- audit: the trail of the operator's administrative changes. Entries are
-- appended and never changed; before and after are the records as JSON
-- text, kept byte for byte (json, not jsonb).

CREATE TABLE audit_entries (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL,
    actor_kind  text        NOT NULL,   -- client, user or system
    actor       text        NOT NULL,   -- the client id or username
    actor_from  text        NOT NULL,   -- the caller's address, '' when none
    action      text        NOT NULL,
    resource    text        NOT NULL,
    resource_id text        NOT NULL,
    before      json,
    after       json
);

-- Operators read the trail by time, and a record's history by resource.
CREATE INDEX audit_entries_at_idx ON audit_entries (at);
CREATE INDEX audit_entries_resource_idx ON audit_entries (resource, resource_id);
