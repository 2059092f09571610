-- auth: tenants, so that an operator lists, names, suspends and resumes
-- them at run time. A tenant is registered when it is created or when a
-- client or user is first given it; those given before this migration
-- are registered here, named by their id.

CREATE TABLE auth_tenants (
    id         text        PRIMARY KEY,   -- the service UUID, canonical
    name       text        NOT NULL,
    suspended  boolean     NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

INSERT INTO auth_tenants (id, name, suspended, created_at, updated_at)
SELECT s, s, false, min(created_at), min(created_at)
FROM (
    SELECT unnest(services) AS s, created_at FROM auth_clients
    UNION ALL
    SELECT unnest(services), created_at FROM auth_users
) g
GROUP BY s;

-- Every bearer request reads which of its token's tenants are suspended:
-- an index of the suspended ones alone (few, usually none) answers that
-- with a probe per tenant of the token, whatever the number of tenants.
CREATE INDEX auth_tenants_suspended_idx ON auth_tenants (id) WHERE suspended;

-- A changed or revoked client's or user's tokens are deleted by subject.
CREATE INDEX auth_tokens_subject_idx ON auth_tokens (subject, kind);
