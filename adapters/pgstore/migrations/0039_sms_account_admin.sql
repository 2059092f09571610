-- sms: what the administration sets on accounts besides 0002's: the
-- tenant an account belongs to ('' for none) and the days each price line
-- holds, parallel to price_prefixes as price_values are ('' for an open
-- end: YYYY-MM-DD text, so that an array never holds NULL).

ALTER TABLE sms_accounts
    ADD COLUMN tenant text NOT NULL DEFAULT '',
    ADD COLUMN price_from text[],
    ADD COLUMN price_to text[];

UPDATE sms_accounts
SET price_from = array_fill(''::text, ARRAY[cardinality(price_prefixes)]),
    price_to = array_fill(''::text, ARRAY[cardinality(price_prefixes)])
WHERE price_prefixes IS NOT NULL;

ALTER TABLE sms_accounts
    ADD CHECK ((price_from IS NULL) = (price_prefixes IS NULL) AND (price_to IS NULL) = (price_prefixes IS NULL)),
    ADD CHECK (cardinality(price_from) = cardinality(price_prefixes) AND cardinality(price_to) = cardinality(price_prefixes));
