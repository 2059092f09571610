package pgstore

import (
	"context"
	"errors"
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

// The statements of an import. The stage holds the rows the plan writes,
// is_new telling a created contact from a changed one; it lives for the
// import's transaction.
var (
	importStageSQL  = `CREATE TEMP TABLE contact_import_stage (is_new boolean NOT NULL, LIKE contacts) ON COMMIT DROP`
	importInsertSQL = "INSERT INTO contacts (" + contactWriteCols + ") SELECT " + contactWriteCols +
		" FROM contact_import_stage WHERE is_new"
	importUpdateSQL = func() string {
		src := make([]string, len(contactWriteNames))
		for i, c := range contactWriteNames {
			src[i] = "s." + c
		}
		return "UPDATE contacts SET (" + contactWriteCols + ") = (" + strings.Join(src, ", ") + ")" +
			" FROM contact_import_stage s WHERE NOT s.is_new AND contacts.service_uuid = s.service_uuid AND contacts.uuid = s.uuid"
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
// list's row, so imports into one list take turns, reads the list's
// contacts in use whose identifier key is one of the batch's (one
// query, the keys as an array parameter, the rows locked), plans the
// batch with contacts.ImportBatch.Plan, as memstore does, stages the
// created and changed rows with COPY and writes them with one INSERT and
// one UPDATE over the stage. No statement runs per item.
func (s *ContactsStore) Import(ctx context.Context, svc msgkit.ServiceUUID, b contacts.ImportBatch) (contacts.ImportResult, error) {
	list := b.Options.ListUUID
	if !storable(string(svc)) || !storable(list) {
		return contacts.ImportResult{}, invalidList(list)
	}
	keys := b.Keys()
	var result contacts.ImportResult
	err := inTx(ctx, s.pool, s.log, "contact import", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM contact_lists WHERE service_uuid = $1 AND uuid = $2 AND deleted IS NULL FOR UPDATE`,
			string(svc), list).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return final{invalidList(list)}
		}
		if err != nil {
			return err
		}
		var matched []contacts.Contact
		if len(keys) > 0 {
			rows, err := tx.Query(ctx, "SELECT "+contactSelect+" FROM contacts WHERE service_uuid = $1 AND list_uuid = $2"+
				" AND deleted IS NULL AND "+importKeySQL(b.Options.Identifier)+" = ANY($3::text[]) FOR UPDATE",
				string(svc), list, keys)
			if err != nil {
				return err
			}
			if matched, err = pgx.CollectRows(rows, scanContact); err != nil {
				return err
			}
		}
		plan := b.Plan(matched)
		if len(plan.Created)+len(plan.Changed) > 0 {
			if _, err := tx.Exec(ctx, importStageSQL); err != nil {
				return err
			}
			src := &stageRows{svc: svc, plan: &plan}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"contact_import_stage"}, append([]string{"is_new"}, contactWriteNames...), src); err != nil {
				if src.err != nil {
					return final{src.err}
				}
				return err
			}
			if _, err := tx.Exec(ctx, "ANALYZE contact_import_stage"); err != nil { // the join's plan needs its size
				return err
			}
			if len(plan.Created) > 0 {
				if _, err := tx.Exec(ctx, importInsertSQL); err != nil {
					return err
				}
			}
			if len(plan.Changed) > 0 {
				if _, err := tx.Exec(ctx, importUpdateSQL); err != nil {
					return err
				}
			}
		}
		result = plan.Result
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

// stageRows feeds COPY the plan's created then changed contacts, each
// row made when COPY asks for it.
type stageRows struct {
	svc  msgkit.ServiceUUID
	plan *contacts.ImportPlan
	i    int
	row  []any
	err  error
}

func (r *stageRows) Next() bool {
	if r.err != nil || r.i >= len(r.plan.Created)+len(r.plan.Changed) {
		return false
	}
	isNew := r.i < len(r.plan.Created)
	var c *contacts.Contact
	if isNew {
		c = &r.plan.Created[r.i]
	} else {
		c = &r.plan.Changed[r.i-len(r.plan.Created)]
	}
	r.i++
	args, err := contactArgs(r.svc, c)
	if err != nil {
		r.err = err
		return false
	}
	r.row = append(append(r.row[:0], isNew), args...)
	return true
}

func (r *stageRows) Values() ([]any, error) { return r.row, nil }

func (r *stageRows) Err() error { return r.err }
