-- Inbound MT routes (routing.Store; see RoutingStore in routing.go). The
-- unused one of smpp_connect_id and esme_connect_id is '0', as the
-- interface answers it.
CREATE TABLE smsmtin_routes (
    id      bigint PRIMARY KEY CHECK (id > 0),
    sigtran text COLLATE "C" NOT NULL,
    smpp    text COLLATE "C" NOT NULL,
    esme    text COLLATE "C" NOT NULL,
    CHECK ((smpp = '0') <> (esme = '0'))
);
