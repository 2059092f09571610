package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ contacts.Store = (*ContactsStore)(nil)

// ContactsStore keeps every tenant's contact lists and contacts
// (0012_contacts.sql). Every statement names the tenant, so another
// tenant's record is NotFound.
//
// A contact is one row: a column per standard field (NULL for no value),
// a folded shadow column (segmentation.Fold, written here) per field that
// segmentation compares case-insensitively, custom fields and
// memberships as jsonb. Segmentation queries are compiled to SQL
// (compileSegmentation) over those columns: text fields read their _fold
// column, mobile numbers their E.164 column, gender its own column (Fill
// stores it lower case, its own fold), column_n the key n of custom_fold,
// birthday its date column, and memberships the options object. They run
// unprepared (an unnamed statement, planned for its values), as the
// package doc asks.
//
// A row is turned back into a contact with Contact.Restore, which trusts
// what Fill checked before it was stored. Times are kept to
// the microsecond, in UTC. An erase deletes the row, memberships and
// custom values included (PostgreSQL's dead tuples go with the next
// vacuum). A list's counts are computed in SQL, over its contacts in use,
// an unsubscribed member counting as unsubscribed and any other as
// subscribed, as memstore counts.
type ContactsStore struct {
	pool *pgxpool.Pool
	log  *storeLog
	// importChunk is the number of items an import plans and writes at
	// a time; 0: contacts.ImportChunk (tests make it small).
	importChunk int
}

// Contacts is the store of contact lists and contacts. It holds nothing
// but the DB's pool and logger, so every call returns a view of the same
// tables.
func (db *DB) Contacts() *ContactsStore { return &ContactsStore{pool: db.pool, log: db.log} }

// contactColumn is a standard text field's column.
type contactColumn struct {
	field segmentation.Field
	name  string
	fold  bool // has a <name>_fold shadow column
}

// contactColumns are the standard text fields (every one but birthday),
// in the order of contacts.FieldNames.
var contactColumns = func() []contactColumn {
	var cols []contactColumn
	for _, name := range contacts.FieldNames() {
		f, _ := segmentation.ParseField(name)
		if f.Kind() == segmentation.KindDate {
			continue
		}
		cols = append(cols, contactColumn{field: f, name: name, fold: f.Kind() == segmentation.KindText})
	}
	return cols
}()

// contactFixedCols are the columns written before the text columns, with
// the type each parameter is cast to.
var contactFixedCols = []struct{ name, typ string }{
	{"service_uuid", "text"}, {"uuid", "text"}, {"list_uuid", "text"}, {"member", "text"},
	{"created", "timestamptz"}, {"updated", "timestamptz"}, {"deleted", "timestamptz"},
	{"mobile_raw", "text"}, {"b_mobile_raw", "text"}, {"birthday", "date"},
	{"custom", "jsonb"}, {"custom_fold", "jsonb"},
	{"opt_status", "text"}, {"opt_status_webpush", "text"}, {"opt_status_whatsapp", "text"},
	{"telegram_identifier", "text"}, {"telegram_opt_status", "text"}, {"telegram_data", "bytea"},
	{"options", "jsonb"}, {"touchpoints", "jsonb"}, {"interests", "jsonb"}, {"webpush_subscription", "text"},
}

// contactWriteCols and contactWriteVals are the written columns and their
// typed placeholders, in the order contactArgs gives the values.
var contactWriteCols, contactWriteVals = func() (string, string) {
	var cols, vals []string
	add := func(name, typ string) {
		cols = append(cols, name)
		vals = append(vals, "$"+strconv.Itoa(len(cols))+"::"+typ)
	}
	for _, c := range contactFixedCols {
		add(c.name, c.typ)
	}
	for _, c := range contactColumns {
		add(c.name, "text")
		if c.fold {
			add(c.name+"_fold", "text")
		}
	}
	return strings.Join(cols, ", "), strings.Join(vals, ", ")
}()

