package pgstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ contacts.ImportStore = (*ContactsStore)(nil)

// contactWriteNames are the names of contactWriteCols, for COPY.
var contactWriteNames = strings.Split(contactWriteCols, ", ")

// The statements of an import. The stage holds a chunk's changed rows
// for the UPDATE; it lives for the import's transaction. It is never
// analysed: the planner then reads its size from its pages, which for a
// chunk's rows is as good as statistics, without an ANALYZE per chunk.
var (
	importStageSQL  = `CREATE TEMP TABLE contact_import_stage (LIKE contacts) ON COMMIT DROP`
	importUpdateSQL = func() string {
		src := make([]string, len(contactWriteNames))
		for i, c := range contactWriteNames {
			src[i] = "s." + c
		}
		return "UPDATE contacts SET (" + contactWriteCols + ") = (" + strings.Join(src, ", ") + ")" +
			" FROM contact_import_stage s WHERE contacts.service_uuid = s.service_uuid AND contacts.uuid = s.uuid"
	}()
)

// importKeySQL is the expression of contacts.ImportKey for the
// identifier f: the E.164 column of a phone field, the folded column of a
// text field, the folded value of a custom column.
func importKeySQL(f segmentation.Field) string {
	if n := f.Column(); n > 0 {
		return "(contacts.custom_fold ->> '" + strconv.Itoa(n) + "')"
	}
	if f.Kind() == segmentation.KindMobile {
		return "contacts." + f.String()
	}
	return "contacts." + f.String() + "_fold"
}

