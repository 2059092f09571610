-- Idempotency keys (idempotency.Store; see IdempotencyStore in
-- idempotency.go): one row per scope (who sent the key) and key, with the
-- first request's fingerprint, where it stands (pending under a lease,
-- or done with its answer) and when the key is free again. Rows are few
-- (only requests that send a key) and leave by expiry, so the purge job
-- walks the expiry index.
CREATE TABLE idempotency_keys (
    scope       text COLLATE "C" NOT NULL,
    key         text COLLATE "C" NOT NULL,
    fingerprint bytea       NOT NULL CHECK (octet_length(fingerprint) = 32),
    ref         text        NOT NULL,
    attempt     integer     NOT NULL,
    state       smallint    NOT NULL,   -- idempotency.State
    status      integer     NOT NULL,   -- the answer's, 0 while pending
    header      bytea,                  -- the answer's headers as JSON, NULL without
    body        bytea,                  -- the answer's body, NULL without
    created_at  timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
