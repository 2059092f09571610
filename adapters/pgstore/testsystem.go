package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/testsystem"
)

var _ testsystem.Store = (*TestSystemStore)(nil)

// A completed session's callback is queued as a report of the message id
// testSessionReports + the session's id, which no message has (message
// ids are UUIDs). testSessionReportsEnd is the first id after every such
// one in byte order ('.' follows '-'), for the range SMSStore's retention
// removes them by.
const (
	testSessionReports    = "testsession-"
	testSessionReportsEnd = "testsession."
)

// TestSystemStore keeps the SMS route test system's reference lists,
// sessions, results and daily quota (0018_testsystem.sql). A completed
// session's callback is queued in the SMS store's delivery report outbox
// (sms_reports), in the transaction that completes it, so the report
// dispatcher posts it.
//
// AddRoute locks the four route tables against other writers (SHARE ROW
// EXCLUSIVE: reads go on) while it looks records up by name and numbers
// new ones, so concurrent adds never make one name twice. A new record
// takes the id after the larger of the largest stored and the last one
// given (testsystem_ids), so a deleted record's id is never given again,
// as in memstore.
//
// CreateSession counts the request and stores the session and its results
// in one transaction: one statement counts the request (an upsert on
// (username, day) that adds one only while the count is below the limit,
// so replicas share the count and never pass it) and inserts the session
// only when it counted; the results follow with COPY.
type TestSystemStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// TestSystem is the store of the SMS route test system.
func (db *DB) TestSystem() *TestSystemStore { return &TestSystemStore{pool: db.pool, log: db.log} }

// The listings of the reference lists, over the attributes of their
// ListSpecs (testsystem.OperatorSpec(), CountrySpec, RouteSpec, NamedSpec).
// Every text column is COLLATE "C", so the store orders (by id; countries
// by name then MCC) are memstore's byte order.
var (
	operatorsTable = listTable{
		From:   "testsystem_operators o",
		Select: "o.id, o.owner, o.name, o.country, o.mcc, o.mnc",
		Scope:  "o.owner = $1",
		Attrs: map[string]listAttr{
			"name":    {"o.name", msgkit.AttrString},
			"country": {"o.country", msgkit.AttrString},
			"mcc":     {"o.mcc", msgkit.AttrString},
			"mcc_mnc": {"o.mcc || o.mnc", msgkit.AttrString},
		},
		Order: "o.id",
	}
	// countriesTable lists each (country, MCC) of an owner's operators
	// once: the DISTINCT subquery is the relation, and the owner condition
	// is pushed down into it.
	countriesTable = listTable{
		From:   "(SELECT DISTINCT owner, country, mcc FROM testsystem_operators) c",
		Select: "c.country, c.mcc",
		Scope:  "c.owner = $1",
		Attrs: map[string]listAttr{
			"name": {"c.country", msgkit.AttrString},
			"mcc":  {"c.mcc", msgkit.AttrString},
		},
		Order: "c.country, c.mcc",
	}
	routesTable = listTable{
		From: "testsystem_routes r JOIN testsystem_gates g ON g.id = r.gate_id" +
			" JOIN testsystem_categories c ON c.id = r.category_id JOIN testsystem_suppliers s ON s.id = r.supplier_id",
		Select: "r.param_id, r.gate_id, r.category_id, r.supplier_id, g.name, c.name, s.name, r.param_name, r.param_value",
		Scope:  "(g.owner = '' OR g.owner = $1)",
		Attrs: map[string]listAttr{
			"gate_name":     {"g.name", msgkit.AttrString},
			"category_name": {"c.name", msgkit.AttrString},
			"supplier_name": {"s.name", msgkit.AttrString},
			"param_name":    {"r.param_name", msgkit.AttrString},
			"param_id":      {"r.param_id", msgkit.AttrNumber},
		},
		Order: "r.param_id",
	}
	// resultsTable pages a session's results by seq; Results passes only
	// the page, as memstore reads nothing else of the query.
	resultsTable = listTable{
		From:   "testsystem_results r",
		Select: resultColumns,
		Scope:  "r.session_id = $1",
		Attrs:  map[string]listAttr{},
		Order:  "r.seq, r.msg_id",
	}
)

// nothingOf is t listing nothing, for an owner no row can have (text
// PostgreSQL cannot hold): memstore answers such an owner with an empty
// page, and so does this, the query checked all the same.
func nothingOf(t listTable) *listTable {
	t.Scope = "FALSE"
	return &t
}

var (
	operatorsNone = nothingOf(operatorsTable)
	countriesNone = nothingOf(countriesTable)
)

// namedList is the table of one kind of plain reference record.
type namedList struct {
	table   string
	listing listTable
	nextID  string // numbers a new record (see TestSystemStore)
}

func newNamedList(k testsystem.Kind, table string) namedList {
	return namedList{
		table: table,
		listing: listTable{
			From: table + " n", Select: "n.id, n.name, n.owner", Scope: "(n.owner = '' OR n.owner = $1)",
			Attrs: map[string]listAttr{"name": {"n.name", msgkit.AttrString}, "id": {"n.id", msgkit.AttrNumber}},
			Order: "n.id",
		},
		nextID: nextIDSQL(k.String(), table, "id"),
	}
}

// nextIDSQL takes the next id of list: one above the larger of the last
// given and the largest in table. The row lock on list's counter orders
// concurrent takers.
func nextIDSQL(list, table, column string) string {
	return `UPDATE testsystem_ids SET last = GREATEST(last, (SELECT COALESCE(max(` + column + `), 0) FROM ` + table + `)) + 1
		WHERE list = '` + list + `' RETURNING last`
}

var (
	namedLists = map[testsystem.Kind]namedList{
		testsystem.Categories: newNamedList(testsystem.Categories, "testsystem_categories"),
		testsystem.Suppliers:  newNamedList(testsystem.Suppliers, "testsystem_suppliers"),
		testsystem.Gates:      newNamedList(testsystem.Gates, "testsystem_gates"),
	}
	nextRouteIDSQL = nextIDSQL("route", "testsystem_routes", "param_id")
)

func scanOperator(row pgx.CollectableRow) (o testsystem.Operator, err error) {
	return o, row.Scan(&o.ID, &o.Owner, &o.Name, &o.Country, &o.MCC, &o.MNC)
}

// Operators lists owner's operators ("" the platform's), by id unless q
// sorts them.
func (s *TestSystemStore) Operators(ctx context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[testsystem.Operator], error) {
	if !storable(owner) {
		return listPage(ctx, s.pool, operatorsNone, q, scanOperator)
	}
	return listPage(ctx, s.pool, &operatorsTable, q, scanOperator, owner)
}

