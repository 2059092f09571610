package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// TestSMSContractBatchPath runs the contract with every Accept written by
// acceptBatch, a lone message included, so both ways of writing meet it.
func TestSMSContractBatchPath(t *testing.T) {
	if testing.Short() {
		t.Skip("the sms contract again, through the batch path; the full suite runs it")
	}
	t.Parallel()
	smstest.Run(t, func(t *testing.T) smstest.Store {
		s := newTestStore(t)
		s.accepts.batchAlone = true
		return s
	})
}

// outcome is what a test expects of one Accept: nil, or the kind and
// code of its error.
type outcome struct {
	kind msgkit.Kind
	code string
}

var accepted = outcome{}

func outcomeOf(err error) outcome {
	if err == nil {
		return accepted
	}
	return outcome{msgkit.KindOf(err), msgkit.CodeOf(err)}
}

var (
	notFound = outcome{msgkit.NotFound, "account_not_found"}
	conflict = outcome{msgkit.Conflict, "message_exists"}
	noCredit = outcome{msgkit.PaymentRequired, "113"}
)

func TestSettle(t *testing.T) {
	t.Parallel()
	msg := func(id, account, charge string) sms.MessageRecord {
		return sms.MessageRecord{ID: sms.MessageID(id), Account: account, Charged: dec(charge)}
	}
	tests := []struct {
		name     string
		balances map[string]string
		existing []sms.MessageID
		msgs     []sms.MessageRecord
		want     []outcome
		after    map[string]string
	}{{
		name:     "arrival order and the running balance",
		balances: map[string]string{"a": "1.00"},
		msgs:     []sms.MessageRecord{msg("1", "a", "0.60"), msg("2", "a", "0.60"), msg("3", "a", "0.40"), msg("4", "a", "0.0001")},
		want:     []outcome{accepted, noCredit, accepted, noCredit},
		after:    map[string]string{"a": "0.00"},
	}, {
		name:     "precedence: account, then id, then credit",
		balances: map[string]string{"a": "0"},
		existing: []sms.MessageID{"taken"},
		msgs:     []sms.MessageRecord{msg("taken", "nobody", "1"), msg("taken", "a", "1"), msg("new", "a", "1")},
		want:     []outcome{notFound, conflict, noCredit},
		after:    map[string]string{"a": "0"},
	}, {
		name:     "a duplicate in the batch: the first accepted wins",
		balances: map[string]string{"a": "1"},
		msgs:     []sms.MessageRecord{msg("x", "a", "0.1"), msg("x", "a", "0.1")},
		want:     []outcome{accepted, conflict},
		after:    map[string]string{"a": "0.9"},
	}, {
		name:     "an id refused first is free for the next",
		balances: map[string]string{"a": "1"},
		msgs:     []sms.MessageRecord{msg("x", "a", "2"), msg("x", "a", "1"), msg("x", "nobody", "0")},
		want:     []outcome{noCredit, accepted, notFound},
		after:    map[string]string{"a": "0"},
	}, {
		name:     "accounts apart, a free message on an empty balance",
		balances: map[string]string{"a": "0.0450", "b": "0"},
		msgs:     []sms.MessageRecord{msg("1", "b", "0"), msg("2", "a", "0.045"), msg("3", "b", "0.01"), msg("4", "a", "0.0001")},
		want:     []outcome{accepted, accepted, noCredit, noCredit},
		after:    map[string]string{"a": "0.0000", "b": "0"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			accounts := map[string]*batchAccount{}
			for u, b := range tc.balances {
				accounts[u] = &batchAccount{balance: dec(b), currency: "EUR"}
			}
			existing := map[sms.MessageID]bool{}
			for _, id := range tc.existing {
				existing[id] = true
			}
			outcomes, acc := settle(tc.msgs, accounts, existing)
			var got []outcome
			var wantAccepted []sms.MessageID
			for i, err := range outcomes {
				got = append(got, outcomeOf(err))
				if err == nil {
					wantAccepted = append(wantAccepted, tc.msgs[i].ID)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(outcome{})); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			var gotAccepted []sms.MessageID
			for _, m := range acc {
				gotAccepted = append(gotAccepted, m.ID)
			}
			if diff := cmp.Diff(wantAccepted, gotAccepted); diff != "" {
				t.Errorf("accepted messages (-want +got):\n%s", diff)
			}
			gotAfter := map[string]decimal.Decimal{}
			wantAfter := map[string]decimal.Decimal{}
			for u, a := range accounts {
				gotAfter[u] = a.balance
				wantAfter[u] = dec(tc.after[u])
			}
			if diff := cmp.Diff(wantAfter, gotAfter, exactly); diff != "" {
				t.Errorf("balances (-want +got):\n%s", diff)
			}
		})
	}
}

// lockAccount locks username's row from a connection of its own, as a
// transaction of another replica would, until release is called. Accepts
// of the account wait for it meanwhile; blocked reports how many
// backends do.
func lockAccount(t *testing.T, s *SMSStore, dsn, schema, username string) (release func(), blocked func() int) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT 1 FROM " + pgx.Identifier{schema, "sms_accounts"}.Sanitize() + " WHERE username = $1 FOR UPDATE"
	if _, err := tx.Exec(ctx, q, username); err != nil {
		t.Fatal(err)
	}
	release = func() {
		if err := tx.Commit(context.Background()); err != nil {
			t.Error(err)
		}
	}
	pid := conn.PgConn().PID()
	blocked = func() int {
		var n int
		// Through the store's pool: pg_stat_activity is read once per
		// transaction, and tx's would never change.
		err := s.pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", int32(pid)).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return release, blocked
}

// waitFor polls cond until it holds, failing t after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// acceptAsync runs Accept in a goroutine; its error arrives on the channel.
func acceptAsync(ctx context.Context, s *SMSStore, m sms.MessageRecord) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Accept(ctx, m) }()
	return done
}

