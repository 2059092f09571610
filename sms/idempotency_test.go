package sms_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// keyedFixture is the gateway fixture with idempotency keys kept in
// memory on the same clock.
type keyedFixture struct {
	*fixture
	idem *memstore.IdempotencyStore
	keys *idempotency.Service
}

// newKeyedFixture's gateway has its keeper and its store wrapped by
// keeper and store when they are not nil, to inject failures.
func newKeyedFixture(t *testing.T, keeper func(sms.IdempotencyKeeper) sms.IdempotencyKeeper, store func(sms.Store) sms.Store) *keyedFixture {
	f := &keyedFixture{fixture: newFixture(t), idem: memstore.New().Idempotency()}
	f.keys = idempotency.NewService(f.idem, idempotency.Options{Clock: f.clock.Now})
	f.gw = f.gateway(keeper, store)
	return f
}

// gateway is another gateway over the fixture's stores: another process.
func (f *keyedFixture) gateway(keeper func(sms.IdempotencyKeeper) sms.IdempotencyKeeper, store func(sms.Store) sms.Store) *sms.Gateway {
	var k sms.IdempotencyKeeper = f.keys
	if keeper != nil {
		k = keeper(k)
	}
	var st sms.Store = f.store
	if store != nil {
		st = store(st)
	}
	return sms.NewGateway(st, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence(), Keys: k})
}

func keyed(key idempotency.Key) sms.Submission {
	sub := valid()
	sub.IdempotencyKey = key
	return sub
}

func (f *keyedFixture) wantBalance(t *testing.T, want string) {
	t.Helper()
	a, err := f.store.Account(t.Context(), "shop")
	if err != nil || !a.Balance.Equal(decimal.RequireFromString(want)) {
		t.Errorf("balance %s, %v; want %s", a.Balance, err, want)
	}
}

func TestSubmitIdempotent(t *testing.T) {
	f := newKeyedFixture(t, nil, nil)
	first, err := f.gw.Submit(t.Context(), keyed("order-17"))
	if err != nil || first.Replayed || first.NumParts != 1 {
		t.Fatalf("first = %+v, %v", first, err)
	}
	// The message id is the key's, not the id source's.
	if first.MsgID == "00000000-0000-4000-8000-000000000001" {
		t.Errorf("the keyed message took the id source's id")
	}
	// Another encoding of the same submission, a new password check
	// included, is the same submission.
	again := keyed("order-17")
	again.ClientIP = office
	for range 2 {
		acc, err := f.gw.Submit(t.Context(), again)
		if err != nil || acc != (sms.Accepted{MsgID: first.MsgID, NumParts: 1, Replayed: true}) {
			t.Fatalf("retry = %+v, %v; want %s replayed", acc, err, first.MsgID)
		}
	}
	f.wantBalance(t, "9.96")
	if n, _ := f.tx.RunOnce(t.Context()); n != 1 {
		t.Errorf("%d parts queued, want 1", n)
	}

	// The key with another submission is refused; so is nothing charged.
	other := keyed("order-17")
	other.Text = "Your order is late"
	if _, err := f.gw.Submit(t.Context(), other); msgkit.CodeOf(err) != idempotency.CodeKeyReused {
		t.Errorf("another submission under the key: %v", err)
	}
	// Keys are the account's: another account's same key is its own.
	f.account(t, "other", func(*sms.Account) {})
	mine := keyed("order-17")
	mine.Username = "other"
	if acc, err := f.gw.Submit(t.Context(), mine); err != nil || acc.Replayed || acc.MsgID == first.MsgID {
		t.Errorf("another account's key: %+v, %v", acc, err)
	}
	f.wantBalance(t, "9.96")

	// A day later the key is free again.
	f.clock.Advance(24 * time.Hour)
	if acc, err := f.gw.Submit(t.Context(), keyed("order-17")); err != nil || acc.Replayed || acc.MsgID == first.MsgID {
		t.Errorf("after 24 h: %+v, %v; want a new message", acc, err)
	}
	f.wantBalance(t, "9.92")
}

