-- SMS route test system (testsystem.Store; see TestSystemStore in
-- testsystem.go).
--
-- Reference lists: operators (owner '' for the platform's, a username for
-- a user's own), route categories, suppliers and gates (a table each, names
-- unique per list), the route parameters that tie a gate to a category and
-- a supplier (deleted with any of the three), and the service centres by
-- address. MCC and MNC are text: MNC "01" and "001" are different
-- networks. testsystem_ids holds the last id given to a new category,
-- supplier, gate or route parameter, so a deleted record's id is never
-- given again, as in memstore.
--
-- Sessions: one row per test request, ids ascending; its messages are
-- testsystem_results, one row per message id, the key columns and the
-- status as columns and every other field of testsystem.Result as one
-- jsonb document (read and written whole, never queried; text JSON
-- cannot carry exactly is kept there as bytes, under "raw"). judged is
-- testsystem.Status.Judged() of status, written by the store; the results
-- not judged are what Pending walks and what keeps a session from
-- completing, and both have a partial index that holds only them.
-- testsystem_quota counts each user's requests per UTC day. There is no
-- foreign key from results to sessions: both are written in one
-- transaction, and a key check per result would cost a lookup for each
-- of a session's up to 2,000 rows.
CREATE TABLE testsystem_operators (
    id      bigint PRIMARY KEY,
    owner   text COLLATE "C" NOT NULL, -- '' for the platform's operators
    name    text COLLATE "C" NOT NULL,
    country text COLLATE "C" NOT NULL,
    mcc     text COLLATE "C" NOT NULL,
    mnc     text COLLATE "C" NOT NULL
);
-- Listings are one owner's operators by id; look-ups are by MCC or by
-- MCC and MNC as one code.
CREATE INDEX testsystem_operators_owner_idx ON testsystem_operators (owner, id);
CREATE INDEX testsystem_operators_mcc_idx ON testsystem_operators (owner, mcc);
CREATE INDEX testsystem_operators_code_idx ON testsystem_operators (owner, (mcc || mnc));

-- Names are unique per list, checked at commit, so a Load that swaps two
-- records' names is not refused halfway.
CREATE TABLE testsystem_categories (
    id   bigint PRIMARY KEY,
    name text COLLATE "C" NOT NULL,
    CONSTRAINT testsystem_categories_name_key UNIQUE (name) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE testsystem_suppliers (
    id   bigint PRIMARY KEY,
    name text COLLATE "C" NOT NULL,
    CONSTRAINT testsystem_suppliers_name_key UNIQUE (name) DEFERRABLE INITIALLY DEFERRED
);

-- A gate's price of one part: 0 and '' when unknown.
CREATE TABLE testsystem_gates (
    id       bigint PRIMARY KEY,
    name     text COLLATE "C" NOT NULL,
    price    numeric NOT NULL DEFAULT 0,
    currency text COLLATE "C" NOT NULL DEFAULT '',
    CONSTRAINT testsystem_gates_name_key UNIQUE (name) DEFERRABLE INITIALLY DEFERRED
);

-- One parameter of a gate's route (param_name tlv, service_type or
-- prefix; a tlv's value is "tag=value").
CREATE TABLE testsystem_routes (
    param_id    bigint PRIMARY KEY,
    gate_id     bigint NOT NULL REFERENCES testsystem_gates ON DELETE CASCADE,
    category_id bigint NOT NULL REFERENCES testsystem_categories ON DELETE CASCADE,
    supplier_id bigint NOT NULL REFERENCES testsystem_suppliers ON DELETE CASCADE,
    param_name  text COLLATE "C" NOT NULL,
    param_value text COLLATE "C" NOT NULL
);
-- A gate's first route (GatesByID) and the cascades of deletes.
CREATE INDEX testsystem_routes_gate_idx ON testsystem_routes (gate_id, param_id);
CREATE INDEX testsystem_routes_category_idx ON testsystem_routes (category_id);
CREATE INDEX testsystem_routes_supplier_idx ON testsystem_routes (supplier_id);

CREATE TABLE testsystem_ids (
    list text PRIMARY KEY,
    last bigint NOT NULL
);
INSERT INTO testsystem_ids (list, last) VALUES ('category', 0), ('supplier', 0), ('gate', 0), ('route', 0);

CREATE TABLE testsystem_smscs (
    address  text COLLATE "C" PRIMARY KEY, -- E.164 with '+'
    operator text COLLATE "C" NOT NULL,
    country  text COLLATE "C" NOT NULL,
    mcc      text COLLATE "C" NOT NULL,
    mnc      text COLLATE "C" NOT NULL
);

CREATE TABLE testsystem_sessions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username     text COLLATE "C" NOT NULL,
    test         text NOT NULL,
    callback     text NOT NULL,
    status       text COLLATE "C" NOT NULL,   -- testsystem.SessionStatus
    messages     bigint NOT NULL,
    created_at   timestamptz NOT NULL,
    completed_at timestamptz                  -- NULL while running
);

CREATE TABLE testsystem_results (
    msg_id     text COLLATE "C" PRIMARY KEY,
    session_id bigint NOT NULL,
    seq        bigint NOT NULL,
    username   text COLLATE "C" NOT NULL,
    status     text COLLATE "C" NOT NULL,     -- testsystem.Status
    judged     boolean NOT NULL,
    doc        jsonb NOT NULL                 -- the other fields (resultDoc in testsystem.go)
);
-- A session's results by seq (Results, CompleteSession).
CREATE INDEX testsystem_results_session_idx ON testsystem_results (session_id, seq);
-- The results not judged, by message id (Pending) and by session
-- (CompleteSession): judged rows, nearly all of the table in time, are in
-- neither.
CREATE INDEX testsystem_results_pending_idx ON testsystem_results (msg_id) WHERE NOT judged;
CREATE INDEX testsystem_results_open_idx ON testsystem_results (session_id) WHERE NOT judged;

CREATE TABLE testsystem_quota (
    username text COLLATE "C" NOT NULL,
    day      date NOT NULL,                   -- UTC
    used     integer NOT NULL,
    PRIMARY KEY (username, day)
);
