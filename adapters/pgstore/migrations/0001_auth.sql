-- auth: API clients, password-grant users, issued tokens and X-API-Key keys.
-- Secrets are never stored: secret_hash and password_hash are bcrypt,
-- tokens and API keys are kept as their SHA-256 (32 bytes).
-- Array columns are NULL when the Go slice was nil and '{}' when it was
-- empty, so both round-trip.

CREATE TABLE auth_clients (
    id          text        PRIMARY KEY,
    name        text        NOT NULL,
    secret_hash text        NOT NULL,
    networks    text[],     -- netip.Prefix.String(), e.g. '192.0.2.0/24'
    services    text[],
    privileges  text[],
    created_at  timestamptz NOT NULL
);

CREATE TABLE auth_users (
    username      text        PRIMARY KEY,
    password_hash text        NOT NULL,
    services      text[],
    privileges    text[],
    created_at    timestamptz NOT NULL
);

CREATE TABLE auth_tokens (
    hash       bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    kind       smallint    NOT NULL,   -- auth.SubjectKind: 1 client, 2 user
    subject    text        NOT NULL,
    services   text[],
    privileges text[],
    expires_at timestamptz NOT NULL,
    issued_at  timestamptz NOT NULL
);

CREATE INDEX auth_tokens_expires_at_idx ON auth_tokens (expires_at);

CREATE TABLE auth_api_keys (
    hash       bytea       PRIMARY KEY CHECK (octet_length(hash) = 32),
    id         text        NOT NULL UNIQUE,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL
);
