-- The same life with the queue folded into the part: accepted (the part,
-- queued), handed over (send_at cleared), delivered (the part final).
SELECT nextval('queueshape_ids') AS n \gset
BEGIN;
INSERT INTO folded_parts (msg_id, num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at, send_at, attempts, last_error)
  SELECT msg_id, num, repeat('x', 153), NULL, 1, 7, 2, num + 1, 0, 0, 1, 0, now(), now() + interval '1 minute', 0, '' FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k;
COMMIT;
UPDATE folded_parts p SET send_at = NULL FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k WHERE p.msg_id = k.msg_id AND p.num = k.num;
UPDATE folded_parts p SET state = 4, updated_at = now() FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k WHERE p.msg_id = k.msg_id AND p.num = k.num;
