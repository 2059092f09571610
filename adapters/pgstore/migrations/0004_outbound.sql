-- sms outbound queue: the parts of accepted messages waiting for a
-- transmitter to hand them to the network, one row per queued part.
-- Accept inserts the rows with the parts, in the same statement or batch.
-- send_at is when a part is next to be handed over, by whichever
-- transmitter claims it: a claim (FOR UPDATE SKIP LOCKED) moves send_at to
-- the end of its lease, so a part whose claimer died is due again when the
-- lease ends, and the claimer quotes that time when it records the
-- outcome: the row is deleted once the part is handed over, or send_at
-- moves to the next attempt. Any update of a part's delivery state
-- deletes its row. A gateway that hands its parts to a transmitter in
-- memory inserts them already leased (send_at at the lease's end).
--
-- A table of its own rather than columns of sms_parts: a part usually
-- passes through here as one insert and one delete, so the rows are
-- narrow and carry what a claim filters on (the message's expiry), the
-- table stays small and is vacuumed often, and sms_parts keeps only the
-- updates the delivery reports make. No foreign key: the rows are
-- written with their parts and deleted by the store only, and a key check
-- per part would cost every acceptance.
-- Parts stored before this migration were handed over when they were
-- accepted, so none is queued.

CREATE TABLE sms_outbound (
    msg_id     text        NOT NULL,
    num        integer     NOT NULL,
    send_at    timestamptz NOT NULL,   -- the next attempt, or the end of a claim
    attempts   integer     NOT NULL,   -- hand-overs that failed
    last_error text        NOT NULL,
    num_parts  integer     NOT NULL,   -- the message's, for the network
    expires_at timestamptz NOT NULL,   -- the message's validity
    PRIMARY KEY (msg_id, num)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 10000);

-- ClaimParts walks the due parts in send_at order and stops after limit
-- rows; parts held by a claim are further on, at their lease's end.
CREATE INDEX sms_outbound_due_idx ON sms_outbound (send_at);