func receive(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Accept did not return")
		return nil
	}
}

// gatedStore is a store with one accept worker and an account "gate"
// whose row the test holds locked: a message of the gate is taken alone
// and waits for the lock, and the messages queued meanwhile make the next
// batch, in the order they were queued.
type gatedStore struct {
	*SMSStore
	db          *DB
	dsn, schema string
	release     func()
	gate        <-chan error // the gate message's Accept
}

// newGatedStore opens the store and runs setup on it before locking the
// gate.
func newGatedStore(t *testing.T, ctx context.Context, setup func(s *SMSStore)) *gatedStore {
	t.Helper()
	dsn, schema := newTestSchema(t)
	db := openTestDB(t, dsn, Options{Schema: schema, AcceptWorkers: 1})
	s := db.SMS()
	if err := s.CreateAccount(t.Context(), smstest.Account("gate", "1")); err != nil {
		t.Fatal(err)
	}
	setup(s)
	release, blocked := lockAccount(t, s, dsn, schema, "gate")
	g := &gatedStore{SMSStore: s, db: db, dsn: dsn, schema: schema, release: release}
	g.gate = acceptAsync(ctx, s, smstest.Message("gate-1", "gate", "0.01"))
	waitFor(t, "the worker waits for the gate's lock", func() bool { return blocked() == 1 })
	return g
}

// queue queues m behind the gate and waits until it is in the queue.
func (g *gatedStore) queue(t *testing.T, ctx context.Context, m sms.MessageRecord) <-chan error {
	t.Helper()
	q := g.accepts.queues[0]
	n := len(q)
	done := acceptAsync(ctx, g.SMSStore, m)
	waitFor(t, fmt.Sprintf("message %s is queued", m.ID), func() bool { return len(q) == n+1 })
	return done
}

