package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// The outbox contract runs with TestSMSContract; the tests below cover what
// is particular to PostgreSQL: locks, retries, replicas, plans and exact
// round trips.

// seedMessages creates the account shop and n two-part messages m-000,
// m-001, … (both parts submitted), and returns their parts' keys.
func seedMessages(tb testing.TB, s *SMSStore, n int) []sms.PartKey {
	tb.Helper()
	ctx := context.Background()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1000000")); err != nil {
		tb.Fatal(err)
	}
	var keys []sms.PartKey
	for i := range n {
		m := smstest.Message(fmt.Sprintf("m-%03d", i), "shop", "0.01")
		if err := s.Accept(ctx, m); err != nil {
			tb.Fatal(err)
		}
		for _, p := range m.Parts {
			keys = append(keys, sms.PartKey{MsgID: m.ID, PartNum: p.Num})
		}
	}
	return keys
}

// pending returns a pending report of key's part, due at next.
func pending(key sms.PartKey, next time.Time, body string) sms.Report {
	return sms.Report{MsgID: key.MsgID, PartNum: key.PartNum, URL: "https://example.com/dlr", Body: []byte(body),
		State: sms.ReportPending, NextAt: next, CreatedAt: next}
}

// queue queues reports with an update of key's part to buffered.
func queue(tb testing.TB, s *SMSStore, key sms.PartKey, reports ...sms.Report) {
	tb.Helper()
	err := s.UpdatePart(context.Background(), key, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		return sms.PartUpdate{State: sms.StateBuffered, UpdatedAt: t1, Reports: reports}, true, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// partReportIDs returns the ids of key's reports in queueing order.
func partReportIDs(t *testing.T, s *SMSStore, key sms.PartKey) []int64 {
	t.Helper()
	rows, err := s.pool.Query(t.Context(), "SELECT id FROM sms_reports WHERE msg_id = $1 AND part_num = $2 ORDER BY id",
		string(key.MsgID), key.PartNum)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func reportIDs(rs []sms.Report) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// claim claims up to 100 reports at now with a one-minute lease.
func claim(t *testing.T, s *SMSStore, now time.Time) []sms.Report {
	t.Helper()
	rs, err := s.ClaimReports(t.Context(), now, time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func finish(t *testing.T, s *SMSStore, r sms.Report, state sms.ReportState, next time.Time) {
	t.Helper()
	r.State, r.Attempts, r.NextAt = state, r.Attempts+1, next
	if err := s.FinishReport(t.Context(), r); err != nil {
		t.Fatal(err)
	}
}

// withParam adds a connection parameter to a URL or key=value DSN. pgx
// sends parameters it does not know as run-time settings.
func withParam(dsn, key, value string) string {
	if !strings.Contains(dsn, "://") {
		return dsn + " " + key + "=" + value
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&" + key + "=" + url.QueryEscape(value)
	}
	return dsn + "?" + key + "=" + url.QueryEscape(value)
}

func TestOutboxSQLStateLiterals(t *testing.T) {
	t.Parallel()
	// The SQL of 0003_outbox.sql, 0004_outbound.sql, outbox.go and
	// outbound.go spells these as numbers.
	var open []sms.PartState
	for _, s := range sms.PartStates() {
		if !s.Final() {
			open = append(open, s)
		}
	}
	if want := []sms.PartState{1, 2, 3}; !slices.Equal(open, want) {
		t.Errorf("non-final states are %v, the SQL says %v", open, want)
	}
	if sms.ReportPending != 1 {
		t.Errorf("ReportPending is %d, the SQL says 1", sms.ReportPending)
	}
}

func TestOutboxUpdatePartRoundTripExact(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	keys := seedMessages(t, s, 1)
	second := keys[1]
	reports := []sms.Report{ // claimed in this order: queueing order, as next_at ties
		{MsgID: "m-000", PartNum: 1, URL: "https://example.com/dlr?a=ü", Body: []byte(`{"event":"BUFFERED"}`),
			State: sms.ReportPending, Attempts: 2, NextAt: t1, CreatedAt: t1.Add(-time.Second), LastError: "queued with an error"},
		{MsgID: "m-000", PartNum: 1, URL: "u", Body: []byte{}, State: sms.ReportPending, NextAt: t1},
		{MsgID: "other", PartNum: 7, URL: "u", Body: nil, State: sms.ReportPending, NextAt: t1},
	}
	calls := 0
	err := s.UpdatePart(ctx, second, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
		calls++
		want, err := s.Message(ctx, "m-000")
		if err != nil {
			return sms.PartUpdate{}, false, err
		}
		for i := range want.Parts { // fn sees the parts' delivery, not their queue fields
			want.Parts[i].SendAt, want.Parts[i].SendAttempts, want.Parts[i].SendError = time.Time{}, 0, ""
		}
		if diff := cmp.Diff(want, m, exactly); diff != "" {
			t.Errorf("fn got another message than Message returns (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want.Parts[1], p); diff != "" {
			t.Errorf("fn got another part (-want +got):\n%s", diff)
		}
		return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: sms.DLRAbsentSubscriber, UpdatedAt: t1, Reports: reports}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("fn ran %d times, want 1", calls)
	}
	got, err := s.Message(ctx, "m-000")
	if err != nil {
		t.Fatal(err)
	}
	wantPart := got.Parts[1]
	wantPart.State, wantPart.ErrorCode, wantPart.UpdatedAt = sms.StateBuffered, sms.DLRAbsentSubscriber, dbTime(t1)
	if diff := cmp.Diff(wantPart, got.Parts[1]); diff != "" {
		t.Errorf("updated part (-want +got):\n%s", diff)
	}
	if got.Parts[0].State != sms.StateSubmitted {
		t.Errorf("the other part changed to %v", got.Parts[0].State)
	}

	// The first two are one part's: the second waits for the first.
	claimed := claim(t, s, t1)
	if len(claimed) != 2 || claimed[0].ID >= claimed[1].ID {
		t.Fatalf("claimed %+v, want the first and the third report", claimed)
	}
	finish(t, s, claimed[0], sms.ReportDelivered, t1)
	claimed = append(claimed, claim(t, s, t1)...)
	want := []sms.Report{reports[0], reports[2], reports[1]}
	for i := range want {
		want[i].ID = claimed[i].ID
		want[i].NextAt, want[i].CreatedAt = dbTime(want[i].NextAt), dbTime(want[i].CreatedAt)
	}
	// No EquateEmpty: a nil body stays nil and an empty one empty.
	if diff := cmp.Diff(want, claimed); diff != "" {
		t.Errorf("claimed reports (-want +got):\n%s", diff)
	}
}

func TestOutboxUpdatePartWritesNothingUnlessChanged(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	key := seedMessages(t, s, 1)[0]
	before, err := s.Message(ctx, key.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	boom, conflict := errors.New("boom"), msgkit.New(msgkit.Conflict, "x", "x")
	update := sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t1, Reports: []sms.Report{pending(key, t1, "{}")}}
	tests := []struct {
		name      string
		fn        func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error)
		wantErr   error // returned as it is, not wrapped
		wantField string
	}{
		{"fn fails", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) { return update, true, boom },
			boom, ""},
		{"fn fails with a kind", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) { return update, true, conflict },
			conflict, ""},
		{"not changed", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) { return update, false, nil },
			nil, ""},
		{"unstorable url", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			u := update
			u.Reports = []sms.Report{pending(key, t1, "{}"), pending(key, t1, "{}")}
			u.Reports[1].URL = "a\x00"
			return u, true, nil
		}, nil, "reports"},
		{"attempts out of range", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			u := update
			u.Reports = []sms.Report{pending(key, t1, "{}")}
			u.Reports[0].Attempts = 1 << 31
			return u, true, nil
		}, nil, "reports"},
		{"error code out of range", func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			u := update
			u.ErrorCode = -1 << 40
			return u, true, nil
		}, nil, "errorCode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.UpdatePart(ctx, key, tc.fn)
			switch {
			case tc.wantField != "":
				if e, ok := errors.AsType[*msgkit.Error](err); !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != tc.wantField {
					t.Errorf("error %v, want invalid naming %s", err, tc.wantField)
				}
			case err != tc.wantErr:
				t.Errorf("error %v, want %v as it is", err, tc.wantErr)
			}
		})
	}
	after, err := s.Message(ctx, key.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after, exactly); diff != "" {
		t.Errorf("the message changed (-before +after):\n%s", diff)
	}
	if n := countRows(t, s, "sms_reports"); n != 0 {
		t.Errorf("%d reports written, want 0", n)
	}
}

