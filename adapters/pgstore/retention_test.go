package pgstore

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smstest"
)

// countWhere counts the rows of table in s's schema that cond selects.
func countWhere(t *testing.T, s *SMSStore, table, cond string, args ...any) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(t.Context(), "SELECT count(*) FROM "+table+" WHERE "+cond, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ForgetFinished removes everything of the messages it removes (parts,
// finished reports, SMPP records) and nothing of the others.
func TestForgetFinishedRows(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	s := db.SMS()
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "100")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gone", "pending", "open"} {
		if err := s.Accept(ctx, smstest.Message(id, "shop", "0.01")); err != nil {
			t.Fatal(err)
		}
	}
	var subs []smpp.Submitted
	for _, id := range []string{"gone", "pending", "open"} {
		for num := range 2 {
			subs = append(subs, smpp.Submitted{PartKey: smpp.PartKey{MsgID: sms.MessageID(id), PartNum: num}, Conn: "smsc", SMSCID: id + strconv.Itoa(num)})
		}
	}
	if err := db.SMPP().SaveSubmitted(ctx, subs); err != nil {
		t.Fatal(err)
	}
	at := t1.Add(time.Minute)
	smstest.FinishMessage(t, s, "gone", 2, sms.StateDelivered, at, true)
	claimed, err := s.ClaimReports(ctx, at, time.Minute, 10)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %v, %v", claimed, err)
	}
	claimed[0].State, claimed[1].State = sms.ReportDelivered, sms.ReportGivenUp
	for _, err := range s.FinishReports(ctx, claimed) {
		if err != nil {
			t.Fatal(err)
		}
	}
	smstest.FinishMessage(t, s, "pending", 2, sms.StateDelivered, at, true)
	smstest.FinishMessage(t, s, "open", 1, sms.StateBuffered, at, true)

	if n, err := s.ForgetFinished(ctx, at.Add(time.Second), 100); err != nil || n != 1 {
		t.Fatalf("ForgetFinished = %d, %v; want 1", n, err)
	}
	for _, c := range []struct {
		table, cond string
		want        int
	}{
		{"sms_messages", "id = 'gone'", 0},
		{"sms_parts", "msg_id = 'gone'", 0},
		{"sms_reports", "msg_id = 'gone'", 0},
		{"smpp_submitted", "msg_id = 'gone'", 0},
		{"sms_messages", "id <> 'gone'", 2},
		{"sms_parts", "msg_id <> 'gone'", 4},
		{"sms_reports", "msg_id = 'pending' AND state = 1", 2},
		{"sms_reports", "msg_id = 'open' AND state = 1", 1},
		{"smpp_submitted", "msg_id <> 'gone'", 4},
	} {
		if got := countWhere(t, s, c.table, c.cond); got != c.want {
			t.Errorf("%s WHERE %s: %d rows, want %d", c.table, c.cond, got, c.want)
		}
	}
}

// fillHistory stores n two-part messages of 20 accounts, submitted one a
// second from base on, each part updated 10 s after its submission,
// with a report each: every part final and every report delivered,
// except one message in a hundred still open (g % 100 = 0) and one in a
// hundred with a pending report (g % 100 = 50). Statistics are taken
// after it, as autovacuum's analyse would.
func fillHistory(t *testing.T, s *SMSStore, base time.Time, n int) {
	t.Helper()
	script := `INSERT INTO sms_accounts (username, password_hash, enabled, balance, currency, validity_ms, throughput, max_parts, created_at)
		SELECT 'a-' || a, 'x', true, 1000, 'EUR', 0, 0, 0, $1 FROM generate_series(0, 19) a;
		INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
			part_price, charged, currency, submitted_at, expires_at)
		SELECT 'm-' || g, 'a-' || g % 20, 'text', 'Shop', false, '+38640123456', 0, false, 31, 'https://example.com/dlr',
			0.01, 0.02, 'EUR', $1::timestamptz + make_interval(secs => g), $1::timestamptz + make_interval(secs => g) + interval '1 day'
		FROM generate_series(1, N) g;
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		SELECT 'm-' || g, k, 'x', 1, 0, 0, 0, 0, 0, CASE WHEN g % 100 = 0 THEN 2 ELSE 4 END, 0, $1::timestamptz + make_interval(secs => g + 10)
		FROM generate_series(1, N) g, generate_series(0, 1) k;
		INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		SELECT 'm-' || g, k, 'https://example.com/dlr', '{}', CASE WHEN g % 100 = 50 THEN 1 ELSE 2 END, 1, $1, $1, ''
		FROM generate_series(1, N) g, generate_series(0, 1) k;
		ANALYZE sms_accounts; ANALYZE sms_messages; ANALYZE sms_parts; ANALYZE sms_reports`
	execScript(t, s, strings.ReplaceAll(script, "N)", strconv.Itoa(n)+")"), base)
}

