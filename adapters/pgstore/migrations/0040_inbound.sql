-- inbound: the messages the network hands over that no part of ours
-- sent (mobile-originated), kept whatever became of them: routed (their
-- delivery queued in sms_reports, msg_id = id, in the same statement),
-- unroutable or incomplete. Ids are 'mo-' and a version 7 UUID, so they
-- grow with time and never meet an outbound message's; a message's
-- delivery is the range of sms_reports_part_idx its id names. And the
-- account's address for the messages routed to it by smpp_connect_id.

ALTER TABLE sms_accounts ADD COLUMN inbound_url text NOT NULL DEFAULT '';

CREATE TABLE inbound_messages (
    id          text COLLATE "C" PRIMARY KEY,
    conn        text NOT NULL,
    source      text NOT NULL,
    dest        text NOT NULL,
    dcs         text NOT NULL,
    body        text NOT NULL,
    parts       integer NOT NULL,
    total       integer NOT NULL,
    received_at timestamptz NOT NULL,
    state       text NOT NULL CHECK (state IN ('routed', 'unroutable', 'incomplete')),
    reason      text NOT NULL,
    route_id    bigint NOT NULL,
    account     text NOT NULL,
    url         text NOT NULL
);

-- Retention removes by arrival; listings filter by state (few
-- unroutable among many routed).
CREATE INDEX inbound_messages_received_idx ON inbound_messages (received_at);
CREATE INDEX inbound_messages_state_idx ON inbound_messages (state, id) WHERE state <> 'routed';