// Countries lists the countries of owner's operators, each (name, MCC)
// once, by name then MCC unless q sorts them.
func (s *TestSystemStore) Countries(ctx context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[testsystem.Country], error) {
	scan := func(row pgx.CollectableRow) (c testsystem.Country, err error) { return c, row.Scan(&c.Name, &c.MCC) }
	if !storable(owner) {
		return listPage(ctx, s.pool, countriesNone, q, scan)
	}
	return listPage(ctx, s.pool, &countriesTable, q, scan, owner)
}

// viewerOf is viewer as a query parameter: a name no row can have (text
// PostgreSQL cannot hold) owns nothing, so it sees the platform's records
// only, as in memstore.
func viewerOf(viewer string) string {
	if !storable(viewer) {
		return ""
	}
	return viewer
}

// Routes lists the route parameters of the gates viewer sees, with the
// names of their gate, category and supplier, by parameter id unless q
// sorts them.
func (s *TestSystemStore) Routes(ctx context.Context, viewer string, q msgkit.ListQuery) (msgkit.Page[testsystem.Route], error) {
	return listPage(ctx, s.pool, &routesTable, q, func(row pgx.CollectableRow) (r testsystem.Route, err error) {
		return r, row.Scan(&r.ParamID, &r.GateID, &r.CategoryID, &r.SupplierID, &r.Gate, &r.Category, &r.Supplier, &r.ParamName, &r.ParamValue)
	}, viewerOf(viewer))
}

// Named lists the categories, suppliers or gates viewer sees, by id
// unless q sorts them. A kind that is none of those has no records.
func (s *TestSystemStore) Named(ctx context.Context, k testsystem.Kind, viewer string, q msgkit.ListQuery) (msgkit.Page[testsystem.Named], error) {
	l, ok := namedLists[k]
	if !ok {
		attrs := namedLists[testsystem.Gates].listing.Attrs
		return msgkit.Apply([]testsystem.Named(nil), q, func(_ testsystem.Named, attr string) (msgkit.Value, bool) {
			_, known := attrs[attr]
			return msgkit.Value{}, known
		})
	}
	return listPage(ctx, s.pool, &l.listing, q, func(row pgx.CollectableRow) (n testsystem.Named, err error) {
		return n, row.Scan(&n.ID, &n.Name, &n.Owner)
	}, viewerOf(viewer))
}

// NamedByID returns a category, supplier or gate, whoever owns it.
func (s *TestSystemStore) NamedByID(ctx context.Context, k testsystem.Kind, id int64) (testsystem.Named, error) {
	l, ok := namedLists[k]
	if !ok {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	n := testsystem.Named{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT name, owner FROM `+l.table+` WHERE id = $1`, id).Scan(&n.Name, &n.Owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	if err != nil {
		return testsystem.Named{}, classify(err, k.String(), k.String()+" "+strconv.FormatInt(id, 10))
	}
	return n, nil
}

// DeleteNamed deletes owner's category, supplier or gate; its routes go
// with it (ON DELETE CASCADE).
func (s *TestSystemStore) DeleteNamed(ctx context.Context, k testsystem.Kind, owner string, id int64) (testsystem.Named, error) {
	l, ok := namedLists[k]
	if !ok || !storable(owner) {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	n := testsystem.Named{ID: id, Owner: owner}
	err := s.pool.QueryRow(ctx, `DELETE FROM `+l.table+` WHERE id = $1 AND owner = $2 RETURNING name`, id, owner).Scan(&n.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	if err != nil {
		return testsystem.Named{}, classify(err, k.String(), k.String()+" "+strconv.FormatInt(id, 10))
	}
	return n, nil
}

// AddRoute stores r's parameters as owner's routes of its gate, category
// and supplier, making each by name when new, with the four route tables
// locked (see TestSystemStore).
func (s *TestSystemStore) AddRoute(ctx context.Context, owner string, r testsystem.NewRoute) (bool, error) {
	if !storable(owner) {
		return false, msgkit.Invalidf(testsystem.CodeInvalidRoute, "owner", "the owner must be valid UTF-8 without NUL characters")
	}
	for _, f := range []struct{ name, v string }{{"category", r.Category}, {"supplier", r.Supplier}, {"gate", r.Gate},
		{"tlv_tag", r.TLVTag}, {"tlv_value", r.TLVValue}, {"service_type", r.ServiceType}, {"prefix", r.Prefix}} {
		if !storable(f.v) {
			return false, msgkit.Invalidf(testsystem.CodeInvalidRoute, f.name, "%s must be valid UTF-8 without NUL characters", f.name)
		}
	}
	var added bool
	err := inTx(ctx, s.pool, s.log, "adding a route", func(tx pgx.Tx) error {
		added = false
		if _, err := tx.Exec(ctx, `LOCK TABLE testsystem_categories, testsystem_suppliers, testsystem_gates, testsystem_routes
			IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		gate, err := gateFor(ctx, tx, owner, r)
		if err != nil {
			return err
		}
		cat, err := namedByName(ctx, tx, testsystem.Categories, owner, r.Category)
		if err != nil {
			return err
		}
		sup, err := namedByName(ctx, tx, testsystem.Suppliers, owner, r.Supplier)
		if err != nil {
			return err
		}
		for _, p := range r.Params() {
			var exists bool
			err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM testsystem_routes WHERE gate_id = $1 AND category_id = $2
				AND supplier_id = $3 AND param_name = $4 AND param_value = $5)`, gate, cat, sup, p[0], p[1]).Scan(&exists)
			if err != nil || exists {
				return err
			}
			var id int64
			if err := tx.QueryRow(ctx, nextRouteIDSQL).Scan(&id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO testsystem_routes (param_id, gate_id, category_id, supplier_id, param_name, param_value)
				VALUES ($1, $2, $3, $4, $5, $6)`, id, gate, cat, sup, p[0], p[1]); err != nil {
				return err
			}
			added = true
		}
		return nil
	})
	if err != nil {
		return false, catalogError(err, "route", "route")
	}
	return added, nil
}