// explainForget explains ForgetFinished's two statements as it runs them
// (keyedOnly, in a transaction rolled back after), executed (ANALYZE,
// BUFFERS), and returns the plans and the buffers each touched; generic
// plans them as a connection's cached statement may be, for any
// parameters.
func explainForget(t *testing.T, s *SMSStore, before time.Time, limit int, generic bool) (plans string, buffers [2]int, picked int) {
	t.Helper()
	ctx := t.Context()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, set := range []string{keyedOnly, walkInOrder} {
		if _, err := tx.Exec(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	if generic {
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			t.Fatal(err)
		}
	}
	ids := slices.Compact(queryStrings(t, tx, forgetPickSQL, dbTime(before), limit))
	var out []string
	for i, q := range []struct {
		sql  string
		args []any
	}{{forgetPickSQL, []any{dbTime(before), limit}}, {forgetSQL, []any{ids, dbTime(before)}}} {
		plan := planOf(t, tx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)", q.sql, q.args...)
		buffers[i] = topBuffers(plan)
		out = append(out, plan)
	}
	return strings.Join(out, "\n\n"), buffers, len(ids)
}

var buffersRE = regexp.MustCompile(`Buffers: shared((?: \w+=\d+)+)`)

// topBuffers sums the shared buffers of a plan's first Buffers line (its
// top node, which counts its children's).
func topBuffers(plan string) int {
	m := buffersRE.FindStringSubmatch(plan)
	if m == nil {
		return 0
	}
	n := 0
	for f := range strings.FieldsSeq(m[1]) {
		v, _ := strconv.Atoi(f[strings.IndexByte(f, '=')+1:])
		n += v
	}
	return n
}

// TestForgetFinishedPlan checks on 200,000 messages (400,000 parts and
// reports) of 20 accounts that a removal reads about what it removes:
// the messages' index range before the cutoff, then each candidate's
// parts and reports by key, never a table scan; the buffers it touches
// per removed message stay about the same on a history ten times
// smaller, and when 150,000 messages are due at once.
func TestForgetFinishedPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 200,000 messages to read plans; the full suite runs it")
	}
	t.Parallel()
	perMessage := map[int]float64{}
	for _, n := range []int{20_000, 200_000} {
		s := newTestStore(t)
		fillHistory(t, s, t1, n)
		before := t1.Add(1010 * time.Second) // messages 1 to 999 finished before it
		var pages int
		if err := s.pool.QueryRow(t.Context(), `SELECT sum(pg_relation_size(c)) / 8192 FROM unnest('{sms_messages,sms_parts,sms_reports}'::regclass[]) c`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		for _, generic := range []bool{false, true} {
			plans, buffers, picked := explainForget(t, s, before, 1000, generic)
			if picked != 980 { // of 999: 9 open, 10 with a pending report
				t.Errorf("%d messages: picked %d, want 980", n, picked)
			}
			for _, table := range []string{"sms_messages", "sms_parts", "sms_reports", "smpp_submitted", "sms_outbound"} {
				if strings.Contains(plans, "Seq Scan on "+table) {
					t.Errorf("%d messages (generic %v): the plans scan %s:\n%s", n, generic, table, plans)
				}
			}
			if !strings.Contains(plans, "sms_messages_account_idx") {
				t.Errorf("%d messages (generic %v): the pick does not read sms_messages_account_idx:\n%s", n, generic, plans)
			}
			t.Logf("%d messages in %d pages (generic %v): %d buffers to pick, %d to delete %d messages", n, pages, generic, buffers[0], buffers[1], picked)
			if !generic {
				perMessage[n] = float64(buffers[0]+buffers[1]) / float64(picked)
			}
			if testing.Verbose() && n == 200_000 {
				t.Logf("plans (generic %v):\n%s", generic, plans)
			}
		}
	}
	if perMessage[200_000] > 1.5*perMessage[20_000] {
		t.Errorf("buffers per removed message: %.1f on 200,000 messages, %.1f on 20,000: the cost follows the table", perMessage[200_000], perMessage[20_000])
	}

	// A backlog: 150,000 messages due at once. A call still reads about
	// the thousand it removes: each account's range is walked in order and
	// left at the limit.
	s := newTestStore(t)
	fillHistory(t, s, t1, 200_000)
	for _, generic := range []bool{false, true} {
		plans, buffers, picked := explainForget(t, s, t1.Add(150_010*time.Second), 1000, generic)
		if picked != 1000 {
			t.Errorf("backlog: picked %d, want 1000", picked)
		}
		per := float64(buffers[0]+buffers[1]) / float64(picked)
		t.Logf("backlog of 150,000 (generic %v): %d buffers to pick, %d to delete %d messages", generic, buffers[0], buffers[1], picked)
		if per > 1.5*perMessage[200_000] || strings.Contains(plans, "Seq Scan") || strings.Contains(plans, "Bitmap") {
			t.Errorf("backlog (generic %v): %.1f buffers per message, %.1f without a backlog:\n%s", generic, per, perMessage[200_000], plans)
		}
	}
}

