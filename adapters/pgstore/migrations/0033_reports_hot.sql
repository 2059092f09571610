-- A report's claim writes its lease (lease_until, in no index) within a
-- second or so of its insert: with room left on the page (fillfactor) that
-- new row version is heap-only (HOT), instead of three new index entries
-- (the key, the due index and the part's) for every claim. Its finish
-- changes the due index's predicate and so is not HOT either way. As
-- sms_parts (0006_parts_hot.sql).
ALTER TABLE sms_reports SET (fillfactor = 70);
