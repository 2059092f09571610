-- The message trace (sms.Tracer): every state a part went through and
-- every attempt at a delivery report, each kept in its own row and
-- appended by the update that already writes the row, so the trace costs
-- no row, no index entry and no statement of its own.
--
-- A part's history is a string of 13-byte records, oldest first: the
-- state (1 byte, sms.PartState), the error code (4 bytes, big-endian
-- two's complement) and the update's time (8 bytes, big-endian
-- microseconds since 1970-01-01 UTC). No index reads it, so the status
-- updates stay heap-only (HOT; see 0006_parts_hot.sql); the table's free
-- space per page (fillfactor 70) holds the longer row versions. At most
-- 16 records are kept (sms.MaxPartEvents): the first and the latest 15,
-- 208 bytes. Acceptance writes none: the message's submission is the
-- first event. Adding a column with a constant default rewrites nothing.
ALTER TABLE sms_parts ADD COLUMN history bytea NOT NULL DEFAULT ''::bytea;

-- sms_part_history appends the records e to the history h and bounds it
-- as sms.AppendPartEvents does. It is one expression over its arguments,
-- and neither STRICT nor VOLATILE, so the planner inlines it into the
-- UPDATE (no function call per row); the columns it gets are NOT NULL.
CREATE FUNCTION sms_part_history(h bytea, e bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN length(h) + length(e) <= 208 THEN h || e
        ELSE substr(h || e, 1, 13) || substr(h || e, length(h) + length(e) - 194) END;

-- A report's attempts, oldest first, in two arrays of the same length:
-- when each answer came (NULL when the recorder did not say) and the
-- failure it told ('' when the customer's URL took the report), at most
-- 200 bytes each (sms.MaxAttemptError). At most 16 are kept
-- (sms.MaxReportAttempts): the first and the latest 15. FinishReports
-- appends in the row write it already makes.
ALTER TABLE sms_reports
    ADD COLUMN attempt_at timestamptz[] NOT NULL DEFAULT '{}',
    ADD COLUMN attempt_errors text[] NOT NULL DEFAULT '{}';