// gateFor finds or makes owner's gate of r, as memstore does (see
// testsystem.Catalog.AddRoute): the gate of its name, owner's or else the
// platform's (which only the platform's routes may use), which must have
// r.GateID when that is set; else a new gate, numbered r.GateID when set
// (and free, for the platform only) or the next id.
func gateFor(ctx context.Context, tx pgx.Tx, owner string, r testsystem.NewRoute) (int64, error) {
	var id int64
	var gateOwner string
	err := tx.QueryRow(ctx, findByNameSQL("testsystem_gates"), r.Gate, owner).Scan(&id, &gateOwner)
	switch {
	case err == nil && gateOwner != owner:
		return 0, final{testsystem.GateNotYours(r.Gate)}
	case err == nil && r.GateID != 0 && r.GateID != id:
		return 0, final{testsystem.GateIDConflict(r.Gate, id, r.GateID)}
	case err == nil:
		return id, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, err
	}
	if r.GateID != 0 {
		var other, otherOwner string
		err := tx.QueryRow(ctx, `SELECT name, owner FROM testsystem_gates WHERE id = $1`, r.GateID).Scan(&other, &otherOwner)
		switch {
		case err == nil && (owner == "" || otherOwner == owner):
			return 0, final{testsystem.GateIDTaken(r.GateID, other)}
		case owner != "" && (err == nil || errors.Is(err, pgx.ErrNoRows)):
			return 0, final{testsystem.GateIDNotYours(r.GateID)}
		case !errors.Is(err, pgx.ErrNoRows):
			return 0, err
		}
		id = r.GateID
	} else if err := tx.QueryRow(ctx, namedLists[testsystem.Gates].nextID).Scan(&id); err != nil {
		return 0, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO testsystem_gates (id, name, owner) VALUES ($1, $2, $3)`, id, r.Gate, owner)
	return id, err
}

// findByNameSQL finds the record of table named $1 that the routes of
// owner $2 see: $2's own, else the platform's.
func findByNameSQL(table string) string {
	return `SELECT id, owner FROM ` + table + ` WHERE name = $1 AND (owner = $2 OR owner = '') ORDER BY owner = $2 DESC LIMIT 1`
}

// namedByName returns the id of the record of kind k named name that
// owner's routes see, made for owner with the next id when there is none.
func namedByName(ctx context.Context, tx pgx.Tx, k testsystem.Kind, owner, name string) (int64, error) {
	l := namedLists[k]
	var id int64
	var found string
	err := tx.QueryRow(ctx, findByNameSQL(l.table), name, owner).Scan(&id, &found)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, err
	}
	if err := tx.QueryRow(ctx, l.nextID).Scan(&id); err != nil {
		return 0, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+l.table+` (id, name, owner) VALUES ($1, $2, $3)`, id, name, owner)
	return id, err
}

// catalogError passes a transaction's own error on and classifies the
// database's.
func catalogError(err error, thing, what string) error {
	if f, ok := errors.AsType[final](err); ok {
		return f.err
	}
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		return e
	}
	return classify(err, thing, what)
}

// The upserts of Load: each list's records as arrays, one statement per
// list.
const (
	loadOperatorsSQL = `INSERT INTO testsystem_operators (id, owner, name, country, mcc, mnc)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
		ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, name = excluded.name, country = excluded.country,
			mcc = excluded.mcc, mnc = excluded.mnc`
	loadNamedSQL = ` (id, name) SELECT * FROM unnest($1::bigint[], $2::text[])
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, owner = ''`
	loadGatesSQL = `INSERT INTO testsystem_gates (id, name, price, currency)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::numeric[], $4::text[])
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, owner = '', price = excluded.price, currency = excluded.currency`
	loadRoutesSQL = `INSERT INTO testsystem_routes (param_id, gate_id, category_id, supplier_id, param_name, param_value)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[])
		ON CONFLICT (param_id) DO UPDATE SET gate_id = excluded.gate_id, category_id = excluded.category_id,
			supplier_id = excluded.supplier_id, param_name = excluded.param_name, param_value = excluded.param_value`
	loadSMSCsSQL = `INSERT INTO testsystem_smscs (address, operator, country, mcc, mnc)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
		ON CONFLICT (address) DO UPDATE SET operator = excluded.operator, country = excluded.country,
			mcc = excluded.mcc, mnc = excluded.mnc`
)

// Load stores a dataset in one transaction, replacing the records of the
// same ids (SMSCs: addresses); a record given twice is stored as given
// last, as memstore stores it. Text PostgreSQL cannot hold is Invalid
// (invalid_dataset). Two records of one list with one name, counting
// those already stored, are Conflict (dataset_name_exists), and a route
// whose gate, category or supplier does not exist is Invalid
// (dataset_invalid_reference): memstore keeps both.
func (s *TestSystemStore) Load(ctx context.Context, d testsystem.Dataset) error {
	if err := checkDatasetText(d); err != nil {
		return err
	}
	b := &pgx.Batch{}
	if ops := lastByKey(d.Operators, func(o testsystem.Operator) int64 { return o.ID }); len(ops) > 0 {
		b.Queue(loadOperatorsSQL, columnOf(ops, func(o testsystem.Operator) int64 { return o.ID }),
			columnOf(ops, func(o testsystem.Operator) string { return o.Owner }), columnOf(ops, func(o testsystem.Operator) string { return o.Name }),
			columnOf(ops, func(o testsystem.Operator) string { return o.Country }), columnOf(ops, func(o testsystem.Operator) string { return o.MCC }),
			columnOf(ops, func(o testsystem.Operator) string { return o.MNC }))
	}
	for _, l := range []struct {
		k  testsystem.Kind
		ns []testsystem.Named
	}{{testsystem.Categories, d.Categories}, {testsystem.Suppliers, d.Suppliers}} {
		if ns := lastByKey(l.ns, func(n testsystem.Named) int64 { return n.ID }); len(ns) > 0 {
			b.Queue(`INSERT INTO `+namedLists[l.k].table+loadNamedSQL, columnOf(ns, func(n testsystem.Named) int64 { return n.ID }),
				columnOf(ns, func(n testsystem.Named) string { return n.Name }))
		}
	}
	if gs := lastByKey(d.Gates, func(g testsystem.Gate) int64 { return g.ID }); len(gs) > 0 {
		b.Queue(loadGatesSQL, columnOf(gs, func(g testsystem.Gate) int64 { return g.ID }), columnOf(gs, func(g testsystem.Gate) string { return g.Name }),
			columnOf(gs, func(g testsystem.Gate) string { return numericText(g.Price) }), columnOf(gs, func(g testsystem.Gate) string { return g.Currency }))
	}
	if rs := lastByKey(d.Routes, func(r testsystem.Route) int64 { return r.ParamID }); len(rs) > 0 {
		b.Queue(loadRoutesSQL, columnOf(rs, func(r testsystem.Route) int64 { return r.ParamID }),
			columnOf(rs, func(r testsystem.Route) int64 { return r.GateID }), columnOf(rs, func(r testsystem.Route) int64 { return r.CategoryID }),
			columnOf(rs, func(r testsystem.Route) int64 { return r.SupplierID }), columnOf(rs, func(r testsystem.Route) string { return r.ParamName }),
			columnOf(rs, func(r testsystem.Route) string { return r.ParamValue }))
	}
	if cs := lastByKey(d.SMSCs, func(c testsystem.SMSC) string { return c.Address }); len(cs) > 0 {
		b.Queue(loadSMSCsSQL, columnOf(cs, func(c testsystem.SMSC) string { return c.Address }),
			columnOf(cs, func(c testsystem.SMSC) string { return c.Operator }), columnOf(cs, func(c testsystem.SMSC) string { return c.Country }),
			columnOf(cs, func(c testsystem.SMSC) string { return c.MCC }), columnOf(cs, func(c testsystem.SMSC) string { return c.MNC }))
	}
	if b.Len() == 0 {
		return nil
	}
	// The name constraints are checked at commit, so their violation is the
	// commit's error.
	err := inTx(ctx, s.pool, s.log, "loading a dataset", func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pgErr.Code {
		case uniqueViolation:
			return testsystem.DatasetNameExists("", err)
		case foreignKeyViolation:
			return testsystem.DatasetBadReference(0, err)
		}
	}
	return classify(err, "dataset", "the dataset")
}

// checkDatasetText refuses text PostgreSQL cannot hold, naming the first
// such field.
func checkDatasetText(d testsystem.Dataset) error {
	type field struct{ name, v string }
	var bad string
	check := func(list string, i int, fs ...field) bool {
		for _, f := range fs {
			if !storable(f.v) {
				bad = fmt.Sprintf("%s[%d]: %s", list, i, f.name)
				return false
			}
		}
		return true
	}
	ok := true
	for i, o := range d.Operators {
		ok = ok && check("operators", i, field{"owner", o.Owner}, field{"name", o.Name}, field{"country", o.Country}, field{"mcc", o.MCC}, field{"mnc", o.MNC})
	}
	for i, n := range d.Categories {
		ok = ok && check("categories", i, field{"name", n.Name})
	}
	for i, n := range d.Suppliers {
		ok = ok && check("suppliers", i, field{"name", n.Name})
	}
	for i, g := range d.Gates {
		ok = ok && check("gates", i, field{"name", g.Name}, field{"currency", g.Currency})
	}
	for i, r := range d.Routes {
		ok = ok && check("routes", i, field{"param_name", r.ParamName}, field{"param_value", r.ParamValue})
	}
	for i, c := range d.SMSCs {
		ok = ok && check("smscs", i, field{"address", c.Address}, field{"operator", c.Operator}, field{"country", c.Country}, field{"mcc", c.MCC}, field{"mnc", c.MNC})
	}
	if !ok {
		return msgkit.Errorf(msgkit.Invalid, testsystem.CodeInvalidDataset, "the dataset is invalid: %s must be valid UTF-8 without NUL characters", bad)
	}
	return nil
}

// lastByKey keeps, of the items with one key, the last, in the place of
// the first.
func lastByKey[T any, K comparable](items []T, key func(T) K) []T {
	at := make(map[K]int, len(items))
	out := make([]T, 0, len(items))
	for _, it := range items {
		if i, ok := at[key(it)]; ok {
			out[i] = it
			continue
		}
		at[key(it)] = len(out)
		out = append(out, it)
	}
	return out
}

// columnOf is one field of items, as an array parameter.
func columnOf[T, V any](items []T, field func(T) V) []V {
	out := make([]V, len(items))
	for i, it := range items {
		out[i] = field(it)
	}
	return out
}

// gatesByIDSQL reads the gates of $1 in its order, duplicates included,
// each with the category and supplier of its first route (by parameter
// id; "" without routes).
const gatesByIDSQL = `SELECT g.id, g.name, g.owner, COALESCE(c.name, ''), COALESCE(s.name, ''), g.price::text, g.currency
	FROM unnest($1::bigint[]) WITH ORDINALITY AS u(id, n)
	JOIN testsystem_gates g ON g.id = u.id AND (g.owner = '' OR g.owner = $2)
	LEFT JOIN LATERAL (
		SELECT r.category_id, r.supplier_id FROM testsystem_routes r WHERE r.gate_id = g.id ORDER BY r.param_id LIMIT 1
	) r ON TRUE
	LEFT JOIN testsystem_categories c ON c.id = r.category_id
	LEFT JOIN testsystem_suppliers s ON s.id = r.supplier_id
	ORDER BY u.n`

// GatesByID returns the gates of ids that viewer sees, in ids' order.
func (s *TestSystemStore) GatesByID(ctx context.Context, viewer string, ids []int64) ([]testsystem.Gate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, gatesByIDSQL, ids, viewerOf(viewer))
	if err != nil {
		return nil, classify(err, "gate", "gates")
	}
	gs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (testsystem.Gate, error) {
		var g testsystem.Gate
		var price string
		if err := row.Scan(&g.ID, &g.Name, &g.Owner, &g.Category, &g.Supplier, &price, &g.Currency); err != nil {
			return g, err
		}
		var err error
		if g.Price, err = parseNumeric(price); err != nil {
			return g, storageError(err, "price of gate ", g.ID)
		}
		return g, nil
	})
	if err != nil {
		return nil, readError(err, "gate", "gates")
	}
	return gs, nil
}

// OperatorsByCode returns owner's operators whose MCC and MNC make one of
// codes, or (codes empty) whose MCC is one of mccs, by id.
func (s *TestSystemStore) OperatorsByCode(ctx context.Context, owner string, codes, mccs []string) ([]testsystem.Operator, error) {
	where, keys := `o.mcc || o.mnc = ANY($2::text[])`, codes
	if len(codes) == 0 {
		where, keys = `o.mcc = ANY($2::text[])`, mccs
	}
	keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !storable(k) })
	if !storable(owner) || len(keys) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT o.id, o.owner, o.name, o.country, o.mcc, o.mnc FROM testsystem_operators o
		WHERE o.owner = $1 AND `+where+` ORDER BY o.id`, owner, keys)
	if err != nil {
		return nil, classify(err, "operator", "operators")
	}
	ops, err := pgx.CollectRows(rows, scanOperator)
	if err != nil {
		return nil, classify(err, "operator", "operators")
	}
	return ops, nil
}