// transactions counts the transactions that wrote the messages ids.
func transactions(t *testing.T, s *SMSStore, ids ...string) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(t.Context(), "SELECT count(DISTINCT xmin::text) FROM sms_messages WHERE id = ANY($1)", ids).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func createAccounts(t *testing.T, s *SMSStore, balances map[string]string) {
	t.Helper()
	for u, balance := range balances {
		if err := s.CreateAccount(t.Context(), smstest.Account(u, balance)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAcceptMixedBatch sends, through the batcher, one batch mixing
// messages to accept with every refusal: each message gets its own
// outcome, the others are accepted, and all of them are written by one
// transaction.
func TestAcceptMixedBatch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := newGatedStore(t, ctx, func(s *SMSStore) {
		createAccounts(t, s, map[string]string{"shop": "0.27", "other": "1"})
		if err := s.Accept(ctx, smstest.Message("taken", "shop", "0.01")); err != nil {
			t.Fatal(err)
		}
	})
	requireBalance(t, g.SMSStore, "shop", "0.25")
	first := smstest.Message("m-ok1", "shop", "0.05") // charge 0.10
	batch := []struct {
		m       sms.MessageRecord
		want    outcome
		message string
	}{
		{first, accepted, ""},
		{smstest.Message("taken", "shop", "0.01"), conflict, "message taken exists"},
		{smstest.Message("m-nobody", "nobody", "0.01"), notFound, "account nobody not found"},
		{smstest.Message("m-big", "shop", "0.10"), noCredit, "balance 0.15 EUR is below the charge 0.2"},
		{smstest.Message("m-ok2", "shop", "0.05"), accepted, ""},
		{smstest.Message("m-ok1", "shop", "0.01"), conflict, "message m-ok1 exists"}, // the first m-ok1 wins
		{smstest.Message("m-other", "other", "0.05"), accepted, ""},
		{smstest.Message("m-last", "shop", "0.03"), noCredit, "balance 0.05 EUR is below the charge 0.06"},
	}
	done := make([]<-chan error, len(batch))
	for i, b := range batch {
		done[i] = g.queue(t, ctx, b.m)
	}
	g.release()
	if err := receive(t, g.gate); err != nil {
		t.Fatalf("gate message: %v", err)
	}
	for i, b := range batch {
		err := receive(t, done[i])
		if got := outcomeOf(err); got != b.want || err != nil && msgkit.MessageOf(err) != b.message {
			t.Errorf("message %d (%s): error %v, want %v %q", i, b.m.ID, err, b.want, b.message)
		}
	}
	requireBalance(t, g.SMSStore, "shop", "0.05")
	requireBalance(t, g.SMSStore, "other", "0.90")
	got, err := g.Message(ctx, "m-ok1")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Charged.Equal(first.Charged) || len(got.Parts) != 2 {
		t.Errorf("m-ok1 stored with charge %s and %d parts, want the first one's", got.Charged, len(got.Parts))
	}
	for _, id := range []sms.MessageID{"m-nobody", "m-big", "m-last"} {
		if _, err := g.Message(ctx, id); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("refused message %s: %v, want not found", id, err)
		}
	}
	if n := countRows(t, g.SMSStore, "sms_parts"); n != 2*5 { // gate, taken, m-ok1, m-ok2, m-other
		t.Errorf("%d parts stored, want 10", n)
	}
	// other pays for all its messages: they are written at once
	// (chargeBatch); shop's are settled one by one after.
	if n := transactions(t, g.SMSStore, "m-ok1", "m-ok2", "m-other"); n != 2 {
		t.Errorf("the batch was written by %d transactions, want 2", n)
	}
	if n := transactions(t, g.SMSStore, "m-ok1", "m-ok2"); n != 1 {
		t.Errorf("shop's messages were written by %d transactions, want 1", n)
	}
}

// TestAcceptBatchOneRoundTrip: a batch whose accounts can each pay for all
// their messages is written by one transaction, and so is one with an id
// already taken, which is settled message by message.
func TestAcceptBatchOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, taken := range []bool{false, true} {
		t.Run(fmt.Sprintf("taken %v", taken), func(t *testing.T) {
			t.Parallel()
			g := newGatedStore(t, ctx, func(s *SMSStore) {
				createAccounts(t, s, map[string]string{"a": "1", "b": "1"})
				if err := s.Accept(ctx, smstest.Message("stored", "b", "0.01")); err != nil {
					t.Fatal(err)
				}
			})
			batch := []sms.MessageRecord{
				smstest.Message("a-1", "a", "0.05"), smstest.Message("b-1", "b", "0.10"), smstest.Message("a-2", "a", "0.20"),
			}
			if taken {
				batch = append(batch, smstest.Message("stored", "a", "0.01"))
			}
			done := make([]<-chan error, len(batch))
			for i, m := range batch {
				done[i] = g.queue(t, ctx, m)
			}
			g.release()
			if err := receive(t, g.gate); err != nil {
				t.Fatalf("gate message: %v", err)
			}
			for i, d := range done {
				err := receive(t, d)
				if want := taken && i == 3; want != errors.Is(err, msgkit.Conflict) || !want && err != nil {
					t.Errorf("message %s: %v", batch[i].ID, err)
				}
			}
			requireBalance(t, g.SMSStore, "a", "0.50")
			requireBalance(t, g.SMSStore, "b", "0.78")
			if n := transactions(t, g.SMSStore, "a-1", "b-1", "a-2"); n != 1 {
				t.Errorf("the batch was written by %d transactions, want 1", n)
			}
			if n := countRows(t, g.SMSStore, "sms_outbound"); n != 2*5 { // gate, stored, a-1, b-1, a-2
				t.Errorf("%d queued parts, want 10", n)
			}
		})
	}
}

