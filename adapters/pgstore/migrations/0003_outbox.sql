-- sms outbox: the delivery reports queued with the part updates that
-- caused them, claimed under a lease by any replica; and the index that
-- finds expired parts.
-- The numbers in the partial indexes' predicates are sms.ReportPending (1)
-- and the non-final sms.PartState values (1 submitted, 2 sent to SMSC,
-- 3 buffered). The queries repeat them as literals, so the planner can
-- prove that a query's WHERE implies an index's predicate; a test checks
-- that they still match the Go constants.

CREATE TABLE sms_reports (
    id          bigserial   PRIMARY KEY,
    -- The report's own part, as the update that queued it said; no foreign
    -- key, as memstore keeps any report it is given.
    msg_id      text        NOT NULL,
    part_num    integer     NOT NULL,
    url         text        NOT NULL,
    body        bytea,      -- the JSON body, byte for byte
    state       smallint    NOT NULL,   -- sms.ReportState: 1 pending, 2 delivered, 3 given up
    attempts    integer     NOT NULL,
    next_at     timestamptz NOT NULL,
    created_at  timestamptz NOT NULL,
    last_error  text        NOT NULL,
    lease_until timestamptz              -- NULL: never claimed, or finished since
);

-- ClaimReports walks the pending reports in (next_at, id) order and stops
-- after limit rows: with id in the key, the index gives that order without
-- a sort. Delivered and given-up reports, most of the table in time, are
-- not in it.
CREATE INDEX sms_reports_due_idx ON sms_reports (next_at, id) WHERE state = 1;

-- A part's reports in queueing order: ClaimReports' check that no older
-- report of the part is pending, and any look-up of a part's history.
CREATE INDEX sms_reports_part_idx ON sms_reports (msg_id, part_num, id);

-- The open parts (not final). ExpiredParts scans them and joins their
-- messages by primary key, so its cost follows the parts still in flight,
-- not the history: expired messages whose parts all ended are never read.
-- (An index on sms_messages (expires_at) would walk exactly that history,
-- oldest first, before reaching an open part, so there is none.)
CREATE INDEX sms_parts_open_idx ON sms_parts (msg_id, num) WHERE state IN (1, 2, 3);