// SMSC returns the service centre of address; ok false when unknown.
func (s *TestSystemStore) SMSC(ctx context.Context, address string) (testsystem.SMSC, bool, error) {
	if !storable(address) {
		return testsystem.SMSC{}, false, nil
	}
	c := testsystem.SMSC{Address: address}
	err := s.pool.QueryRow(ctx, `SELECT operator, country, mcc, mnc FROM testsystem_smscs WHERE address = $1`, address).
		Scan(&c.Operator, &c.Country, &c.MCC, &c.MNC)
	if errors.Is(err, pgx.ErrNoRows) {
		return testsystem.SMSC{}, false, nil
	}
	if err != nil {
		return testsystem.SMSC{}, false, classify(err, "smsc", "SMSC "+address)
	}
	return c, true, nil
}

// OperatorByCode returns the platform operator of mccmnc with the
// smallest id; ok false when none.
func (s *TestSystemStore) OperatorByCode(ctx context.Context, mccmnc string) (testsystem.Operator, bool, error) {
	if !storable(mccmnc) {
		return testsystem.Operator{}, false, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT o.id, o.owner, o.name, o.country, o.mcc, o.mnc FROM testsystem_operators o
		WHERE o.owner = '' AND o.mcc || o.mnc = $1 ORDER BY o.id LIMIT 1`, mccmnc)
	if err != nil {
		return testsystem.Operator{}, false, classify(err, "operator", "operator "+mccmnc)
	}
	o, err := pgx.CollectExactlyOneRow(rows, scanOperator)
	if errors.Is(err, pgx.ErrNoRows) {
		return testsystem.Operator{}, false, nil
	}
	if err != nil {
		return testsystem.Operator{}, false, classify(err, "operator", "operator "+mccmnc)
	}
	return o, true, nil
}

// createSessionSQL counts a request of $1 on day $2 within limit $3 and
// inserts the session only when it counted: no row means the limit is
// reached. A conflicting count row is locked even when the limit keeps it
// as it is, so quotaSQL then reads a count no one can change before the
// transaction ends. With a limit of 0 or less nothing counts.
const createSessionSQL = `WITH q AS (
	INSERT INTO testsystem_quota AS t (username, day, used) SELECT $1::text, $2::date, 1 WHERE $3::integer > 0
	ON CONFLICT (username, day) DO UPDATE SET used = t.used + 1 WHERE t.used < $3::integer
	RETURNING used
), s AS (
	INSERT INTO testsystem_sessions (username, test, callback, status, messages, created_at, completed_at)
	SELECT $1::text, $4::text, $5::text, $6::text, $7::bigint, $8::timestamptz, $9::timestamptz FROM q
	RETURNING id
)
SELECT q.used, s.id FROM q, s`

const quotaSQL = `SELECT used FROM testsystem_quota WHERE username = $1 AND day = $2`

// resultColumns are the columns scanResult reads.
const resultColumns = "msg_id, session_id, seq, username, status, doc"

// resultCopyColumns are the columns CreateSession copies, in resultRow's
// order.
var resultCopyColumns = []string{"msg_id", "session_id", "seq", "username", "status", "judged", "doc"}

// CreateSession counts the request and stores the session with its
// results, in one transaction (see TestSystemStore). Beyond the limit it
// stores nothing and is RateLimited with the quota. A result whose message
// id is stored already, or given twice, is Conflict (message_exists) and
// nothing is stored or counted. Text PostgreSQL cannot hold is Invalid in
// the session and in a result's message id, user and status (the
// columns); a result's other text is kept exactly (see resultDoc).
// Session ids ascend; a refused session may leave a gap.
func (s *TestSystemStore) CreateSession(ctx context.Context, sess testsystem.Session, rs []testsystem.Result, limit int) (testsystem.Session, testsystem.Quota, error) {
	for _, f := range []struct{ name, v string }{{"username", sess.User}, {"test", sess.Test}, {"callback", sess.Callback}, {"status", string(sess.Status)}} {
		if !storable(f.v) {
			return testsystem.Session{}, testsystem.Quota{}, msgkit.Invalidf(testsystem.CodeInvalidSession, f.name, "%s must be valid UTF-8 without NUL characters", f.name)
		}
	}
	docs := make([][]byte, len(rs))
	for i := range rs {
		var err error
		if docs[i], err = encodeResult(i, &rs[i]); err != nil {
			return testsystem.Session{}, testsystem.Quota{}, err
		}
	}
	sess.CreatedAt, sess.CompletedAt = dbTime(sess.CreatedAt), readTime(timeOrNil(sess.CompletedAt))
	day := utcDay(sess.CreatedAt)
	dbLimit := int32(min(max(limit, math.MinInt32), math.MaxInt32)) // no count reaches MaxInt32
	var used int32
	var limited bool
	err := inTx(ctx, s.pool, s.log, "creating a test session", func(tx pgx.Tx) error {
		limited = false
		err := tx.QueryRow(ctx, createSessionSQL, sess.User, day, dbLimit, sess.Test, sess.Callback,
			string(sess.Status), int64(sess.Messages), sess.CreatedAt, timeOrNil(sess.CompletedAt)).Scan(&used, &sess.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			limited = true
			if err := tx.QueryRow(ctx, quotaSQL, sess.User, day).Scan(&used); errors.Is(err, pgx.ErrNoRows) {
				used = 0
			} else if err != nil {
				return err
			}
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"testsystem_results"}, resultCopyColumns, pgx.CopyFromSlice(len(rs), func(i int) ([]any, error) {
			r := &rs[i]
			return []any{string(r.MsgID), sess.ID, int64(r.Seq), r.User, string(r.Status), r.Status.Judged(), docs[i]}, nil
		}))
		return err
	})
	if err != nil {
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == uniqueViolation {
			return testsystem.Session{}, testsystem.Quota{}, s.messageExists(ctx, rs, err)
		}
		return testsystem.Session{}, testsystem.Quota{}, classify(err, "session", "test session")
	}
	q := testsystem.QuotaAt(limit, int(used), sess.CreatedAt)
	if limited {
		return testsystem.Session{}, q, testsystem.LimitReached(q)
	}
	return sess, q, nil
}

// messageExists words the refusal of results whose ids are taken, naming
// the first one stored, or else the first given twice. It reads after
// the failed transaction, so only a refusal pays for the look-up.
func (s *TestSystemStore) messageExists(ctx context.Context, rs []testsystem.Result, cause error) error {
	ids := columnOf(rs, func(r testsystem.Result) string { return string(r.MsgID) })
	var id string
	err := s.pool.QueryRow(ctx, `SELECT u.id FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)
		WHERE EXISTS (SELECT 1 FROM testsystem_results r WHERE r.msg_id = u.id) ORDER BY u.n LIMIT 1`, ids).Scan(&id)
	if err != nil {
		seen := make(map[string]bool, len(ids))
		for _, x := range ids {
			if seen[x] {
				id = x
				break
			}
			seen[x] = true
		}
	}
	return testsystem.MessageExists(sms.MessageID(id), cause)
}

// utcDay is the UTC date of t, as a date parameter.
func utcDay(t time.Time) pgtype.Date {
	y, m, d := t.UTC().Date()
	return pgtype.Date{Time: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Valid: true}
}

// timeOrNil is dbTime, nil for the zero time.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = dbTime(t)
	return &t
}

// Quota is user's use of the limit on the UTC day of now.
func (s *TestSystemStore) Quota(ctx context.Context, user string, now time.Time, limit int) (testsystem.Quota, error) {
	var used int32
	if storable(user) {
		err := s.pool.QueryRow(ctx, quotaSQL, user, utcDay(now)).Scan(&used)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return testsystem.Quota{}, classify(err, "quota", "quota of "+user)
		}
	}
	return testsystem.QuotaAt(limit, int(used), now), nil
}

const sessionSQL = `SELECT username, test, callback, status, messages, created_at, completed_at FROM testsystem_sessions WHERE id = $1`

func scanSession(row pgx.Row, id int64) (testsystem.Session, error) {
	sess := testsystem.Session{ID: id}
	var completed *time.Time
	var messages int64
	if err := row.Scan(&sess.User, &sess.Test, &sess.Callback, &sess.Status, &messages, &sess.CreatedAt, &completed); err != nil {
		return testsystem.Session{}, err
	}
	sess.Messages, sess.CreatedAt, sess.CompletedAt = int(messages), sess.CreatedAt.UTC(), readTime(completed)
	return sess, nil
}

// Session returns user's session id; NotFound for another user's.
func (s *TestSystemStore) Session(ctx context.Context, user string, id int64) (testsystem.Session, error) {
	if !storable(user) {
		return testsystem.Session{}, testsystem.SessionNotFound(id)
	}
	sess, err := scanSession(s.pool.QueryRow(ctx, sessionSQL+` AND username = $2`, id, user), id)
	if errors.Is(err, pgx.ErrNoRows) {
		return testsystem.Session{}, testsystem.SessionNotFound(id)
	}
	if err != nil {
		return testsystem.Session{}, classify(err, "session", "test session")
	}
	return sess, nil
}

// Results lists the results of user's session id by seq, paged by q's
// page number and size (the rest of q is not read, as in memstore), in
// one read-only REPEATABLE READ transaction: the session's check and its
// page see one snapshot.
func (s *TestSystemStore) Results(ctx context.Context, user string, id int64, q msgkit.ListQuery) (msgkit.Page[testsystem.Result], error) {
	if !storable(user) {
		return msgkit.Page[testsystem.Result]{}, testsystem.SessionNotFound(id)
	}
	var page msgkit.Page[testsystem.Result]
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM testsystem_sessions WHERE id = $1 AND username = $2`, id, user).Scan(&one); err != nil {
			return err
		}
		var err error
		lq := msgkit.ListQuery{PageNumber: max(q.PageNumber, 0), PageSize: max(q.PageSize, 0)}
		page, err = listPage(ctx, tx, &resultsTable, lq, func(row pgx.CollectableRow) (testsystem.Result, error) { return scanResult(row) }, id)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return msgkit.Page[testsystem.Result]{}, testsystem.SessionNotFound(id)
	}
	if err != nil {
		return msgkit.Page[testsystem.Result]{}, readError(err, "result", "results")
	}
	return page, nil
}