// contactSelect is the select list scanContact reads.
var contactSelect = func() string {
	cols := []string{"contacts.uuid", "contacts.list_uuid", "contacts.member", "contacts.created", "contacts.updated",
		"contacts.deleted", "contacts.mobile_raw", "contacts.b_mobile_raw", "contacts.birthday", "contacts.custom",
		"contacts.opt_status", "contacts.opt_status_webpush", "contacts.opt_status_whatsapp", "contacts.telegram_identifier",
		"contacts.telegram_opt_status", "contacts.telegram_data", "contacts.options",
		"contacts.touchpoints", "contacts.interests", "contacts.webpush_subscription"}
	for _, c := range contactColumns {
		cols = append(cols, "contacts."+c.name)
	}
	return strings.Join(cols, ", ")
}()

var (
	contactInsertSQL = "INSERT INTO contacts (" + contactWriteCols + ") SELECT " + contactWriteVals +
		" FROM contact_lists l WHERE l.service_uuid = $1 AND l.uuid = $3 AND l.deleted IS NULL"
	contactUpdateSQL = "UPDATE contacts SET (" + contactWriteCols + ") = (" + contactWriteVals +
		") WHERE service_uuid = $1 AND uuid = $2"
)

// contactSegSchema is where segmentation finds a contact's fields (see
// ContactsStore). Expressions name the table, not an alias, so that
// segmentationIndexes can use them.
var contactSegSchema = func() segSchema {
	s := segSchema{
		Text:  map[segmentation.Field]string{},
		Dates: map[segmentation.Field]string{segmentation.Birthday: "contacts.birthday"},
		Membership: func(param string, status segmentation.Membership) string {
			want := contacts.Subscribed
			if status == segmentation.Unsubscribed {
				want = contacts.Unsubscribed
			}
			return "EXISTS (SELECT 1 FROM unnest(" + param + "::text[]) AS o(option_uuid) WHERE contacts.options ->> o.option_uuid = '" +
				string(want) + "')"
		},
	}
	for _, c := range contactColumns {
		if c.fold {
			s.Text[c.field] = "contacts." + c.name + "_fold"
		} else {
			s.Text[c.field] = "contacts." + c.name
		}
	}
	for n := 1; n <= segmentation.MaxColumn; n++ {
		s.Text[segmentation.ColumnField(n)] = "contacts.custom_fold ->> '" + strconv.Itoa(n) + "'"
	}
	return s
}()

// contactSegIndexed are the fields with a segmentation index in
// 0012_contacts.sql: those a tenant most often segments by. Others scan
// the tenant's contacts.
var contactSegIndexed = []segmentation.Field{segmentation.Email, segmentation.FirstName, segmentation.LastName,
	segmentation.Mobile, segmentation.City, segmentation.Birthday}

// contactAttrs are the listing attributes of contacts.ContactSpec.
var contactAttrs = map[string]listAttr{
	"uuid":                 {"contacts.uuid", msgkit.AttrString},
	"list_uuid":            {"contacts.list_uuid", msgkit.AttrString},
	"member_status":        {"contacts.member", msgkit.AttrString},
	"opt_status":           {"contacts.opt_status", msgkit.AttrString},
	"opt_status_webpush":   {"contacts.opt_status_webpush", msgkit.AttrString},
	"webpush_subscription": {"contacts.webpush_subscription", msgkit.AttrString},
	"gender":               {"contacts.gender", msgkit.AttrString},
	"mobile":               {"contacts.mobile", msgkit.AttrString},
	"email":                {"contacts.email", msgkit.AttrString},
	"first_name":           {"contacts.first_name", msgkit.AttrString},
	"last_name":            {"contacts.last_name", msgkit.AttrString},
	"birthday":             {"contacts.birthday", msgkit.AttrDate},
	"created_dt":           {"contacts.created", msgkit.AttrDateTime},
	"updated_dt":           {"contacts.updated", msgkit.AttrDateTime},
}

// contactTable is the contacts listing; Scope is set per call.
func contactTable(scope, sel string) *listTable {
	return &listTable{From: "contacts", Select: sel, Scope: scope, Attrs: contactAttrs, Order: "contacts.created, contacts.uuid", CountApart: true}
}