// TestAcceptConcurrentLimitedCredit has many callers of two replicas race
// for the credit of several accounts: exactly the credit is spent, every
// accepted message is stored with its parts and no refused one is.
func TestAcceptConcurrentLimitedCredit(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{}, {AcceptWorkers: 1, AcceptMaxBatch: 4}, {AcceptWorkers: 3, AcceptMaxBatch: 16}} {
		t.Run(fmt.Sprintf("workers %d max batch %d", opts.AcceptWorkers, opts.AcceptMaxBatch), func(t *testing.T) {
			dsn, schema := newTestSchema(t)
			opts.Schema = schema
			replicas := []*SMSStore{openTestStore(t, dsn, opts), openTestStore(t, dsn, opts)}
			ctx := t.Context()
			// Messages of 2 parts at 0.05 each account can pay for; each
			// is sent twice as many.
			credit := map[string]int{"a": 40, "b": 25, "c": 1, "d": 0}
			for u, n := range credit {
				balance := dec("0.10").Mul(decimal.NewFromInt(int64(n))) // 4.00, 2.50, 0.10, 0.00
				if err := replicas[0].CreateAccount(ctx, smstest.Account(u, balance.StringFixed(2))); err != nil {
					t.Fatal(err)
				}
			}
			type call struct {
				m   sms.MessageRecord
				err error
			}
			var calls []*call
			for u, n := range credit {
				for i := range 2*n + 1 {
					calls = append(calls, &call{m: smstest.Message(fmt.Sprintf("%s-%d", u, i), u, "0.05")})
				}
			}
			for i := range 5 {
				calls = append(calls, &call{m: smstest.Message(fmt.Sprintf("ghost-%d", i), "ghost", "0")})
			}
			var wg sync.WaitGroup
			for i, c := range calls {
				wg.Go(func() { c.err = replicas[i%2].Accept(ctx, c.m) })
			}
			wg.Wait()

			acceptedBy := map[string]int{}
			total := 0
			for _, c := range calls {
				want := noCredit
				if c.m.Account == "ghost" {
					want = notFound
				}
				switch got := outcomeOf(c.err); got {
				case accepted:
					acceptedBy[c.m.Account]++
					total++
				case want:
				default:
					t.Errorf("message %s: unexpected error %v", c.m.ID, c.err)
				}
				_, err := replicas[1].Message(ctx, c.m.ID)
				if stored := err == nil; stored != (c.err == nil) {
					t.Errorf("message %s: stored %v, accepted %v (%v)", c.m.ID, stored, c.err == nil, err)
				}
			}
			for u, n := range credit {
				if acceptedBy[u] != n {
					t.Errorf("account %s: %d accepted, want %d", u, acceptedBy[u], n)
				}
				requireBalance(t, replicas[0], u, "0.00")
			}
			if n := countRows(t, replicas[0], "sms_messages"); n != total {
				t.Errorf("%d messages stored, %d accepted", n, total)
			}
			if n := countRows(t, replicas[0], "sms_parts"); n != 2*total {
				t.Errorf("%d parts stored, want %d", n, 2*total)
			}
		})
	}
}