// updateResultsSQL writes the changed results of UpdateResults, which
// holds their locks.
const updateResultsSQL = `UPDATE testsystem_results r SET status = u.status, judged = u.judged, doc = u.doc::jsonb
	FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[]) AS u(msg_id, status, judged, doc)
	WHERE r.msg_id = u.msg_id`

// UpdateResults runs fn on each stored result of ids, in ids' order, and
// writes those it reports changed, in one transaction: one statement locks
// the results in message id order (so concurrent updates never deadlock)
// and reads them, and one writes the changed ones. fn sees each result as
// the calls before it left it (an id given twice is updated twice) and
// cannot change the keys (MsgID, Session, Seq, User). Unknown ids are
// skipped. A status fn sets that PostgreSQL cannot hold is Invalid and
// nothing is written; any other text is kept exactly (see resultDoc). A
// serialization failure or deadlock runs the transaction again, fn
// included.
func (s *TestSystemStore) UpdateResults(ctx context.Context, ids []sms.MessageID, fn func(r *testsystem.Result) bool) error {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		if storable(string(id)) {
			keys = append(keys, string(id))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	err := inTx(ctx, s.pool, s.log, "updating test results", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+resultColumns+` FROM testsystem_results WHERE msg_id = ANY($1::text[]) ORDER BY msg_id FOR UPDATE`, keys)
		if err != nil {
			return err
		}
		stored, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (testsystem.Result, error) { return scanResult(row) })
		if err != nil {
			return err
		}
		cur := make(map[sms.MessageID]*testsystem.Result, len(stored))
		for i := range stored {
			cur[stored[i].MsgID] = &stored[i]
		}
		var changed []sms.MessageID
		seen := make(map[sms.MessageID]bool, len(stored))
		for _, id := range ids {
			c, ok := cur[id]
			if !ok {
				continue
			}
			r, ok := c.Updated(fn)
			if !ok {
				continue
			}
			if !seen[id] {
				seen[id] = true
				changed = append(changed, id)
			}
			cur[id] = r
		}
		if len(changed) == 0 {
			return nil
		}
		var msgIDs, statuses, docs []string
		var judged []bool
		for i, id := range changed {
			r := cur[id]
			doc, err := encodeResult(i, r)
			if err != nil {
				return final{err}
			}
			msgIDs, statuses, judged, docs = append(msgIDs, string(id)), append(statuses, string(r.Status)), append(judged, r.Status.Judged()), append(docs, string(doc))
		}
		_, err = tx.Exec(ctx, updateResultsSQL, msgIDs, statuses, judged, docs)
		return err
	})
	if err != nil {
		return catalogError(err, "result", "test results")
	}
	return nil
}

