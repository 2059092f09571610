package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/sms"
)

var _ inbound.Store = (*InboundStore)(nil)

// InboundStore keeps inbound messages (0040_inbound.sql) and queues their
// deliveries in sms_reports.
type InboundStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// Inbound is the store of inbound (mobile-originated) messages.
func (db *DB) Inbound() *InboundStore { return &InboundStore{pool: db.pool, log: db.log} }

// inboundColumns are the columns scanInbound reads, of inbound_messages m.
const inboundColumns = `m.id, m.conn, m.source, m.dest, m.dcs, m.body, m.parts, m.total, m.received_at, m.state, m.reason, m.route_id, m.account, m.url`

// inboundTable is the listing of inbound messages (inbound.ListSpec).
var inboundTable = listTable{
	From: "inbound_messages m", Select: inboundColumns, Scope: "TRUE",
	Attrs: map[string]listAttr{
		"id": {"m.id", msgkit.AttrString}, "state": {"m.state", msgkit.AttrString}, "connection": {"m.conn", msgkit.AttrString},
		"source": {"m.source", msgkit.AttrString}, "dest": {"m.dest", msgkit.AttrString}, "account": {"m.account", msgkit.AttrString},
		"routeId": {"m.route_id", msgkit.AttrNumber}, "receivedAt": {"m.received_at", msgkit.AttrDateTime},
	},
	Order: "m.id",
}

// keepInboundSQL inserts the message and, when $15 is not NULL (the
// report's URL), its delivery, in one statement: atomic without a
// transaction of its own, and one round trip.
const keepInboundSQL = `WITH m AS (
	INSERT INTO inbound_messages (id, conn, source, dest, dcs, body, parts, total, received_at, state, reason, route_id, account, url)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
	RETURNING id
)
INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
SELECT m.id, 0, $15, $16, 1, 0, $17, $18, '' FROM m WHERE $15::text IS NOT NULL`

// Keep saves m and queues r, when not nil, in sms_reports, in one
// statement.
func (s *InboundStore) Keep(ctx context.Context, m inbound.Message, r *sms.Report) error {
	if err := inbound.Check(m); err != nil {
		return err
	}
	var url *string
	var body []byte
	var next, created any
	if r != nil {
		if err := invalidText("inbound", "url", r.URL); err != nil {
			return err
		}
		url, body, next, created = &r.URL, r.Body, dbTime(r.NextAt), dbTime(r.CreatedAt)
	}
	_, err := s.pool.Exec(ctx, keepInboundSQL, string(m.ID), m.Conn, m.Source, m.Dest, m.DCS, m.Text, int32(m.Parts), int32(m.Total),
		dbTime(m.ReceivedAt), string(m.State), m.Reason, m.RouteID, m.Account, m.URL, url, body, next, created)
	return classify(err, "message", "inbound message "+string(m.ID)) // a taken id: message_exists, as memstore says
}

// Messages lists the messages by q, by id unless q sorts them.
func (s *InboundStore) Messages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[inbound.Message], error) {
	return listPage(ctx, s.pool, &inboundTable, q, scanInbound)
}

func scanInbound(row pgx.CollectableRow) (inbound.Message, error) {
	var m inbound.Message
	var parts, total int32
	var state string
	err := row.Scan(&m.ID, &m.Conn, &m.Source, &m.Dest, &m.DCS, &m.Text, &parts, &total, &m.ReceivedAt, &state, &m.Reason, &m.RouteID,
		&m.Account, &m.URL)
	m.Parts, m.Total, m.State, m.ReceivedAt = int(parts), int(total), inbound.State(state), m.ReceivedAt.UTC()
	return m, err
}
