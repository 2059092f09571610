package pgstore

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/sms"
)

// Defaults of Options.AcceptWorkers and Options.AcceptMaxBatch.
const (
	defaultAcceptWorkers  = 4
	defaultAcceptMaxBatch = 128
)

// acceptBatchTimeout bounds one batch, retries included. Callers wait for
// a batch that has taken their message whatever their own context says
// (see acceptBatcher), so this is the longest a stalled database keeps
// them.
const acceptBatchTimeout = 30 * time.Second

// errStoreClosed is the cause of an Accept after Close.
var errStoreClosed = errors.New("pgstore: store closed")

// States of an acceptRequest. A request is queued until a worker takes it
// into a batch or its caller abandons it, whichever comes first; the other
// side then sees the state it lost to.
const (
	requestQueued int32 = iota
	requestTaken
	requestAbandoned
)

// acceptRequest is one Accept, or one ApplyLedger (e), waiting for a
// batch.
type acceptRequest struct {
	m sms.MessageRecord
	// e is a ledger change instead of a message; the worker replaces it
	// with the change as written before it replies.
	e     *sms.LedgerEntry
	state atomic.Int32
	reply chan error // buffered, so a worker never waits for a caller
}

// account is the account the request charges or changes.
func (r *acceptRequest) account() string {
	if r.e != nil {
		return r.e.Account
	}
	return r.m.Account
}

// acceptBatcher is Accept's group commit: workers take the requests queued
// by concurrent Accepts and accept each batch in one transaction, so one
// busy account pays one commit (one WAL flush, the row lock held through
// it) per batch instead of per message.
//
// Each worker has its own queue, and an account's messages always go to
// the same one (by a hash of the username). A busy account's messages
// therefore wait together and make the largest batches, and the workers
// of one store never wait for each other's row locks; other accounts keep
// the other workers busy. (With one shared queue every worker took a
// share of a busy account's messages and then waited for its row lock,
// holding a pooled connection the gateway's other calls then lacked;
// over HTTP on one account, 8 workers sharing a queue accepted about half
// as many messages per second as 1.)
//
// A caller whose context ends while its request is still queued takes it
// back and gets the context's error: nothing was written. Once a worker
// has taken the request into a batch the caller waits for the batch's
// outcome, whatever its context says: if it returned early the message
// could still be accepted and charged, the gateway would not answer 202
// for it, and the customer would send it again and pay twice. A batch is
// bounded by acceptBatchTimeout.
type acceptBatcher struct {
	store    *SMSStore
	maxBatch int
	seed     maphash.Seed
	// batchAlone makes a batch of one message a transaction like any
	// other batch instead of acceptSQL's single statement; for tests, so
	// that the contract runs through acceptBatch too. Set it before the
	// first Accept.
	batchAlone bool

	// mu is held for reading while a request is queued and for writing
	// by close, which closes the queues: no request enters a queue after
	// its worker has emptied it.
	mu      sync.RWMutex
	closed  bool
	queues  []chan *acceptRequest
	workers sync.WaitGroup
}

// newAcceptBatcher starts workers goroutines that accept batches of up to
// maxBatch messages into s. Zero or less takes the defaults; the default
// number of workers is at most half the pool's connections, so that the
// store's other methods always find one.
func newAcceptBatcher(s *SMSStore, workers, maxBatch int) *acceptBatcher {
	if workers <= 0 {
		workers = max(1, min(defaultAcceptWorkers, int(s.pool.Config().MaxConns)/2))
	}
	if maxBatch <= 0 {
		maxBatch = defaultAcceptMaxBatch
	}
	b := &acceptBatcher{store: s, maxBatch: maxBatch, seed: maphash.MakeSeed(), queues: make([]chan *acceptRequest, workers)}
	for i := range b.queues {
		// Room for the next full batch while one is written.
		q := make(chan *acceptRequest, maxBatch)
		b.queues[i] = q
		b.workers.Go(func() { b.work(q) })
	}
	return b
}

// accept queues m and returns its outcome.
func (b *acceptBatcher) accept(ctx context.Context, m sms.MessageRecord) error {
	return b.submit(ctx, &acceptRequest{m: m, reply: make(chan error, 1)})
}

