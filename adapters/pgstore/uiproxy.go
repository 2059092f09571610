package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

var _ uiproxy.Store = (*UIProxyStore)(nil)

// UIProxyStore keeps the UI components' configurations (0021_uiproxy.sql)
// as one jsonb document each.
type UIProxyStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// UIProxy is the store of the UI components' configurations.
func (db *DB) UIProxy() *UIProxyStore { return &UIProxyStore{pool: db.pool, log: db.log} }

// componentDoc is a component as stored.
type componentDoc struct {
	Type        uiproxy.Type       `json:"type"`
	Service     msgkit.ServiceUUID `json:"service,omitempty"`
	URL         string             `json:"url"`
	Fixed       map[string]string  `json:"fixed,omitempty"`
	TokenHeader string             `json:"token_header,omitempty"`
	Token       string             `json:"token,omitempty"`
	Timeout     time.Duration      `json:"timeout,omitempty"`
	Columns     []uiproxy.Column   `json:"columns,omitempty"`
	CacheTTL    time.Duration      `json:"cache_ttl,omitempty"`
}

// Put stores a component, replacing one of its id.
func (s *UIProxyStore) Put(ctx context.Context, c uiproxy.Component) error {
	if !storable(c.ID) {
		return msgkit.Invalidf(uiproxy.CodeInvalidComponent, "id", "the component id cannot be stored")
	}
	doc, err := json.Marshal(componentDoc{Type: c.Type, Service: c.Service, CacheTTL: c.CacheTTL, URL: c.URL, Fixed: c.Fixed, TokenHeader: c.TokenHeader, Token: c.Token, Timeout: c.Timeout, Columns: c.Columns})
	if err != nil {
		return msgkit.Wrap(err, msgkit.Invalid, uiproxy.CodeInvalidComponent, "the component cannot be stored")
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO uiproxy_components (id, config) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET config = EXCLUDED.config`, c.ID, doc)
	return classify(err, "component", "component "+c.ID)
}

// Component returns a component.
func (s *UIProxyStore) Component(ctx context.Context, id string) (uiproxy.Component, error) {
	if !storable(id) {
		return uiproxy.Component{}, uiproxy.ComponentNotFound(id)
	}
	var doc []byte
	err := s.pool.QueryRow(ctx, `SELECT config FROM uiproxy_components WHERE id = $1`, id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return uiproxy.Component{}, uiproxy.ComponentNotFound(id)
	}
	if err != nil {
		return uiproxy.Component{}, classify(err, "component", "component "+id)
	}
	return componentOf(id, doc)
}

func componentOf(id string, doc []byte) (uiproxy.Component, error) {
	var d componentDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return uiproxy.Component{}, storageError(err, "component ", id)
	}
	return uiproxy.Component{ID: id, Type: d.Type, Service: d.Service, CacheTTL: d.CacheTTL, URL: d.URL, Fixed: d.Fixed, TokenHeader: d.TokenHeader, Token: d.Token, Timeout: d.Timeout, Columns: d.Columns}, nil
}

// componentsTable is the listing of components (uiproxy.ComponentListSpec):
// an operator's few, read from their documents.
var componentsTable = listTable{
	From: "uiproxy_components c", Select: "c.id, c.config", Scope: "TRUE",
	Attrs: map[string]listAttr{
		"id": {"c.id", msgkit.AttrString}, "type": {"(c.config->>'type')", msgkit.AttrString},
		"service": {"COALESCE(c.config->>'service', '')", msgkit.AttrString},
	},
	Order: "c.id",
}

// List lists the components by q, by id unless q sorts them.
func (s *UIProxyStore) List(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[uiproxy.Component], error) {
	return listPage(ctx, s.pool, &componentsTable, q, func(row pgx.CollectableRow) (uiproxy.Component, error) {
		var (
			id  string
			doc []byte
		)
		if err := row.Scan(&id, &doc); err != nil {
			return uiproxy.Component{}, err
		}
		return componentOf(id, doc)
	})
}

// Delete removes a component.
func (s *UIProxyStore) Delete(ctx context.Context, id string) error {
	if !storable(id) {
		return uiproxy.ComponentNotFound(id)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM uiproxy_components WHERE id = $1`, id)
	if err != nil {
		return classify(err, "component", "component "+id)
	}
	if tag.RowsAffected() == 0 {
		return uiproxy.ComponentNotFound(id)
	}
	return nil
}