// listSelect reads a list with its counts over its contacts in use.
const listSelect = `l.uuid, l.name, l.status, l.created, l.updated, l.deleted, n.subscribed, n.unsubscribed, n.contacts_count`

const listFrom = `contact_lists l CROSS JOIN LATERAL (
		SELECT count(*) FILTER (WHERE c.member <> 'unsubscribed') AS subscribed,
			count(*) FILTER (WHERE c.member = 'unsubscribed') AS unsubscribed, count(*) AS contacts_count
		FROM contacts c WHERE c.service_uuid = l.service_uuid AND c.list_uuid = l.uuid AND c.deleted IS NULL) n`

// listsTable is the lists listing: $1 the tenant, $2 whether deleted
// lists are listed too.
var listsTable = listTable{
	From:   listFrom,
	Select: listSelect,
	Scope:  "l.service_uuid = $1 AND ($2::boolean OR l.deleted IS NULL)",
	Attrs: map[string]listAttr{
		"uuid":        {"l.uuid", msgkit.AttrString},
		"name":        {"l.name", msgkit.AttrString},
		"list_status": {"l.status", msgkit.AttrString},
		"created_dt":  {"l.created", msgkit.AttrDateTime},
		"updated_dt":  {"l.updated", msgkit.AttrDateTime},
	},
	Order: "l.created, l.uuid",
}

// dbTimeOrNil is dbTime, NULL for the zero time.
func dbTimeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return dbTime(t)
}

// readTime is a timestamptz read back: UTC, the zero time for NULL.
func readTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// textOrNil is s, NULL when empty: a field without a value.
func textOrNil[T ~string](s T) any {
	if s == "" {
		return nil
	}
	return string(s)
}

func stringOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CreateList stores l under its UUID: Conflict when the tenant has it,
// deleted or not. Text PostgreSQL cannot hold is Invalid.
func (s *ContactsStore) CreateList(ctx context.Context, svc msgkit.ServiceUUID, l contacts.List) (contacts.List, error) {
	if err := invalidText("list", "serviceUuid", svc); err != nil {
		return contacts.List{}, err
	}
	for field, v := range map[string]string{"uuid": l.UUID, "name": l.Name, "list_status": l.Status} {
		if err := invalidText("list", field, v); err != nil {
			return contacts.List{}, err
		}
	}
	l.Created, l.Updated = dbTime(l.Created), dbTime(l.Updated)
	if !l.Deleted.IsZero() {
		l.Deleted = dbTime(l.Deleted)
	}
	const q = `INSERT INTO contact_lists (service_uuid, uuid, name, status, created, updated, deleted)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	if _, err := s.pool.Exec(ctx, q, string(svc), l.UUID, l.Name, l.Status, l.Created, l.Updated, dbTimeOrNil(l.Deleted)); err != nil {
		if isUniqueViolation(err) {
			return contacts.List{}, contacts.ListExists(l.UUID)
		}
		return contacts.List{}, classify(err, "list", "list "+l.UUID)
	}
	l.Subscribed, l.Unsubscribed, l.ContactsCount = 0, 0, 0
	return l, nil
}

// scanList reads a row of listSelect.
func scanList(row pgx.CollectableRow) (contacts.List, error) {
	var l contacts.List
	var deleted *time.Time
	var sub, unsub, count int64
	if err := row.Scan(&l.UUID, &l.Name, &l.Status, &l.Created, &l.Updated, &deleted, &sub, &unsub, &count); err != nil {
		return contacts.List{}, err
	}
	l.Created, l.Updated, l.Deleted = l.Created.UTC(), l.Updated.UTC(), readTime(deleted)
	l.Subscribed, l.Unsubscribed, l.ContactsCount = int(sub), int(unsub), int(count)
	return l, nil
}

// List returns a list in use with its counts.
func (s *ContactsStore) List(ctx context.Context, svc msgkit.ServiceUUID, uuid string) (contacts.List, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.List{}, contacts.ListNotFound(uuid)
	}
	return s.list(ctx, s.pool, svc, uuid)
}

func (s *ContactsStore) list(ctx context.Context, db listQuerier, svc msgkit.ServiceUUID, uuid string) (contacts.List, error) {
	rows, err := db.Query(ctx, "SELECT "+listSelect+" FROM "+listFrom+
		" WHERE l.service_uuid = $1 AND l.uuid = $2 AND l.deleted IS NULL", string(svc), uuid)
	if err != nil {
		return contacts.List{}, classify(err, "list", "list "+uuid)
	}
	l, err := pgx.CollectExactlyOneRow(rows, scanList)
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.List{}, contacts.ListNotFound(uuid)
	}
	if err != nil {
		return contacts.List{}, classify(err, "list", "list "+uuid)
	}
	return l, nil
}

// UpdateList locks the list in use (SELECT … FOR UPDATE), runs change on
// it with its counts and stores the name, status and updated time it
// returns, in one transaction. An error from change is returned as it is.
func (s *ContactsStore) UpdateList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, change func(contacts.List) (contacts.List, error)) (contacts.List, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.List{}, contacts.ListNotFound(uuid)
	}
	var out contacts.List
	err := inTx(ctx, s.pool, s.log, "list update", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM contact_lists WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL FOR UPDATE`,
			string(svc), uuid).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return final{contacts.ListNotFound(uuid)}
		}
		if err != nil {
			return err
		}
		stored, err := s.list(ctx, tx, svc, uuid)
		if err != nil {
			return final{err}
		}
		next, err := change(stored)
		if err != nil {
			return final{err}
		}
		for field, v := range map[string]string{"name": next.Name, "list_status": next.Status} {
			if err := invalidText("list", field, v); err != nil {
				return final{err}
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE contact_lists SET name = $3, status = $4, updated = $5 WHERE service_uuid = $1 AND uuid = $2`,
			string(svc), uuid, next.Name, next.Status, dbTime(next.Updated)); err != nil {
			return err
		}
		stored.Name, stored.Status, stored.Updated = next.Name, next.Status, dbTime(next.Updated)
		out = stored
		return nil
	})
	if f, ok := errors.AsType[final](err); ok {
		return contacts.List{}, f.err
	}
	if err != nil {
		return contacts.List{}, classify(err, "list", "list "+uuid)
	}
	return out, nil
}

// DeleteList deletes a list in use softly at at.
func (s *ContactsStore) DeleteList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, at time.Time) error {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.ListNotFound(uuid)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE contact_lists SET deleted = $3 WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL`,
		string(svc), uuid, dbTime(at))
	if err != nil {
		return classify(err, "list", "list "+uuid)
	}
	if tag.RowsAffected() == 0 {
		return contacts.ListNotFound(uuid)
	}
	return nil
}

// Lists lists the tenant's lists through the listing engine.
func (s *ContactsStore) Lists(ctx context.Context, svc msgkit.ServiceUUID, q msgkit.ListQuery, showDeleted bool) (msgkit.Page[contacts.List], error) {
	if !storable(string(svc)) {
		return msgkit.Page[contacts.List]{Items: []contacts.List{}}, nil
	}
	return listPage(ctx, s.pool, &listsTable, q, scanList, string(svc), showDeleted)
}