// applyLedger queues the ledger change e in its account's queue, so that
// it is written in the transaction of the account's next batch (or alone
// when nothing else waits), and returns it as written.
func (b *acceptBatcher) applyLedger(ctx context.Context, e sms.LedgerEntry) (sms.LedgerEntry, error) {
	r := &acceptRequest{e: &e, reply: make(chan error, 1)}
	if err := b.submit(ctx, r); err != nil {
		return sms.LedgerEntry{}, err
	}
	return *r.e, nil
}

// submit queues r and returns its outcome.
func (b *acceptBatcher) submit(ctx context.Context, r *acceptRequest) error {
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	if err := b.enqueue(ctx, r); err != nil {
		return err
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		if r.state.CompareAndSwap(requestQueued, requestAbandoned) {
			return cancelled(ctx.Err())
		}
		return <-r.reply // taken into a batch: its outcome is the answer
	}
}

// cancelled classifies the error of a context that ended before the
// message was taken into a batch; errors.Is still finds the context's
// error through it.
func cancelled(err error) error {
	return storageError(err)
}

// enqueue puts r in the queue of its account's worker, waiting while the
// queue is full.
func (b *acceptBatcher) enqueue(ctx context.Context, r *acceptRequest) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return storageError(errStoreClosed)
	}
	q := b.queues[maphash.String(b.seed, r.account())%uint64(len(b.queues))]
	select {
	case q <- r:
		return nil
	case <-ctx.Done():
		return cancelled(ctx.Err())
	}
}

// close stops queueing, lets the workers accept what is queued, and
// returns when they have answered every request. It may be called more
// than once.
func (b *acceptBatcher) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		for _, q := range b.queues {
			close(q)
		}
	}
	b.mu.Unlock()
	b.workers.Wait()
}

// work takes batches from q until it is closed and empty: the first
// request waiting, then whatever else is queued, up to maxBatch, without
// waiting for more. Under light load a batch is one message; under heavy
// load batches grow by themselves while the previous ones are written.
func (b *acceptBatcher) work(q <-chan *acceptRequest) {
	batch := make([]*acceptRequest, 0, b.maxBatch)
	for r := range q {
		batch = batch[:0]
		if r.state.CompareAndSwap(requestQueued, requestTaken) {
			batch = append(batch, r)
		}
	drain:
		for len(batch) < b.maxBatch {
			select {
			case r, ok := <-q:
				if !ok {
					break drain
				}
				if r.state.CompareAndSwap(requestQueued, requestTaken) {
					batch = append(batch, r)
				}
			default:
				break drain
			}
		}
		if len(batch) == 0 {
			continue // every caller gave up
		}
		b.run(batch)
		clear(batch) // let the messages go while waiting for the next batch
	}
}

// run accepts one batch and answers each of its requests.
func (b *acceptBatcher) run(batch []*acceptRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), acceptBatchTimeout)
	defer cancel()
	msgs := make([]sms.MessageRecord, 0, len(batch))
	var (
		entries   []sms.LedgerEntry
		msgReqs   = make([]*acceptRequest, 0, len(batch))
		entryReqs []*acceptRequest
	)
	for _, r := range batch {
		if r.e != nil {
			entries, entryReqs = append(entries, *r.e), append(entryReqs, r)
			continue
		}
		msgs, msgReqs = append(msgs, r.m), append(msgReqs, r)
	}
	var (
		outcomes []error
		changes  []ledgerOutcome
	)
	if len(entries) == 0 {
		outcomes = b.acceptAll(ctx, msgs)
	} else {
		outcomes, changes = b.acceptWithEntries(ctx, msgs, entries)
	}
	for i, outcome := range outcomes {
		if outcome == nil {
			b.store.recent.put(msgs[i]) // its reports follow within seconds
		}
		msgReqs[i].reply <- outcome
	}
	for i, c := range changes {
		*entryReqs[i].e = c.entry
		entryReqs[i].reply <- c.err
	}
}

// ledgerOutcome is the outcome of a ledger change in a batch: the entry as
// written, or why it was not.
type ledgerOutcome struct {
	entry sms.LedgerEntry
	err   error
}

