-- Two shapes of the outbound queue, for run.sh: "separate" is the one
-- pgstore uses (sms_parts as in migrations 0002 and 0006, the queue in a
-- table of its own as in 0004), "folded" keeps the queue in the parts'
-- own rows (send_at, attempts, last_error) under a partial index.
DROP TABLE IF EXISTS separate_parts, separate_queue, folded_parts;
DROP SEQUENCE IF EXISTS queueshape_ids;
CREATE SEQUENCE queueshape_ids;

CREATE TABLE separate_parts (
    msg_id text COLLATE "C" NOT NULL, num integer NOT NULL, text text NOT NULL, data bytea,
    units integer NOT NULL, udh_ref smallint NOT NULL, udh_total smallint NOT NULL, udh_seq smallint NOT NULL,
    dst_port integer NOT NULL, src_port integer NOT NULL, state smallint NOT NULL, error_code integer NOT NULL,
    updated_at timestamptz NOT NULL,
    open boolean GENERATED ALWAYS AS (state IN (1, 2, 3)) STORED,
    PRIMARY KEY (msg_id, num)
) WITH (fillfactor = 70);
CREATE INDEX separate_parts_open_idx ON separate_parts (msg_id, num) WHERE open;
CREATE TABLE separate_queue (
    msg_id text COLLATE "C" NOT NULL, num integer NOT NULL, send_at timestamptz NOT NULL,
    attempts integer NOT NULL, last_error text NOT NULL, num_parts integer NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (msg_id, num)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 10000);
CREATE INDEX separate_queue_due_idx ON separate_queue (send_at);

CREATE TABLE folded_parts (
    msg_id text COLLATE "C" NOT NULL, num integer NOT NULL, text text NOT NULL, data bytea,
    units integer NOT NULL, udh_ref smallint NOT NULL, udh_total smallint NOT NULL, udh_seq smallint NOT NULL,
    dst_port integer NOT NULL, src_port integer NOT NULL, state smallint NOT NULL, error_code integer NOT NULL,
    updated_at timestamptz NOT NULL,
    send_at timestamptz, attempts integer NOT NULL, last_error text NOT NULL,
    open boolean GENERATED ALWAYS AS (state IN (1, 2, 3)) STORED,
    PRIMARY KEY (msg_id, num)
) WITH (fillfactor = 70);
CREATE INDEX folded_parts_open_idx ON folded_parts (msg_id, num) WHERE open;
CREATE INDEX folded_parts_due_idx ON folded_parts (send_at) WHERE send_at IS NOT NULL;
