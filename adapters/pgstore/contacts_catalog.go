package pgstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ contacts.CatalogStore = (*ContactsStore)(nil)

// The catalog (0014_contacts_catalog.sql) is one table, cds_records, with
// a kind column: every kind of record has the same few fields. A record
// that names another (an option its subscription, a group list its group
// and list, a group segmentation its group) locks it FOR SHARE in the
// transaction that writes, and a delete locks the row it deletes, so a
// subscription cannot lose its last option's check to a concurrent
// create. A custom field's column is chosen under a transaction-scoped
// advisory lock of the tenant's columns; the unique index on the column
// backs it. Memberships are the contacts' jsonb objects (options,
// touchpoints, interests), set with one jsonb || and listed through
// jsonb_each_text.

const recordSelect = `r.kind, r.uuid, r.name, r.description, r.status, r.data, r.parent, r.list_uuid, r.order_num, r.col,
	r.field_type, r.mandatory, r.identifier, r.config, r.created, r.updated, r.deleted`

// recordAttrs are the listing attributes of contacts.RecordSpec.
var recordAttrs = map[string]listAttr{
	"uuid":              {"r.uuid", msgkit.AttrString},
	"name":              {"r.name", msgkit.AttrString},
	"display_name":      {"r.name", msgkit.AttrString},
	"description":       {"r.description", msgkit.AttrString},
	"status":            {"r.status", msgkit.AttrString},
	"subscription_uuid": {"r.parent", msgkit.AttrString},
	"group_uuid":        {"r.parent", msgkit.AttrString},
	"list_uuid":         {"r.list_uuid", msgkit.AttrString},
	"order_num":         {"r.order_num", msgkit.AttrNumber},
	"field_name":        {"CASE WHEN r.col = 0 THEN '' ELSE 'column_' || r.col END", msgkit.AttrString},
	"field_type":        {"r.field_type", msgkit.AttrString},
	"created_dt":        {"r.created", msgkit.AttrDateTime},
	"updated_dt":        {"r.updated", msgkit.AttrDateTime},
}

// recordsTable is the listing of one kind: $1 the tenant, $2 the kind,
// $3 whether deleted records are listed too.
var recordsTable = listTable{
	From:   "cds_records r",
	Select: recordSelect,
	Scope:  "r.service_uuid = $1 AND r.kind = $2 AND ($3::boolean OR r.deleted IS NULL)",
	Attrs:  recordAttrs,
	Order:  "r.created, r.uuid",
}

// memberColumns are the contacts' columns of each kind of membership.
var memberColumns = map[contacts.MemberKind]string{
	contacts.MemberOption: "options", contacts.MemberTouchpoint: "touchpoints", contacts.MemberInterest: "interests",
}

// membersTable is the listing of the memberships of kind k: $1 the
// tenant.
func membersTable(k contacts.MemberKind) *listTable {
	return &listTable{
		From:   "contacts c CROSS JOIN LATERAL jsonb_each_text(c." + memberColumns[k] + ") AS e(target, status)",
		Select: "c.uuid, e.target, e.status, c.updated",
		Scope:  "c.service_uuid = $1 AND c.deleted IS NULL",
		Attrs: map[string]listAttr{
			"contact_uuid": {"c.uuid", msgkit.AttrString},
			k.Field():      {"e.target", msgkit.AttrString},
			"status":       {"e.status", msgkit.AttrString},
			"updated_dt":   {"c.updated", msgkit.AttrDateTime},
		},
		Order: `c.created, c.uuid, e.target COLLATE "C"`,
	}
}

// scanRecord reads a row of recordSelect.
func scanRecord(row pgx.CollectableRow) (contacts.Record, error) {
	var r contacts.Record
	var kind string
	var config []byte
	var order, col int32
	var deleted *time.Time
	if err := row.Scan(&kind, &r.UUID, &r.Name, &r.Description, &r.Status, &r.Data, &r.Parent, &r.ListUUID, &order, &col,
		&r.FieldType, &r.Mandatory, &r.Identifier, &config, &r.Created, &r.Updated, &deleted); err != nil {
		return contacts.Record{}, err
	}
	r.Kind, r.OrderNum, r.Column = contacts.RecordKind(kind), int(order), int(col)
	if len(config) > 0 {
		r.Config = config
	}
	r.Created, r.Updated, r.Deleted = r.Created.UTC(), r.Updated.UTC(), readTime(deleted)
	return r, nil
}