// acceptWithEntries accepts msgs and applies the ledger changes entries
// of one batch. A change alone is one statement (applyLedgerSQL); with
// others, the batch is one transaction (acceptBatch) that settles the
// changes first, then the messages: they were all waiting at once, so
// any order is one they could have arrived in. A top-up among an
// account's submissions so shares their batch's commit instead of
// taking the account's row lock through a commit of its own, which would
// stall the account's acceptances for that long.
func (b *acceptBatcher) acceptWithEntries(ctx context.Context, msgs []sms.MessageRecord, entries []sms.LedgerEntry) ([]error, []ledgerOutcome) {
	s := b.store
	outcomes := make([]error, len(msgs))
	changes := make([]ledgerOutcome, len(entries))
	failed := func(err error) ([]error, []ledgerOutcome) {
		s.log.WarnContext(ctx, "pgstore: an accept batch with ledger changes failed", "messages", len(msgs), "changes", len(entries), "err", err)
		for i := range outcomes {
			outcomes[i] = storageError(err)
		}
		for i := range changes {
			changes[i] = ledgerOutcome{err: storageError(err)}
		}
		return outcomes, changes
	}
	if len(msgs) == 0 && len(entries) == 1 && !b.batchAlone {
		err := retrying(ctx, s.log, "a ledger change", retryable, func() (err error) {
			changes[0], err = s.applyLedgerOne(ctx, entries[0])
			return err
		})
		if err != nil {
			return failed(err)
		}
		return outcomes, changes
	}
	checkIDs := false
	err := retrying(ctx, s.log, "an accept batch", retryableBatch, func() (err error) {
		outcomes, changes, err = s.acceptBatch(ctx, msgs, entries, checkIDs)
		checkIDs = checkIDs || isUniqueViolation(err)
		return err
	})
	if err != nil {
		outcomes, changes = make([]error, len(msgs)), make([]ledgerOutcome, len(entries))
		return failed(err)
	}
	return outcomes, changes
}

