package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

var (
	_ campaign.Store    = (*CampaignStore)(nil)
	_ campaign.RunStore = (*CampaignStore)(nil)
)

// CampaignStore keeps the tenants' campaigns (0019_campaigns.sql), a row
// each with every field a column, so that listings filter and sort in the
// database. Every statement names the tenant, so another tenant's
// campaign is NotFound.
//
// The schedule is kept as its type and Schedule.RRule() and read back
// with campaign.RestoreSchedule; a schedule that could not be read back
// is refused as Invalid when writing, as is text PostgreSQL cannot hold
// (a key that cannot be held is NotFound when looking up, as in
// memstore). The recipient lists are a text array in the order given,
// NULL for a nil slice. Times are kept to the microsecond and read back
// in UTC; Next and Last are NULL when zero, so a listing's next_dt and
// last_dt are null there, as memstore gives them. Create inserts with ON
// CONFLICT DO NOTHING, a UUID the tenant has already being Conflict
// campaign_exists. Update locks the row (SELECT … FOR UPDATE), runs fn
// and writes every column back in one transaction; fn's error is
// returned as it is and nothing is written. After a serialization
// failure or a deadlock the transaction runs again, fn included.
//
// The campaigns' runs (campaign.RunStore: tasks, messages and their
// leases) are in campaign_run.go, over the tables of
// 0020_campaign_runs.sql. Tasks and Messages answer NotFound for a
// campaign the tenant does not have, deleted ones included, as memstore
// does.
type CampaignStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// Campaigns is the store of the tenants' campaigns. It holds nothing but
// the DB's pool and logger.
func (db *DB) Campaigns() *CampaignStore { return &CampaignStore{pool: db.pool, log: db.log} }

// campaignColumns is the select list scanCampaign reads, over the alias c.
const campaignColumns = `c.uuid, c.name, c.status, c.sending_type, c.schedule_type, c.schedule_rrule, c.template, c.parts,
	c.webpush_title, c.webpush_body, c.webpush_target_url, c.webpush_icon, c.webpush_image, c.sender, c.lists,
	c.query_type, c.query, c.created_dt, c.updated_dt, c.next_dt, c.next_seq, c.last_dt, c.last_seq`

// campaignWriteCols and campaignWriteVals are the written columns and
// their typed placeholders, in the order campaignArgs gives the values.
const (
	campaignWriteCols = `service_uuid, uuid, name, status, sending_type, schedule_type, schedule_rrule, template, parts,
	webpush_title, webpush_body, webpush_target_url, webpush_icon, webpush_image, sender, lists,
	query_type, query, created_dt, updated_dt, next_dt, next_seq, last_dt, last_seq`
	campaignWriteVals = `$1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::bigint,
	$10::text, $11::text, $12::text, $13::text, $14::text, $15::text, $16::text[],
	$17::text, $18::text, $19::timestamptz, $20::timestamptz, $21::timestamptz, $22::bigint, $23::timestamptz, $24::bigint`
)

var (
	campaignInsertSQL = `INSERT INTO campaigns AS c (` + campaignWriteCols + `) VALUES (` + campaignWriteVals +
		`) ON CONFLICT (service_uuid, uuid) DO NOTHING RETURNING ` + campaignColumns
	campaignUpdateSQL = `UPDATE campaigns AS c SET (` + campaignWriteCols + `) = (` + campaignWriteVals +
		`) WHERE c.service_uuid = $1 AND c.uuid = $2 RETURNING ` + campaignColumns
	campaignSelectSQL = `SELECT ` + campaignColumns + ` FROM campaigns c WHERE c.service_uuid = $1 AND c.uuid = $2`
)

// campaignsTable is the listing of a tenant's campaigns, over the
// attributes of campaign.ListSpec(), in created order then UUID (byte order,
// COLLATE "C"), as memstore orders them.
var campaignsTable = listTable{
	From:   "campaigns c",
	Select: campaignColumns,
	Scope:  "c.service_uuid = $1",
	Attrs: map[string]listAttr{
		"name":          {"c.name", msgkit.AttrString},
		"status":        {"c.status", msgkit.AttrString},
		"sending_type":  {"c.sending_type", msgkit.AttrString},
		"schedule_type": {"c.schedule_type", msgkit.AttrString},
		"created_dt":    {"c.created_dt", msgkit.AttrDateTime},
		"updated_dt":    {"c.updated_dt", msgkit.AttrDateTime},
		"next_dt":       {"c.next_dt", msgkit.AttrDateTime},
		"last_dt":       {"c.last_dt", msgkit.AttrDateTime},
	},
	Order: "c.created_dt, c.uuid",
}