// storedRecord is r as the store keeps it: times to the microsecond, UTC.
func storedRecord(r contacts.Record) contacts.Record {
	r = r.Clone()
	r.Created, r.Updated = dbTime(r.Created), dbTime(r.Updated)
	if !r.Deleted.IsZero() {
		r.Deleted = dbTime(r.Deleted)
	}
	if len(r.Config) == 0 {
		r.Config = nil
	}
	return r
}

// checkRecordText is Invalid naming a field PostgreSQL cannot hold.
func checkRecordText(svc msgkit.ServiceUUID, r *contacts.Record) error {
	for _, kv := range [][2]string{{"serviceUuid", string(svc)}, {"uuid", r.UUID}, {"name", r.Name}, {"description", r.Description},
		{"status", r.Status}, {"data", r.Data}, {"parent", r.Parent}, {"list_uuid", r.ListUUID}, {"field_type", r.FieldType}} {
		if err := invalidText(string(r.Kind), kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// liveRecordLocked reports whether the tenant has a record of kind in
// use, locking it FOR SHARE until the transaction ends.
func liveRecordLocked(ctx context.Context, tx pgx.Tx, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string) (bool, error) {
	rows, err := tx.Query(ctx, `SELECT 1 FROM cds_records WHERE service_uuid = $1 AND kind = $2 AND uuid = $3 AND deleted IS NULL FOR SHARE`,
		string(svc), string(kind), uuid)
	if err != nil {
		return false, err
	}
	n, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	return len(n) == 1, err
}

// checkRelations applies the relation rules to r in tx; a broken rule is
// final, a database failure not.
func checkRelations(ctx context.Context, tx pgx.Tx, svc msgkit.ServiceUUID, r *contacts.Record) error {
	type ref struct {
		kind  contacts.RecordKind
		field string
		uuid  string
	}
	var refs []ref
	switch r.Kind {
	case contacts.KindOption:
		refs = []ref{{contacts.KindSubscription, "subscription_uuid", r.Parent}}
	case contacts.KindGroupSegmentation:
		refs = []ref{{contacts.KindGroup, "group_uuid", r.Parent}}
	case contacts.KindGroupList:
		refs = []ref{{contacts.KindGroup, "group_uuid", r.Parent}}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM contact_lists WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL FOR SHARE)`,
			string(svc), r.ListUUID).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return final{contacts.InvalidReference(r.Kind, "list_uuid", r.ListUUID)}
		}
	}
	for _, f := range refs {
		ok, err := liveRecordLocked(ctx, tx, svc, f.kind, f.uuid)
		if err != nil {
			return err
		}
		if !ok {
			return final{contacts.InvalidReference(r.Kind, f.field, f.uuid)}
		}
	}
	return nil
}

// recordWriteError is a unique violation as the rule it breaks.
func recordWriteError(err error, r *contacts.Record) error {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == uniqueViolation {
		switch pgErr.ConstraintName {
		case "cds_records_column":
			return contacts.ColumnTaken(r.Column)
		case "cds_records_group_list":
			return contacts.GroupListTaken(r.Parent, r.ListUUID)
		default:
			return contacts.RecordExists(r.Kind, r.UUID)
		}
	}
	return classify(err, string(r.Kind), strings.ReplaceAll(string(r.Kind), "_", " ")+" "+r.UUID)
}

// txResult unwraps a transaction's error: a final one as it is.
func txResult(err error, r *contacts.Record) error {
	if f, ok := errors.AsType[final](err); ok {
		return f.err
	}
	if err != nil {
		return recordWriteError(err, r)
	}
	return nil
}

// CreateRecord stores a catalog record, checking its relations and
// choosing a custom field's column in one transaction.
func (s *ContactsStore) CreateRecord(ctx context.Context, svc msgkit.ServiceUUID, r contacts.Record) (contacts.Record, error) {
	if err := checkRecordText(svc, &r); err != nil {
		return contacts.Record{}, err
	}
	r = storedRecord(r)
	err := inTx(ctx, s.pool, s.log, "catalog create", func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cds_records WHERE service_uuid = $1 AND kind = $2 AND uuid = $3)`,
			string(svc), string(r.Kind), r.UUID).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return final{contacts.RecordExists(r.Kind, r.UUID)}
		}
		if err := checkRelations(ctx, tx, svc, &r); err != nil {
			return err
		}
		if r.Kind == contacts.KindCustomField {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('cds_records_column:' || $1))`, string(svc)); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `SELECT col FROM cds_records WHERE service_uuid = $1 AND kind = 'custom_field'`, string(svc))
			if err != nil {
				return err
			}
			taken, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				return err
			}
			if r.Column != 0 && slices.Contains(taken, int32(r.Column)) {
				return final{contacts.ColumnTaken(r.Column)}
			}
			for n := 1; r.Column == 0 && n <= segmentation.MaxColumn; n++ {
				if !slices.Contains(taken, int32(n)) {
					r.Column = n
				}
			}
			if r.Column == 0 {
				return final{contacts.ColumnTaken(0)}
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO cds_records (service_uuid, kind, uuid, name, description, status, data, parent, list_uuid,
			order_num, col, field_type, mandatory, identifier, config, created, updated, deleted)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
			string(svc), string(r.Kind), r.UUID, r.Name, r.Description, r.Status, r.Data, r.Parent, r.ListUUID,
			r.OrderNum, r.Column, r.FieldType, r.Mandatory, r.Identifier, []byte(r.Config), r.Created, r.Updated, dbTimeOrNil(r.Deleted))
		return err
	})
	if err := txResult(err, &r); err != nil {
		return contacts.Record{}, err
	}
	return r, nil
}

func (s *ContactsStore) record(ctx context.Context, db listQuerier, q string, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string) (contacts.Record, error) {
	rows, err := db.Query(ctx, q, string(svc), string(kind), uuid)
	if err != nil {
		return contacts.Record{}, classify(err, string(kind), string(kind)+" "+uuid)
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanRecord)
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	if err != nil {
		return contacts.Record{}, classify(err, string(kind), string(kind)+" "+uuid)
	}
	return r, nil
}

// Record returns a catalog record.
func (s *ContactsStore) Record(ctx context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, withDeleted bool) (contacts.Record, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	q := "SELECT " + recordSelect + " FROM cds_records r WHERE r.service_uuid = $1 AND r.kind = $2 AND r.uuid = $3"
	if !withDeleted {
		q += " AND r.deleted IS NULL"
	}
	return s.record(ctx, s.pool, q, svc, kind, uuid)
}

// UpdateRecord locks a record in use, runs change on it and writes what
// it returns, relations checked, in one transaction.
func (s *ContactsStore) UpdateRecord(ctx context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, change func(contacts.Record) (contacts.Record, error)) (contacts.Record, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.Record{}, contacts.RecordNotFound(kind, uuid)
	}
	var out contacts.Record
	err := inTx(ctx, s.pool, s.log, "catalog update", func(tx pgx.Tx) error {
		cur, err := s.record(ctx, tx, "SELECT "+recordSelect+
			" FROM cds_records r WHERE r.service_uuid = $1 AND r.kind = $2 AND r.uuid = $3 AND r.deleted IS NULL FOR UPDATE", svc, kind, uuid)
		if err != nil {
			return finalIfMsgkit(err)
		}
		next, err := change(cur.Clone())
		if err != nil {
			return final{err}
		}
		next.Kind, next.UUID, next.Column, next.Created, next.Deleted = cur.Kind, cur.UUID, cur.Column, cur.Created, cur.Deleted
		if err := checkRecordText(svc, &next); err != nil {
			return final{err}
		}
		next = storedRecord(next)
		if err := checkRelations(ctx, tx, svc, &next); err != nil {
			return err
		}
		out = next
		_, err = tx.Exec(ctx, `UPDATE cds_records SET name = $4, description = $5, status = $6, data = $7, parent = $8, list_uuid = $9,
			order_num = $10, field_type = $11, mandatory = $12, identifier = $13, config = $14, updated = $15
			WHERE service_uuid = $1 AND kind = $2 AND uuid = $3`,
			string(svc), string(kind), uuid, next.Name, next.Description, next.Status, next.Data, next.Parent, next.ListUUID,
			next.OrderNum, next.FieldType, next.Mandatory, next.Identifier, []byte(next.Config), next.Updated)
		return err
	})
	if err := txResult(err, &out); err != nil {
		return contacts.Record{}, err
	}
	return out, nil
}

// DeleteRecord deletes a record in use softly; a subscription only
// without options in use.
func (s *ContactsStore) DeleteRecord(ctx context.Context, svc msgkit.ServiceUUID, kind contacts.RecordKind, uuid string, at time.Time) error {
	if !kind.Deletable() {
		return contacts.NotDeletable(kind)
	}
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.RecordNotFound(kind, uuid)
	}
	r := contacts.Record{Kind: kind, UUID: uuid}
	err := inTx(ctx, s.pool, s.log, "catalog delete", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE cds_records SET deleted = $4 WHERE service_uuid = $1 AND kind = $2 AND uuid = $3 AND deleted IS NULL`,
			string(svc), string(kind), uuid, dbTime(at))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return final{contacts.RecordNotFound(kind, uuid)}
		}
		if kind != contacts.KindSubscription {
			return nil
		}
		var inUse bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cds_records WHERE service_uuid = $1 AND kind = 'subscription_option'
			AND parent = $2 AND deleted IS NULL)`, string(svc), uuid).Scan(&inUse); err != nil {
			return err
		}
		if inUse {
			return final{contacts.SubscriptionInUse(uuid)} // rolls the delete back
		}
		return nil
	})
	return txResult(err, &r)
}

// Records lists a kind's records through the listing engine.
func (s *ContactsStore) Records(ctx context.Context, svc msgkit.ServiceUUID, q contacts.RecordQuery) (msgkit.Page[contacts.Record], error) {
	if !storable(string(svc)) {
		return msgkit.Page[contacts.Record]{Items: []contacts.Record{}}, nil
	}
	return listPage(ctx, s.pool, &recordsTable, q.List, scanRecord, string(svc), string(q.Kind), q.ShowDeleted)
}

// CustomFields are the tenant's custom fields in use, by column.
func (s *ContactsStore) CustomFields(ctx context.Context, svc msgkit.ServiceUUID) ([]contacts.Record, error) {
	if !storable(string(svc)) {
		return []contacts.Record{}, nil
	}
	rows, err := s.pool.Query(ctx, "SELECT "+recordSelect+
		" FROM cds_records r WHERE r.service_uuid = $1 AND r.kind = 'custom_field' AND r.deleted IS NULL ORDER BY r.col", string(svc))
	if err != nil {
		return nil, classify(err, "custom_field", "custom fields")
	}
	fs, err := pgx.CollectRows(rows, scanRecord)
	if err != nil {
		return nil, classify(err, "custom_field", "custom fields")
	}
	if fs == nil {
		fs = []contacts.Record{}
	}
	return fs, nil
}

// OptionUUIDs are the options in use of the subscriptions in use.
func (s *ContactsStore) OptionUUIDs(ctx context.Context, svc msgkit.ServiceUUID, subscriptions []string) ([]string, error) {
	if !storable(string(svc)) {
		return []string{}, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT o.uuid FROM cds_records o JOIN cds_records sub
		ON sub.service_uuid = o.service_uuid AND sub.kind = 'subscription' AND sub.uuid = o.parent AND sub.deleted IS NULL
		WHERE o.service_uuid = $1 AND o.kind = 'subscription_option' AND o.deleted IS NULL AND o.parent = ANY($2::text[])
		ORDER BY o.uuid`, string(svc), storableOnly(subscriptions))
	if err != nil {
		return nil, classify(err, "subscription_option", "options")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, classify(err, "subscription_option", "options")
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// GroupTarget is a group's lists in use and segmentation.
func (s *ContactsStore) GroupTarget(ctx context.Context, svc msgkit.ServiceUUID, group string) (contacts.GroupTarget, error) {
	if !storable(string(svc)) || !storable(group) {
		return contacts.GroupTarget{}, contacts.RecordNotFound(contacts.KindGroup, group)
	}
	if _, err := s.Record(ctx, svc, contacts.KindGroup, group, false); err != nil {
		return contacts.GroupTarget{}, err
	}
	g := contacts.GroupTarget{ListUUIDs: []string{}, Segmentation: []string{}}
	rows, err := s.pool.Query(ctx, `SELECT r.list_uuid FROM cds_records r JOIN contact_lists l
		ON l.service_uuid = r.service_uuid AND l.uuid = r.list_uuid AND l.deleted IS NULL
		WHERE r.service_uuid = $1 AND r.kind = 'group_list' AND r.parent = $2 ORDER BY r.list_uuid`, string(svc), group)
	if err == nil {
		var lists []string
		if lists, err = pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
			g.ListUUIDs = append(g.ListUUIDs, lists...)
		}
	}
	if err != nil {
		return contacts.GroupTarget{}, classify(err, "group", "group "+group)
	}
	rows, err = s.pool.Query(ctx, `SELECT r.data FROM cds_records r
		WHERE r.service_uuid = $1 AND r.kind = 'group_segmentation' AND r.parent = $2 ORDER BY r.created, r.uuid`, string(svc), group)
	if err == nil {
		var data []string
		if data, err = pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
			g.Segmentation = append(g.Segmentation, data...)
		}
	}
	if err != nil {
		return contacts.GroupTarget{}, classify(err, "group", "group "+group)
	}
	return g, nil
}