// Pending returns up to limit results not judged, of any session, by
// message id after after, walking the index of those results
// (testsystem_results_pending_idx).
func (s *TestSystemStore) Pending(ctx context.Context, after sms.MessageID, limit int) ([]testsystem.Result, error) {
	if limit <= 0 {
		return []testsystem.Result{}, nil
	}
	query := `SELECT ` + resultColumns + ` FROM testsystem_results WHERE NOT judged AND msg_id > $1 ORDER BY msg_id LIMIT $2`
	var arg any = string(after)
	if !storable(string(after)) {
		// No stored id equals it: compare the stored ids' bytes, as
		// memstore compares strings.
		query = `SELECT ` + resultColumns + ` FROM testsystem_results WHERE NOT judged AND convert_to(msg_id, 'UTF8') > $1::bytea
			ORDER BY msg_id LIMIT $2`
		arg = []byte(after)
	}
	rows, err := s.pool.Query(ctx, query, arg, int64(limit))
	if err != nil {
		return nil, classify(err, "result", "pending results")
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (testsystem.Result, error) { return scanResult(row) })
	if err != nil {
		return nil, readError(err, "result", "pending results")
	}
	return rs, nil
}

// CompleteSession completes session id when every result of it is judged
// and queues its callback in sms_reports, in one transaction that locks
// the session's row: a session completes once. The check for a result
// not judged reads the index of those alone; only a session that
// completes has its results read, by seq, for body. body's error is
// returned as it is and nothing is written. A callback without a URL is
// not queued, as in memstore.
func (s *TestSystemStore) CompleteSession(ctx context.Context, id int64, at time.Time, body func(testsystem.Session, []testsystem.Result) (testsystem.Callback, error)) (bool, error) {
	var done bool
	err := inTx(ctx, s.pool, s.log, "completing a test session", func(tx pgx.Tx) error {
		done = false
		b := &pgx.Batch{}
		b.Queue(sessionSQL+` FOR UPDATE`, id)
		b.Queue(`SELECT EXISTS (SELECT 1 FROM testsystem_results WHERE session_id = $1 AND NOT judged)`, id)
		br := tx.SendBatch(ctx, b)
		sess, err := scanSession(br.QueryRow(), id)
		var open bool
		if err == nil {
			err = br.QueryRow().Scan(&open)
		}
		if closeErr := br.Close(); err == nil {
			err = closeErr
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return final{testsystem.SessionNotFound(id)}
		}
		if err != nil || open || sess.Status == testsystem.SessionComplete {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+resultColumns+` FROM testsystem_results WHERE session_id = $1 ORDER BY seq, msg_id`, id)
		if err != nil {
			return err
		}
		rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (testsystem.Result, error) { return scanResult(row) })
		if err != nil {
			return err
		}
		sess.Status, sess.CompletedAt = testsystem.SessionComplete, dbTime(at)
		cb, err := body(sess, rs)
		if err != nil {
			return final{err}
		}
		if !storable(cb.URL) {
			return final{msgkit.Invalidf(testsystem.CodeInvalidCallback, "url", "the callback URL must be valid UTF-8 without NUL characters")}
		}
		b = &pgx.Batch{}
		b.Queue(`UPDATE testsystem_sessions SET status = $2, completed_at = $3 WHERE id = $1`, id, string(sess.Status), sess.CompletedAt)
		if cb.URL != "" {
			queueReport(b, sms.Report{MsgID: sms.MessageID(testSessionReports + strconv.FormatInt(id, 10)), URL: cb.URL, Body: cb.Body,
				State: sms.ReportPending, NextAt: at, CreatedAt: at})
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		done = true
		return nil
	})
	if err != nil {
		return false, catalogError(err, "session", "test session")
	}
	return done, nil
}

