-- A part's life with the queue in a table of its own: accepted (the part
-- and its queue row), handed over (the queue row deleted), delivered
-- (the part final). Four two-part messages, three commits.
SELECT nextval('queueshape_ids') AS n \gset
BEGIN;
INSERT INTO separate_parts (msg_id, num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
  SELECT msg_id, num, repeat('x', 153), NULL, 1, 7, 2, num + 1, 0, 0, 1, 0, now() FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k;
INSERT INTO separate_queue (msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
  SELECT msg_id, num, now() + interval '1 minute', 0, '', 2, now() + interval '1 hour' FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k;
COMMIT;
DELETE FROM separate_queue q USING (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k WHERE q.msg_id = k.msg_id AND q.num = k.num;
UPDATE separate_parts p SET state = 4, updated_at = now() FROM (SELECT lpad((:n * 4 + i / 2)::text, 36, '0') AS msg_id, i % 2 AS num FROM generate_series(0, 7) i) k WHERE p.msg_id = k.msg_id AND p.num = k.num;