// SetMember sets a contact's membership with one jsonb update, the
// target locked FOR SHARE so that it stays in use until it commits.
func (s *ContactsStore) SetMember(ctx context.Context, svc msgkit.ServiceUUID, m contacts.Member) (contacts.Member, error) {
	col, ok := memberColumns[m.Kind]
	if !ok {
		return contacts.Member{}, contacts.UnknownMemberKind(m.Kind)
	}
	if !storable(string(svc)) || !storable(m.ContactUUID) {
		return contacts.Member{}, contacts.InvalidMember("contact_uuid", "contact", m.ContactUUID)
	}
	if !storable(m.TargetUUID) {
		return contacts.Member{}, contacts.InvalidMember(m.Kind.Field(), string(m.Kind), m.TargetUUID)
	}
	m.Updated = dbTime(m.Updated)
	err := inTx(ctx, s.pool, s.log, "member set", func(tx pgx.Tx) error {
		ok, err := liveRecordLocked(ctx, tx, svc, m.Kind.RecordKind(), m.TargetUUID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE contacts SET `+col+` = coalesce(`+col+`, '{}'::jsonb) || jsonb_build_object($3::text, $4::text),
			updated = $5 WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL AND $6::boolean`,
			string(svc), m.ContactUUID, m.TargetUUID, string(m.Status), m.Updated, ok)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var contactInUse bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM contacts WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL)`,
			string(svc), m.ContactUUID).Scan(&contactInUse); err != nil {
			return err
		}
		if !contactInUse {
			return final{contacts.InvalidMember("contact_uuid", "contact", m.ContactUUID)}
		}
		return final{contacts.InvalidMember(m.Kind.Field(), string(m.Kind), m.TargetUUID)}
	})
	if f, ok := errors.AsType[final](err); ok {
		return contacts.Member{}, f.err
	}
	if err != nil {
		return contacts.Member{}, classify(err, "member", "member")
	}
	return m, nil
}

// Members lists memberships over jsonb_each_text of the contacts in use.
func (s *ContactsStore) Members(ctx context.Context, svc msgkit.ServiceUUID, q contacts.MemberQuery) (msgkit.Page[contacts.Member], error) {
	if _, ok := memberColumns[q.Kind]; !ok {
		return msgkit.Page[contacts.Member]{}, contacts.UnknownMemberKind(q.Kind)
	}
	if !storable(string(svc)) {
		return msgkit.Page[contacts.Member]{Items: []contacts.Member{}}, nil
	}
	return listPage(ctx, s.pool, membersTable(q.Kind), q.List, func(row pgx.CollectableRow) (contacts.Member, error) {
		m := contacts.Member{Kind: q.Kind}
		var status string
		if err := row.Scan(&m.ContactUUID, &m.TargetUUID, &status, &m.Updated); err != nil {
			return contacts.Member{}, err
		}
		m.Status, m.Updated = contacts.MemberStatus(status), m.Updated.UTC()
		return m, nil
	}, string(svc))
}