// resultDoc is the jsonb document of a result: every field but the key
// columns and the status. Zero values are left out (omitzero), which
// keeps nil and empty slices apart (a nil slice is left out, an empty one
// is []), so every result comes back as it was written; times are
// truncated to the microsecond, in UTC, as timestamptz columns keep them;
// the price is decimal text with its scale. Text JSON cannot carry
// exactly (invalid UTF-8, which encoding/json would replace, and NUL,
// which jsonb refuses) is kept byte for byte in Raw, by field name, and
// its field left empty: a received text or an upstream's error message
// may hold anything, and must neither be altered nor stop an update.
type resultDoc struct {
	Node          string            `json:"node,omitzero"`
	GateID        int64             `json:"gate_id,omitzero"`
	Gate          string            `json:"gate,omitzero"`
	Category      string            `json:"category,omitzero"`
	Supplier      string            `json:"supplier,omitzero"`
	OperatorID    int64             `json:"operator_id,omitzero"`
	Operator      string            `json:"operator,omitzero"`
	Country       string            `json:"country,omitzero"`
	MCCMNC        string            `json:"mcc_mnc,omitzero"`
	Receiver      string            `json:"receiver,omitzero"`
	DCS           uint8             `json:"dcs,omitzero"`
	NumParts      int               `json:"num_parts,omitzero"`
	Sender        string            `json:"sender,omitzero"`
	Text          string            `json:"text,omitzero"`
	Mark          string            `json:"mark,omitzero"`
	Price         string            `json:"price,omitzero"`
	Currency      string            `json:"currency,omitzero"`
	Error         string            `json:"error,omitzero"`
	SentAt        time.Time         `json:"sent_at,omitzero"`
	Deadline      time.Time         `json:"deadline,omitzero"`
	PartStates    []int             `json:"parts,omitzero"` // Parts, as numbers rather than base64
	DLRAt         time.Time         `json:"dlr_at,omitzero"`
	DLRCode       int               `json:"dlr_code,omitzero"`
	Received      *receivedDoc      `json:"received,omitzero"`
	FakeDLR       uint8             `json:"fake_dlr,omitzero"`
	SenderMatch   uint8             `json:"sender_match,omitzero"`
	TextMatch     uint8             `json:"text_match,omitzero"`
	EncodingMatch uint8             `json:"encoding_match,omitzero"`
	DirectRoute   uint8             `json:"direct_route,omitzero"`
	NationalSMSC  uint8             `json:"national_smsc,omitzero"`
	Raw           map[string][]byte `json:"raw,omitzero"`
}

type receivedDoc struct {
	At           time.Time `json:"at,omitzero"`
	Sender       string    `json:"sender,omitzero"`
	Text         string    `json:"text,omitzero"`
	DCS          uint8     `json:"dcs,omitzero"`
	Network      string    `json:"network,omitzero"`
	Operator     string    `json:"operator,omitzero"`
	SMSC         string    `json:"smsc,omitzero"`
	SMSCOperator string    `json:"smsc_operator,omitzero"`
	SMSCCountry  string    `json:"smsc_country,omitzero"`
	SMSCNetwork  string    `json:"smsc_network,omitzero"`
	PDUs         [][]byte  `json:"pdus,omitzero"` // base64 each; null for a nil PDU
}

// docTexts are the text fields of r that its document holds, by the
// names resultDoc.Raw gives them.
func docTexts(r *testsystem.Result) []docText {
	ts := []docText{
		{"node", &r.Node}, {"gate", &r.Gate}, {"category", &r.Category}, {"supplier", &r.Supplier},
		{"operator", &r.Operator}, {"country", &r.Country}, {"mcc_mnc", &r.MCCMNC}, {"receiver", (*string)(&r.Receiver)},
		{"sender", &r.Sender}, {"text", &r.Text}, {"mark", &r.Mark}, {"currency", &r.Currency}, {"error", &r.Error},
	}
	if rv := r.Received; rv != nil {
		ts = append(ts, []docText{
			{"received.sender", &rv.Sender}, {"received.text", &rv.Text}, {"received.network", &rv.Network},
			{"received.operator", &rv.Operator}, {"received.smsc", &rv.SMSC}, {"received.smsc_operator", &rv.SMSCOperator},
			{"received.smsc_country", &rv.SMSCCountry}, {"received.smsc_network", &rv.SMSCNetwork},
		}...)
	}
	return ts
}

