-- sms: bulk SMS accounts, accepted messages with their parts, and the
-- per-second submission counters that replicas share.
-- Money is numeric, written and read as decimal text, so values and their
-- scale round-trip exactly (0.0450 stays 0.0450). Array and bytea columns
-- are NULL when the Go value was nil and empty when it was empty, so both
-- round-trip.

CREATE TABLE sms_accounts (
    username       text        PRIMARY KEY,
    password_hash  text        NOT NULL,
    networks       text[],     -- netip.Prefix.String()
    enabled        boolean     NOT NULL,
    -- The only floor on the balance: Accept and AddBalance subtract with a
    -- conditional UPDATE, and this check backs it.
    balance        numeric     NOT NULL CHECK (balance >= 0),
    currency       text        NOT NULL,
    validity_ms    bigint      NOT NULL,   -- 0: sms.DefaultValidity
    throughput     integer     NOT NULL,   -- per second; 0: unlimited
    max_parts      integer     NOT NULL,   -- 0: sms.MaxParts
    blacklist      jsonb,      -- region -> words, as encoding/json writes map[string][]string
    -- The price list in the account's order: price_values[i] is the price
    -- of one part to price_prefixes[i]. Parallel arrays (not a table) keep
    -- the order and the lines exactly as given, read with the account in
    -- one row.
    price_prefixes text[],
    price_values   numeric[],
    created_at     timestamptz NOT NULL,
    CHECK ((price_prefixes IS NULL) = (price_values IS NULL)),
    CHECK (cardinality(price_prefixes) = cardinality(price_values))
);

CREATE TABLE sms_messages (
    id             text        PRIMARY KEY,
    account        text        NOT NULL REFERENCES sms_accounts (username),
    type           text        NOT NULL,   -- "text" or "wsi"
    sender         text        NOT NULL,
    sender_numeric boolean     NOT NULL,
    receiver       text        NOT NULL,   -- E.164 with '+'
    dcs            smallint    NOT NULL,   -- sms.DCS
    flash          boolean     NOT NULL,
    dlr_mask       smallint    NOT NULL,   -- sms.DLRMask
    dlr_url        text        NOT NULL,
    custom         bytea,      -- the submission's JSON object, byte for byte
    part_price     numeric     NOT NULL,
    charged        numeric     NOT NULL,
    currency       text        NOT NULL,
    submitted_at   timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL
);

CREATE INDEX sms_messages_account_idx ON sms_messages (account, submitted_at);

CREATE TABLE sms_parts (
    msg_id     text        NOT NULL REFERENCES sms_messages (id) ON DELETE CASCADE,
    num        integer     NOT NULL,   -- 0-based, as delivery reports number parts
    text       text        NOT NULL,
    data       bytea,                  -- user data of 8-bit parts
    units      integer     NOT NULL,
    udh_ref    smallint    NOT NULL,
    udh_total  smallint    NOT NULL,
    udh_seq    smallint    NOT NULL,
    dst_port   integer     NOT NULL,
    src_port   integer     NOT NULL,
    state      smallint    NOT NULL,   -- sms.PartState
    error_code integer     NOT NULL,   -- sms.DLRError
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (msg_id, num)
);

-- One row per account that has submitted: the Unix second of the current
-- window and the submissions counted in it. No foreign key: as in
-- memstore, any username is counted; the gateway asks only for accounts
-- it has authenticated.
CREATE TABLE sms_throughput (
    username     text    PRIMARY KEY,
    window_start bigint  NOT NULL,   -- Unix seconds
    count        integer NOT NULL
);
