-- Campaigns (campaign.Store; see CampaignStore in campaign.go): one row per
-- campaign of a tenant, keyed by (service_uuid, uuid), every field of
-- campaign.Campaign a column. schedule_rrule is Schedule.RRule() ('' for
-- now, the UTC time of a once campaign, the rule of a scheduled one in its
-- normal form), read back with campaign.RestoreSchedule. lists are the
-- recipient list UUIDs in the order given (NULL for none). next_dt is when
-- the campaign runs next and last_dt when it last ran, NULL when it does
-- not or did not; next_seq and last_seq are those occurrences' ordinals.
-- Times keep microseconds. The texts that listings compare and sort are
-- COLLATE "C", byte for byte as memstore compares them.
--
-- The campaigns' tasks and messages (campaign.Runs) get tables of their own
-- with the runner that makes them.
CREATE TABLE campaigns (
    service_uuid       text COLLATE "C" NOT NULL,
    uuid               text COLLATE "C" NOT NULL,
    name               text COLLATE "C" NOT NULL,
    status             text COLLATE "C" NOT NULL,  -- campaign.Status
    sending_type       text COLLATE "C" NOT NULL,  -- campaign.Channel
    schedule_type      text COLLATE "C" NOT NULL,  -- campaign.ScheduleType
    schedule_rrule     text NOT NULL,
    template           text NOT NULL,
    parts              bigint NOT NULL,
    webpush_title      text NOT NULL,
    webpush_body       text NOT NULL,
    webpush_target_url text NOT NULL,
    webpush_icon       text NOT NULL,
    webpush_image      text NOT NULL,
    sender             text NOT NULL,
    lists              text[],
    query_type         text COLLATE "C" NOT NULL,
    query              text NOT NULL,
    created_dt         timestamptz NOT NULL,
    updated_dt         timestamptz NOT NULL,
    next_dt            timestamptz,
    next_seq           bigint NOT NULL,
    last_dt            timestamptz,
    last_seq           bigint NOT NULL,
    PRIMARY KEY (service_uuid, uuid)
);

-- The store order of a tenant's listing.
CREATE INDEX campaigns_order_idx ON campaigns (service_uuid, created_dt, uuid);

-- The runner's look-up of the campaigns due, over every tenant: only the
-- active campaigns, the only ones with a next run, are in it.
CREATE INDEX campaigns_due_idx ON campaigns (next_dt) WHERE status = 'active';