// ListNames returns the names of the tenant's lists in use among uuids
// in one query, reading no counts; a uuid PostgreSQL cannot hold is none.
func (s *ContactsStore) ListNames(ctx context.Context, svc msgkit.ServiceUUID, uuids []string) (map[string]string, error) {
	names := map[string]string{}
	keys := storableOnly(uuids)
	if len(keys) == 0 || !storable(string(svc)) {
		return names, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT uuid, name FROM contact_lists WHERE service_uuid = $1 AND uuid = ANY($2::text[]) AND deleted IS NULL`,
		string(svc), keys)
	if err != nil {
		return nil, classify(err, "list", "lists")
	}
	var id, name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		names[id] = name
		return nil
	}); err != nil {
		return nil, classify(err, "list", "lists")
	}
	return names, nil
}

// contactArgs are the values of contactWriteCols for c of tenant svc, or
// Invalid naming a field PostgreSQL cannot hold.
func contactArgs(svc msgkit.ServiceUUID, c *contacts.Contact) ([]any, error) {
	check := func(field, v string) error { return invalidText("contact", field, v) }
	for _, kv := range [][2]string{{"serviceUuid", string(svc)}, {"uuid", c.UUID}, {"list_uuid", c.ListUUID},
		{"member_status", string(c.Member)}, {"mobile", c.MobileRaw}, {"b_mobile", c.BMobileRaw},
		{"opt_status", string(c.OptStatus)}, {"opt_status_webpush", string(c.OptStatusWebpush)}, {"opt_status_whatsapp", string(c.OptStatusWhatsApp)},
		{"channel_telegram_identifier", c.Telegram.Identifier}, {"channel_telegram_opt_status", string(c.Telegram.OptStatus)},
		{"webpush_subscription", c.WebpushSubscription}} {
		if err := check(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	var custom, customFold []byte
	if c.Custom != nil {
		folded := make(map[int]string, len(c.Custom))
		for n, v := range c.Custom {
			if err := check("column_"+strconv.Itoa(n), v); err != nil {
				return nil, err
			}
			folded[n] = segmentation.Fold(v)
		}
		var err error
		if custom, err = json.Marshal(c.Custom); err != nil {
			return nil, storageError(err, "contact custom fields")
		}
		if customFold, err = json.Marshal(folded); err != nil {
			return nil, storageError(err, "contact custom fields")
		}
	}
	options, err := membershipsArg("subscription_options", c.Options, check)
	if err != nil {
		return nil, err
	}
	touchpoints, err := membershipsArg("touchpoints", c.Touchpoints, check)
	if err != nil {
		return nil, err
	}
	interests, err := membershipsArg("interests", c.Interests, check)
	if err != nil {
		return nil, err
	}
	var birthday any
	if !c.Birthday.IsZero() {
		birthday = time.Date(c.Birthday.Year, c.Birthday.Month, c.Birthday.Day, 0, 0, 0, 0, time.UTC)
	}
	var tgData any
	if c.Telegram.Data != nil {
		tgData = []byte(c.Telegram.Data)
	}
	args := []any{string(svc), c.UUID, c.ListUUID, string(c.Member), dbTime(c.Created), dbTime(c.Updated), dbTimeOrNil(c.Deleted),
		textOrNil(c.MobileRaw), textOrNil(c.BMobileRaw), birthday, custom, customFold,
		textOrNil(c.OptStatus), textOrNil(c.OptStatusWebpush), textOrNil(c.OptStatusWhatsApp), textOrNil(c.Telegram.Identifier), textOrNil(c.Telegram.OptStatus),
		tgData, options, touchpoints, interests, textOrNil(c.WebpushSubscription)}
	for _, col := range contactColumns {
		v := c.Value(col.field)
		if err := check(col.name, v); err != nil {
			return nil, err
		}
		args = append(args, textOrNil(v))
		if col.fold {
			args = append(args, textOrNil(segmentation.Fold(v)))
		}
	}
	return args, nil
}

// storedContact is c as the store keeps it: times in UTC to the microsecond.
func storedContact(c contacts.Contact) contacts.Contact {
	c = c.Clone()
	c.Created, c.Updated = dbTime(c.Created), dbTime(c.Updated)
	if !c.Deleted.IsZero() {
		c.Deleted = dbTime(c.Deleted)
	}
	return c
}

// scanContact reads a row of contactSelect.
func scanContact(row pgx.CollectableRow) (contacts.Contact, error) {
	var (
		c                               contacts.Contact
		created, updated                time.Time
		deleted, birthday               *time.Time
		mobileRaw, bMobileRaw           *string
		optStatus, optWebpush, optWA    *string
		tgIdent, tgOpt, webpushSub      *string
		custom, tgData, options, member []byte
		touchpoints, interests          []byte
	)
	values := make([]*string, len(contactColumns))
	dest := []any{&c.UUID, &c.ListUUID, &member, &created, &updated, &deleted, &mobileRaw, &bMobileRaw, &birthday, &custom,
		&optStatus, &optWebpush, &optWA, &tgIdent, &tgOpt, &tgData, &options, &touchpoints, &interests, &webpushSub}
	for i := range values {
		dest = append(dest, &values[i])
	}
	if err := row.Scan(dest...); err != nil {
		return contacts.Contact{}, err
	}
	for i, col := range contactColumns {
		if values[i] != nil {
			c.Restore(col.field, *values[i])
		}
	}
	c.Member = contacts.MemberStatus(member)
	c.Created, c.Updated, c.Deleted = created.UTC(), updated.UTC(), readTime(deleted)
	c.MobileRaw, c.BMobileRaw = stringOf(mobileRaw), stringOf(bMobileRaw)
	if birthday != nil {
		c.Birthday = msgkit.Date{Year: birthday.Year(), Month: birthday.Month(), Day: birthday.Day()}
	}
	if custom != nil {
		if err := json.Unmarshal(custom, &c.Custom); err != nil {
			return contacts.Contact{}, storageError(err, "contact ", c.UUID)
		}
		if c.Custom == nil {
			c.Custom = map[int]string{}
		}
	}
	for _, m := range []struct {
		raw []byte
		to  *map[string]contacts.MemberStatus
	}{{options, &c.Options}, {touchpoints, &c.Touchpoints}, {interests, &c.Interests}} {
		if m.raw == nil {
			continue
		}
		if err := json.Unmarshal(m.raw, m.to); err != nil {
			return contacts.Contact{}, storageError(err, "contact ", c.UUID)
		}
		if *m.to == nil {
			*m.to = map[string]contacts.MemberStatus{}
		}
	}
	c.OptStatus, c.OptStatusWebpush = contacts.OptStatus(stringOf(optStatus)), contacts.OptStatus(stringOf(optWebpush))
	c.OptStatusWhatsApp, c.WebpushSubscription = contacts.OptStatus(stringOf(optWA)), stringOf(webpushSub)
	c.Telegram = contacts.Channel{Identifier: stringOf(tgIdent), OptStatus: contacts.OptStatus(stringOf(tgOpt))}
	if tgData != nil {
		c.Telegram.Data = tgData
	}
	return c, nil
}

// CreateContact stores c when its list is one of the tenant's lists in
// use (checked in the INSERT itself): otherwise Invalid naming list_uuid.
// A uuid the tenant has, deleted or not, is Conflict.
func (s *ContactsStore) CreateContact(ctx context.Context, svc msgkit.ServiceUUID, c contacts.Contact) (contacts.Contact, error) {
	args, err := contactArgs(svc, &c)
	if err != nil {
		return contacts.Contact{}, err
	}
	tag, err := s.pool.Exec(ctx, contactInsertSQL, args...)
	if isUniqueViolation(err) {
		return contacts.Contact{}, contacts.ContactExists(c.UUID)
	}
	if err != nil {
		return contacts.Contact{}, classify(err, "contact", "contact "+c.UUID)
	}
	if tag.RowsAffected() == 0 {
		return contacts.Contact{}, contacts.InvalidList(c.ListUUID)
	}
	return storedContact(c), nil
}

// Contact returns a contact; a deleted one only withDeleted.
func (s *ContactsStore) Contact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, withDeleted bool) (contacts.Contact, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	q := "SELECT " + contactSelect + " FROM contacts WHERE service_uuid = $1 AND uuid = $2"
	if !withDeleted {
		q += " AND deleted IS NULL"
	}
	return s.contact(ctx, s.pool, q, svc, uuid)
}

func (s *ContactsStore) contact(ctx context.Context, db listQuerier, q string, svc msgkit.ServiceUUID, uuid string) (contacts.Contact, error) {
	rows, err := db.Query(ctx, q, string(svc), uuid)
	if err != nil {
		return contacts.Contact{}, classify(err, "contact", "contact "+uuid)
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanContact)
	if errors.Is(err, pgx.ErrNoRows) {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	if err != nil {
		return contacts.Contact{}, readError(err, "contact", "contact "+uuid)
	}
	return c, nil
}

// UpdateContact locks the contact in use (SELECT … FOR UPDATE), runs
// change on it and writes what it returns, with its uuid, created and
// deleted times unchanged, in one transaction. A move to another list
// needs a list of the tenant in use, as memstore has it. An error from
// change is returned as it is and nothing is written.
func (s *ContactsStore) UpdateContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, change func(contacts.Contact) (contacts.Contact, error)) (contacts.Contact, error) {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.Contact{}, contacts.ContactNotFound(uuid)
	}
	var out contacts.Contact
	err := inTx(ctx, s.pool, s.log, "contact update", func(tx pgx.Tx) error {
		cur, err := s.contact(ctx, tx, "SELECT "+contactSelect+
			" FROM contacts WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL FOR UPDATE", svc, uuid)
		if err != nil {
			return finalIfMsgkit(err)
		}
		next, err := change(cur.Clone())
		if err != nil {
			return final{err}
		}
		next.UUID, next.Created, next.Deleted = cur.UUID, cur.Created, cur.Deleted
		args, err := contactArgs(svc, &next)
		if err != nil {
			return final{err}
		}
		if next.ListUUID != cur.ListUUID {
			var inUse bool
			err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM contact_lists WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL)`,
				string(svc), next.ListUUID).Scan(&inUse)
			if err != nil {
				return err
			}
			if !inUse {
				return final{contacts.InvalidList(next.ListUUID)}
			}
		}
		if _, err := tx.Exec(ctx, contactUpdateSQL, args...); err != nil {
			return err
		}
		out = storedContact(next)
		return nil
	})
	if f, ok := errors.AsType[final](err); ok {
		return contacts.Contact{}, f.err
	}
	if err != nil {
		return contacts.Contact{}, classify(err, "contact", "contact "+uuid)
	}
	return out, nil
}

