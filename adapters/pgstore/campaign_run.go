package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

// The runs of campaigns (campaign.RunStore, 0020_campaign_runs.sql): a row
// of campaign_tasks per campaign and occurrence, a row of
// campaign_messages per task and contact.
//
// ClaimDue is one transaction: it locks the due active campaigns, oldest
// Next first, with FOR UPDATE SKIP LOCKED (a campaign another replica is
// claiming is left to it; one it advanced meanwhile no longer matches once
// its lock is released, as PostgreSQL rechecks a locked row), and for each
// inserts the task of the occurrence at Next with ON CONFLICT DO NOTHING
// on (tenant, campaign, scheduled time) and writes the campaign back whole
// after advance, as Update does, every campaign's two statements in one
// batch. The unique key keeps each occurrence one task even if a
// campaign's Next comes back to a time it had. It returns the tasks
// inserted. ClaimTasks leases, in one statement, the pending and running
// tasks whose lease is NULL or ended (a MATERIALIZED CTE of FOR UPDATE
// SKIP LOCKED, so the limit is never exceeded), oldest first.
//
// Each lease-bound call (QueueMessages, FinishMessages, EndTask) is one
// statement: a CTE locks the task row while its lease_until IS NOT
// DISTINCT FROM t.LeaseUntil (both truncated to the microsecond, as
// stored) and its state is pending or running, and the writes hang off
// that CTE, so with any other lease nothing is written and the call is
// Conflict lease_lost. A lease ends in the database's view when the row
// says so, not by the clock: the lease a runner holds stays valid for its
// own calls until another runner claims the task. QueueMessages inserts a
// page (an INSERT … SELECT over unnest of arrays, in the page's order)
// with ON CONFLICT DO NOTHING on both unique keys, so a message whose
// contact or address the task has, or an earlier message of the page has,
// is skipped, and adds the rows inserted to recipients. FinishMessages
// updates only rows still queued and adds the rows updated to sent or
// failed (any status but sent counts as failed, as in memstore); the
// first outcome given for a contact wins. Both renew the lease. A text
// PostgreSQL cannot hold is Invalid.
//
// FinishMessages passes the page's outcomes as one jsonb object keyed by
// contact UUID, which each queued row of the task looks its outcome up
// in (a binary search of the object's keys), rather than joining the
// rows with unnest of arrays: a join planned when the table's statistics
// are stale (a new campaign_messages, or one that grew since autovacuum
// last analysed it) takes the task's queued rows for one row and
// rescans the unnested page for each of them: 1,000 × 1,000 comparisons,
// 150 to 180 ms a page of 1,000, where the lookup keeps the statement at
// about 10 ms, most of it the updated rows' new entries in the two
// unique indexes (status is in the partial index's predicate, so the
// update is not heap-only).
//
// A finished message leaves a dead entry in campaign_messages_queued
// until vacuum, so QueuedMessages steps over the entries of the
// messages already sent: from under 1 ms to about 5 ms a call over a run
// of 500,000 messages when autovacuum does not run meanwhile.
//
// Tasks and Messages read a campaign of the tenant (NotFound for another
// tenant's, an unknown or a deleted campaign, whose tasks stay). Messages
// takes at most limit messages of each task in contact order (a LATERAL
// subquery over the primary key) and sorts only those, so a page of a
// campaign with half a million messages reads a page.

// taskColumns is the select list scanTask reads, over the alias k.
const taskColumns = `k.id, k.service_uuid, k.campaign_uuid, k.scheduled_at, k.state, k.cursor, k.exhausted,
	k.recipients, k.sent, k.failed, k.attempts, k.created_at, k.finished_at, k.lease_until`

// runMessageColumns is the select list scanRunMessage reads, over the alias m.
const runMessageColumns = `m.task_id, m.contact_uuid, m.address, m.status, m.msg_id, m.error, m.updated_at`

// heldTask is the CTE that locks task $1 while its lease is $2 and it
// may run; the lease-bound statements write only through it.
const heldTask = `held AS (
	SELECT id FROM campaign_tasks
	WHERE id = $1 AND lease_until IS NOT DISTINCT FROM $2::timestamptz AND state IN ('pending', 'running')
	FOR UPDATE)`

