package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

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
	evs := make([]sms.StatusEvent, 0, 4*msgs)
	batch := 0
	b.ReportAllocs()
	var spent time.Duration
	for b.Loop() {
		b.StopTimer()
		keys := seedTwoPartMessages(b, s, "b", batch, msgs)
		evs = evs[:0]
		for _, status := range []sms.Status{sms.StatusAccepted, sms.StatusDelivered} {
			for _, k := range keys {
				evs = append(evs, sms.StatusEvent{MsgID: k.MsgID, PartNum: k.PartNum, Status: status, At: t1.Add(time.Second)})
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

// seedTwoPartMessages inserts msgs two-part messages of account shop
// asking for every report, ids prefix-batch-1 to prefix-batch-msgs, their
// parts submitted, and returns the parts' keys in id order.
func seedTwoPartMessages(tb testing.TB, s *SMSStore, prefix string, batch, msgs int) []sms.PartKey {
	tb.Helper()
	_, err := s.pool.Exec(tb.Context(), `
		WITH m AS (
			INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
				part_price, charged, currency, submitted_at, expires_at)
			SELECT $1 || '-' || $2::int || '-' || g, 'shop', 'text', 'Shop', false, '+38640123456', 0, false, 31,
				'https://example.com/dlr', 0.01, 0.02, 'EUR', $3, $3::timestamptz + interval '1 day'
			FROM generate_series(1, $4::int) g
			RETURNING id
		)
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		SELECT m.id, n, 'hello', 5, 1, 2, n + 1, 0, 0, 1, 0, $3 FROM m, generate_series(0, 1) n`, prefix, batch, t1, msgs)
	if err != nil {
		tb.Fatal(err)
	}
	keys := make([]sms.PartKey, 0, 2*msgs)
	for g := 1; g <= msgs; g++ {
		for n := range 2 {
			keys = append(keys, sms.PartKey{MsgID: sms.MessageID(fmt.Sprintf("%s-%d-%d", prefix, batch, g)), PartNum: n})
		}
	}
	return keys
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
// 0006_parts_hot.sql), nor its history, which grows with every update up
// to its bound (0037_sms_trace.sql), by UpdateParts' statement and by
// UpdatePart's. The part's last update, which ends it, leaves the open
// parts' index and is not.
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
	n := 0
	update := func(state sms.PartState) {
		t.Helper()
		n++
		ev := partEvent(sms.PartUpdate{State: state, ErrorCode: sms.DLRError(n), UpdatedAt: t1})
		var err error
		if n%2 == 0 {
			_, err = tx.Exec(ctx, partsUpdateSQL, []string{"hot"}, []int32{0}, []int16{int16(state)}, []int32{int32(n)}, []time.Time{t1}, [][]byte{ev})
		} else {
			_, err = tx.Exec(ctx, partUpdateSQL, "hot", int32(0), int16(state), int32(n), t1, ev)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	update(sms.StateSentToSMSC)
	for range sms.MaxPartEvents + 4 {
		update(sms.StateBuffered)
	}
	if updated, hot := counts(); updated != n || hot != n {
		t.Errorf("open to open: %d updates, %d HOT; want %d, %d", updated, hot, n, n)
	}
	update(sms.StateDelivered)
	if updated, hot := counts(); updated != n || hot != n-1 {
		t.Errorf("open to delivered: %d updates, %d HOT; want %d, %d", updated, hot, n, n-1)
	}
	var history []byte
	if err := tx.QueryRow(ctx, `SELECT history FROM sms_parts WHERE msg_id = 'hot'`).Scan(&history); err != nil {
		t.Fatal(err)
	}
	h, err := parsePartHistory(history)
	if err != nil || len(h) != sms.MaxPartEvents || h[0].State != sms.StateSentToSMSC || h[0].ErrorCode != 1 ||
		h[len(h)-1].State != sms.StateDelivered || h[len(h)-1].ErrorCode != sms.DLRError(n) || h[1].ErrorCode != sms.DLRError(n-sms.MaxPartEvents+2) {
		t.Errorf("history %+v, %v; want the first event and the latest %d", h, err, sms.MaxPartEvents-1)
	}
}

// A part that another transaction changes between the batch's read and
// its write is not overwritten: the batch is rolled back and runs again
// with locks, its functions seeing the part as the other left it, and its
// report follows the other's.
func TestUpdatePartsRunsAgainWhenAPartMoved(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	key := keys[0]
	report := func(body string) sms.Report {
		return sms.Report{MsgID: key.MsgID, PartNum: key.PartNum, URL: "https://example.com/dlr", Body: []byte(body),
			State: sms.ReportPending, NextAt: t1, CreatedAt: t1}
	}
	var seen []sms.PartState
	changes := []sms.PartChange{{Key: key, Fn: func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		seen = append(seen, p.State)
		if len(seen) == 1 { // between the read and the write: another change gets there first
			err := s.UpdatePart(t.Context(), key, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
				return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: 7, UpdatedAt: t1, Reports: []sms.Report{report(`"first"`)}}, true, nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return sms.PartUpdate{State: sms.StateDelivered, ErrorCode: p.ErrorCode + 1, UpdatedAt: t1.Add(time.Second),
			Reports: []sms.Report{report(`"second"`)}}, true, nil
	}}}
	for i, err := range s.UpdateParts(t.Context(), changes) {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	if want := []sms.PartState{sms.StateSubmitted, sms.StateBuffered}; !slices.Equal(seen, want) {
		t.Errorf("the function saw %v, want %v (the read, then the other's write)", seen, want)
	}
	m, err := s.Message(t.Context(), key.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Parts[key.PartNum]; p.State != sms.StateDelivered || p.ErrorCode != 8 {
		t.Errorf("part is %v with code %d, want delivered with 8 (the other's 7, plus one)", p.State, p.ErrorCode)
	}
	var bodies []string
	rows, err := s.pool.Query(t.Context(), `SELECT convert_from(body, 'UTF8') FROM sms_reports WHERE msg_id = $1 AND part_num = $2 ORDER BY id`,
		string(key.MsgID), int32(key.PartNum))
	if err != nil {
		t.Fatal(err)
	}
	if bodies, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if want := []string{`"first"`, `"second"`}; !slices.Equal(bodies, want) {
		t.Errorf("reports %v, want %v", bodies, want)
	}
}

// A replica remembers the messages it accepted (recentMessages), and
// another replica may change their parts meanwhile: the first replica's
// next batch finds its memory out of date, runs again from the rows, and
// neither replica's change is lost. Its memory then holds the parts as
// written, so the batch after that reads nothing.
func TestUpdatePartsReplicaRemembersStaleParts(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	a := openTestStore(t, dsn, Options{Schema: schema})
	b := openTestStore(t, dsn, Options{Schema: schema})
	keys := seedMessages(t, a, 1)
	bump := func(state sms.PartState) func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: state, ErrorCode: p.ErrorCode + 1, UpdatedAt: t1}, true, nil
		}
	}
	apply := func(s *SMSStore, state sms.PartState) {
		t.Helper()
		for i, err := range s.UpdateParts(t.Context(), []sms.PartChange{{Key: keys[0], Fn: bump(state)}}) {
			if err != nil {
				t.Fatalf("change %d: %v", i, err)
			}
		}
	}
	if _, ok := a.recent.get(keys[0].MsgID); !ok {
		t.Fatal("the accepting replica does not remember its message")
	}
	apply(b, sms.StateSentToSMSC) // b reads the rows
	apply(a, sms.StateBuffered)   // a's memory says submitted: the write misses, and a reads the rows
	m, err := a.Message(t.Context(), keys[0].MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Parts[0]; p.State != sms.StateBuffered || p.ErrorCode != 2 {
		t.Fatalf("part is %v with %d changes, want buffered with 2", p.State, p.ErrorCode)
	}
	if r, _ := a.recent.get(keys[0].MsgID); r.Parts[0].State != sms.StateBuffered || r.Parts[0].ErrorCode != 2 {
		t.Errorf("the replica remembers %+v, want the part as written", r.Parts[0])
	}
	apply(a, sms.StateDelivered)
	if m, err = b.Message(t.Context(), keys[0].MsgID); err != nil || m.Parts[0].State != sms.StateDelivered || m.Parts[0].ErrorCode != 3 {
		t.Fatalf("part is %+v, %v; want delivered with 3 changes", m.Parts[0], err)
	}
}

// What the store remembers of a message is what a read of it gives
// UpdatePart's function: the same message, the same parts.
func TestRecentMessagesAsRead(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	var read sms.MessageRecord
	if err := s.UpdatePart(t.Context(), keys[0], func(m sms.MessageRecord, _ sms.PartRecord) (sms.PartUpdate, bool, error) {
		read = m
		return sms.PartUpdate{}, false, nil
	}); err != nil {
		t.Fatal(err)
	}
	m := smstest.Message("m-000", "shop", "0.01")
	s.recent.put(m)
	got, ok := s.recent.get(m.ID)
	if !ok {
		t.Fatal("not remembered")
	}
	if diff := gocmp.Diff(read, got); diff != "" {
		t.Errorf("remembered (-read +remembered):\n%s", diff)
	}
	got.Custom[0], got.Parts[0].State, got.Parts[0].Text = 'x', sms.StateDelivered, "changed" // as a change's function might
	if again, _ := s.recent.get(m.ID); !gocmp.Equal(read, again) {
		t.Errorf("a change of a copy reached the memory: %+v", again)
	}
}

// BenchmarkReportsToDispatcher measures what it costs the store to queue
// reports and get them to a dispatcher, then record their delivery: each
// op is 128 parts of 64 two-part messages accepted by the network, then
// delivered, each event with its report. "claimed" queues them
// (UpdateParts) and claims them (ClaimReports), as a dispatcher of another
// process does; "leased" leases them in the same call
// (UpdatePartsLeasing), as the gateway does for the dispatcher of its own
// process. Both finish them (FinishReports). As under load, 2,000 other
// reports are in flight meanwhile (pending, leased, due before these: the
// dispatcher's MaxHeld), which a claim passes over. Reports per second is
// the figure; the messages are inserted with the timer stopped.
func BenchmarkReportsToDispatcher(b *testing.B) {
	for _, leased := range []bool{false, true} {
		name := "claimed"
		if leased {
			name = "leased"
		}
		b.Run(name, func(b *testing.B) {
			s := newTestStore(b)
			ctx := b.Context()
			if _, err := s.pool.Exec(ctx, `
				INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error, lease_until)
				SELECT 'in-flight-' || g, 0, 'https://example.com/dlr', '{}', 1, 0, $1, $1, '', $1::timestamptz + interval '1 hour'
				FROM generate_series(1, 2000) g`, t1); err != nil {
				b.Fatal(err)
			}
			const msgs = 64
			now := t1.Add(time.Second)
			move := func(keys []sms.PartKey, to sms.PartState) []sms.PartChange {
				changes := make([]sms.PartChange, len(keys))
				for i, k := range keys {
					changes[i] = sms.PartChange{Key: k, Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
						return sms.PartUpdate{State: to, UpdatedAt: now, Reports: []sms.Report{{MsgID: k.MsgID, PartNum: k.PartNum,
							URL: "https://example.com/dlr", Body: []byte(`{"event":"` + to.String() + `"}`), State: sms.ReportPending,
							NextAt: now, CreatedAt: now}}}, true, nil
					}}
				}
				return changes
			}
			step := func(changes []sms.PartChange) {
				var (
					errs []error
					got  []sms.Report
				)
				if leased {
					errs, got = s.UpdatePartsLeasing(ctx, changes, now.Add(time.Minute), len(changes))
				} else {
					errs = s.UpdateParts(ctx, changes)
					var err error
					if got, err = s.ClaimReports(ctx, now, time.Minute, len(changes)); err != nil {
						b.Fatal(err)
					}
				}
				for i, err := range errs {
					if err != nil {
						b.Fatalf("change %d: %v", i, err)
					}
				}
				if len(got) != len(changes) {
					b.Fatalf("%d reports to deliver, want %d", len(got), len(changes))
				}
				for i := range got {
					got[i].State, got[i].Attempts = sms.ReportDelivered, 1
				}
				for i, err := range s.FinishReports(ctx, got) {
					if err != nil {
						b.Fatalf("report %d: %v", i, err)
					}
				}
			}
			b.ReportAllocs()
			var (
				spent   time.Duration
				reports int
				batch   int
			)
			for b.Loop() {
				b.StopTimer()
				keys := seedTwoPartMessages(b, s, "r", batch, msgs)
				batch++
				b.StartTimer()
				t := time.Now()
				step(move(keys, sms.StateSentToSMSC))
				step(move(keys, sms.StateDelivered))
				spent += time.Since(t)
				reports += 2 * len(keys)
			}
			b.ReportMetric(float64(reports)/spent.Seconds(), "reports/s")
		})
	}
}

// Replicas leasing reports of the same part at once never lease two: the
// first report of a part is leased and, while it is pending, no later one
// is, whichever replica queues it. Each change is a buffering (a report
// each time); the part's row, updated in the transaction before the
// reports are inserted, makes the second transaction see the first's
// report.
func TestUpdatePartsLeasingReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	stores := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	keys := seedMessages(t, stores[0], 1)
	buffer := func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: p.ErrorCode + 1, UpdatedAt: t1,
			Reports: []sms.Report{pending(keys[0], t1, "buffered")}}, true, nil
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		leased int
	)
	const rounds = 20
	for i := range 4 {
		s := stores[i%2]
		wg.Go(func() {
			for range rounds {
				errs, got := s.UpdatePartsLeasing(t.Context(), []sms.PartChange{{Key: keys[0], Fn: buffer}}, t1.Add(time.Hour), 10)
				if errs[0] != nil {
					t.Error(errs[0])
					return
				}
				mu.Lock()
				leased += len(got)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var queued int
	if err := stores[0].pool.QueryRow(t.Context(), "SELECT count(*) FROM sms_reports WHERE state = 1").Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if leased != 1 || queued != 4*rounds {
		t.Errorf("%d reports leased of %d queued, want 1 of %d", leased, queued, 4*rounds)
	}
}