// DeleteContact deletes a contact in use softly at at, or, with erase,
// deletes its row, which holds every value stored about it (memberships
// and custom values included), deleted or not.
func (s *ContactsStore) DeleteContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, erase bool, at time.Time) error {
	if !storable(string(svc)) || !storable(uuid) {
		return contacts.ContactNotFound(uuid)
	}
	q, args := `DELETE FROM contacts WHERE service_uuid = $1 AND uuid = $2`, []any{string(svc), uuid}
	if !erase {
		q, args = `UPDATE contacts SET deleted = $3 WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL`, append(args, dbTime(at))
	}
	tag, err := s.pool.Exec(ctx, q, args...)
	if err != nil {
		return classify(err, "contact", "contact "+uuid)
	}
	if tag.RowsAffected() == 0 {
		return contacts.ContactNotFound(uuid)
	}
	return nil
}

// customPlans runs a listing's statements unprepared (an unnamed
// statement, described then run), so each is planned for its values: a
// compiled segmentation query's LIKE prefixes and anniversary ranges are
// values a generic plan cannot see (see the package doc).
type customPlans struct{ db listQuerier }

func (c customPlans) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return c.db.Query(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
}

func (c customPlans) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return c.db.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
}

// storableOnly are the strings of vs a text column can hold (others
// equal no stored value), never nil.
func storableOnly(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if storable(v) {
			out = append(out, v)
		}
	}
	return out
}

