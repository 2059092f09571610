package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smstest"
)

// The outbound queue's contract runs with TestSMSStore; the tests below
// cover what is particular to PostgreSQL.

// TestOutboundClaimUsesTheQueueIndex fills the queue as it looks after
// an outage (many parts due, a few leased, a few of expired messages) and
// checks that ClaimParts walks the due index in order, leases by ctid and
// reads messages and parts by key, never a whole table.
func TestOutboundClaimUsesTheQueueIndex(t *testing.T) {
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
