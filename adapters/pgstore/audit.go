package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"net/netip"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/audit"
)

var _ audit.Store = (*AuditStore)(nil)

// AuditStore keeps the audit trail (0036_audit.sql).
type AuditStore struct {
	pool *pgxpool.Pool
}

// Audit is the store of the administration's audit trail.
func (db *DB) Audit() *AuditStore { return &AuditStore{pool: db.pool} }

// auditTable is the listing of entries (audit.ListSpec).
var auditTable = listTable{
	From:   "audit_entries e",
	Select: "e.id, e.at, e.actor_kind, e.actor, e.actor_from, e.action, e.resource, e.resource_id, e.before::text, e.after::text",
	Scope:  "TRUE",
	Attrs: map[string]listAttr{
		"id": {"e.id", msgkit.AttrNumber}, "at": {"e.at", msgkit.AttrDateTime},
		"actorKind": {"e.actor_kind", msgkit.AttrString}, "actor": {"e.actor", msgkit.AttrString}, "from": {"e.actor_from", msgkit.AttrString},
		"action": {"e.action", msgkit.AttrString}, "resource": {"e.resource", msgkit.AttrString}, "resourceId": {"e.resource_id", msgkit.AttrString},
	},
	Order: "e.id",
}

// Append stores e with the next id.
func (s *AuditStore) Append(ctx context.Context, e audit.Entry) (audit.Entry, error) {
	from := ""
	if e.Actor.From.IsValid() {
		from = e.Actor.From.String()
	}
	if err := cmp.Or(
		invalidText("audit", "actor", e.Actor.Kind, e.Actor.Subject),
		invalidText("audit", "action", e.Action, e.Resource, e.ResourceID),
	); err != nil {
		return audit.Entry{}, err
	}
	e.At = dbTime(e.At)
	const q = `INSERT INTO audit_entries (at, actor_kind, actor, actor_from, action, resource, resource_id, before, after)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::json, $9::text::json) RETURNING id`
	err := s.pool.QueryRow(ctx, q, e.At, e.Actor.Kind, e.Actor.Subject, from, e.Action, e.Resource, e.ResourceID,
		jsonText(e.Before), jsonText(e.After)).Scan(&e.ID)
	if err != nil {
		return audit.Entry{}, classify(err, "audit", "audit entry")
	}
	return e, nil
}

// jsonText is raw as text for a json column; nil is NULL.
func jsonText(raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	s := string(raw)
	return &s
}

// Entries lists the entries by q, by id unless q sorts them.
func (s *AuditStore) Entries(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[audit.Entry], error) {
	return listPage(ctx, s.pool, &auditTable, q, func(row pgx.CollectableRow) (audit.Entry, error) {
		var (
			e             audit.Entry
			from          string
			before, after *string
		)
		if err := row.Scan(&e.ID, &e.At, &e.Actor.Kind, &e.Actor.Subject, &from, &e.Action, &e.Resource, &e.ResourceID, &before, &after); err != nil {
			return audit.Entry{}, err
		}
		e.At = e.At.UTC()
		if from != "" {
			a, err := netip.ParseAddr(from)
			if err != nil {
				return audit.Entry{}, storageError(err, "audit entry ", e.Resource)
			}
			e.Actor.From = a
		}
		if before != nil {
			e.Before = json.RawMessage(*before)
		}
		if after != nil {
			e.After = json.RawMessage(*after)
		}
		return e, nil
	})
}