func TestOutboxUpdatePartNotFound(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	seedMessages(t, s, 1)
	for _, key := range []sms.PartKey{
		{MsgID: "nobody", PartNum: 0},
		{MsgID: "m-000", PartNum: 2},
		{MsgID: "m-000", PartNum: -1},
		{MsgID: "m-000", PartNum: 1 << 32},
		{MsgID: "m-\x00", PartNum: 0},
		{MsgID: "m-\xff", PartNum: 0},
	} {
		err := s.UpdatePart(t.Context(), key, func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			t.Errorf("fn ran for %+v", key)
			return sms.PartUpdate{}, false, nil
		})
		if msgkit.KindOf(err) != msgkit.NotFound || msgkit.CodeOf(err) != "part_not_found" {
			t.Errorf("%+v: error %v, want not found part_not_found", key, err)
		}
	}
}

// TestOutboxUpdatePartSerializesAPart runs concurrent updates of one part
// from two replicas: each sees the one before it (no update is lost), and
// the ids of their reports follow the order of the updates.
func TestOutboxUpdatePartSerializesAPart(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	key := seedMessages(t, replicas[0], 1)[0]
	const updates = 16
	var wg sync.WaitGroup
	for i := range updates {
		wg.Go(func() {
			err := replicas[i%2].UpdatePart(t.Context(), key, func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
				n := p.ErrorCode + 1
				return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: n, UpdatedAt: t1,
					Reports: []sms.Report{pending(key, t1, strconv.Itoa(int(n)))}}, true, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	m, err := replicas[1].Message(t.Context(), key.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].ErrorCode != updates {
		t.Errorf("error code %d after %d increments", m.Parts[0].ErrorCode, updates)
	}
	rows, err := replicas[0].pool.Query(t.Context(), "SELECT convert_from(body, 'UTF8') FROM sms_reports ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range updates {
		want = append(want, strconv.Itoa(i+1))
	}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("report bodies in id order (-want +got):\n%s", diff)
	}
}

// waitForLockWaiters waits until n sessions of application app wait for
// a lock.
func waitForLockWaiters(t *testing.T, s *SMSStore, app string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got int
		err := s.pool.QueryRow(t.Context(),
			"SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a lock, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOutboxUpdatePartLocksOnlyItsPart holds one part's lock inside fn:
// another part of the same message updates meanwhile, and a second update
// of the held part waits, then sees what the first wrote.
func TestOutboxUpdatePartLocksOnlyItsPart(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	app := "outbox-lock-" + schema
	s := openTestStore(t, withParam(dsn, "application_name", app), Options{Schema: schema})
	keys := seedMessages(t, s, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	holding, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := s.UpdatePart(ctx, keys[0], func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
			close(holding)
			<-release
			return sms.PartUpdate{State: sms.StateSentToSMSC, ErrorCode: 1, UpdatedAt: t1}, true, nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-holding

	// The other part does not wait (ctx would end the test if it did).
	var seenFirst sms.PartState
	err := s.UpdatePart(ctx, keys[1], func(m sms.MessageRecord, _ sms.PartRecord) (sms.PartUpdate, bool, error) {
		seenFirst = m.Parts[0].State
		return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t1}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seenFirst != sms.StateSubmitted {
		t.Errorf("an update of part 1 saw part 0 %v, not as committed", seenFirst)
	}

	var seen sms.PartRecord
	wg.Go(func() {
		err := s.UpdatePart(ctx, keys[0], func(_ sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
			seen = p
			return sms.PartUpdate{State: sms.StateBuffered, ErrorCode: p.ErrorCode + 1, UpdatedAt: t1}, true, nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	waitForLockWaiters(t, s, app, 1)
	close(release)
	wg.Wait()
	if seen.State != sms.StateSentToSMSC || seen.ErrorCode != 1 {
		t.Errorf("the waiting update saw %v with %d, want the first update's sent_to_smsc with 1", seen.State, seen.ErrorCode)
	}
	m, err := s.Message(ctx, keys[0].MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].State != sms.StateBuffered || m.Parts[0].ErrorCode != 2 || m.Parts[1].State != sms.StateDelivered {
		t.Errorf("parts after the updates: %+v", m.Parts)
	}
}

// serializableStore opens a second store on schema whose transactions are
// SERIALIZABLE by default, where write skew is a serialization failure.
func serializableStore(t *testing.T, dsn, schema string) *SMSStore {
	t.Helper()
	return openTestStore(t, withParam(dsn, "default_transaction_isolation", "serializable"), Options{Schema: schema})
}

// TestOutboxUpdatePartRetriesSerializationFailures provokes write skew:
// two updates of different parts of one message both read both parts.
// Under SERIALIZABLE one fails with 40001; UpdatePart runs it again, fn
// included, and both updates land.
func TestOutboxUpdatePartRetriesSerializationFailures(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	seedStore := openTestStore(t, dsn, Options{Schema: schema})
	keys := seedMessages(t, seedStore, 1)
	s := serializableStore(t, dsn, schema)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var (
		calls   atomic.Int32
		arrived sync.WaitGroup
		wg      sync.WaitGroup
	)
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	for _, key := range keys[:2] {
		wg.Go(func() {
			first := true
			err := s.UpdatePart(ctx, key, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
				calls.Add(1)
				if first { // both have read both parts before either writes
					first = false
					arrived.Done()
					select {
					case <-both:
					case <-ctx.Done():
						return sms.PartUpdate{}, false, ctx.Err()
					}
				}
				return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t1, Reports: []sms.Report{pending(key, t1, "{}")}}, true, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Which one fails, and whether a retry collides again with the other
	// before it commits, is up to timing; at least one retry there is.
	if n := calls.Load(); n < 3 {
		t.Errorf("fn ran %d times, want a retry", n)
	} else {
		t.Logf("fn ran %d times", n)
	}
	m, err := s.Message(ctx, keys[0].MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].State != sms.StateDelivered || m.Parts[1].State != sms.StateDelivered {
		t.Errorf("parts after the updates: %v, %v", m.Parts[0].State, m.Parts[1].State)
	}
	if n := countRows(t, s, "sms_reports"); n != 2 {
		t.Errorf("%d reports, want 2", n)
	}
}

// TestOutboxUpdatePartGivesUpAfterRetries makes every run of the
// transaction fail: inside fn, another transaction reads this part and
// writes one this update has read. After the retries the failure is
// Internal, and nothing is written.
func TestOutboxUpdatePartGivesUpAfterRetries(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	seedStore := openTestStore(t, dsn, Options{Schema: schema})
	keys := seedMessages(t, seedStore, 1)
	s := serializableStore(t, dsn, schema)
	ctx := t.Context()
	const skew = `UPDATE sms_parts SET error_code = error_code + 1
		WHERE msg_id = 'm-000' AND num = 1 AND EXISTS (SELECT 1 FROM sms_parts WHERE msg_id = 'm-000' AND num = 0)`
	calls := 0
	err := s.UpdatePart(ctx, keys[0], func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
		calls++
		if _, err := s.pool.Exec(ctx, skew); err != nil {
			return sms.PartUpdate{}, false, err
		}
		return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: t1, Reports: []sms.Report{pending(keys[0], t1, "{}")}}, true, nil
	})
	if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage {
		t.Errorf("error %v, want internal %s", err, CodeStorage)
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); !ok || pgErr.Code != serializationFailure {
		t.Errorf("cause %v, want a serialization failure", err)
	}
	if calls != 1+txRetries {
		t.Errorf("fn ran %d times, want %d", calls, 1+txRetries)
	}
	m, err := s.Message(ctx, keys[0].MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].State != sms.StateSubmitted || m.Parts[1].ErrorCode != sms.DLRError(calls) {
		t.Errorf("parts after the failed update: %+v", m.Parts)
	}
	if n := countRows(t, s, "sms_reports"); n != 0 {
		t.Errorf("%d reports, want 0", n)
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	pgErr := func(code string) error { return fmt.Errorf("commit: %w", &pgconn.PgError{Code: code}) }
	tests := []struct {
		err  error
		want bool
	}{
		{pgErr(serializationFailure), true},
		{pgErr(deadlockDetected), true},
		{pgErr(uniqueViolation), false},
		{pgErr("40003"), false}, // statement completion unknown: it may have committed
		{final{pgErr(serializationFailure)}, false},
		{pgx.ErrNoRows, false},
		{context.Canceled, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestOutboxClaimAcrossReplicas claims 200 due reports of 100 parts from
// two stores (two pools, as two replicas have), two claimers each, and
// finishes every claimed report. The leases never run out (now is fixed),
// so every report is claimed exactly once; and each part's reports are
// claimed in queueing order, the next only after the one before finished.
func TestOutboxClaimAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	keys := seedMessages(t, replicas[0], 50)
	// Two rounds over the parts, so ids interleave the parts; the second
	// round is due earlier, so next_at order is not queueing order.
	for round := range 2 {
		for i, key := range keys {
			queue(t, replicas[0], key, pending(key, t1.Add(time.Duration(i-100*round)*time.Second), fmt.Sprint(round)))
		}
	}
	const total = 200
	now := t1.Add(time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	type claimed struct {
		replica int
		r       sms.Report
	}
	var (
		mu       sync.Mutex
		log      []claimed // in the order the claims returned
		finished atomic.Int32
		wg       sync.WaitGroup
	)
	for c := range 4 {
		s := replicas[c%2]
		wg.Go(func() {
			for finished.Load() < total {
				rs, err := s.ClaimReports(ctx, now, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(rs) == 0 {
					if ctx.Err() != nil {
						t.Errorf("%d of %d reports finished in time", finished.Load(), total)
						return
					}
					time.Sleep(time.Millisecond) // the next reports wait for others' leases
					continue
				}
				mu.Lock()
				for _, r := range rs {
					log = append(log, claimed{c % 2, r})
				}
				mu.Unlock()
				for _, r := range rs {
					r.State, r.Attempts = sms.ReportDelivered, 1
					if err := s.FinishReport(ctx, r); err != nil {
						t.Error(err)
						return
					}
					finished.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	seen := map[int64]int{}
	perReplica := [2]int{}
	lastOfPart := map[sms.PartKey]int64{}
	for _, c := range log {
		seen[c.r.ID]++
		perReplica[c.replica]++
		key := sms.PartKey{MsgID: c.r.MsgID, PartNum: c.r.PartNum}
		if c.r.ID <= lastOfPart[key] {
			t.Errorf("part %v: report %d claimed after report %d", key, c.r.ID, lastOfPart[key])
		}
		lastOfPart[key] = c.r.ID
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("report %d claimed %d times", id, n)
		}
	}
	var all []int64
	for _, key := range keys {
		all = append(all, partReportIDs(t, replicas[0], key)...)
	}
	if len(all) != total || len(seen) != total {
		t.Errorf("%d reports stored, %d claimed, want %d", len(all), len(seen), total)
	}
	for _, id := range all {
		if seen[id] == 0 {
			t.Errorf("report %d never claimed", id)
		}
	}
	t.Logf("claims per replica: %v", perReplica)
	counts, err := replicas[1].ReportCounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[sms.ReportState]int{sms.ReportDelivered: total}, counts); diff != "" {
		t.Errorf("report counts (-want +got):\n%s", diff)
	}
}

// TestOutboxClaimOrderPerPart: of a part's pending reports only the
// oldest is claimed, leased or not, due or not, until it is delivered or
// given up.
func TestOutboxClaimOrderPerPart(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	p, q := keys[0], keys[1]
	// r2 is due before r1, r3 between them: queueing order still rules.
	queue(t, s, p, pending(p, t1.Add(2*time.Second), "r1"), pending(p, t1, "r2"), pending(p, t1.Add(time.Second), "r3"))
	queue(t, s, q, pending(q, t1.Add(5*time.Second), "q1"))
	ids := partReportIDs(t, s, p)
	r1, r2, r3, q1 := ids[0], ids[1], ids[2], partReportIDs(t, s, q)[0]
	now := t1.Add(time.Hour)

	first := claim(t, s, now)
	if got, want := reportIDs(first), []int64{r1, q1}; !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v (r1, q1)", got, want)
	}
	if got := claim(t, s, now); len(got) != 0 {
		t.Fatalf("claimed %v while r1 and q1 are leased", reportIDs(got))
	}
	finish(t, s, first[1], sms.ReportDelivered, now)

	// r1 fails and waits ten minutes: r2 waits with it.
	later := now.Add(10 * time.Minute)
	finish(t, s, first[0], sms.ReportPending, later)
	if got := claim(t, s, now); len(got) != 0 {
		t.Fatalf("claimed %v while r1 waits for its retry", reportIDs(got))
	}
	retried := claim(t, s, later)
	if got := reportIDs(retried); !slices.Equal(got, []int64{r1}) {
		t.Fatalf("claimed %v at the retry, want r1 %d", got, r1)
	}
	if retried[0].Attempts != 1 || !retried[0].NextAt.Equal(dbTime(later)) {
		t.Errorf("retried report has %d attempts, next at %v", retried[0].Attempts, retried[0].NextAt)
	}

	finish(t, s, retried[0], sms.ReportDelivered, later)
	second := claim(t, s, later)
	if got := reportIDs(second); !slices.Equal(got, []int64{r2}) {
		t.Fatalf("claimed %v after r1 was delivered, want r2 %d", got, r2)
	}
	finish(t, s, second[0], sms.ReportGivenUp, later)
	if got := reportIDs(claim(t, s, later)); !slices.Equal(got, []int64{r3}) {
		t.Fatalf("claimed %v after r2 was given up, want r3 %d", got, r3)
	}
}

// TestOutboxLeaseEnds: a claimed report is claimable again, by anyone,
// once its lease has run out (lease_until <= now), and not a microsecond
// before.
func TestOutboxLeaseEnds(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	ctx := t.Context()
	key := seedMessages(t, replicas[0], 1)[0]
	queue(t, replicas[0], key, pending(key, t1, "r1"), pending(key, t1, "r2"))
	r1 := partReportIDs(t, replicas[0], key)[0]

	now := t1.Add(time.Minute)
	const lease = 30 * time.Second
	got, err := replicas[0].ClaimReports(ctx, now, lease, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reportIDs(got), []int64{r1}) {
		t.Fatalf("claimed %v, want r1 %d", reportIDs(got), r1)
	}
	for _, at := range []time.Duration{0, lease - time.Microsecond} {
		if got, err := replicas[1].ClaimReports(ctx, now.Add(at), lease, 10); err != nil || len(got) != 0 {
			t.Fatalf("claim %v into the lease: %v, %v", at, reportIDs(got), err)
		}
	}
	// The lease is over: r1 again, not r2, which still waits for r1.
	again, err := replicas[1].ClaimReports(ctx, now.Add(lease), lease, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reportIDs(again), []int64{r1}) {
		t.Fatalf("claimed %v after the lease, want r1 %d", reportIDs(again), r1)
	}
	if got, err := replicas[0].ClaimReports(ctx, now.Add(lease), lease, 10); err != nil || len(got) != 0 {
		t.Fatalf("claimed %v, %v under the new lease", reportIDs(got), err)
	}

	var until *time.Time
	query := "SELECT lease_until FROM sms_reports WHERE id = $1"
	if err := replicas[0].pool.QueryRow(ctx, query, r1).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if until == nil || !until.Equal(dbTime(now.Add(2*lease))) {
		t.Errorf("lease until %v, want %v", until, now.Add(2*lease))
	}
	finish(t, replicas[1], again[0], sms.ReportPending, now)
	if err := replicas[0].pool.QueryRow(ctx, query, r1).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if until != nil {
		t.Errorf("lease until %v after FinishReport, want NULL", until)
	}
	// Finished as pending and due: claimable at once.
	if got := claim(t, replicas[0], now); !slices.Equal(reportIDs(got), []int64{r1}) {
		t.Errorf("claimed %v after finishing as due, want r1 %d", reportIDs(got), r1)
	}
}

func TestOutboxClaimLimit(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 3)
	for i, key := range keys {
		queue(t, s, key, pending(key, t1.Add(time.Duration(len(keys)-i)*time.Second), "{}"))
	}
	ctx := t.Context()
	for _, limit := range []int{0, -1} {
		if got, err := s.ClaimReports(ctx, t1.Add(time.Hour), time.Minute, limit); err != nil || got != nil {
			t.Errorf("limit %d: %v, %v", limit, got, err)
		}
	}
	if got := claim(t, s, t1.Add(time.Second-time.Microsecond)); len(got) != 0 {
		t.Errorf("claimed %+v before any report was due", got)
	}
	if got := claim(t, s, t1.Add(time.Second)); len(got) != 1 || got[0].PartNum != 1 || got[0].MsgID != "m-002" {
		t.Errorf("claimed %+v at the first due time, want the report of m-002 part 1", got)
	}
	// The next three by next_at, the last queued first; the one claimed
	// above is still leased.
	got, err := s.ClaimReports(ctx, t1.Add(30*time.Second), time.Minute, 3)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, key := range []sms.PartKey{keys[4], keys[3], keys[2]} {
		want = append(want, partReportIDs(t, s, key)...)
	}
	if !slices.Equal(reportIDs(got), want) {
		t.Errorf("claimed %v, want %v", reportIDs(got), want)
	}
}

func TestOutboxFinishReport(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	key := seedMessages(t, s, 1)[0]
	queue(t, s, key, pending(key, t1, "{}"))
	rs := claim(t, s, t1)
	r := rs[0]
	r.State, r.Attempts, r.NextAt, r.LastError = sms.ReportPending, 3, t1.Add(90*time.Second), "HTTP 503: ü"
	// Fields FinishReport does not write.
	r.URL, r.Body, r.MsgID, r.CreatedAt = "changed", []byte("changed"), "changed", t1.Add(time.Hour)
	if err := s.FinishReport(ctx, r); err != nil {
		t.Fatal(err)
	}
	got := claim(t, s, r.NextAt)
	want := rs[0]
	want.Attempts, want.NextAt, want.LastError = 3, dbTime(r.NextAt), r.LastError
	if diff := cmp.Diff([]sms.Report{want}, got); diff != "" {
		t.Errorf("report after FinishReport (-want +got):\n%s", diff)
	}

	bad := got[0]
	bad.LastError, bad.State = "bad \xff", sms.ReportDelivered
	err := s.FinishReport(ctx, bad)
	if e, ok := errors.AsType[*msgkit.Error](err); !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != "lastError" {
		t.Errorf("unstorable lastError: %v, want invalid naming lastError", err)
	}
	bad.LastError, bad.Attempts = "", 1<<31
	if err := s.FinishReport(ctx, bad); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("attempts out of range: %v, want invalid", err)
	}
	missing := got[0]
	missing.ID = got[0].ID + 1000
	if err := s.FinishReport(ctx, missing); msgkit.KindOf(err) != msgkit.NotFound || msgkit.CodeOf(err) != "report_not_found" {
		t.Errorf("unknown id: %v, want not found report_not_found", err)
	}
	counts, err := s.ReportCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[sms.ReportState]int{sms.ReportPending: 1}, counts); diff != "" {
		t.Errorf("counts after refused finishes (-want +got):\n%s", diff)
	}

	// In a batch, the refused finishes leave the others alone.
	ok := got[0]
	ok.Attempts, ok.LastError = 4, "HTTP 502"
	bad.LastError, bad.Attempts = "nul \x00", 5
	errs := s.FinishReports(ctx, []sms.Report{bad, ok, missing})
	if msgkit.KindOf(errs[0]) != msgkit.Invalid || errs[1] != nil || msgkit.CodeOf(errs[2]) != "report_not_found" {
		t.Errorf("batch with a refused finish: %v", errs)
	}
	if got := claim(t, s, r.NextAt); len(got) != 1 || got[0].Attempts != 4 || got[0].LastError != "HTTP 502" {
		t.Errorf("after the batch: %+v", got)
	}

	// A finished report stays finished: a late claimer cannot queue it again.
	finish(t, s, got[0], sms.ReportDelivered, t1)
	late := got[0]
	late.State, late.NextAt = sms.ReportPending, t1
	if err := s.FinishReport(ctx, late); msgkit.KindOf(err) != msgkit.NotFound || msgkit.CodeOf(err) != "report_not_found" {
		t.Errorf("finishing a delivered report: %v, want not found report_not_found", err)
	}
	if counts, err = s.ReportCounts(ctx); err != nil || counts[sms.ReportDelivered] != 1 || len(counts) != 1 {
		t.Errorf("counts %v, %v; want one delivered report", counts, err)
	}
}

func TestOutboxReportCountsEmpty(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	counts, err := s.ReportCounts(t.Context())
	if err != nil || counts == nil || len(counts) != 0 {
		t.Errorf("ReportCounts = %v, %v; want an empty map", counts, err)
	}
}

func TestOutboxExpiredParts(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "100")); err != nil {
		t.Fatal(err)
	}
	now := t1
	accept := func(id string, expires time.Time, states ...sms.PartState) {
		t.Helper()
		m := smstest.Message(id, "shop", "0.01")
		m.ExpiresAt = expires
		m.Parts = m.Parts[:0]
		for i, st := range states {
			m.Parts = append(m.Parts, sms.PartRecord{Num: i, Text: "x", State: st, UpdatedAt: t1})
		}
		if err := s.Accept(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	accept("b", now, sms.StateSubmitted, sms.StateDelivered, sms.StateBuffered)
	accept("a", now, sms.StateSentToSMSC)
	accept("c", now.Add(-time.Hour), sms.StateUndelivered, sms.StateSentToSMSC)
	accept("d", now.Add(-2*time.Hour), sms.StateDelivered, sms.StateRejected) // all final
	accept("e", now.Add(time.Microsecond), sms.StateSubmitted)                // not yet
	accept("f", time.Time{}, sms.StateBuffered)                               // the zero time is long past
	accept("g", now.Add(-time.Hour).Add(-time.Nanosecond), sms.StateSubmitted)

	got, err := s.ExpiredParts(ctx, now, 100)
	if err != nil {
		t.Fatal(err)
	}
	// g's expiry, truncated to the microsecond, is c's: the id decides.
	pk := func(id sms.MessageID, num int) sms.PartKey { return sms.PartKey{MsgID: id, PartNum: num} }
	want := []sms.PartKey{pk("f", 0), pk("c", 1), pk("g", 0), pk("a", 0), pk("b", 0), pk("b", 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expired parts (-want +got):\n%s", diff)
	}
	if got, err = s.ExpiredParts(ctx, now, 3); err != nil || !slices.Equal(got, want[:3]) {
		t.Errorf("limit 3: %v, %v; want %v", got, err, want[:3])
	}
	if got, err = s.ExpiredParts(ctx, now, 0); err != nil || got != nil {
		t.Errorf("limit 0: %v, %v", got, err)
	}
}

// explain returns the plan of sql with args, as text.
func explain(t *testing.T, s *SMSStore, sql string, args ...any) string {
	t.Helper()
	return planOf(t, s.pool, "EXPLAIN", sql, args...)
}

// planOf runs explain (EXPLAIN, with its options if any) of sql with args
// on q, and returns the plan as text.
func planOf(tb testing.TB, q listQuerier, explain, sql string, args ...any) string {
	tb.Helper()
	return strings.Join(queryStrings(tb, q, explain+" "+sql, args...), "\n")
}

// queryStrings runs sql and returns its rows' one text column.
func queryStrings(tb testing.TB, q listQuerier, sql string, args ...any) []string {
	tb.Helper()
	rows, err := q.Query(tb.Context(), sql, args...)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// execScript runs the statements of script (separated by semicolons),
// with arg as $1 in those that use it.
func execScript(t *testing.T, s *SMSStore, script string, arg any) {
	t.Helper()
	for stmt := range strings.SplitSeq(script, ";") {
		args := []any{arg}
		if !strings.Contains(stmt, "$1") {
			args = nil
		}
		if _, err := s.pool.Exec(t.Context(), stmt, args...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOutboxPlansUseTheIndexes fills the tables as a store that has run
// for a while looks (most parts final, most reports delivered) and checks
// that ExpiredParts and ClaimReports read through their partial indexes
// instead of scanning the history.
func TestOutboxPlansUseTheIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the history to read plans; the full suite runs it")
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
		SELECT 'm-' || g, 'shop', 'text', 'Shop', false, '+38640123456', 0, false, 31, 'https://example.com/dlr',
			0.01, 0.02, 'EUR', $1::timestamptz - make_interval(secs => g), $1::timestamptz - make_interval(secs => g) + interval '1 day'
		FROM generate_series(1, 20000) g;
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		SELECT 'm-' || g, n, 'x', 1, 0, 0, 0, 0, 0, CASE WHEN g % 100 = 0 THEN 2 ELSE 4 END, 0, $1
		FROM generate_series(1, 20000) g, generate_series(0, 1) n;
		INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		SELECT 'm-' || g, n, 'https://example.com/dlr', '{}', CASE WHEN g % 100 = 0 THEN 1 ELSE 2 END, 1, $1, $1, ''
		FROM generate_series(1, 20000) g, generate_series(0, 1) n;
		ANALYZE sms_messages; ANALYZE sms_parts; ANALYZE sms_reports`
	execScript(t, s, fill, t1)
	now := t1.Add(12 * time.Hour)
	plan := explain(t, s, expiredPartsSQL, now, 500)
	// Whether the messages are joined by primary key or scanned is the
	// planner's call by their number; the parts are never scanned.
	if !strings.Contains(plan, "sms_parts_open_idx") || strings.Contains(plan, "Seq Scan on sms_parts") {
		t.Errorf("ExpiredParts plan does not read the open parts' index:\n%s", plan)
	}
	plan = explain(t, s, claimSQL, now, now.Add(time.Minute), 100)
	if !strings.Contains(plan, "sms_reports_due_idx") || !strings.Contains(plan, "sms_reports_part_idx") || strings.Contains(plan, "Seq Scan on sms_reports") {
		t.Errorf("ClaimReports plan does not read the due and part indexes:\n%s", plan)
	}
	if testing.Verbose() {
		t.Logf("ClaimReports plan:\n%s", plan)
	}
	// Every message has expired a day later; one in a hundred has open parts.
	keys, err := s.ExpiredParts(ctx, t1.Add(24*time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 400 {
		t.Errorf("%d expired parts, want 400", len(keys))
	}
}

// BenchmarkUpdatePart updates a part and queues its report in one
// transaction, on a DB without metrics and on one with them (a tracer on
// every statement, the retries counted): their cost side by side.
func BenchmarkUpdatePart(b *testing.B) {
	b.Run("metrics=nil", func(b *testing.B) { benchUpdatePart(b, nil) })
	b.Run("metrics=set", func(b *testing.B) { benchUpdatePart(b, prometheus.NewRegistry()) })
}

func benchUpdatePart(b *testing.B, reg prometheus.Registerer) {
	dsn, schema := newTestSchema(b)
	s := openTestStore(b, dsn, Options{Schema: schema, Metrics: reg})
	ctx := b.Context()
	key := seedMessages(b, s, 1)[0]
	body := []byte(`{"msgId":"m-000","event":"BUFFERED","errorCode":1,"errorMessage":"absent subscriber","partNum":0,` +
		`"numParts":2,"accountName":"shop","sendTime":1795340000,"dlrTime":1795340001,"custom":{"order":42}}`)
	u := sms.PartUpdate{State: sms.StateBuffered, ErrorCode: sms.DLRAbsentSubscriber, UpdatedAt: t1,
		Reports: []sms.Report{{MsgID: key.MsgID, PartNum: key.PartNum, URL: "https://example.com/dlr", Body: body,
			State: sms.ReportPending, NextAt: t1, CreatedAt: t1}}}
	fn := func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) { return u, true, nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := s.UpdatePart(ctx, key, fn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimFinish measures the outbox as one dispatcher uses it: a
// claim of 100 reports, then their outcomes recorded together; the
// reports are queued with the timer stopped.
func BenchmarkClaimFinish(b *testing.B) {
	s := newTestStore(b)
	ctx := b.Context()
	const batch = 100
	// 100 due reports of 100 parts of their own, queued (untimed) for each
	// op: the history grows as in service, a part's own stays short.
	const refill = `INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		SELECT 'm-' || $2::int || '-' || g, 0, 'https://example.com/dlr', '{"event":"DELIVERED"}', 1, 0, $1, $1, ''
		FROM generate_series(1, 100) g`
	now := t1.Add(time.Hour)
	op := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		op++
		if _, err := s.pool.Exec(ctx, refill, t1, op); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rs, err := s.ClaimReports(ctx, now, time.Minute, batch)
		if err != nil {
			b.Fatal(err)
		}
		if len(rs) != batch {
			b.Fatalf("claimed %d reports, want %d", len(rs), batch)
		}
		for i := range rs {
			rs[i].State, rs[i].Attempts, rs[i].NextAt = sms.ReportDelivered, 1, now
		}
		for _, err := range s.FinishReports(ctx, rs) { // as the Dispatcher records them
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "reports/s")
}