// A refused submission is forgotten: the same key goes through once the
// account can pay.
func TestSubmitIdempotentRefusal(t *testing.T) {
	f := newKeyedFixture(t, nil, nil)
	if _, err := smstest.AddBalance(t.Context(), f.store, "shop", decimal.RequireFromString("-10")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.gw.Submit(t.Context(), keyed("k")); sms.CodeOf(err) != sms.CodeNoCredit {
		t.Fatalf("without credit: %v", err)
	}
	if _, err := smstest.AddBalance(t.Context(), f.store, "shop", decimal.RequireFromString("1")); err != nil {
		t.Fatal(err)
	}
	if acc, err := f.gw.Submit(t.Context(), keyed("k")); err != nil || acc.Replayed {
		t.Fatalf("after a top-up: %+v, %v", acc, err)
	}
	f.wantBalance(t, "0.96")
	// A bad credential is refused before any key is read.
	bad := keyed("k")
	bad.Password = "nope"
	if _, err := f.gw.Submit(t.Context(), bad); sms.CodeOf(err) != sms.CodeNoAccount {
		t.Errorf("bad password: %v", err)
	}
}

// lostFinish is a keeper whose Finish never reaches the store: the
// process died after the acceptance was committed and before its key's
// answer was.
type lostFinish struct{ sms.IdempotencyKeeper }

func (lostFinish) Finish(context.Context, idempotency.Claim, idempotency.Answer) error {
	return errors.New("killed")
}

// A retry after the first try died between its acceptance and its answer
// gets that acceptance: within the lease, and after it (taking the key
// over, which then records the answer).
func TestSubmitIdempotentCrashAfterAccept(t *testing.T) {
	f := newKeyedFixture(t, func(k sms.IdempotencyKeeper) sms.IdempotencyKeeper { return lostFinish{k} }, nil)
	first, err := f.gw.Submit(t.Context(), keyed("k"))
	if err != nil {
		t.Fatal(err)
	}
	retry := f.gateway(nil, nil) // another process
	acc, err := retry.Submit(t.Context(), keyed("k"))
	if err != nil || acc != (sms.Accepted{MsgID: first.MsgID, NumParts: 1, Replayed: true}) {
		t.Fatalf("retry within the lease = %+v, %v; want %s", acc, err, first.MsgID)
	}
	if rec, _ := f.idem.Record(t.Context(), "sms:shop", "k"); rec.State != idempotency.Pending {
		t.Errorf("a retry within the lease changed the record: %+v", rec)
	}
	f.clock.Advance(idempotency.DefaultLease)
	acc, err = retry.Submit(t.Context(), keyed("k"))
	if err != nil || acc.MsgID != first.MsgID || !acc.Replayed {
		t.Fatalf("retry after the lease = %+v, %v", acc, err)
	}
	if rec, _ := f.idem.Record(t.Context(), "sms:shop", "k"); rec.State != idempotency.Done || rec.Attempt != 2 {
		t.Errorf("the take-over did not record the acceptance: %+v", rec)
	}
	f.wantBalance(t, "9.96")
}

// ackLost is a store whose Accept commits and then fails, as a database
// whose commit answer never arrived does.
type ackLost struct {
	sms.Store
	lose bool
}

func (s *ackLost) Accept(ctx context.Context, m sms.MessageRecord) error {
	if err := s.Store.Accept(ctx, m); err != nil || !s.lose {
		return err
	}
	return msgkit.Wrap(errors.New("connection reset"), msgkit.Internal, "storage_error", "storage error")
}

// A store that fails leaves the key pending, never forgotten: the
// message may be accepted. The retry finds it; and when it was not
// accepted, a retry after the lease accepts it under the same id, once.
func TestSubmitIdempotentStoreFailure(t *testing.T) {
	lost := &ackLost{lose: true}
	f := newKeyedFixture(t, nil, func(s sms.Store) sms.Store { lost.Store = s; return lost })
	if _, err := f.gw.Submit(t.Context(), keyed("k")); msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("first: %v, want the store's failure", err)
	}
	lost.lose = false
	acc, err := f.gw.Submit(t.Context(), keyed("k"))
	if err != nil || !acc.Replayed {
		t.Fatalf("retry = %+v, %v; want the acceptance the store made", acc, err)
	}
	f.wantBalance(t, "9.96")

	// A store that failed before accepting: the retry waits for the lease.
	failing := f.gateway(nil, func(s sms.Store) sms.Store { return failingStore{s} })
	if _, err := failing.Submit(t.Context(), keyed("k2")); msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("failing store: %v", err)
	}
	if _, err := f.gw.Submit(t.Context(), keyed("k2")); msgkit.CodeOf(err) != idempotency.CodeInProgress {
		t.Fatalf("within the lease: %v, want in progress", err)
	}
	f.clock.Advance(idempotency.DefaultLease)
	if acc, err := f.gw.Submit(t.Context(), keyed("k2")); err != nil || acc.Replayed {
		t.Fatalf("after the lease: %+v, %v", acc, err)
	}
	f.wantBalance(t, "9.92")
}

// Tries of one key at once: one acceptance, one charge; the others get
// it or are told it is in progress.
func TestSubmitIdempotentConcurrent(t *testing.T) {
	f := newKeyedFixture(t, nil, nil)
	const n = 16
	results := make([]sms.Accepted, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], errs[i] = f.gw.Submit(context.Background(), keyed("race")) })
	}
	wg.Wait()
	var id sms.MessageID
	fresh := 0
	for i := range n {
		switch {
		case errs[i] == nil:
			if id != "" && results[i].MsgID != id {
				t.Errorf("two messages: %s and %s", id, results[i].MsgID)
			}
			id = results[i].MsgID
			if !results[i].Replayed {
				fresh++
			}
		case msgkit.CodeOf(errs[i]) != idempotency.CodeInProgress:
			t.Errorf("try %d: %v", i, errs[i])
		}
	}
	if fresh != 1 {
		t.Errorf("%d tries accepted anew, want 1", fresh)
	}
	f.wantBalance(t, "9.96")
}

func TestSubmitIdempotentNeedsKeys(t *testing.T) {
	f := newFixture(t)
	if _, err := f.gw.Submit(t.Context(), keyed("k")); msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("a keyed submission to a gateway without Keys: %v, want Internal", err)
	}
	a, _ := f.store.Account(t.Context(), "shop")
	if !a.Balance.Equal(decimal.RequireFromString("10")) {
		t.Errorf("balance %s: charged without the promise", a.Balance)
	}
}
