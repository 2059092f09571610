-- UI components' configurations (uiproxy.Store; see UIProxyStore in
-- uiproxy.go): one row per component id, the configuration as one jsonb
-- document, read and written whole, never queried.
CREATE TABLE uiproxy_components (
    id     text COLLATE "C" PRIMARY KEY,
    config jsonb NOT NULL
);