// TestForgetFinishedNoBloat runs rounds of traffic through the store as
// a server on retention does: each round accepts messages, delivers them
// and their reports, removes those of two rounds before (so two rounds
// stay, as a keep time would keep them) and VACUUMs as autovacuum would.
// From the third round on the tables stop growing: the space of the
// removed rows is used again. VACUUM frees only rows no snapshot of the
// database may still see, and the transactions of tests running beside
// it (other packages' too) may hold a round's rows back past a VACUUM or
// two, so a table may exceed its steady size by up to two rounds (the
// first round's size each) before shrinking back. Without the space used
// again every round would add a round: seven by the last one.
// It runs before the package's parallel tests, for fewer such snapshots.
func TestForgetFinishedNoBloat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs rounds of thousands of messages; the full suite runs it")
	}
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1000000")); err != nil {
		t.Fatal(err)
	}
	const rounds, perRound = 10, 2000
	tables := []string{"sms_messages", "sms_parts", "sms_reports"}
	sizes := make([][]int64, len(tables))
	for r := range rounds {
		at := t1.Add(time.Duration(r) * time.Hour)
		acceptRound(t, s, r, perRound, at)
		deliverRound(t, s, r, perRound, at.Add(time.Minute))
		if _, err := s.pool.Exec(ctx, `UPDATE sms_reports SET state = 2 WHERE state = 1`); err != nil { // the dispatcher's work
			t.Fatal(err)
		}
		want := perRound
		if r < 2 {
			want = 0
		}
		if n, err := s.ForgetFinished(ctx, at.Add(-time.Hour), 1<<30); err != nil || n != want {
			t.Fatalf("round %d: ForgetFinished = %d, %v; want %d", r, n, err, want)
		}
		if _, err := s.pool.Exec(ctx, "VACUUM "+strings.Join(tables, ", ")); err != nil {
			t.Fatal(err)
		}
		for i, table := range tables {
			var size int64
			if err := s.pool.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", table).Scan(&size); err != nil {
				t.Fatal(err)
			}
			sizes[i] = append(sizes[i], size)
		}
	}
	for i, table := range tables {
		t.Logf("%s: %v bytes after each round", table, sizes[i])
		steady, round := sizes[i][2], sizes[i][0] // two rounds kept and one accepted; one round
		for r, size := range sizes[i][3:] {
			if size > steady+2*round {
				t.Errorf("%s grew to %d bytes in round %d, from %d after round 2 (a round takes %d)", table, size, r+3, steady, round)
			}
		}
	}
}

