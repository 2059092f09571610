-- Route categories, suppliers and gates have owners, as operators do: ''
-- for the platform's records, which every user sees and only an operator
-- changes, or the username of the user who made the record, who alone
-- sees and changes it. Names are unique per owner (checked at commit, as
-- before), so two users may each have a gate of one name. A route is
-- seen with its gate.
ALTER TABLE testsystem_categories ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE testsystem_categories DROP CONSTRAINT testsystem_categories_name_key;
ALTER TABLE testsystem_categories ADD CONSTRAINT testsystem_categories_name_key UNIQUE (owner, name) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE testsystem_suppliers ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE testsystem_suppliers DROP CONSTRAINT testsystem_suppliers_name_key;
ALTER TABLE testsystem_suppliers ADD CONSTRAINT testsystem_suppliers_name_key UNIQUE (owner, name) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE testsystem_gates ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE testsystem_gates DROP CONSTRAINT testsystem_gates_name_key;
ALTER TABLE testsystem_gates ADD CONSTRAINT testsystem_gates_name_key UNIQUE (owner, name) DEFERRABLE INITIALLY DEFERRED;
