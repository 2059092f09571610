-- Cheaper acceptance: what PostgreSQL did for every accepted message
-- beyond storing it.
--
-- No foreign keys on the bulk SMS tables: a check is a trigger that runs a
-- query and locks the referenced row (FOR KEY SHARE) for every inserted
-- row, which made about a third of the database's work per accepted
-- message. The store keeps both references by construction instead:
--   - a message is inserted only for an account the same transaction has
--     locked (the accept batch's SELECT … FOR UPDATE) or charged (the
--     single statement's conditional UPDATE), and accounts are never
--     deleted;
--   - a message's parts are inserted in the same statement or transaction
--     as the message, and only for a message that was inserted.
-- Nothing deletes messages, so ON DELETE CASCADE had nothing to do. The
-- outbound queue and the report outbox never had foreign keys, for the
-- same reason.
--
-- Message ids compare byte by byte (COLLATE "C"), as memstore orders
-- them: they are opaque, and every index on them (each table's key)
-- compared them by the database's locale, a strcoll call per comparison,
-- on every insert and look-up. Changing a column's collation rebuilds its
-- indexes, not its table.

ALTER TABLE sms_parts DROP CONSTRAINT sms_parts_msg_id_fkey;
ALTER TABLE sms_messages DROP CONSTRAINT sms_messages_account_fkey;

ALTER TABLE sms_messages ALTER COLUMN id TYPE text COLLATE "C";
ALTER TABLE sms_parts ALTER COLUMN msg_id TYPE text COLLATE "C";
ALTER TABLE sms_outbound ALTER COLUMN msg_id TYPE text COLLATE "C";
ALTER TABLE sms_reports ALTER COLUMN msg_id TYPE text COLLATE "C";