// requiredSQL is the condition that a contact has a value for f, as
// contacts.Contact.Has says.
func requiredSQL(f segmentation.Field) string {
	switch {
	case f == segmentation.Birthday:
		return "contacts.birthday IS NOT NULL"
	case f.Column() > 0:
		return "contacts.custom ->> '" + strconv.Itoa(f.Column()) + "' <> ''"
	}
	for _, c := range contactColumns {
		if c.field == f {
			return "contacts." + c.name + " <> ''"
		}
	}
	return "FALSE" // memberships and unknown fields have no value
}

// Contacts lists the contacts q selects, all in SQL: the tenant, lists,
// uuids, required fields, deletion, the compiled segmentation query and
// the membership, channel and group filters (contactFilterScope) are the
// listing's scope, its filters, sort and page the engine's.
// CountOnly reads one row for the count. With a segmentation query the
// statements run unprepared (customPlans).
func (s *ContactsStore) Contacts(ctx context.Context, svc msgkit.ServiceUUID, q contacts.ContactQuery) (msgkit.Page[contacts.Contact], error) {
	empty := msgkit.Page[contacts.Contact]{Items: []contacts.Contact{}}
	if err := q.Resolved(); err != nil {
		return msgkit.Page[contacts.Contact]{}, err
	}
	if !storable(string(svc)) {
		return empty, nil
	}
	args := []any{string(svc)}
	bind := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	scope := []string{"contacts.service_uuid = $1"}
	if !q.ShowDeleted {
		scope = append(scope, "contacts.deleted IS NULL")
	}
	if len(q.ListUUIDs) > 0 {
		scope = append(scope, "contacts.list_uuid = ANY("+bind(storableOnly(q.ListUUIDs))+"::text[])")
	}
	if len(q.UUIDs) > 0 {
		scope = append(scope, "contacts.uuid = ANY("+bind(storableOnly(q.UUIDs))+"::text[])")
	}
	for _, f := range q.Required {
		scope = append(scope, requiredSQL(f))
	}
	filters, custom, err := contactFilterScope(&q, &args, bind)
	if err != nil {
		return msgkit.Page[contacts.Contact]{}, err
	}
	scope = append(scope, filters...)
	var db listQuerier = s.pool
	if custom {
		db = customPlans{s.pool}
	}
	if q.Segment != nil {
		where, err := compileSegmentation(q.Segment, contactSegSchema, q.Today, &args)
		if err != nil {
			return msgkit.Page[contacts.Contact]{}, msgkit.Wrap(err, msgkit.Internal, segmentation.CodeInvalidSegmentation,
				"the segmentation query cannot be compiled")
		}
		scope = append(scope, where)
		db = customPlans{s.pool}
	}
	if q.CountOnly {
		lq := q.List
		lq.Sort, lq.PageNumber, lq.PageSize = nil, 1, 1
		page, err := listPage(ctx, db, contactTable(strings.Join(scope, " AND "), "contacts.uuid"), lq, pgx.RowTo[string], args...)
		if err != nil {
			return msgkit.Page[contacts.Contact]{}, err
		}
		empty.Total = page.Total
		return empty, nil
	}
	page, err := listPage(ctx, db, contactTable(strings.Join(scope, " AND "), contactSelect), q.List, scanContact, args...)
	if err != nil {
		return msgkit.Page[contacts.Contact]{}, err
	}
	return page, nil
}

