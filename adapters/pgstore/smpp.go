package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

var _ smpp.Store = (*SMPPStore)(nil)

// SMPPStore keeps the parts SMSCs took over SMPP (0022_smpp.sql), shared
// by every replica. Its lookups take their keys as arrays and are planned
// for each call (QueryExecModeDescribeExec): a generic plan made while the
// table was small would scan it, and keep scanning it as it grows.
type SMPPStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// SMPP is the store of the parts SMSCs took over SMPP, by their ids.
func (db *DB) SMPP() *SMPPStore { return &SMPPStore{pool: db.pool, log: db.log} }

// SaveSubmitted records parts the SMSC took in one statement; a part
// saved again keeps the newest id (the last of subs when it repeats one).
func (s *SMPPStore) SaveSubmitted(ctx context.Context, subs []smpp.Submitted) error {
	last := map[smpp.PartKey]int{}
	for i, sub := range subs {
		if err := invalidText("submitted part", "msg_id", sub.MsgID); err != nil {
			return err
		}
		if err := invalidText("submitted part", "conn", sub.Conn); err != nil {
			return err
		}
		last[sub.PartKey] = i
	}
	var msgs, conns []string
	var parts []int32
	var ids [][]byte
	for i, sub := range subs {
		if last[sub.PartKey] != i {
			continue
		}
		msgs, parts, conns, ids = append(msgs, string(sub.MsgID)), append(parts, int32(sub.PartNum)), append(conns, sub.Conn), append(ids, []byte(sub.SMSCID))
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO smpp_submitted (msg_id, part_num, conn, smsc_id)
		SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bytea[])
		ON CONFLICT (msg_id, part_num) DO UPDATE SET conn = EXCLUDED.conn, smsc_id = EXCLUDED.smsc_id, created_at = now()`,
		msgs, parts, conns, ids)
	return classify(err, "submitted_part", "submitted parts")
}

// SubmittedParts returns the records of the keys the SMSCs took.
func (s *SMPPStore) SubmittedParts(ctx context.Context, keys []smpp.PartKey) (map[smpp.PartKey]smpp.Submitted, error) {
	var msgs []string
	var parts []int32
	for _, k := range keys {
		if storable(string(k.MsgID)) {
			msgs, parts = append(msgs, string(k.MsgID)), append(parts, int32(k.PartNum))
		}
	}
	if len(msgs) == 0 {
		return map[smpp.PartKey]smpp.Submitted{}, nil
	}
	return querySubmitted(ctx, s, func(sub smpp.Submitted) smpp.PartKey { return sub.PartKey },
		`SELECT s.msg_id, s.part_num, s.conn, s.smsc_id FROM smpp_submitted s
		JOIN unnest($1::text[], $2::int[]) AS k(msg_id, part_num) USING (msg_id, part_num)`, msgs, parts)
}

// querySubmitted runs a query of submitted parts, planned for its
// arguments (see SMPPStore), and keys its rows by key.
func querySubmitted[K comparable](ctx context.Context, s *SMPPStore, key func(smpp.Submitted) K, sql string, args ...any) (map[K]smpp.Submitted, error) {
	rows, err := s.pool.Query(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return nil, classify(err, "submitted_part", "submitted parts")
	}
	defer rows.Close()
	out := map[K]smpp.Submitted{}
	for rows.Next() {
		sub, err := scanSubmitted(rows)
		if err != nil {
			return nil, storageError(err, "reading submitted parts")
		}
		out[key(sub)] = sub
	}
	return out, classify(rows.Err(), "submitted_part", "submitted parts")
}

func scanSubmitted(row pgx.Row) (smpp.Submitted, error) {
	var sub smpp.Submitted
	var msg string
	var part int32
	var id []byte
	if err := row.Scan(&msg, &part, &sub.Conn, &id); err != nil {
		return smpp.Submitted{}, err
	}
	sub.MsgID, sub.PartNum, sub.SMSCID = sms.MessageID(msg), int(part), string(id)
	return sub, nil
}

// PartsOf finds the parts conn's SMSC calls by ids, in one query: of an
// id given to several parts, the newest.
func (s *SMPPStore) PartsOf(ctx context.Context, conn string, ids []string) (map[string]smpp.Submitted, error) {
	if !storable(conn) || len(ids) == 0 {
		return map[string]smpp.Submitted{}, nil
	}
	raw := make([][]byte, len(ids))
	for i, id := range ids {
		raw[i] = []byte(id)
	}
	return querySubmitted(ctx, s, func(sub smpp.Submitted) string { return sub.SMSCID },
		`SELECT DISTINCT ON (smsc_id) msg_id, part_num, conn, smsc_id FROM smpp_submitted
		WHERE conn = $1 AND smsc_id = ANY($2::bytea[])
		ORDER BY smsc_id, created_at DESC`, conn, raw)
}

// PurgeSubmitted forgets the parts submitted before t, whose receipts
// can no longer come, and says how many.
func (s *SMPPStore) PurgeSubmitted(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM smpp_submitted WHERE created_at < $1`, before)
	if err != nil {
		return 0, classify(err, "submitted_part", "submitted parts")
	}
	return tag.RowsAffected(), nil
}