// acceptAll accepts msgs and returns each one's outcome: nil when it is
// accepted, its refusal, or the storage error after which it was not
// written.
//
// A batch of one message is one statement (acceptSQL), as cheap as it was
// before there were batches. A larger one is first tried as one round trip
// (chargeBatch) that charges every account of the batch that can pay for
// all its messages and writes those; that is the whole batch unless an
// account runs short or is unknown. The messages of the other accounts are
// then settled one by one in a transaction of their own (acceptBatch),
// which is also where a batch goes whole when one of its ids is taken.
func (b *acceptBatcher) acceptAll(ctx context.Context, msgs []sms.MessageRecord) []error {
	s := b.store
	outcomes := make([]error, len(msgs))
	failed := func(idx []int, err error) []error {
		s.log.WarnContext(ctx, "pgstore: an accept batch failed", "messages", len(idx), "err", err)
		for _, i := range idx {
			// One error each: a *msgkit.Error may be changed by its
			// receiver (WithField).
			outcomes[i] = storageError(err)
		}
		return outcomes
	}
	all := make([]int, len(msgs))
	for i := range all {
		all[i] = i
	}
	if len(msgs) == 1 && !b.batchAlone {
		err := retrying(ctx, s.log, "an accept", retryable, func() (err error) {
			outcomes[0], err = s.acceptOne(ctx, msgs[0])
			return err
		})
		if err != nil {
			return failed(all, err)
		}
		return outcomes
	}

	var charged map[string]bool
	err := retrying(ctx, s.log, "an accept batch", retryable, func() (err error) {
		charged, err = s.chargeBatch(ctx, msgs)
		return err
	})
	checkIDs := isUniqueViolation(err) // see acceptBatch
	if err != nil && !checkIDs {
		return failed(all, err)
	}
	var rest []int // the messages still to settle
	for i, m := range msgs {
		if !charged[m.Account] {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return outcomes
	}
	left := make([]sms.MessageRecord, len(rest))
	for j, i := range rest {
		left[j] = msgs[i]
	}
	var settled []error
	err = retrying(ctx, s.log, "an accept batch", retryableBatch, func() (err error) {
		settled, _, err = s.acceptBatch(ctx, left, nil, checkIDs)
		checkIDs = checkIDs || isUniqueViolation(err)
		return err
	})
	if err != nil {
		return failed(rest, err)
	}
	for j, i := range rest {
		outcomes[i] = settled[j]
	}
	return outcomes
}

func isUniqueViolation(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pgErr.Code == uniqueViolation
}

// retryableBatch reports whether a batch may simply run again: besides a
// serialization failure or a deadlock, a unique violation, which means
// one of the batch's message ids is stored already (or was inserted by
// another transaction after the batch looked for it). Running again, with
// the ids checked, finds that id and refuses only its message, as a
// Conflict.
func retryableBatch(err error) bool {
	return retryable(err) || isUniqueViolation(err)
}

// Statements of a batch's transaction.
const (
	// lockAccountsSQL locks the batch's accounts in username order,
	// which every batch follows, so two batches never wait for each
	// other in a cycle. It is the same lock AddBalance's UPDATE takes.
	lockAccountsSQL = `SELECT username, balance::text, credit_limit::text, currency FROM sms_accounts
		WHERE username = ANY($1) ORDER BY username FOR UPDATE`
	// existingSQL runs after lockAccountsSQL, with a snapshot taken
	// after the locks: every message of the batch's accounts committed
	// before is in it. Only a batch run again after a duplicate id runs
	// it (see acceptBatch).
	existingSQL    = `SELECT id FROM sms_messages WHERE id = ANY($1)`
	setBalancesSQL = `UPDATE sms_accounts AS a SET balance = v.balance
		FROM unnest($1::text[], $2::text[]::numeric[]) AS v(username, balance)
		WHERE a.username = v.username`
	insertMessagesSQL = `INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash,
			dlr_mask, dlr_url, custom, part_price, charged, currency, submitted_at, expires_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[],
			$7::smallint[], $8::boolean[], $9::smallint[], $10::text[], $11::bytea[], $12::text[]::numeric[],
			$13::text[]::numeric[], $14::text[], $15::timestamptz[], $16::timestamptz[])`
	// insertPartsSQL inserts the parts and the rows of those queued for
	// sending (see 0004_outbound.sql), in one statement: the lock on the
	// batch's accounts is held through every statement of the batch.
	// nextLedgerIDsSQL draws the ids of a batch's ledger entries.
	nextLedgerIDsSQL = `SELECT nextval('sms_ledger_seq') FROM generate_series(1, $1)`
	// insertLedgerSQL writes a batch's ledger entries.
	insertLedgerSQL = `INSERT INTO sms_ledger (id, account, kind, amount, currency, balance_after, at, actor, note)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]::numeric[], $5::text[], $6::text[]::numeric[],
			$7::timestamptz[], $8::text[], $9::text[])`
	insertPartsSQL = `WITH parts AS (
			INSERT INTO sms_parts (msg_id, num, text, data, units, udh_ref, udh_total, udh_seq,
				dst_port, src_port, state, error_code, updated_at)
			SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::bytea[], $5::integer[], $6::smallint[],
				$7::smallint[], $8::smallint[], $9::integer[], $10::integer[], $11::smallint[], $12::integer[],
				$13::timestamptz[])
		)
		INSERT INTO sms_outbound (msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
		SELECT * FROM unnest($14::text[], $15::integer[], $16::timestamptz[], $17::integer[], $18::text[], $19::integer[],
			$20::timestamptz[])`
)

// errNotCommitted is the cause of a batch whose COMMIT answered ROLLBACK.
var errNotCommitted = errors.New("pgstore: the accept transaction was rolled back")

// acceptBatch runs one transaction for msgs and returns each message's
// outcome, or the error that rolled the whole transaction back: then
// nothing was written and no outcome holds.
//
// Message ids are the gateway's own (random), so a batch does not look
// for them first: an id already stored fails the insert with a unique
// violation, and the batch runs again with checkIDs, which reads the
// stored ids (existingSQL) and refuses their messages as Conflicts. That
// spares every batch a statement planned for its parameters.
//
// The transaction takes two round trips, each a pipeline of statements:
// BEGIN and the reads, then the writes and COMMIT; the row locks are held
// through the second only. The reads and the balance update are planned
// for their actual parameters (plan_cache_mode force_custom_plan, for
// this transaction only): the statements are prepared once per
// connection, and a generic plan made while a table was nearly empty (a
// sequential scan) would be kept as the table grows, until the next
// ANALYZE, turning the id look-up into a scan of every message. The
// inserts read only their parameters, so their generic plans are safe,
// and cheaper than planning thousands of array elements each time.
//
// The ledger changes entries (ApplyLedger's, batched with the account's
// acceptances; see acceptWithEntries) are settled first, their ids drawn
// in the first round trip and their rows written with the messages.
func (s *SMSStore) acceptBatch(ctx context.Context, msgs []sms.MessageRecord, entries []sms.LedgerEntry, checkIDs bool) (outcomes []error, changes []ledgerOutcome, err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer c.Release() // which closes the connection if it is still in a transaction
	defer func() {
		if c.Conn().PgConn().TxStatus() != 'I' {
			_, _ = c.Exec(ctx, "ROLLBACK") // the error that matters is err
		}
	}()

	usernames := make([]string, 0, len(msgs))
	ids := make([]string, len(msgs))
	seen := make(map[string]bool, len(msgs))
	for i, m := range msgs {
		ids[i] = string(m.ID)
		if !seen[m.Account] {
			seen[m.Account] = true
			usernames = append(usernames, m.Account)
		}
	}
	for _, e := range entries {
		if !seen[e.Account] {
			seen[e.Account] = true
			usernames = append(usernames, e.Account)
		}
	}
	accounts := make(map[string]*batchAccount, len(usernames))
	existing := make(map[sms.MessageID]bool)
	reads := &pgx.Batch{}
	reads.Queue("BEGIN")
	reads.Queue("SET LOCAL plan_cache_mode = force_custom_plan")
	reads.Queue(lockAccountsSQL, usernames).Query(func(rows pgx.Rows) error {
		var username, balance, limit, currency string
		_, err := pgx.ForEachRow(rows, []any{&username, &balance, &limit, &currency}, func() error {
			b, err := parseNumeric(balance)
			if err != nil {
				return storageError(err, "account ", username)
			}
			l, err := parseNumeric(limit)
			if err != nil {
				return storageError(err, "account ", username)
			}
			accounts[username] = &batchAccount{balance: b, floor: l.Neg(), currency: currency}
			return nil
		})
		return err
	})
	if checkIDs {
		reads.Queue(existingSQL, ids).Query(func(rows pgx.Rows) error {
			var id string
			_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
				existing[sms.MessageID(id)] = true
				return nil
			})
			return err
		})
	}
	var entryIDs []int64
	if len(entries) > 0 {
		reads.Queue(nextLedgerIDsSQL, len(entries)).Query(func(rows pgx.Rows) (err error) {
			entryIDs, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			return err
		})
	}
	if err = c.SendBatch(ctx, reads).Close(); err != nil {
		return nil, nil, err
	}
	if len(entryIDs) != len(entries) {
		return nil, nil, storageError(errNotCommitted, "ledger ids drawn: ", len(entryIDs))
	}

	changes, applied := settleEntries(entries, entryIDs, accounts)
	outcomes, accepted := settle(msgs, accounts, existing)
	if len(accepted) == 0 && len(applied) == 0 {
		// Nothing to write; the deferred ROLLBACK ends the transaction,
		// and the refusals stand whether or not it reaches the server.
		return outcomes, changes, nil
	}
	writes := &pgx.Batch{}
	queueWrites(writes, accounts, accepted) // its first statement is the balance update
	if len(applied) > 0 {
		writes.Queue(insertLedgerSQL, ledgerArgs(applied)...)
	}
	writes.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() != "COMMIT" {
			return errNotCommitted
		}
		return nil
	})
	if err = c.SendBatch(ctx, writes).Close(); err != nil {
		return nil, nil, err
	}
	return outcomes, changes, nil
}

