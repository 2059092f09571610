package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// BenchmarkStatusEvents measures the network's status events as the
// gateway applies them (Gateway.HandleStatuses over UpdateParts): each op
// is a batch of 256 events, an acceptance and then a delivery of 128
// parts of 64 two-part messages that ask for a report of each, with the
// report queued. Events per second is the figure; the messages of each op
// are inserted with the timer stopped.
func BenchmarkStatusEvents(b *testing.B) {
	s := newTestStore(b)
	ctx := b.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1000000")); err != nil {
		b.Fatal(err)
	}
	gw := sms.NewGateway(s, sms.GatewayOptions{})
	const msgs = 64
	seed := func(batch int) {
		_, err := s.pool.Exec(ctx, `
			WITH m AS (
				INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
					part_price, charged, currency, submitted_at, expires_at)
				SELECT 'b-' || $1::int || '-' || g, 'shop', 'text', 'Shop', false, '+38640123456', 0, false, 31,
					'https://example.com/dlr', 0.01, 0.02, 'EUR', $2, $2::timestamptz + interval '1 day'
				FROM generate_series(1, $3::int) g
				RETURNING id
			)
			INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
			SELECT m.id, n, 'hello', 5, 1, 2, n + 1, 0, 0, 1, 0, $2 FROM m, generate_series(0, 1) n`, batch, t1, msgs)
		if err != nil {
			b.Fatal(err)
		}
	}
	evs := make([]sms.StatusEvent, 0, 4*msgs)
	batch := 0
	b.ReportAllocs()
	var spent time.Duration
	for b.Loop() {
		b.StopTimer()
		seed(batch)
		evs = evs[:0]
		for _, status := range []sms.Status{sms.StatusAccepted, sms.StatusDelivered} {
			for g := 1; g <= msgs; g++ {
				for n := range 2 {
					evs = append(evs, sms.StatusEvent{MsgID: sms.MessageID(fmt.Sprintf("b-%d-%d", batch, g)), PartNum: n, Status: status, At: t1.Add(time.Second)})
				}
			}
		}
		batch++
		b.StartTimer()
		t := time.Now()
		for i, err := range gw.HandleStatuses(context.WithoutCancel(ctx), evs) {
			if err != nil {
				b.Fatalf("event %d: %v", i, err)
			}
		}
		spent += time.Since(t)
	}
	b.ReportMetric(float64(len(evs)*b.N)/spent.Seconds(), "events/s")
}

// TestUpdatePartsConcurrent: batches changing the same parts in different
// orders run at once; the locks (taken in key order) serialize them, none
// fails and no change is lost.
func TestUpdatePartsConcurrent(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 20)
	const batches = 4
	bump := func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: p.ErrorCode + 1, UpdatedAt: t1}, true, nil
	}
	var wg sync.WaitGroup
	for i := range batches {
		changes := make([]sms.PartChange, len(keys))
		for j, k := range keys {
			changes[j] = sms.PartChange{Key: k, Fn: bump}
		}
		rand.New(rand.NewPCG(uint64(i), 1)).Shuffle(len(changes), func(a, b int) { changes[a], changes[b] = changes[b], changes[a] })
		wg.Go(func() {
			for j, err := range s.UpdateParts(t.Context(), changes) {
				if err != nil {
					t.Errorf("batch %d, change %d: %v", i, j, err)
				}
			}
		})
	}
	wg.Wait()
	for _, k := range keys {
		m, err := s.Message(t.Context(), k.MsgID)
		if err != nil {
			t.Fatal(err)
		}
		if p := m.Parts[k.PartNum]; p.ErrorCode != batches {
			t.Errorf("part %s/%d has %d changes, want %d", k.MsgID, k.PartNum, p.ErrorCode, batches)
		}
	}
}

// A failure of the database is every change's error, and nothing of the
// batch is saved.
func TestUpdatePartsFailsWhole(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	changes := []sms.PartChange{{Key: keys[0], Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t1}, true, nil
	}}, {Key: keys[1]}}
	for i, err := range s.UpdateParts(ctx, changes) {
		if !errors.Is(err, context.Canceled) || msgkit.KindOf(err) != msgkit.Internal {
			t.Errorf("change %d: %v, want internal, context canceled", i, err)
		}
	}
	m, err := s.Message(t.Context(), keys[0].MsgID)
	if err != nil || m.Parts[0].State != sms.StateSubmitted {
		t.Errorf("after a failed batch the part is %+v, %v", m.Parts[0], err)
	}
}

// A status change that leaves a part open (submitted, sent to the SMSC,
// buffered) is a heap-only update: no index of sms_parts reads state (see
// 0006_parts_hot.sql). The part's last update, which ends it, leaves the
// open parts' index and is not.
func TestOpenStatusUpdatesAreHOT(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	_, err := s.pool.Exec(ctx, `INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		VALUES ('hot', 0, 'hello', 5, 0, 0, 0, 0, 0, 1, 0, now())`)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	counts := func() (updated, hot int) {
		t.Helper()
		err := tx.QueryRow(ctx, `SELECT pg_stat_get_xact_tuples_updated('sms_parts'::regclass),
			pg_stat_get_xact_tuples_hot_updated('sms_parts'::regclass)`).Scan(&updated, &hot)
		if err != nil {
			t.Fatal(err)
		}
		return updated, hot
	}
	update := func(state sms.PartState) {
		t.Helper()
		_, err := tx.Exec(ctx, partsUpdateSQL, []string{"hot"}, []int32{0}, []int16{int16(state)}, []int32{0}, []time.Time{t1})
		if err != nil {
			t.Fatal(err)
		}
	}
	update(sms.StateSentToSMSC)
	update(sms.StateBuffered)
	if updated, hot := counts(); updated != 2 || hot != 2 {
		t.Errorf("open to open: %d updates, %d HOT; want 2, 2", updated, hot)
	}
	update(sms.StateDelivered)
	if updated, hot := counts(); updated != 3 || hot != 2 {
		t.Errorf("open to delivered: %d updates, %d HOT; want 3, 2", updated, hot)
	}
}
