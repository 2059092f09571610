-- The runs of campaigns (campaign.RunStore; see campaign_run.go): a task
-- per campaign and occurrence, and a message per task and contact.
--
-- campaign_tasks has no foreign key to campaigns: a deleted campaign's
-- tasks stay, and the runner ends them as stopped. UNIQUE (service_uuid,
-- campaign_uuid, scheduled_at) makes each occurrence one task, whichever
-- replica claims it, and orders a campaign's tasks for Tasks. cursor is
-- the Audience cursor of the last page queued; lease_until the end of the
-- lease of the runner working the task (NULL: none), finished_at when it
-- ended (NULL: not yet). Times keep microseconds.
CREATE TABLE campaign_tasks (
    id            bigserial PRIMARY KEY,
    service_uuid  text COLLATE "C" NOT NULL,
    campaign_uuid text COLLATE "C" NOT NULL,
    scheduled_at  timestamptz NOT NULL,
    state         text COLLATE "C" NOT NULL,  -- campaign.TaskState
    cursor        text NOT NULL,
    exhausted     boolean NOT NULL,
    recipients    bigint NOT NULL,
    sent          bigint NOT NULL,
    failed        bigint NOT NULL,
    attempts      integer NOT NULL,
    created_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    lease_until   timestamptz,
    UNIQUE (service_uuid, campaign_uuid, scheduled_at)
);

-- ClaimTasks: the tasks that may still run, oldest first. Done and
-- stopped tasks, nearly all of them in time, are not in it.
CREATE INDEX campaign_tasks_claimable ON campaign_tasks (created_at, id) WHERE state IN ('pending', 'running');

-- One row per task and contact, and per task and address (a number two
-- contacts share gets one message). No foreign key to campaign_tasks: a
-- message is only written by a lease-bound statement that has locked its
-- task. Contact UUIDs and addresses compare byte by byte (COLLATE "C"),
-- as memstore orders and dedupes them.
CREATE TABLE campaign_messages (
    task_id      bigint NOT NULL,
    contact_uuid text COLLATE "C" NOT NULL,
    address      text COLLATE "C" NOT NULL,
    status       text COLLATE "C" NOT NULL,  -- campaign.MessageStatus
    msg_id       text NOT NULL,
    error        text NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (task_id, contact_uuid),
    UNIQUE (task_id, address)
);

-- QueuedMessages: a task's queued messages by contact.
CREATE INDEX campaign_messages_queued ON campaign_messages (task_id, contact_uuid) WHERE status = 'queued';
