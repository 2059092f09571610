-- sms outbound queue: the parts of accepted messages wait in sms_parts for
-- a transmitter to hand them to the network. Accept writes send_at with
-- the parts, in the same statement; a transmitter claims due parts under
-- a lease (FOR UPDATE SKIP LOCKED), and records the hand-over (send_at
-- NULL) or a later attempt (send_at moved, send_attempts and send_error
-- set). Any update of a part's delivery state takes it off the queue.
-- Parts stored before this migration were handed over when they were
-- accepted, so they are not queued (send_at NULL).

ALTER TABLE sms_parts
    ADD COLUMN send_at       timestamptz,               -- next hand-over attempt; NULL: not queued
    ADD COLUMN send_lease    timestamptz,               -- a claim's lease; NULL: not claimed
    ADD COLUMN send_attempts integer NOT NULL DEFAULT 0, -- hand-overs that failed
    ADD COLUMN send_error    text    NOT NULL DEFAULT ''; -- the last failure

-- ClaimParts walks the queued parts in send_at order and stops after limit
-- rows; the parts handed over, nearly the whole table in time, are not in
-- it. The state list is the non-final sms.PartState values, as in
-- 0003_outbox.sql: a queued part is never final (UpdatePart takes a part
-- off the queue), and the claim's WHERE repeats the list, so the index
-- serves it whole, in order.
CREATE INDEX sms_parts_send_idx ON sms_parts (send_at) WHERE send_at IS NOT NULL AND state IN (1, 2, 3);
