package pgstore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// The outbound queue's contract runs with TestSMSContract; the tests below
// cover what is particular to PostgreSQL.

// TestOutboundClaimUsesTheQueueIndex fills the queue as it looks after
// an outage (many parts due, a few leased, a few of expired messages) and
// checks that ClaimParts walks the due index in order, leases by ctid and
// reads messages and parts by key, never a whole table.
func TestOutboundClaimUsesTheQueueIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the queue to read plans; the full suite runs it")
	}
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "100")); err != nil {
		t.Fatal(err)
	}
	const fill = `
		INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
			part_price, charged, currency, submitted_at, expires_at)
		SELECT 'm-' || g, 'shop', 'text', 'Shop', false, '+38640123456', 1, false, 0, '',
			0.01, 0.02, 'EUR', $1::timestamptz - make_interval(secs => g),
			$1::timestamptz + CASE WHEN g % 97 = 0 THEN -interval '1 second' ELSE interval '1 day' END
		FROM generate_series(1, 20000) g;
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		SELECT 'm-' || g, n, 'x', 1, 0, 0, 0, 0, 0, 1, 0, $1
		FROM generate_series(1, 20000) g, generate_series(0, 1) n;
		INSERT INTO sms_outbound (msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
		SELECT 'm-' || g, n,
			CASE WHEN g % 300 = 0 THEN $1::timestamptz + interval '1 hour' ELSE $1::timestamptz - make_interval(secs => g) END,
			0, '', 2, $1::timestamptz + CASE WHEN g % 97 = 0 THEN -interval '1 second' ELSE interval '1 day' END
		FROM generate_series(1, 20000) g, generate_series(0, 1) n;
		ANALYZE sms_messages; ANALYZE sms_parts; ANALYZE sms_outbound`
	execScript(t, s, fill, t1)
	plan := explain(t, s, claimPartsSQL, t1, t1.Add(time.Minute), 64)
	if !strings.Contains(plan, "Index Scan using sms_outbound_due_idx") || !strings.Contains(plan, "Tid Scan") ||
		strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash") {
		t.Errorf("ClaimParts plan does not walk the queue's index and read the rest by key:\n%s", plan)
	}
	if testing.Verbose() {
		t.Logf("ClaimParts plan:\n%s", plan)
	}
	keys := []string{"m-1", "m-2"}
	nums := []int32{0, 1}
	leases := []time.Time{t1, t1}
	for name, sql := range map[string]string{
		"hand-overs": handedPartsSQL, // EXPLAIN without ANALYZE runs nothing
		"retries":    retryPartsSQL,
	} {
		args := []any{keys, nums, leases}
		if name == "retries" {
			args = append(args, leases, nums, keys)
		}
		plan := explain(t, s, sql, args...)
		if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash") {
			t.Errorf("FinishParts' %s plan scans the queue:\n%s", name, plan)
		}
		if testing.Verbose() {
			t.Logf("FinishParts' %s plan:\n%s", name, plan)
		}
	}
	held := explain(t, s, heldPartsSQL, t1, "", int32(0), 64)
	if strings.Contains(held, "Seq Scan") || strings.Contains(held, "Hash") || strings.Contains(held, "Sort") {
		t.Errorf("HandedParts plan does not walk the open parts' index in order:\n%s", held)
	}
	if testing.Verbose() {
		t.Logf("HandedParts plan:\n%s", held)
	}
	claimed := 0
	for {
		got, err := s.ClaimParts(ctx, t1, time.Minute, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		for _, q := range got {
			if q.NumParts != 2 || !q.ExpiresAt.After(t1) {
				t.Fatalf("claimed part %s/%d of %d parts expiring at %v", q.MsgID, q.PartNum, q.NumParts, q.ExpiresAt)
			}
		}
		claimed += len(got)
	}
	// 20000 messages, less 66 leased and 206 expired (none is both).
	if want := 2 * (20000 - 66 - 206); claimed != want {
		t.Errorf("claimed %d parts, want %d", claimed, want)
	}
}

// BenchmarkTransmitter measures parts handed from the PostgreSQL queue to
// simnet (sms runs the same benchmark on memstore).
func BenchmarkTransmitter(b *testing.B) {
	smstest.BenchmarkTransmitter(b, newTestStore(b))
}

// TestOutboundRowsLeftBehind checks how the queue's rows of updated parts
// go: a report of the network leaves the row (it is no claim any more),
// the claim that reaches it deletes it; an update at the message's expiry
// deletes it at once.
func TestOutboundRowsLeftBehind(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "100")); err != nil {
		t.Fatal(err)
	}
	m := smstest.Message("m-1", "shop", "0.01") // two parts due at its SubmittedAt
	if err := s.Accept(ctx, m); err != nil {
		t.Fatal(err)
	}
	rows := func() []string {
		t.Helper()
		var nums []string
		if err := s.pool.QueryRow(ctx, `SELECT coalesce(array_agg(num::text ORDER BY num), '{}') FROM sms_outbound`).Scan(&nums); err != nil {
			t.Fatal(err)
		}
		return nums
	}
	update := func(num int, state sms.PartState, at time.Time) {
		t.Helper()
		err := s.UpdatePart(ctx, sms.PartKey{MsgID: "m-1", PartNum: num}, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: state, UpdatedAt: at}, true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Part 0 is reported before anything claimed it: its row stays, but
	// it is not queued to any reader.
	update(0, sms.StateSentToSMSC, m.SubmittedAt.Add(time.Second))
	if got := rows(); !slices.Equal(got, []string{"0", "1"}) {
		t.Fatalf("rows %v after a report, want both still there", got)
	}
	stored, err := s.Message(ctx, "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if !stored.Parts[0].SendAt.IsZero() || stored.Parts[1].SendAt.IsZero() {
		t.Errorf("Message shows part 0 queued at %v, part 1 at %v", stored.Parts[0].SendAt, stored.Parts[1].SendAt)
	}
	// The claim that reaches the row deletes it and claims part 1 only.
	got, err := s.ClaimParts(ctx, m.SubmittedAt.Add(time.Minute), time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].PartNum != 1 {
		t.Fatalf("claimed %+v, want part 1 only", got)
	}
	if got := rows(); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("rows %v after the claim, want part 1's", got)
	}
	// Part 1 expires unsent: the update at the expiry deletes its row.
	update(1, sms.StateUndelivered, m.ExpiresAt)
	if got := rows(); len(got) != 0 {
		t.Errorf("rows %v after the expiry, want none", got)
	}
}

// keyedOnly holds for the statements after it in a batch sent without
// BEGIN, as ClaimParts, HandedParts and FinishParts send theirs (one
// implicit transaction until the batch's Sync), ends with it, and costs
// no warning: SET LOCAL outside an explicit transaction block works there
// too but makes PostgreSQL log a WARNING for every claim.
func TestKeyedOnlyHoldsInABatch(t *testing.T) {
	cfg, err := pgx.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	c, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(t.Context())
	var during, after string
	b := &pgx.Batch{}
	b.Queue(keyedOnly)
	b.Queue("SHOW enable_seqscan").QueryRow(func(row pgx.Row) error { return row.Scan(&during) })
	if err := c.SendBatch(t.Context(), b).Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(t.Context(), "SHOW enable_seqscan").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if during != "off" || after != "on" {
		t.Errorf("enable_seqscan is %q in the batch and %q after it, want off and on", during, after)
	}
	if len(notices) > 0 {
		t.Errorf("notices: %q", notices)
	}
}