// TestAcceptCloseAnswersQueued closes the store while Accepts wait in the
// queue: Close writes them and answers every one before it returns, and
// refuses what comes after.
func TestAcceptCloseAnswersQueued(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := newGatedStore(t, ctx, func(s *SMSStore) { createAccounts(t, s, map[string]string{"shop": "10"}) })
	const n = 20
	done := make([]<-chan error, n)
	for i := range n {
		done[i] = g.queue(t, ctx, smstest.Message(fmt.Sprintf("m-%d", i), "shop", "0.05"))
	}
	closed := make(chan struct{})
	go func() { g.db.Close(); close(closed) }()
	waitFor(t, "Close refuses new messages", func() bool {
		g.accepts.mu.RLock()
		defer g.accepts.mu.RUnlock()
		return g.accepts.closed
	})
	err := g.Accept(ctx, smstest.Message("late", "shop", "0.05"))
	if !errors.Is(err, errStoreClosed) || msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("Accept after Close: %v, want internal, store closed", err)
	}
	select {
	case <-closed:
		t.Fatal("Close returned with messages queued")
	default:
	}
	g.release()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
	if err := receive(t, g.gate); err != nil {
		t.Errorf("gate message: %v", err)
	}
	for i := range n {
		if err := receive(t, done[i]); err != nil {
			t.Errorf("message %d: %v", i, err)
		}
	}
	// The store is closed; another one reads what it wrote.
	s := openTestStore(t, g.dsn, Options{Schema: g.schema})
	requireBalance(t, s, "shop", "8.00")
	if got := countRows(t, s, "sms_messages"); got != n+1 {
		t.Errorf("%d messages stored, want %d", got, n+1)
	}
	if _, err := s.Message(ctx, "late"); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("the message refused after Close: %v, want not found", err)
	}
}

// TestAcceptContext: a caller that gives up while its message is queued
// gets its context's error and the message is never written; one whose
// message is already in a batch gets the batch's outcome.
func TestAcceptContext(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	gateCtx, cancelGate := context.WithCancel(ctx)
	defer cancelGate()
	g := newGatedStore(t, gateCtx, func(s *SMSStore) { createAccounts(t, s, map[string]string{"shop": "10"}) })
	queuedCtx, cancelQueued := context.WithCancel(ctx)
	queued := g.queue(t, queuedCtx, smstest.Message("given-up", "shop", "0.05"))
	cancelGate()
	cancelQueued()
	if err := receive(t, queued); !errors.Is(err, context.Canceled) || msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("queued message given up: %v, want internal, context canceled", err)
	}
	select {
	case err := <-g.gate:
		t.Fatalf("the gate message's Accept returned (%v) before its batch was written", err)
	case <-time.After(100 * time.Millisecond):
	}
	// Queued after the given-up one: once it is answered, the worker has
	// gone past that.
	after := g.queue(t, ctx, smstest.Message("after", "shop", "0.05"))
	g.release()
	if err := receive(t, g.gate); err != nil {
		t.Errorf("gate message, its context cancelled while in a batch: %v, want accepted", err)
	}
	if err := receive(t, after); err != nil {
		t.Errorf("message after: %v", err)
	}
	if _, err := g.Message(ctx, "gate-1"); err != nil {
		t.Errorf("gate message: %v, want stored", err)
	}
	if _, err := g.Message(ctx, "given-up"); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("given-up message: %v, want not found", err)
	}
	requireBalance(t, g.SMSStore, "shop", "9.90")
	requireBalance(t, g.SMSStore, "gate", "0.98")

	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Accept(done, smstest.Message("too-late", "shop", "0.05")); !errors.Is(err, context.Canceled) {
		t.Errorf("Accept with a context done: %v, want context canceled", err)
	}
	if _, err := g.Message(ctx, "too-late"); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("message sent with a context done: %v, want not found", err)
	}
}