// Import imports a batch into a list in use of the tenant (else Invalid
// naming list_uuid) in one transaction: whole or nothing. It locks the
// list's row, so imports into one list take turns, and finds the
// contact each of the items' keys matches, the first in store order
// (one query, the keys as an array parameter, the uuids kept). Then it
// plans and writes the items a chunk at a time (contacts.ImportChunk)
// with contacts.ImportRun.Plan, as memstore decides them: it reads the
// chunk's matched contacts by uuid (rows locked; those earlier chunks
// created or changed as they left them), copies the created rows into
// contacts and the changed ones into a stage, and updates from it with
// one UPDATE. No statement runs per item; no more than a chunk's
// contacts are held at once. Matching by uuid, not by key, keeps each
// chunk's reads on the primary key: a key lookup per chunk on a table
// the import grows, before statistics know its size, is a scan of the
// tenant's contacts. The body was read before the transaction began, so
// none waits on a client, and a retry reads the items again.
func (s *ContactsStore) Import(ctx context.Context, svc msgkit.ServiceUUID, b contacts.ImportBatch) (contacts.ImportResult, error) {
	list := b.Options.ListUUID
	if !storable(string(svc)) || !storable(list) {
		return contacts.ImportResult{}, contacts.InvalidList(list)
	}
	chunk := cmp.Or(s.importChunk, contacts.ImportChunk)
	var result contacts.ImportResult
	err := inTx(ctx, s.pool, s.log, "contact import", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM contact_lists WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL FOR UPDATE`,
			string(svc), list).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return final{contacts.InvalidList(list)}
		}
		if err != nil {
			return err
		}
		ids, err := importMatches(ctx, tx, svc, &b)
		if err != nil {
			return err
		}
		run := b.Start()
		staged := false
		for items := range b.Items.Chunks(chunk) {
			var uuids []string
			seen := map[string]bool{}
			for i := range items {
				if id := ids[run.Key(&items[i])]; id != "" && !seen[id] {
					seen[id] = true
					uuids = append(uuids, id)
				}
			}
			var matched []contacts.Contact
			if len(uuids) > 0 {
				rows, err := tx.Query(ctx, "SELECT "+contactSelect+" FROM contacts WHERE service_uuid = $1 AND uuid = ANY($2::text[]) FOR UPDATE",
					string(svc), uuids)
				if err != nil {
					return err
				}
				if matched, err = pgx.CollectRows(rows, scanContact); err != nil {
					return err
				}
			}
			plan := run.Plan(items, matched)
			for _, c := range plan.Created {
				if k := contacts.ImportKey(c, b.Options.Identifier); k != "" {
					if _, again := ids[k]; again {
						ids[k] = c.UUID // later items of the key match it
					}
				}
			}
			if err := copyContacts(ctx, tx, svc, "contacts", plan.Created); err != nil {
				return err
			}
			if len(plan.Changed) == 0 {
				continue
			}
			stage := importStageSQL
			if staged {
				stage = "TRUNCATE contact_import_stage"
			}
			if _, err := tx.Exec(ctx, stage); err != nil {
				return err
			}
			staged = true
			if err := copyContacts(ctx, tx, svc, "contact_import_stage", plan.Changed); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, importUpdateSQL); err != nil {
				return err
			}
		}
		result = run.Result()
		return nil
	})
	if f, ok := errors.AsType[final](err); ok {
		return contacts.ImportResult{}, f.err
	}
	if err != nil {
		return contacts.ImportResult{}, classify(err, "contact", "contact import into list "+list)
	}
	return result, nil
}

// importMatchBatch is the number of keys importMatches looks up in one
// query: a bound on the query's parameter, which pgx keeps encoded on its
// connection until the connection's next query.
const importMatchBatch = 5000

// importMatches finds, for the keys of the batch's items, the uuid of
// the contact of the list in use each matches, the first in store order
// (created, then uuid), and marks the keys that more than one item has
// (their contact may be one an earlier chunk creates) with "". Keys of
// one item matching no contact are left out: most of a new list's.
//
// The lookup is planned generically: the plan then does not depend on
// the list's own estimate, which is small for a list an import is
// filling before statistics know it, and with an index on the list and
// the key (contacts_import_mobile and contacts_import_email, migration
// 0032) it probes the index once a key; planned for the list's stale
// estimate, it read the whole list for each batch of keys instead.
func importMatches(ctx context.Context, tx pgx.Tx, svc msgkit.ServiceUUID, b *contacts.ImportBatch) (map[string]string, error) {
	keys := slices.Sorted(b.Keys())
	ids := map[string]string{}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			ids[keys[i]] = ""
		}
	}
	keys = slices.Compact(keys)
	query := importMatchSQL(b.Options.Identifier)
	if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
		return nil, err
	}
	for batch := range slices.Chunk(keys, importMatchBatch) {
		rows, err := tx.Query(ctx, query, string(svc), b.Options.ListUUID, batch)
		if err != nil {
			return nil, err
		}
		var k, id string
		if _, err := pgx.ForEachRow(rows, []any{&k, &id}, func() error {
			ids[k] = id
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = DEFAULT"); err != nil {
		return nil, err
	}
	return ids, nil
}

// importMatchSQL looks up, for the keys $3 of identifier f, the first
// contact in store order of tenant $1's list $2 in use that each
// matches.
func importMatchSQL(f segmentation.Field) string {
	key := importKeySQL(f)
	return "SELECT DISTINCT ON (" + key + ") " + key + ", contacts.uuid FROM contacts WHERE service_uuid = $1 AND list_uuid = $2" +
		" AND deleted IS NULL AND " + key + " = ANY($3::text[]) ORDER BY " + key + ", contacts.created, contacts.uuid"
}

// copyContacts copies cs of tenant svc into table with COPY, each row
// made when COPY asks for it; a contact PostgreSQL cannot hold is final.
func copyContacts(ctx context.Context, tx pgx.Tx, svc msgkit.ServiceUUID, table string, cs []*contacts.Contact) error {
	if len(cs) == 0 {
		return nil
	}
	src := &contactRows{svc: svc, cs: cs}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, contactWriteNames, src); err != nil {
		if src.err != nil {
			return final{src.err}
		}
		return err
	}
	return nil
}

// contactRows feeds COPY the rows of contacts, each made when COPY asks
// for it.
type contactRows struct {
	svc msgkit.ServiceUUID
	cs  []*contacts.Contact
	i   int
	row []any
	err error
}

func (r *contactRows) Next() bool {
	if r.err != nil || r.i >= len(r.cs) {
		return false
	}
	r.row, r.err = contactArgs(r.svc, r.cs[r.i])
	r.i++
	return r.err == nil
}

func (r *contactRows) Values() ([]any, error) { return r.row, nil }

func (r *contactRows) Err() error { return r.err }