// settleEntries applies the ledger changes of a batch to its accounts'
// balances, in order, as ApplyLedger called once per change would: an
// unknown account is NotFound, another currency Invalid, a balance below
// the floor 113 (sms.CheckLedgerFloor's words, memstore's). It returns
// each change's outcome and the entries to write, with their ids (drawn
// in order) and balances after.
func settleEntries(entries []sms.LedgerEntry, ids []int64, accounts map[string]*batchAccount) ([]ledgerOutcome, []sms.LedgerEntry) {
	changes := make([]ledgerOutcome, len(entries))
	var applied []sms.LedgerEntry
	for i, e := range entries {
		a, ok := accounts[e.Account]
		if !ok {
			changes[i].err = classify(pgx.ErrNoRows, "account", "account "+e.Account)
			continue
		}
		acct := sms.Account{Balance: a.balance, CreditLimit: a.floor.Neg(), Currency: a.currency}
		if err := sms.CheckLedgerFloor(acct, e); err != nil {
			changes[i].err = err
			continue
		}
		a.balance, a.charged = a.balance.Add(e.Amount), true
		e.ID, e.At, e.BalanceAfter = ids[i], dbTime(e.At), decimal.NewNullDecimal(a.balance)
		changes[i].entry = e
		applied = append(applied, e)
	}
	return changes, applied
}