// campaignsNone lists nothing, for a tenant no row can have (text
// PostgreSQL cannot hold), the query checked all the same.
var campaignsNone = nothingOf(campaignsTable)

// campaignArgs are the values of campaignWriteCols for c of tenant, or
// Invalid naming a field that could not be stored and read back.
func campaignArgs(tenant msgkit.ServiceUUID, c *campaign.Campaign) ([]any, error) {
	rule := c.Schedule.RRule()
	for _, f := range []struct{ name, v string }{
		{"serviceUuid", string(tenant)}, {"uuid", c.UUID}, {"name", c.Name}, {"status", string(c.Status)},
		{"sending_type", string(c.Channel)}, {"schedule_type", string(c.Schedule.Type)}, {"schedule_rrule", rule},
		{"template", c.Template}, {"webpush_title", c.Webpush.Title}, {"webpush_body", c.Webpush.Body},
		{"webpush_target_url", c.Webpush.TargetURL}, {"webpush_icon", c.Webpush.Icon}, {"webpush_image", c.Webpush.Image},
		{"sender", c.Sender}, {"query_type", string(c.QueryType)}, {"query", c.Query},
	} {
		if err := invalidText("campaign", f.name, f.v); err != nil {
			return nil, err
		}
	}
	if err := invalidText("campaign", "recipient_lists", c.Lists...); err != nil {
		return nil, err
	}
	if c.Schedule.Type != "" {
		if _, err := campaign.RestoreSchedule(c.Schedule.Type, rule); err != nil {
			return nil, msgkit.Invalidf(campaign.CodeUnstorable, "schedule_rrule", "the schedule cannot be stored: %s", msgkit.MessageOf(err))
		}
	}
	return []any{
		string(tenant), c.UUID, c.Name, string(c.Status), string(c.Channel), string(c.Schedule.Type), rule, c.Template, int64(c.Parts),
		c.Webpush.Title, c.Webpush.Body, c.Webpush.TargetURL, c.Webpush.Icon, c.Webpush.Image, c.Sender, c.Lists,
		string(c.QueryType), c.Query, dbTime(c.Created), dbTime(c.Updated), dbTimeOrNil(c.Next), int64(c.NextSeq),
		dbTimeOrNil(c.Last), int64(c.LastSeq),
	}, nil
}

// scanCampaign reads a row of campaignColumns. A schedule that does not
// restore is an error of the database's content, for the caller to
// classify as a storage error.
func scanCampaign(row pgx.Row) (campaign.Campaign, error) {
	var c campaign.Campaign
	var rule string
	var next, last *time.Time
	var parts, nextSeq, lastSeq int64
	err := row.Scan(&c.UUID, &c.Name, &c.Status, &c.Channel, &c.Schedule.Type, &rule, &c.Template, &parts,
		&c.Webpush.Title, &c.Webpush.Body, &c.Webpush.TargetURL, &c.Webpush.Icon, &c.Webpush.Image, &c.Sender, &c.Lists,
		&c.QueryType, &c.Query, &c.Created, &c.Updated, &next, &nextSeq, &last, &lastSeq)
	if err != nil {
		return campaign.Campaign{}, err
	}
	if c.Schedule.Type != "" {
		if c.Schedule, err = campaign.RestoreSchedule(c.Schedule.Type, rule); err != nil {
			return campaign.Campaign{}, fmt.Errorf("campaign %s: %w", c.UUID, err)
		}
	}
	c.Parts, c.NextSeq, c.LastSeq = int(parts), int(nextSeq), int(lastSeq)
	c.Created, c.Updated, c.Next, c.Last = c.Created.UTC(), c.Updated.UTC(), readTime(next), readTime(last)
	return c, nil
}

func scanCampaignRow(row pgx.CollectableRow) (campaign.Campaign, error) { return scanCampaign(row) }

// campaignError passes a msgkit error on and classifies the others.
func campaignError(err error, id string) error {
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		return e
	}
	return classify(err, "campaign", "campaign "+id)
}

