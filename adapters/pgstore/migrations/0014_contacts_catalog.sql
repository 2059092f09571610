-- The catalog records of every tenant (contacts.CatalogStore; see
-- contacts_catalog.go): custom field definitions, segmentation sets and
-- groups, subscriptions and their options, groups, group lists, group
-- segmentation, touchpoints and interests, one table with a kind column,
-- as they share one shape. A kind leaves the columns it does not use at
-- their defaults. parent is an option's subscription or a group list's or
-- group segmentation's group; col a custom field's column (column_N).
-- Memberships live on the contacts (options, touchpoints, interests).
CREATE TABLE cds_records (
    service_uuid text COLLATE "C" NOT NULL,
    kind         text COLLATE "C" NOT NULL,
    uuid         text COLLATE "C" NOT NULL,
    name         text COLLATE "C" NOT NULL DEFAULT '',
    description  text COLLATE "C" NOT NULL DEFAULT '',
    status       text COLLATE "C" NOT NULL DEFAULT '',
    data         text COLLATE "C" NOT NULL DEFAULT '',
    parent       text COLLATE "C" NOT NULL DEFAULT '',
    list_uuid    text COLLATE "C" NOT NULL DEFAULT '',
    order_num    integer NOT NULL DEFAULT 0,
    col          integer NOT NULL DEFAULT 0,
    field_type   text COLLATE "C" NOT NULL DEFAULT '',
    mandatory    boolean NOT NULL DEFAULT false,
    identifier   boolean NOT NULL DEFAULT false,
    config       bytea,
    created      timestamptz NOT NULL,
    updated      timestamptz NOT NULL,
    deleted      timestamptz,
    PRIMARY KEY (service_uuid, kind, uuid)
);

-- The store order of a kind's listing.
CREATE INDEX cds_records_order ON cds_records (service_uuid, kind, created, uuid);

-- A custom field's column is its own, deleted or not: contacts keep their
-- values in it.
CREATE UNIQUE INDEX cds_records_column ON cds_records (service_uuid, col) WHERE kind = 'custom_field';

-- A group names a list once.
CREATE UNIQUE INDEX cds_records_group_list ON cds_records (service_uuid, parent, list_uuid) WHERE kind = 'group_list';

-- The options of a subscription, the lists and segmentation of a group.
CREATE INDEX cds_records_parent ON cds_records (service_uuid, parent, kind) WHERE parent <> '';