// ledgerArgs are the columns of entries as insertLedgerSQL takes them.
func ledgerArgs(entries []sms.LedgerEntry) []any {
	n := len(entries)
	var (
		ids                                  = make([]int64, n)
		accts, kinds, amounts, currs, afters = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		actors, notes                        = make([]string, n), make([]string, n)
		ats                                  = make([]time.Time, n)
	)
	for i, e := range entries {
		ids[i], accts[i], kinds[i], amounts[i], currs[i] = e.ID, e.Account, string(e.Kind), numericText(e.Amount), e.Currency
		afters[i], ats[i], actors[i], notes[i] = numericText(e.BalanceAfter.Decimal), e.At, e.Actor, e.Note
	}
	return []any{ids, accts, kinds, amounts, currs, afters, ats, actors, notes}
}

// batchAccount is an account's balance as a batch runs through it.
type batchAccount struct {
	balance  decimal.Decimal
	floor    decimal.Decimal // -credit_limit
	currency string
	charged  bool // the batch accepted a message of the account or changed its balance
}

// settle decides each message of a batch in arrival order, exactly as
// Accept called once per message in that order would: an unknown account
// is NotFound, an id already stored (or accepted earlier in the batch) is
// a Conflict, and a charge above the balance left by the messages before
// it is 113, in that order of precedence; any other message is accepted
// and its charge taken from the balance. It returns each message's
// outcome (nil when accepted) and the accepted messages, in order.
// Decimal arithmetic is exact, so the balances equal what the database's
// numeric would compute, scale included.
func settle(msgs []sms.MessageRecord, accounts map[string]*batchAccount, existing map[sms.MessageID]bool) ([]error, []sms.MessageRecord) {
	outcomes := make([]error, len(msgs))
	accepted := make([]sms.MessageRecord, 0, len(msgs))
	taken := make(map[sms.MessageID]bool, len(msgs))
	for i, m := range msgs {
		a, ok := accounts[m.Account]
		switch {
		case !ok:
			outcomes[i] = classify(pgx.ErrNoRows, "account", "account "+m.Account)
		case existing[m.ID] || taken[m.ID]:
			outcomes[i] = sms.MessageExists(m.ID)
		case a.balance.Sub(m.Charged).LessThan(a.floor):
			outcomes[i] = sms.CodeNoCredit.Errorf("balance %s %s is below the charge %s", a.balance, a.currency, m.Charged)
		default:
			a.balance, a.charged = a.balance.Sub(m.Charged), true
			taken[m.ID] = true
			accepted = append(accepted, m)
		}
	}
	return outcomes, accepted
}

// queueWrites queues the writes of a batch: the final balance of every
// account charged, then the accepted messages, then their parts, one
// statement each, the rows travelling as one array per column.
func queueWrites(b *pgx.Batch, accounts map[string]*batchAccount, accepted []sms.MessageRecord) {
	var usernames, balances []string
	for username, a := range accounts {
		if a.charged {
			usernames = append(usernames, username)
			balances = append(balances, numericText(a.balance))
		}
	}
	b.Queue(setBalancesSQL, usernames, balances)
	b.Queue("SET LOCAL plan_cache_mode TO DEFAULT") // see acceptBatch
	b.Queue(insertMessagesSQL, messageArgs(accepted)...)
	var pc partColumns
	if pc.addAll(accepted) == 0 {
		return
	}
	q := pc.q
	b.Queue(insertPartsSQL, pc.msgIDs, pc.nums, pc.texts, pc.data, pc.units, pc.refs, pc.totals, pc.seqs, pc.dstPorts,
		pc.srcPorts, pc.states, pc.errCodes, pc.updated, q.msgIDs, q.nums, q.sendAt, q.attempts, q.errors, q.numParts, q.expires)
}

// messageArgs are the columns of msgs as insertMessagesSQL takes them, one
// array each.
func messageArgs(msgs []sms.MessageRecord) []any {
	n := len(msgs)
	var (
		ids, accts, types, senders, receivers = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		dlrURLs, partPrices, charges, currs   = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		numeric, flash                        = make([]bool, n), make([]bool, n)
		dcs, dlrMasks                         = make([]int16, n), make([]int16, n)
		customs                               = make([][]byte, n)
		submitted, expires                    = make([]time.Time, n), make([]time.Time, n)
	)
	for i, m := range msgs {
		ids[i], accts[i], types[i], senders[i], receivers[i] = string(m.ID), m.Account, m.Type, m.Sender.Value, string(m.Receiver)
		dlrURLs[i], partPrices[i], charges[i], currs[i] = m.DLRURL, numericText(m.PartPrice), numericText(m.Charged), m.Currency
		numeric[i], flash[i], dcs[i], dlrMasks[i], customs[i] = m.Sender.Numeric, m.Flash, int16(m.DCS), int16(m.DLRMask), m.Custom
		submitted[i], expires[i] = dbTime(m.SubmittedAt), dbTime(m.ExpiresAt)
	}
	return []any{ids, accts, types, senders, numeric, receivers, dcs, flash, dlrMasks, dlrURLs,
		customs, partPrices, charges, currs, submitted, expires}
}