var (
	claimDueSQL = `SELECT c.service_uuid, ` + campaignColumns + ` FROM campaigns c
		WHERE c.status = 'active' AND c.next_dt <= $1
		ORDER BY c.next_dt, c.uuid, c.service_uuid LIMIT $2 FOR UPDATE SKIP LOCKED`
	insertTaskSQL = `INSERT INTO campaign_tasks AS k (service_uuid, campaign_uuid, scheduled_at, state, cursor, exhausted,
			recipients, sent, failed, attempts, created_at)
		VALUES ($1, $2, $3, 'pending', '', false, 0, 0, 0, 0, $4)
		ON CONFLICT (service_uuid, campaign_uuid, scheduled_at) DO NOTHING RETURNING ` + taskColumns
	claimTasksSQL = `WITH free AS MATERIALIZED (
			SELECT id FROM campaign_tasks
			WHERE state IN ('pending', 'running') AND (lease_until IS NULL OR lease_until <= $1)
			ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
		UPDATE campaign_tasks k SET lease_until = $3 FROM free WHERE k.id = free.id RETURNING ` + taskColumns
	queueMessagesSQL = `WITH ` + heldTask + `,
		ins AS (
			INSERT INTO campaign_messages (task_id, contact_uuid, address, status, msg_id, error, updated_at)
			SELECT held.id, p.contact, p.address, 'queued', '', '', p.updated
			FROM held CROSS JOIN unnest($3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS p(contact, address, updated, n)
			ORDER BY p.n
			ON CONFLICT DO NOTHING
			RETURNING 1)
		UPDATE campaign_tasks k SET recipients = k.recipients + (SELECT count(*) FROM ins),
			cursor = $6, exhausted = $7, state = 'running', lease_until = $8
		FROM held WHERE k.id = held.id RETURNING ` + taskColumns
	finishMessagesSQL = `WITH ` + heldTask + `,
		upd AS (
			UPDATE campaign_messages m SET status = $3::jsonb -> m.contact_uuid ->> 0, msg_id = $3::jsonb -> m.contact_uuid ->> 1,
				error = $3::jsonb -> m.contact_uuid ->> 2, updated_at = ($3::jsonb -> m.contact_uuid ->> 3)::timestamptz
			FROM held WHERE m.task_id = held.id AND m.status = 'queued' AND $3::jsonb ? m.contact_uuid
			RETURNING m.status)
		UPDATE campaign_tasks k SET sent = k.sent + (SELECT count(*) FROM upd WHERE upd.status = 'sent'),
			failed = k.failed + (SELECT count(*) FROM upd WHERE upd.status <> 'sent'), lease_until = $4
		FROM held WHERE k.id = held.id RETURNING ` + taskColumns
	endTaskSQL = `WITH ` + heldTask + `
		UPDATE campaign_tasks k SET state = $3, finished_at = $4, lease_until = NULL FROM held WHERE k.id = held.id`
	giveBackTaskSQL = `WITH ` + heldTask + `
		UPDATE campaign_tasks k SET lease_until = $3, attempts = $4 FROM held WHERE k.id = held.id`
	queuedMessagesSQL = `SELECT ` + runMessageColumns + ` FROM campaign_messages m
		WHERE m.task_id = $1 AND m.status = 'queued' ORDER BY m.contact_uuid LIMIT $2`
	runTasksSQL = `SELECT ` + taskColumns + ` FROM campaign_tasks k
		WHERE k.service_uuid = $1 AND k.campaign_uuid = $2 ORDER BY k.scheduled_at, k.id`
	runMessagesSQL = `SELECT ` + runMessageColumns + ` FROM campaign_tasks k
		CROSS JOIN LATERAL (SELECT * FROM campaign_messages m WHERE m.task_id = k.id ORDER BY m.contact_uuid LIMIT $3) m
		WHERE k.service_uuid = $1 AND k.campaign_uuid = $2
		ORDER BY k.scheduled_at, k.id, m.contact_uuid LIMIT $3`
)

// scanTask reads a row of taskColumns.
func scanTask(row pgx.CollectableRow) (campaign.Task, error) {
	var t campaign.Task
	var tenant string
	var finished, lease *time.Time
	err := row.Scan(&t.ID, &tenant, &t.Campaign, &t.ScheduledAt, &t.State, &t.Cursor, &t.Exhausted,
		&t.Recipients, &t.Sent, &t.Failed, &t.Attempts, &t.Created, &finished, &lease)
	if err != nil {
		return campaign.Task{}, err
	}
	t.Tenant = msgkit.ServiceUUID(tenant)
	t.ScheduledAt, t.Created, t.Finished, t.LeaseUntil = t.ScheduledAt.UTC(), t.Created.UTC(), readTime(finished), readTime(lease)
	return t, nil
}

// scanRunMessage reads a row of runMessageColumns.
func scanRunMessage(row pgx.CollectableRow) (campaign.Message, error) {
	var m campaign.Message
	if err := row.Scan(&m.Task, &m.Contact, &m.Address, &m.Status, &m.MsgID, &m.Error, &m.Updated); err != nil {
		return campaign.Message{}, err
	}
	m.Updated = m.Updated.UTC()
	return m, nil
}

