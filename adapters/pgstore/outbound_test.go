package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smstest"
)

// The outbound queue's contract runs with TestSMSStore; the tests below
// cover what is particular to PostgreSQL.

// TestOutboundClaimUsesTheQueueIndex fills sms_parts as a store that has
// run for a while looks (nearly every part handed over, a few queued, a
// few leased by a claimer that died) and checks that ClaimParts reads the
// queued parts through sms_parts_send_idx instead of scanning the history.
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
			0.01, 0.02, 'EUR', $1::timestamptz - make_interval(secs => g), $1::timestamptz + interval '1 day'
		FROM generate_series(1, 20000) g;
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code,
			updated_at, send_at, send_lease)
		SELECT 'm-' || g, n, 'x', 1, 0, 0, 0, 0, 0, CASE WHEN g % 100 = 0 THEN 1 ELSE 4 END, 0, $1,
			CASE WHEN g % 100 = 0 THEN $1::timestamptz - make_interval(secs => g) END,
			CASE WHEN g % 300 = 0 THEN $1::timestamptz + interval '1 hour' END
		FROM generate_series(1, 20000) g, generate_series(0, 1) n;
		ANALYZE sms_messages; ANALYZE sms_parts`
	execScript(t, s, fill, t1)
	plan := explain(t, s, claimPartsSQL, t1, t1.Add(time.Minute), 64)
	if !strings.Contains(plan, "sms_parts_send_idx") || strings.Contains(plan, "Seq Scan on sms_parts") {
		t.Errorf("ClaimParts plan does not read the queue's index:\n%s", plan)
	}
	if testing.Verbose() {
		t.Logf("ClaimParts plan:\n%s", plan)
	}
	claimed := 0
	for {
		got, err := s.ClaimParts(ctx, t1, time.Minute, 64)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		for _, q := range got {
			if q.NumParts != 2 {
				t.Fatalf("part %s/%d of %d parts, want 2", q.MsgID, q.PartNum, q.NumParts)
			}
		}
		claimed += len(got)
	}
	// 200 messages queued, 66 of them leased.
	if want := 2 * (200 - 66); claimed != want {
		t.Errorf("claimed %d parts, want %d", claimed, want)
	}

	// A backlog (the network was down): every part of 20000 messages
	// queued. A claim still reads limit rows in order, not the backlog.
	execScript(t, s, `UPDATE sms_parts SET state = 1, send_at = $1::timestamptz - interval '1 hour', send_lease = NULL; ANALYZE sms_parts`, t1)
	plan = explain(t, s, claimPartsSQL, t1, t1.Add(time.Minute), 64)
	if !strings.Contains(plan, "Index Scan using sms_parts_send_idx") || strings.Contains(plan, "Seq Scan on sms_parts") {
		t.Errorf("with a backlog, the ClaimParts plan does not walk the queue's index in order:\n%s", plan)
	}
}

// BenchmarkTransmitter measures parts handed from the PostgreSQL queue to
// simnet (sms runs the same benchmark on memstore).
func BenchmarkTransmitter(b *testing.B) {
	smstest.BenchmarkTransmitter(b, newTestStore(b))
}