// Create stores c; a UUID the tenant has is Conflict campaign_exists.
func (s *CampaignStore) Create(ctx context.Context, tenant msgkit.ServiceUUID, c campaign.Campaign) (campaign.Campaign, error) {
	args, err := campaignArgs(tenant, &c)
	if err != nil {
		return campaign.Campaign{}, err
	}
	got, err := scanCampaign(s.pool.QueryRow(ctx, campaignInsertSQL, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return campaign.Campaign{}, campaign.Exists(c.UUID)
	}
	if err != nil {
		return campaign.Campaign{}, campaignError(err, c.UUID)
	}
	return got, nil
}

// Campaign returns a campaign of the tenant.
func (s *CampaignStore) Campaign(ctx context.Context, tenant msgkit.ServiceUUID, id string) (campaign.Campaign, error) {
	if !storable(string(tenant)) || !storable(id) {
		return campaign.Campaign{}, campaign.NotFound(id)
	}
	c, err := scanCampaign(s.pool.QueryRow(ctx, campaignSelectSQL, string(tenant), id))
	if errors.Is(err, pgx.ErrNoRows) {
		return campaign.Campaign{}, campaign.NotFound(id)
	}
	if err != nil {
		return campaign.Campaign{}, campaignError(err, id)
	}
	return c, nil
}

// Campaigns lists the tenant's campaigns through the listing engine, by
// created time then UUID unless q sorts them.
func (s *CampaignStore) Campaigns(ctx context.Context, tenant msgkit.ServiceUUID, q msgkit.ListQuery) (msgkit.Page[campaign.Campaign], error) {
	if !storable(string(tenant)) {
		return listPage(ctx, s.pool, campaignsNone, q, scanCampaignRow)
	}
	return listPage(ctx, s.pool, &campaignsTable, q, scanCampaignRow, string(tenant))
}

// Update locks the campaign, applies fn to it and writes every column
// back, in one transaction; the UUID stays. fn's error is returned as it
// is and nothing is written.
func (s *CampaignStore) Update(ctx context.Context, tenant msgkit.ServiceUUID, id string, fn func(c *campaign.Campaign) error) (campaign.Campaign, error) {
	if !storable(string(tenant)) || !storable(id) {
		return campaign.Campaign{}, campaign.NotFound(id)
	}
	var out campaign.Campaign
	err := inTx(ctx, s.pool, s.log, "updating a campaign", func(tx pgx.Tx) error {
		cur, err := scanCampaign(tx.QueryRow(ctx, campaignSelectSQL+` FOR UPDATE`, string(tenant), id))
		if errors.Is(err, pgx.ErrNoRows) {
			return final{campaign.NotFound(id)}
		}
		if err != nil {
			return err
		}
		c := cur
		if err := fn(&c); err != nil {
			return final{err}
		}
		c.UUID = cur.UUID
		args, err := campaignArgs(tenant, &c)
		if err != nil {
			return final{err}
		}
		out, err = scanCampaign(tx.QueryRow(ctx, campaignUpdateSQL, args...))
		return err
	})
	if f, ok := errors.AsType[final](err); ok {
		return campaign.Campaign{}, f.err
	}
	if err != nil {
		return campaign.Campaign{}, campaignError(err, id)
	}
	return out, nil
}

// Delete deletes a campaign.
func (s *CampaignStore) Delete(ctx context.Context, tenant msgkit.ServiceUUID, id string) error {
	if !storable(string(tenant)) || !storable(id) {
		return campaign.NotFound(id)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM campaigns WHERE service_uuid = $1 AND uuid = $2`, string(tenant), id)
	if err != nil {
		return campaignError(err, id)
	}
	if tag.RowsAffected() == 0 {
		return campaign.NotFound(id)
	}
	return nil
}

// exists returns nil for a campaign of the tenant, NotFound for another.
func (s *CampaignStore) exists(ctx context.Context, tenant msgkit.ServiceUUID, id string) error {
	if !storable(string(tenant)) || !storable(id) {
		return campaign.NotFound(id)
	}
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM campaigns WHERE service_uuid = $1 AND uuid = $2)`,
		string(tenant), id).Scan(&found)
	if err != nil {
		return campaignError(err, id)
	}
	if !found {
		return campaign.NotFound(id)
	}
	return nil
}