// TestAcceptCancelledCallersNeverFailTheirBatch: callers of one batch give
// up (their clients disconnect), two while their messages are queued and
// one while its batch runs. The batch writes every other message, in one
// transaction; the messages given up while queued are not written, the
// one taken into the batch is (its caller could not be told otherwise).
func TestAcceptCancelledCallersNeverFailTheirBatch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := newGatedStore(t, ctx, func(s *SMSStore) { createAccounts(t, s, map[string]string{"shop": "10"}) })
	const n = 5
	done := make([]<-chan error, n)
	cancels := make([]context.CancelFunc, n)
	for i := range n {
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		cancels[i] = cancel
		done[i] = g.queue(t, c, smstest.Message(fmt.Sprintf("b-%d", i), "shop", "0.05"))
	}
	cancels[1]()
	cancels[3]()
	// The batch waits for shop's lock, held by another connection, so
	// that a caller can give up while the batch runs.
	releaseShop, blocked := lockAccount(t, g.SMSStore, g.dsn, g.schema, "shop")
	g.release()
	if err := receive(t, g.gate); err != nil {
		t.Fatalf("gate message: %v", err)
	}
	waitFor(t, "the batch waits for shop's lock", func() bool { return blocked() == 1 })
	cancels[0]()
	releaseShop()
	for i, d := range done {
		err := receive(t, d)
		id := sms.MessageID(fmt.Sprintf("b-%d", i))
		_, stored := g.Message(ctx, id)
		switch i {
		case 1, 3:
			if !errors.Is(err, context.Canceled) || !errors.Is(stored, msgkit.NotFound) {
				t.Errorf("%s, given up while queued: %v, stored %v; want context canceled, not stored", id, err, stored)
			}
		default:
			if err != nil || stored != nil {
				t.Errorf("%s: %v, stored %v; want accepted", id, err, stored)
			}
		}
	}
	if got := transactions(t, g.SMSStore, "b-0", "b-2", "b-4"); got != 1 {
		t.Errorf("the batch was written by %d transactions, want 1", got)
	}
	requireBalance(t, g.SMSStore, "shop", "9.70")
}

