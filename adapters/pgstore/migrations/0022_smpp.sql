-- Parts SMSCs took over SMPP (smpp.Store; see SMPPStore in smpp.go): one
-- row per part with the message id the SMSC's submit_sm_resp gave, so
-- that a receipt, on whichever replica it arrives, finds its part, and a
-- part the SMSC took is never sent again. The SMSC's id is kept as the
-- octets it sent (bytea): SMSCs are not bound to UTF-8. Ids are unique
-- per connection only, and an SMSC may use one again after a while, so
-- the newest row of an id wins.
CREATE TABLE smpp_submitted (
    msg_id     text COLLATE "C" NOT NULL,
    part_num   integer NOT NULL,
    conn       text COLLATE "C" NOT NULL,
    smsc_id    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (msg_id, part_num)
);
CREATE INDEX smpp_submitted_by_smsc_id ON smpp_submitted (conn, smsc_id, created_at DESC);
CREATE INDEX smpp_submitted_by_age ON smpp_submitted (created_at);