// partColumns are the parts of accepted messages as the inserts take
// them, one array per column, and the rows of those that are queued for
// sending (q); accounts is each part's message's account, which only
// chargeBatchSQL reads.
type partColumns struct {
	accounts, msgIDs, texts                   []string
	nums, units, dstPorts, srcPorts, errCodes []int32
	refs, totals, seqs, states                []int16
	data                                      [][]byte
	updated                                   []time.Time
	q                                         queueColumns
}

// queueColumns are rows of sms_outbound, one array per column.
type queueColumns struct {
	accounts, msgIDs, errors []string
	nums, attempts, numParts []int32
	sendAt, expires          []time.Time
}

// grow makes room for n more parts.
func (pc *partColumns) grow(n int) {
	pc.accounts, pc.msgIDs, pc.texts = slices.Grow(pc.accounts, n), slices.Grow(pc.msgIDs, n), slices.Grow(pc.texts, n)
	pc.nums, pc.units, pc.dstPorts, pc.srcPorts = slices.Grow(pc.nums, n), slices.Grow(pc.units, n), slices.Grow(pc.dstPorts, n), slices.Grow(pc.srcPorts, n)
	pc.errCodes = slices.Grow(pc.errCodes, n)
	pc.refs, pc.totals, pc.seqs, pc.states = slices.Grow(pc.refs, n), slices.Grow(pc.totals, n), slices.Grow(pc.seqs, n), slices.Grow(pc.states, n)
	pc.data, pc.updated = slices.Grow(pc.data, n), slices.Grow(pc.updated, n)
}

// add appends m's parts, and the rows of those queued for sending: the
// submitted parts with a SendAt.
func (pc *partColumns) add(m sms.MessageRecord) {
	for _, p := range m.Parts {
		pc.accounts = append(pc.accounts, m.Account)
		pc.msgIDs, pc.nums, pc.texts, pc.data = append(pc.msgIDs, string(m.ID)), append(pc.nums, int32(p.Num)), append(pc.texts, p.Text), append(pc.data, p.Data)
		pc.units, pc.refs, pc.totals, pc.seqs = append(pc.units, int32(p.Units)), append(pc.refs, int16(p.UDH.Ref)), append(pc.totals, int16(p.UDH.Total)), append(pc.seqs, int16(p.UDH.Seq))
		pc.dstPorts, pc.srcPorts = append(pc.dstPorts, int32(p.UDH.DstPort)), append(pc.srcPorts, int32(p.UDH.SrcPort))
		pc.states, pc.errCodes, pc.updated = append(pc.states, int16(p.State)), append(pc.errCodes, int32(p.ErrorCode)), append(pc.updated, dbTime(p.UpdatedAt))
		if q := &pc.q; !p.SendAt.IsZero() && p.State == sms.StateSubmitted {
			q.accounts = append(q.accounts, m.Account)
			q.msgIDs, q.nums, q.sendAt = append(q.msgIDs, string(m.ID)), append(q.nums, int32(p.Num)), append(q.sendAt, dbTime(p.SendAt))
			q.attempts, q.errors, q.expires = append(q.attempts, int32(p.SendAttempts)), append(q.errors, p.SendError), append(q.expires, dbTime(m.ExpiresAt))
			q.numParts = append(q.numParts, int32(len(m.Parts)))
		}
	}
}

// addAll appends the parts of msgs and returns how many there are.
func (pc *partColumns) addAll(msgs []sms.MessageRecord) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Parts)
	}
	pc.grow(n)
	for _, m := range msgs {
		pc.add(m)
	}
	return n
}