// acceptRound accepts round r's n two-part messages, submitted at at, 16
// at a time (group commit batches them).
func acceptRound(t *testing.T, s *SMSStore, r, n int, at time.Time) {
	t.Helper()
	var wg sync.WaitGroup
	ids := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range ids {
				m := smstest.Message(fmt.Sprintf("r%d-%05d", r, i), "shop", "0.01")
				m.SubmittedAt, m.ExpiresAt = at, at.Add(24*time.Hour)
				for k := range m.Parts {
					m.Parts[k].UpdatedAt, m.Parts[k].SendAt = at, time.Time{}
				}
				if err := s.Accept(t.Context(), m); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	wg.Wait()
}

// deliverRound delivers every part of round r's messages at at with a
// pending report each, 500 messages per UpdateParts call.
func deliverRound(t *testing.T, s *SMSStore, r, n int, at time.Time) {
	t.Helper()
	var changes []sms.PartChange
	flush := func() {
		for _, err := range s.UpdateParts(t.Context(), changes) {
			if err != nil {
				t.Fatal(err)
			}
		}
		changes = changes[:0]
	}
	for i := range n {
		id := sms.MessageID(fmt.Sprintf("r%d-%05d", r, i))
		for num := range 2 {
			changes = append(changes, sms.PartChange{Key: sms.PartKey{MsgID: id, PartNum: num}, Fn: func(sms.MessageRecord, sms.PartRecord) (sms.PartUpdate, bool, error) {
				return sms.PartUpdate{State: sms.StateDelivered, UpdatedAt: at, Reports: []sms.Report{{
					MsgID: id, PartNum: num, URL: "https://example.com/dlr", Body: []byte(`{"event":"DELIVERED"}`),
					State: sms.ReportPending, NextAt: at, CreatedAt: at,
				}}}, true, nil
			}})
		}
		if len(changes) == 1000 {
			flush()
		}
	}
	flush()
}

// BenchmarkForgetFinished measures ForgetFinished per removed message
// (ns/op is per message): b.N finished two-part messages, each with two
// delivered reports and two SMPP records, among 50,000 newer ones, are
// stored untimed; the timed part removes them, forgetBatch a
// transaction. Run it beside BenchmarkAccept, with a fixed -benchtime
// (e.g. 20000x) so both see tables of the same size:
//
//	go test ./adapters/pgstore/ -run XX -bench 'BenchmarkAccept$|ForgetFinished' -benchmem -benchtime 20000x -count 5
func BenchmarkForgetFinished(b *testing.B) {
	s := newTestStore(b)
	ctx := b.Context()
	const fill = `INSERT INTO sms_accounts (username, password_hash, enabled, balance, currency, validity_ms, throughput, max_parts, created_at)
		VALUES ('shop', 'x', true, 1000, 'EUR', 0, 0, 0, $1);
		CREATE TEMPORARY TABLE fill AS
			SELECT 'old-' || g AS id, $1::timestamptz + make_interval(secs => g / 1000.0) AS at FROM generate_series(1, $2::int) g
			UNION ALL
			SELECT 'new-' || g, $1::timestamptz + interval '1 day' + make_interval(secs => g / 1000.0) FROM generate_series(1, 50000) g;
		INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
			part_price, charged, currency, submitted_at, expires_at)
		SELECT id, 'shop', 'text', 'Shop', false, '+38640123456', 0, false, 31, 'https://example.com/dlr',
			0.01, 0.02, 'EUR', at, at + interval '1 day' FROM fill;
		INSERT INTO sms_parts (msg_id, num, text, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
		SELECT id, k, 'hello there', 1, 0, 0, 0, 0, 0, 4, 0, at + interval '5 seconds' FROM fill, generate_series(0, 1) k;
		INSERT INTO sms_reports (msg_id, part_num, url, body, state, attempts, next_at, created_at, last_error)
		SELECT id, k, 'https://example.com/dlr', '{"event":"DELIVERED"}', 2, 1, at, at, '' FROM fill, generate_series(0, 1) k;
		INSERT INTO smpp_submitted (msg_id, part_num, conn, smsc_id, created_at)
		SELECT id, k, 'smsc', convert_to(id || '/' || k, 'UTF8'), at FROM fill, generate_series(0, 1) k;
		ANALYZE sms_accounts, sms_messages, sms_parts, sms_reports, smpp_submitted`
	conn, err := s.pool.Acquire(ctx) // one session, for the temporary table
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	for stmt := range strings.SplitSeq(fill, ";") {
		args := []any{t1, b.N}
		switch {
		case strings.Contains(stmt, "$2"):
		case strings.Contains(stmt, "$1"):
			args = args[:1]
		default:
			args = nil
		}
		if _, err := conn.Exec(ctx, stmt, args...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	n, err := s.ForgetFinished(ctx, t1.Add(12*time.Hour), b.N)
	b.StopTimer()
	if err != nil || n != b.N {
		b.Fatalf("ForgetFinished = %d, %v; want %d", n, err, b.N)
	}
}

// ForgetFinished removes the test system's callbacks that were delivered
// or given up and queued before the cutoff, up to the limit; pending and
// later ones stay, as do the reports of messages, and the removal reads
// sms_reports by key.
func TestForgetFinishedCallbacks(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	before := t1.Add(time.Hour)
	b := &pgx.Batch{}
	queue := func(msgID string, state sms.ReportState, created time.Time) {
		queueReport(b, sms.Report{MsgID: sms.MessageID(msgID), URL: "https://example.com/cb", Body: []byte("{}"),
			State: state, NextAt: created, CreatedAt: created})
	}
	queue(testSessionReports+"1", sms.ReportDelivered, t1)                 // goes
	queue(testSessionReports+"2", sms.ReportGivenUp, t1)                   // goes
	queue(testSessionReports+"3", sms.ReportDelivered, t1)                 // goes, on the second call (limit 2)
	queue(testSessionReports+"4", sms.ReportPending, t1)                   // still to post
	queue(testSessionReports+"5", sms.ReportDelivered, before)             // not before the cutoff
	queue("testsession", sms.ReportDelivered, t1)                          // not a session's id
	queue("0190f0d2-7b3c-7000-8000-000000000001", sms.ReportDelivered, t1) // a message's: its message's removal takes it
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	left := func() []string { return queryStrings(t, s.pool, "SELECT msg_id FROM sms_reports ORDER BY msg_id") }
	if _, err := s.ForgetFinished(ctx, before, 2); err != nil {
		t.Fatal(err)
	}
	if got := len(left()); got != 5 {
		t.Fatalf("after the first call (limit 2) %d reports are left, want 5: %v", got, left())
	}
	if _, err := s.ForgetFinished(ctx, before, 2); err != nil {
		t.Fatal(err)
	}
	want := []string{"0190f0d2-7b3c-7000-8000-000000000001", "testsession", testSessionReports + "4", testSessionReports + "5"}
	if got := left(); !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}

	// By key, even on statistics that call the table empty.
	if _, err := s.pool.Exec(ctx, "ANALYZE sms_reports"); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, keyedOnly); err != nil {
		t.Fatal(err)
	}
	plan := planOf(t, tx, "EXPLAIN", forgetCallbacksSQL, before, 1000)
	if strings.Contains(plan, "Seq Scan on sms_reports") || !strings.Contains(plan, "sms_reports_part_idx") {
		t.Errorf("the removal does not read sms_reports_part_idx:\n%s", plan)
	}
}
