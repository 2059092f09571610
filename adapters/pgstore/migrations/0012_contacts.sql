-- Contact lists and contacts of every tenant (contacts.Store; see
-- ContactsStore in contacts.go). Every key starts with the tenant
-- (service_uuid). Identifiers and text compare byte by byte (COLLATE "C"),
-- as memstore orders them, so the listing's COLLATE "C" expressions can use
-- plain column indexes.
CREATE TABLE contact_lists (
    service_uuid text COLLATE "C" NOT NULL,
    uuid         text COLLATE "C" NOT NULL,
    name         text COLLATE "C" NOT NULL,
    status       text COLLATE "C" NOT NULL,
    created      timestamptz NOT NULL,
    updated      timestamptz NOT NULL,
    deleted      timestamptz,
    PRIMARY KEY (service_uuid, uuid)
);

-- The store order of Lists.
CREATE INDEX contact_lists_order ON contact_lists (service_uuid, created, uuid);

-- One row per contact. A standard text field is a column of its name
-- (NULL: no value) and, where segmentation compares it case-insensitively,
-- a shadow column <name>_fold holding segmentation.Fold of it, written by
-- the store. mobile and b_mobile are E.164 (their fold is themselves) with
-- the input beside them; gender is stored lower case, its own fold.
-- Custom fields are jsonb objects keyed by column number: custom as given,
-- custom_fold folded. options are the subscription option memberships,
-- {"<option uuid>": "subscribed" | "unsubscribed"}, read and written with
-- the contact, so an erase is the row's DELETE alone.
CREATE TABLE contacts (
    service_uuid          text COLLATE "C" NOT NULL,
    uuid                  text COLLATE "C" NOT NULL,
    list_uuid             text COLLATE "C" NOT NULL,
    member                text COLLATE "C" NOT NULL,
    created               timestamptz NOT NULL,
    updated               timestamptz NOT NULL,
    deleted               timestamptz,
    mobile                text COLLATE "C",
    mobile_raw            text COLLATE "C",
    b_mobile              text COLLATE "C",
    b_mobile_raw          text COLLATE "C",
    gender                text COLLATE "C",
    birthday              date,
    address               text COLLATE "C",
    address_fold          text COLLATE "C",
    b_address             text COLLATE "C",
    b_address_fold        text COLLATE "C",
    b_city                text COLLATE "C",
    b_city_fold           text COLLATE "C",
    b_company             text COLLATE "C",
    b_company_fold        text COLLATE "C",
    b_country             text COLLATE "C",
    b_country_fold        text COLLATE "C",
    b_department          text COLLATE "C",
    b_department_fold     text COLLATE "C",
    b_email               text COLLATE "C",
    b_email_fold          text COLLATE "C",
    b_job_title           text COLLATE "C",
    b_job_title_fold      text COLLATE "C",
    b_phone               text COLLATE "C",
    b_phone_fold          text COLLATE "C",
    b_reception_code      text COLLATE "C",
    b_reception_code_fold text COLLATE "C",
    b_region              text COLLATE "C",
    b_region_fold         text COLLATE "C",
    b_zip                 text COLLATE "C",
    b_zip_fold            text COLLATE "C",
    city                  text COLLATE "C",
    city_fold             text COLLATE "C",
    country               text COLLATE "C",
    country_fold          text COLLATE "C",
    email                 text COLLATE "C",
    email_fold            text COLLATE "C",
    first_name            text COLLATE "C",
    first_name_fold       text COLLATE "C",
    language              text COLLATE "C",
    language_fold         text COLLATE "C",
    last_name             text COLLATE "C",
    last_name_fold        text COLLATE "C",
    nationality           text COLLATE "C",
    nationality_fold      text COLLATE "C",
    nick_name             text COLLATE "C",
    nick_name_fold        text COLLATE "C",
    phone                 text COLLATE "C",
    phone_fold            text COLLATE "C",
    region                text COLLATE "C",
    region_fold           text COLLATE "C",
    salutation            text COLLATE "C",
    salutation_fold       text COLLATE "C",
    second_name           text COLLATE "C",
    second_name_fold      text COLLATE "C",
    title                 text COLLATE "C",
    title_fold            text COLLATE "C",
    zip                   text COLLATE "C",
    zip_fold              text COLLATE "C",
    custom                jsonb,
    custom_fold           jsonb,
    opt_status            text COLLATE "C",
    opt_status_webpush    text COLLATE "C",
    telegram_identifier   text COLLATE "C",
    telegram_opt_status   text COLLATE "C",
    telegram_data         bytea,
    options               jsonb,
    PRIMARY KEY (service_uuid, uuid)
);

-- The listing: store order (created, uuid) per tenant and per list, and
-- the sort attributes per tenant.
CREATE INDEX contacts_order ON contacts (service_uuid, created, uuid);
CREATE INDEX contacts_list_order ON contacts (service_uuid, list_uuid, created, uuid);
CREATE INDEX contacts_sort_first_name ON contacts (service_uuid, first_name);
CREATE INDEX contacts_sort_last_name ON contacts (service_uuid, last_name);
CREATE INDEX contacts_sort_mobile ON contacts (service_uuid, mobile);
CREATE INDEX contacts_sort_birthday ON contacts (service_uuid, birthday);
CREATE INDEX contacts_sort_updated ON contacts (service_uuid, updated);

-- A list's counts: an index-only scan of its contacts in use.
CREATE INDEX contacts_list_counts ON contacts (service_uuid, list_uuid, member) WHERE deleted IS NULL;

-- The totals of listings filtered by the opt statuses and gender (counted
-- apart from the page, listTable.CountApart): index-only scans.
CREATE INDEX contacts_filter_gender ON contacts (service_uuid, gender) WHERE deleted IS NULL;
CREATE INDEX contacts_filter_opt ON contacts (service_uuid, opt_status) WHERE deleted IS NULL;

-- Segmentation (segmentationIndexes over contactSegIndexed; a test keeps
-- these lines equal to what it writes).
CREATE INDEX IF NOT EXISTS "contacts_seg_email" ON "contacts" ((contacts.email_fold) COLLATE "C");
CREATE INDEX IF NOT EXISTS "contacts_seg_first_name" ON "contacts" ((contacts.first_name_fold) COLLATE "C");
CREATE INDEX IF NOT EXISTS "contacts_seg_last_name" ON "contacts" ((contacts.last_name_fold) COLLATE "C");
CREATE INDEX IF NOT EXISTS "contacts_seg_mobile" ON "contacts" ((contacts.mobile) COLLATE "C");
CREATE INDEX IF NOT EXISTS "contacts_seg_city" ON "contacts" ((contacts.city_fold) COLLATE "C");
CREATE INDEX IF NOT EXISTS "contacts_seg_birthday" ON "contacts" ((contacts.birthday));
CREATE INDEX IF NOT EXISTS "contacts_seg_birthday_ann" ON "contacts" (((EXTRACT(MONTH FROM (contacts.birthday))::int * 100 + EXTRACT(DAY FROM (contacts.birthday))::int)));