type docText struct {
	name string
	p    *string
}

// encodeResult returns the document of r (results[i]). Its key columns and
// status must be text PostgreSQL can hold; any other text is kept exactly
// (see resultDoc).
func encodeResult(i int, r *testsystem.Result) ([]byte, error) {
	for _, t := range []struct{ name, v string }{{"msgId", string(r.MsgID)}, {"user", r.User}, {"status", string(r.Status)}} {
		if !storable(t.v) {
			return nil, msgkit.Invalidf(testsystem.CodeInvalidResult, "results", "results[%d].%s must be valid UTF-8 without NUL characters", i, t.name)
		}
	}
	for _, t := range docTexts(r) {
		if !storable(*t.p) {
			return encodeResultRaw(i, r.Clone())
		}
	}
	return marshalResult(i, r, nil)
}

// encodeResultRaw encodes r, a copy, moving its text JSON cannot carry
// into Raw.
func encodeResultRaw(i int, r *testsystem.Result) ([]byte, error) {
	raw := map[string][]byte{}
	for _, t := range docTexts(r) {
		if !storable(*t.p) {
			raw[t.name], *t.p = []byte(*t.p), ""
		}
	}
	return marshalResult(i, r, raw)
}

func marshalResult(i int, r *testsystem.Result, raw map[string][]byte) ([]byte, error) {
	d := resultDoc{
		Node: r.Node, GateID: r.GateID, Gate: r.Gate, Category: r.Category, Supplier: r.Supplier,
		OperatorID: r.OperatorID, Operator: r.Operator, Country: r.Country, MCCMNC: r.MCCMNC, Receiver: string(r.Receiver),
		DCS: uint8(r.DCS), NumParts: r.NumParts, Sender: r.Sender, Text: r.Text, Mark: r.Mark,
		Price: numericText(r.Price), Currency: r.Currency, Error: r.Error,
		SentAt: dbTime(r.SentAt), Deadline: dbTime(r.Deadline), DLRAt: dbTime(r.DLRAt), DLRCode: int(r.DLRCode),
		FakeDLR: uint8(r.FakeDLR), SenderMatch: uint8(r.SenderMatch), TextMatch: uint8(r.TextMatch),
		EncodingMatch: uint8(r.EncodingMatch), DirectRoute: uint8(r.DirectRoute), NationalSMSC: uint8(r.NationalSMSC),
		Raw: raw,
	}
	if r.Parts != nil {
		d.PartStates = make([]int, len(r.Parts))
		for j, p := range r.Parts {
			d.PartStates[j] = int(p)
		}
	}
	if rv := r.Received; rv != nil {
		d.Received = &receivedDoc{
			At: dbTime(rv.At), Sender: rv.Sender, Text: rv.Text, DCS: uint8(rv.DCS), Network: rv.Network, Operator: rv.Operator,
			SMSC: rv.SMSC, SMSCOperator: rv.SMSCOperator, SMSCCountry: rv.SMSCCountry, SMSCNetwork: rv.SMSCNetwork, PDUs: rv.PDUs,
		}
	}
	doc, err := json.Marshal(d)
	if err != nil { // a time beyond year 9999
		return nil, msgkit.Invalidf(testsystem.CodeInvalidResult, "results", "results[%d] has a time JSON cannot hold", i)
	}
	return doc, nil
}

// scanResult reads a result's resultColumns.
func scanResult(row pgx.Row) (testsystem.Result, error) {
	var r testsystem.Result
	var seq int64
	var doc []byte
	if err := row.Scan(&r.MsgID, &r.Session, &seq, &r.User, &r.Status, &doc); err != nil {
		return testsystem.Result{}, err
	}
	r.Seq = int(seq)
	var d resultDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return testsystem.Result{}, storageError(err, "test result ", r.MsgID)
	}
	price, err := parseNumeric(d.Price)
	if d.Price == "" {
		price, err = decimal.Decimal{}, nil
	}
	if err != nil {
		return testsystem.Result{}, storageError(err, "price of test result ", r.MsgID)
	}
	r.Node, r.GateID, r.Gate, r.Category, r.Supplier = d.Node, d.GateID, d.Gate, d.Category, d.Supplier
	r.OperatorID, r.Operator, r.Country, r.MCCMNC, r.Receiver = d.OperatorID, d.Operator, d.Country, d.MCCMNC, sms.MSISDN(d.Receiver)
	r.DCS, r.NumParts, r.Sender, r.Text, r.Mark, r.Price, r.Currency = gsm.DCS(d.DCS), d.NumParts, d.Sender, d.Text, d.Mark, price, d.Currency
	r.Error, r.SentAt, r.Deadline, r.DLRAt, r.DLRCode = d.Error, d.SentAt.UTC(), d.Deadline.UTC(), d.DLRAt.UTC(), sms.DLRError(d.DLRCode)
	r.FakeDLR, r.SenderMatch, r.TextMatch = testsystem.Check(d.FakeDLR), testsystem.Check(d.SenderMatch), testsystem.Check(d.TextMatch)
	r.EncodingMatch, r.DirectRoute, r.NationalSMSC = testsystem.Check(d.EncodingMatch), testsystem.Check(d.DirectRoute), testsystem.Check(d.NationalSMSC)
	if d.PartStates != nil {
		r.Parts = make([]sms.PartState, len(d.PartStates))
		for j, p := range d.PartStates {
			if p < 0 || p > math.MaxUint8 {
				return testsystem.Result{}, storageError(fmt.Errorf("part state %d out of range", p), "test result ", r.MsgID)
			}
			r.Parts[j] = sms.PartState(p)
		}
	}
	if rv := d.Received; rv != nil {
		r.Received = &testsystem.Received{
			At: rv.At.UTC(), Sender: rv.Sender, Text: rv.Text, DCS: gsm.DCS(rv.DCS), Network: rv.Network, Operator: rv.Operator,
			SMSC: rv.SMSC, SMSCOperator: rv.SMSCOperator, SMSCCountry: rv.SMSCCountry, SMSCNetwork: rv.SMSCNetwork, PDUs: rv.PDUs,
		}
	}
	if len(d.Raw) > 0 {
		for _, t := range docTexts(&r) {
			if b, ok := d.Raw[t.name]; ok {
				*t.p = string(b)
			}
		}
	}
	return r, nil
}