// prefixedRow scans the columns of first before those its caller asks
// for, so scanCampaign reads a campaign behind its tenant.
type prefixedRow struct {
	pgx.Row
	first []any
}

func (r prefixedRow) Scan(dest ...any) error { return r.Row.Scan(append(r.first, dest...)...) }

// leaseLost is the refusal of a lease-bound call on a task whose lease
// is no longer the caller's.
func leaseLost(id int64) error {
	return msgkit.Errorf(msgkit.Conflict, campaign.CodeLeaseLost, "task %d is held by another runner", id)
}

// runError passes a msgkit error on and classifies the others.
func runError(err error, what string) error {
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		return e
	}
	return storageError(err, what)
}

// ClaimDue makes the task of each due occurrence and advances its
// campaign, in one transaction (see the runs' comment above).
func (s *CampaignStore) ClaimDue(ctx context.Context, now time.Time, limit int, advance func(c *campaign.Campaign)) ([]campaign.Task, error) {
	if limit <= 0 {
		return nil, nil
	}
	now = dbTime(now)
	var made []campaign.Task
	err := inTx(ctx, s.pool, s.log, "claiming due campaigns", func(tx pgx.Tx) error {
		made = nil
		type due struct {
			tenant string
			c      campaign.Campaign
		}
		rows, err := tx.Query(ctx, claimDueSQL, now, limit)
		if err != nil {
			return err
		}
		dues, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (due, error) {
			var d due
			c, err := scanCampaign(prefixedRow{Row: row, first: []any{&d.tenant}})
			d.c = c
			return d, err
		})
		if err != nil {
			return err
		}
		if len(dues) == 0 {
			return nil
		}
		batch := &pgx.Batch{}
		for _, d := range dues {
			c := d.c
			at := c.Next
			advance(&c)
			c.UUID = d.c.UUID
			args, err := campaignArgs(msgkit.ServiceUUID(d.tenant), &c)
			if err != nil {
				return final{err}
			}
			batch.Queue(insertTaskSQL, d.tenant, d.c.UUID, at, now)
			batch.Queue(campaignUpdateSQL, args...)
		}
		br := tx.SendBatch(ctx, batch)
		for range dues {
			rows, err := br.Query()
			if err != nil {
				_ = br.Close()
				return err
			}
			tasks, err := pgx.CollectRows(rows, scanTask)
			if err != nil {
				_ = br.Close()
				return err
			}
			made = append(made, tasks...)
			if _, err := br.Exec(); err != nil {
				_ = br.Close()
				return err
			}
		}
		return br.Close()
	})
	if f, ok := errors.AsType[final](err); ok {
		return nil, f.err
	}
	if err != nil {
		return nil, runError(err, "claiming due campaigns")
	}
	return made, nil
}

// ClaimTasks leases up to limit tasks whose lease has ended, oldest
// first.
func (s *CampaignStore) ClaimTasks(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]campaign.Task, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, claimTasksSQL, dbTime(now), limit, dbTime(now.Add(lease)))
	if err != nil {
		return nil, runError(err, "claiming campaign tasks")
	}
	tasks, err := pgx.CollectRows(rows, scanTask)
	if err != nil {
		return nil, runError(err, "claiming campaign tasks")
	}
	slices.SortFunc(tasks, func(a, b campaign.Task) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	return tasks, nil
}

// heldOne runs a lease-bound statement that returns the task, Conflict
// lease_lost when it returns none.
func (s *CampaignStore) heldOne(ctx context.Context, id int64, what, sql string, args ...any) (campaign.Task, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return campaign.Task{}, runError(err, what)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTask)
	if errors.Is(err, pgx.ErrNoRows) {
		return campaign.Task{}, leaseLost(id)
	}
	if err != nil {
		return campaign.Task{}, runError(err, what)
	}
	return t, nil
}

// QueueMessages stores a page of a held task's messages and its progress
// in one statement.
func (s *CampaignStore) QueueMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	if err := invalidText("campaign_task", "cursor", t.Cursor); err != nil {
		return campaign.Task{}, err
	}
	contacts, addresses := make([]string, len(msgs)), make([]string, len(msgs))
	updated := make([]time.Time, len(msgs))
	for i, m := range msgs {
		if err := invalidText("campaign_message", "contact", m.Contact, m.Address); err != nil {
			return campaign.Task{}, err
		}
		contacts[i], addresses[i], updated[i] = m.Contact, m.Address, dbTime(m.Updated)
	}
	return s.heldOne(ctx, t.ID, "queueing campaign messages", queueMessagesSQL,
		t.ID, dbTimeOrNil(t.LeaseUntil), contacts, addresses, updated, t.Cursor, t.Exhausted, dbTime(until))
}