// chargeBatchSQL charges each account given ($1) its total ($2) when its
// balance covers it, and inserts the messages, parts and queue rows of
// the accounts charged, in one statement: one round trip, atomic, and the
// accounts' rows locked only until its own commit. The balance test (the
// floor, -credit_limit) is acceptSQL's: a waiting UPDATE re-evaluates it on the balance the
// previous charge left. The messages, parts and queue rows are those of
// insertMessagesSQL and insertPartsSQL, each with its account first.
const chargeBatchSQL = `WITH charged AS (
	UPDATE sms_accounts AS a SET balance = a.balance - v.total
	FROM unnest($1::text[], $2::text[]::numeric[]) AS v(username, total)
	WHERE a.username = v.username AND a.balance - v.total >= -a.credit_limit
	RETURNING a.username
), msgs AS (
	INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash,
		dlr_mask, dlr_url, custom, part_price, charged, currency, submitted_at, expires_at)
	SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[],
		$9::smallint[], $10::boolean[], $11::smallint[], $12::text[], $13::bytea[], $14::text[]::numeric[],
		$15::text[]::numeric[], $16::text[], $17::timestamptz[], $18::timestamptz[])
		AS m(id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url, custom,
			part_price, charged, currency, submitted_at, expires_at)
	WHERE m.account IN (SELECT username FROM charged)
), parts AS (
	INSERT INTO sms_parts (msg_id, num, text, data, units, udh_ref, udh_total, udh_seq,
		dst_port, src_port, state, error_code, updated_at)
	SELECT msg_id, num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at
	FROM unnest($19::text[], $20::text[], $21::integer[], $22::text[], $23::bytea[], $24::integer[], $25::smallint[],
		$26::smallint[], $27::smallint[], $28::integer[], $29::integer[], $30::smallint[], $31::integer[],
		$32::timestamptz[])
		AS p(account, msg_id, num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state,
			error_code, updated_at)
	WHERE p.account IN (SELECT username FROM charged)
), queued AS (
	INSERT INTO sms_outbound (msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
	SELECT msg_id, num, send_at, attempts, last_error, num_parts, expires_at
	FROM unnest($33::text[], $34::text[], $35::integer[], $36::timestamptz[], $37::integer[], $38::text[],
		$39::integer[], $40::timestamptz[])
		AS q(account, msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
	WHERE q.account IN (SELECT username FROM charged)
)
SELECT username FROM charged`

// chargeBatch runs chargeBatchSQL for msgs and returns the accounts it
// charged: their messages are accepted, all of them. The others, unknown
// or short of credit for the whole of their messages, are left as they
// were. An error means nothing was written; a unique violation means an id
// of the batch is taken.
//
// The statement runs with sequential scans off (keyedOnly), in an explicit
// transaction sent in the same round trip: it is prepared once per
// connection, and a generic plan made while sms_accounts was small would
// scan it whole for every batch once it has grown.
func (s *SMSStore) chargeBatch(ctx context.Context, msgs []sms.MessageRecord) (map[string]bool, error) {
	totals := make(map[string]decimal.Decimal, 1)
	var usernames []string
	for _, m := range msgs {
		t, ok := totals[m.Account]
		if !ok {
			usernames = append(usernames, m.Account)
		}
		totals[m.Account] = t.Add(m.Charged)
	}
	slices.Sort(usernames)
	amounts := make([]string, len(usernames))
	for i, u := range usernames {
		amounts[i] = numericText(totals[u])
	}
	var pc partColumns
	pc.addAll(msgs)
	q := pc.q
	args := append([]any{usernames, amounts}, messageArgs(msgs)...)
	args = append(args, pc.accounts, pc.msgIDs, pc.nums, pc.texts, pc.data, pc.units, pc.refs, pc.totals, pc.seqs,
		pc.dstPorts, pc.srcPorts, pc.states, pc.errCodes, pc.updated,
		q.accounts, q.msgIDs, q.nums, q.sendAt, q.attempts, q.errors, q.numParts, q.expires)

	charged := make(map[string]bool, len(usernames))
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(keyedOnly)
	b.Queue(chargeBatchSQL, args...).Query(func(rows pgx.Rows) error {
		var username string
		_, err := pgx.ForEachRow(rows, []any{&username}, func() error {
			charged[username] = true
			return nil
		})
		return err
	})
	b.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() != "COMMIT" {
			return errNotCommitted
		}
		return nil
	})
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Release() // which closes the connection if it is still in a transaction
	if err = c.SendBatch(ctx, b).Close(); err != nil {
		if c.Conn().PgConn().TxStatus() != 'I' {
			_, _ = c.Exec(ctx, "ROLLBACK") // the error that matters is err
		}
		return nil, err
	}
	return charged, nil
}