// membershipsArg is the jsonb parameter of a contact's memberships (nil
// for none), each key and status checked as text the store can keep.
func membershipsArg(what string, ms map[string]contacts.MemberStatus, check func(string, string) error) ([]byte, error) {
	if ms == nil {
		return nil, nil
	}
	for k, m := range ms {
		if err := check(what, k); err != nil {
			return nil, err
		}
		if err := check(what, string(m)); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(ms)
	if err != nil {
		return nil, storageError(err, "contact memberships")
	}
	return b, nil
}

// MissingLists returns the ids of ids that are no list in use (not
// deleted) of the tenant, in the order given, repeats included
// (campaign.ListChecker), as memstore does: one query finds the lists that
// are, and an id PostgreSQL cannot hold is none.
func (s *ContactsStore) MissingLists(ctx context.Context, svc msgkit.ServiceUUID, ids []string) ([]string, error) {
	found := map[string]bool{}
	if keys := storableOnly(ids); len(keys) > 0 && storable(string(svc)) {
		rows, err := s.pool.Query(ctx, `SELECT uuid FROM contact_lists WHERE service_uuid = $1 AND uuid = ANY($2::text[]) AND deleted IS NULL`,
			string(svc), keys)
		if err != nil {
			return nil, classify(err, "list", "lists")
		}
		live, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, classify(err, "list", "lists")
		}
		for _, id := range live {
			found[id] = true
		}
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	return missing, nil
}