// QueuedMessages lists up to limit queued messages of a task, by contact.
func (s *CampaignStore) QueuedMessages(ctx context.Context, task int64, limit int) ([]campaign.Message, error) {
	rows, err := s.pool.Query(ctx, queuedMessagesSQL, task, max(limit, 0))
	if err != nil {
		return nil, runError(err, "reading queued campaign messages")
	}
	msgs, err := pgx.CollectRows(rows, scanRunMessage)
	if err != nil {
		return nil, runError(err, "reading queued campaign messages")
	}
	return msgs, nil
}

// FinishMessages records the outcomes of a held task's queued messages
// in one statement.
func (s *CampaignStore) FinishMessages(ctx context.Context, t campaign.Task, msgs []campaign.Message, until time.Time) (campaign.Task, error) {
	outcomes := make(map[string][4]string, len(msgs))
	for _, m := range msgs {
		if _, seen := outcomes[m.Contact]; seen || m.Status == campaign.MessageQueued {
			continue // not the first outcome for the contact, or none
		}
		if err := invalidText("campaign_message", "message", m.Contact, string(m.Status), m.MsgID, m.Error); err != nil {
			return campaign.Task{}, err
		}
		outcomes[m.Contact] = [4]string{string(m.Status), m.MsgID, m.Error, dbTime(m.Updated).Format(time.RFC3339Nano)}
	}
	doc, err := json.Marshal(outcomes)
	if err != nil {
		return campaign.Task{}, storageError(err, "campaign message outcomes")
	}
	return s.heldOne(ctx, t.ID, "finishing campaign messages", finishMessagesSQL, t.ID, dbTimeOrNil(t.LeaseUntil), doc, dbTime(until))
}

// EndTask ends a held task as done or stopped at at, or gives it back
// until at with t's Attempts.
func (s *CampaignStore) EndTask(ctx context.Context, t campaign.Task, state campaign.TaskState, at time.Time) error {
	sql, args := giveBackTaskSQL, []any{t.ID, dbTimeOrNil(t.LeaseUntil), dbTime(at), t.Attempts}
	if state == campaign.TaskDone || state == campaign.TaskStopped {
		sql, args = endTaskSQL, []any{t.ID, dbTimeOrNil(t.LeaseUntil), string(state), dbTime(at)}
	}
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return runError(err, "ending a campaign task")
	}
	if tag.RowsAffected() == 0 {
		return leaseLost(t.ID)
	}
	return nil
}

// Tasks lists a campaign's tasks by scheduled time.
func (s *CampaignStore) Tasks(ctx context.Context, tenant msgkit.ServiceUUID, id string) ([]campaign.Task, error) {
	if err := s.exists(ctx, tenant, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, runTasksSQL, string(tenant), id)
	if err != nil {
		return nil, campaignError(err, id)
	}
	tasks, err := pgx.CollectRows(rows, scanTask)
	if err != nil {
		return nil, campaignError(err, id)
	}
	return tasks, nil
}

// Messages lists up to limit of a campaign's messages, by task scheduled
// time, then contact.
func (s *CampaignStore) Messages(ctx context.Context, tenant msgkit.ServiceUUID, id string, limit int) ([]campaign.Message, error) {
	if err := s.exists(ctx, tenant, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, runMessagesSQL, string(tenant), id, max(limit, 0))
	if err != nil {
		return nil, campaignError(err, id)
	}
	msgs, err := pgx.CollectRows(rows, scanRunMessage)
	if err != nil {
		return nil, campaignError(err, id)
	}
	return msgs, nil
}

// backlogSQL reads the tasks not finished through the partial index
// campaign_tasks_claimable, which holds them only: its cost follows the
// runs under way, not the tasks of the past. recipients - sent - failed
// is a task's messages still queued (FinishMessages counts each queued
// row it finishes once).
const backlogSQL = `SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'running'),
	coalesce(sum(recipients - sent - failed), 0)::bigint
	FROM campaign_tasks WHERE state IN ('pending', 'running')`

// Backlog counts the tasks not finished and their queued messages.
func (s *CampaignStore) Backlog(ctx context.Context) (campaign.Backlog, error) {
	var b campaign.Backlog
	if err := s.pool.QueryRow(ctx, backlogSQL).Scan(&b.Pending, &b.Running, &b.Messages); err != nil {
		return campaign.Backlog{}, runError(err, "counting the campaigns' backlog")
	}
	return b, nil
}