// failAccepts makes the next n inserts into sms_messages in schema fail
// with a serialization failure (40001), whichever transaction runs them.
// A sequence counts them, as it is not rolled back with the transaction.
func failAccepts(t *testing.T, s *SMSStore, n int) {
	t.Helper()
	ctx := t.Context()
	setup := []string{
		`CREATE SEQUENCE IF NOT EXISTS accept_failures`,
		`CREATE TABLE IF NOT EXISTS accept_failures_left (n bigint NOT NULL)`,
		`CREATE OR REPLACE FUNCTION fail_accepts() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('accept_failures') <= (SELECT n FROM accept_failures_left) THEN
				RAISE EXCEPTION 'injected failure' USING ERRCODE = 'serialization_failure';
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE OR REPLACE TRIGGER fail_accepts AFTER INSERT ON sms_messages
			FOR EACH STATEMENT EXECUTE FUNCTION fail_accepts()`,
		`ALTER SEQUENCE accept_failures RESTART`,
		`DELETE FROM accept_failures_left`,
	}
	for _, q := range setup {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO accept_failures_left VALUES ($1)`, n); err != nil {
		t.Fatal(err)
	}
}

// TestAcceptRetries: a transaction that fails with a serialization
// failure runs again, up to txRetries times; after that every message
// of the batch gets the error and nothing is written.
func TestAcceptRetries(t *testing.T) {
	t.Parallel()
	for _, batchAlone := range []bool{false, true} {
		t.Run(fmt.Sprintf("batchAlone %v", batchAlone), func(t *testing.T) {
			s := newTestStore(t)
			s.accepts.batchAlone = batchAlone
			ctx := t.Context()
			createAccounts(t, s, map[string]string{"shop": "1"})

			failAccepts(t, s, txRetries)
			if err := s.Accept(ctx, smstest.Message("m-1", "shop", "0.05")); err != nil {
				t.Fatalf("after %d failures: %v, want accepted", txRetries, err)
			}
			requireBalance(t, s, "shop", "0.90")

			failAccepts(t, s, txRetries+1)
			err := s.Accept(ctx, smstest.Message("m-2", "shop", "0.05"))
			if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage || !retryable(errors.Unwrap(err)) {
				t.Fatalf("after %d failures: %v, want internal with the serialization failure as cause", txRetries+1, err)
			}
			if _, err := s.Message(ctx, "m-2"); !errors.Is(err, msgkit.NotFound) {
				t.Errorf("failed message: %v, want not found", err)
			}
			requireBalance(t, s, "shop", "0.90")
		})
	}
}

// TestAcceptFailedBatch: when a batch's transaction keeps failing, every
// message of the batch gets the error and none is written.
func TestAcceptFailedBatch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	g := newGatedStore(t, ctx, func(s *SMSStore) {
		createAccounts(t, s, map[string]string{"shop": "1", "other": "1"})
		// Failures for the gate message's statement and its retries,
		// then for every run of the batch. (Before the gate: the trigger
		// cannot be created while an insert waits for the lock.)
		failAccepts(t, s, 2*(txRetries+1))
	})
	done := []<-chan error{
		g.queue(t, ctx, smstest.Message("m-1", "shop", "0.05")),
		g.queue(t, ctx, smstest.Message("m-2", "other", "0.05")),
		g.queue(t, ctx, smstest.Message("m-3", "nobody", "0.05")),
	}
	g.release()
	if err := receive(t, g.gate); msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("gate message: %v, want internal", err)
	}
	for i, d := range done {
		if err := receive(t, d); msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage {
			t.Errorf("message %d: %v, want internal %s", i, err, CodeStorage)
		}
	}
	if n := countRows(t, g.SMSStore, "sms_messages"); n != 0 {
		t.Errorf("%d messages stored, want none", n)
	}
	requireBalance(t, g.SMSStore, "shop", "1")
	requireBalance(t, g.SMSStore, "other", "1")
}

// TestAcceptIDTakenConcurrently: another transaction inserts the id of
// the message being accepted after the batch looked for it. The batch
// waits for that transaction, runs again once it commits, and refuses the
// message as a Conflict, charging nothing.
func TestAcceptIDTakenConcurrently(t *testing.T) {
	t.Parallel()
	for _, batchAlone := range []bool{false, true} {
		t.Run(fmt.Sprintf("batchAlone %v", batchAlone), func(t *testing.T) {
			dsn, schema := newTestSchema(t)
			s := openTestStore(t, dsn, Options{Schema: schema})
			s.accepts.batchAlone = batchAlone
			ctx := t.Context()
			createAccounts(t, s, map[string]string{"shop": "1", "other": "1"})
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tx.Exec(ctx, `INSERT INTO `+pgx.Identifier{schema, "sms_messages"}.Sanitize()+` (id, account, type, sender,
				sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url, part_price, charged, currency, submitted_at, expires_at)
				VALUES ('dup', 'other', 'text', 'x', false, '+1', 0, false, 0, '', 0, 0, 'EUR', now(), now())`)
			if err != nil {
				t.Fatal(err)
			}
			done := acceptAsync(ctx, s, smstest.Message("dup", "shop", "0.05"))
			pid := conn.PgConn().PID()
			waitFor(t, "the Accept waits for the other insert", func() bool {
				var n int
				err := s.pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", int32(pid)).Scan(&n)
				if err != nil {
					t.Fatal(err)
				}
				return n == 1
			})
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := receive(t, done); outcomeOf(err) != conflict {
				t.Fatalf("error %v, want conflict", err)
			}
			requireBalance(t, s, "shop", "1")
			m, err := s.Message(ctx, "dup")
			if err != nil || m.Account != "other" {
				t.Errorf("message dup: %+v, %v; want the other transaction's", m, err)
			}
		})
	}
}

func TestAcceptWorkers(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	tests := []struct {
		opts Options
		want int
	}{
		{Options{MaxConns: 20}, 4},
		{Options{MaxConns: 6}, 3},
		{Options{MaxConns: 1}, 1},
		{Options{MaxConns: 2, AcceptWorkers: 5}, 5}, // as asked
	}
	for _, tc := range tests {
		tc.opts.Schema = schema
		s := openTestStore(t, dsn, tc.opts)
		if got := len(s.accepts.queues); got != tc.want {
			t.Errorf("options %+v: %d workers, want %d", tc.opts, got, tc.want)
		}
	}
}
