package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

var (
	_ sms.Store            = (*SMSStore)(nil)
	_ sms.OutboxStore      = (*SMSStore)(nil)
	_ sms.TransmitterStore = (*SMSStore)(nil)
)

// SMSStore keeps bulk SMS accounts, messages, the outbound queue and the
// delivery report outbox. Accepts go through group commit (see the
// package doc).
type SMSStore struct {
	pool    *pgxpool.Pool
	log     *storeLog
	accepts *acceptBatcher
	recent  *recentMessages // nil: remembers nothing
}

// CreateAccount stores a; an existing username is a Conflict. A negative
// balance, an invalid network prefix, text PostgreSQL cannot hold and a
// Throughput or MaxParts beyond 32 bits are Invalid. Validity is kept in
// whole milliseconds and CreatedAt to the microsecond; the price list
// keeps its order.
func (s *SMSStore) CreateAccount(ctx context.Context, a sms.Account) error {
	if err := checkAccount(a); err != nil {
		return err
	}
	networks, err := prefixStrings(a.Networks) // checkAccount refused invalid prefixes
	if err != nil {
		return err
	}
	blacklist, err := blacklistDoc(a.BlacklistedSenderWords)
	if err != nil {
		return err
	}
	pl := priceColumns(a.Prices)
	// The account and its opening balance's entry (see sms.LedgerCarried)
	// in one statement.
	const q = `WITH acct AS (
		INSERT INTO sms_accounts (username, password_hash, networks, enabled, balance, credit_limit, currency,
			validity_ms, throughput, max_parts, blacklist, price_prefixes, price_values, created_at, tenant, price_from, price_to, inbound_url)
		VALUES ($1, $2, $3, $4, $5::numeric, $14::numeric, $6, $7, $8, $9, $10, $11, $12::text[]::numeric[], $13, $15, $16, $17, $18)
		RETURNING username, balance, currency, created_at
	)
	INSERT INTO sms_ledger (account, kind, amount, currency, at, actor, note)
	SELECT username, 'carried', balance, currency, created_at, '` + sms.ActorOpening + `', 'opening balance'
	FROM acct WHERE balance <> 0`
	_, err = s.pool.Exec(ctx, q, a.Username, a.PasswordHash, networks, a.Enabled, numericText(a.Balance), a.Currency,
		a.Validity.Milliseconds(), int32(a.Throughput), int32(a.MaxParts), blacklist, pl.prefixes, pl.values, dbTime(a.CreatedAt),
		numericText(a.CreditLimit), string(a.Tenant), pl.from, pl.to, a.InboundURL)
	return classify(err, "account", "account "+a.Username)
}

// checkAccount refuses what sms_accounts cannot hold or must not hold.
func checkAccount(a sms.Account) error {
	if err := cmp.Or(
		invalidText("account", "username", a.Username),
		invalidText("account", "passwordHash", a.PasswordHash),
		invalidText("account", "currency", a.Currency),
		invalidText("account", "inboundUrl", a.InboundURL),
	); err != nil {
		return err
	}
	for region, words := range a.BlacklistedSenderWords {
		// encoding/json would replace invalid UTF-8 silently, and jsonb
		// refuses \u0000.
		if err := cmp.Or(
			invalidText("account", "blacklistedSenderWords", region),
			invalidText("account", "blacklistedSenderWords", words...),
		); err != nil {
			return err
		}
	}
	for i, p := range a.Prices {
		if !storable(p.Prefix) {
			return msgkit.Invalidf(sms.CodeAccountInvalid, "prices", "prices[%d].prefix must be valid UTF-8 without NUL characters", i)
		}
	}
	for i, p := range a.Networks {
		if !p.IsValid() {
			return msgkit.Invalidf(sms.CodeAccountInvalid, "networks", "networks[%d] is not a valid network prefix", i)
		}
	}
	if err := a.CheckBalance(); err != nil {
		return err
	}
	if !fitsInt32(a.Throughput) {
		return msgkit.Invalidf(sms.CodeAccountInvalid, "throughput", "throughput is out of range")
	}
	if !fitsInt32(a.MaxParts) {
		return msgkit.Invalidf(sms.CodeAccountInvalid, "maxParts", "maxParts is out of range")
	}
	return nil
}

// Account returns the account, or NotFound. Prices come back in the order
// they were stored.
func (s *SMSStore) Account(ctx context.Context, username string) (sms.Account, error) {
	if !storable(username) {
		return sms.Account{}, classify(pgx.ErrNoRows, "account", "account "+username)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+accountColumns+` FROM sms_accounts a WHERE username = $1`, username)
	a, err := pgx.CollectExactlyOneRow(rows, scanSMSAccount)
	return a, classify(err, "account", "account "+username)
}

// accountColumns are the columns scanSMSAccount reads, of sms_accounts a.
const accountColumns = `a.username, a.password_hash, a.networks, a.enabled, a.balance::text, a.credit_limit::text, a.currency, a.validity_ms,
	a.throughput, a.max_parts, a.blacklist, a.price_prefixes, a.price_values::text[], a.price_from, a.price_to, a.tenant, a.created_at, a.inbound_url`

// scanSMSAccount reads an account of accountColumns; a stored value that
// does not parse is a storage error naming the account.
func scanSMSAccount(row pgx.CollectableRow) (sms.Account, error) {
	var (
		a                                    sms.Account
		networks, prefixes, prices, from, to []string
		balance, creditLimit                 string
		validityMS                           int64
		throughput, maxParts                 int32
		blacklist                            []byte
	)
	err := row.Scan(&a.Username, &a.PasswordHash, &networks, &a.Enabled, &balance, &creditLimit, &a.Currency,
		&validityMS, &throughput, &maxParts, &blacklist, &prefixes, &prices, &from, &to, &a.Tenant, &a.CreatedAt, &a.InboundURL)
	if err != nil {
		return sms.Account{}, err
	}
	corrupt := func(err error) error {
		return storageError(err, "account ", a.Username)
	}
	if a.Networks, err = parsePrefixes(networks); err != nil {
		return sms.Account{}, corrupt(err)
	}
	if a.Balance, err = parseNumeric(balance); err != nil {
		return sms.Account{}, corrupt(err)
	}
	if a.CreditLimit, err = parseNumeric(creditLimit); err != nil {
		return sms.Account{}, corrupt(err)
	}
	if blacklist != nil {
		if err := json.Unmarshal(blacklist, &a.BlacklistedSenderWords); err != nil {
			return sms.Account{}, corrupt(err)
		}
	}
	if prefixes != nil {
		if len(prices) != len(prefixes) || len(from) != len(prefixes) || len(to) != len(prefixes) { // the table's checks make this impossible
			return sms.Account{}, corrupt(fmt.Errorf("%d price prefixes but %d prices, %d and %d validity dates", len(prefixes), len(prices), len(from), len(to)))
		}
		a.Prices = make([]sms.Price, len(prefixes))
		for i, p := range prefixes {
			a.Prices[i].Prefix = p
			if a.Prices[i].Price, err = parseNumeric(prices[i]); err != nil {
				return sms.Account{}, corrupt(err)
			}
			if a.Prices[i].ValidFrom, err = optionalDate(from[i]); err != nil {
				return sms.Account{}, corrupt(err)
			}
			if a.Prices[i].ValidTo, err = optionalDate(to[i]); err != nil {
				return sms.Account{}, corrupt(err)
			}
		}
	}
	a.Validity = time.Duration(validityMS) * time.Millisecond
	a.Throughput, a.MaxParts = int(throughput), int(maxParts)
	a.CreatedAt = a.CreatedAt.UTC()
	return a, nil
}

// optionalDate reads a price line's validity end: "" is open.
func optionalDate(s string) (msgkit.Date, error) {
	if s == "" {
		return msgkit.Date{}, nil
	}
	return msgkit.ParseDate(s)
}

// dateText is a price line's validity end as stored: "" when open.
func dateText(d msgkit.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// prices are a price list as sms_accounts' parallel arrays; all nil for
// a nil list.
type prices struct{ prefixes, values, from, to []string }

func priceColumns(ps []sms.Price) prices {
	if ps == nil {
		return prices{}
	}
	out := prices{make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps))}
	for i, p := range ps {
		out.prefixes[i], out.values[i], out.from[i], out.to[i] = p.Prefix, numericText(p.Price), dateText(p.ValidFrom), dateText(p.ValidTo)
	}
	return out
}

// blacklistDoc is the blacklist as jsonb; nil for a nil map.
func blacklistDoc(m map[string][]string) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, storageError(err)
	}
	return b, nil
}

// Accept charges m.Charged to m.Account and saves m, atomically. An
// unknown account is NotFound, an id already saved is a Conflict, and a
// balance below the charge is 113 (RC_NO_CREDIT), in that order of
// precedence, as memstore checks them; in each case nothing is changed. A
// negative charge is Invalid (it would credit the account), as are two
// parts with the same Num, text PostgreSQL cannot hold and numbers beyond
// 32 bits; those are refused before m is queued, so one bad message never
// fails a batch. Times are kept to the microsecond; Message returns the
// parts ordered by Num.
//
// Concurrent Accepts are written together, a batch per transaction (see
// acceptBatcher); a message alone is written in a single statement
// (acceptSQL). If ctx ends while m is still queued, Accept returns ctx's
// error (errors.Is finds it) and nothing is written; once m is in a
// batch, Accept returns the batch's outcome whatever ctx says.
func (s *SMSStore) Accept(ctx context.Context, m sms.MessageRecord) error {
	if !storable(m.Account) {
		return classify(pgx.ErrNoRows, "account", "account "+m.Account)
	}
	if err := checkMessage(m); err != nil {
		return err
	}
	return s.accepts.accept(ctx, m)
}

// acceptSQL accepts one message (a batch of one; see acceptBatcher) in a
// single statement, which PostgreSQL runs atomically: if any part fails
// (a duplicate id), the charge is undone with it. Every data-modifying
// WITH clause runs once whether or not it is read; msg inserts only when
// charged returned the account's row, and the parts only when msg did.
//
// Why the balance can never go below its floor (-credit_limit; zero for
// a prepaid account), under READ COMMITTED and any
// number of replicas: the UPDATE takes the account row's lock, which
// batches take too (acceptBatch). A concurrent Accept on the same account
// waits for that lock, and when the first commits PostgreSQL re-evaluates
// the waiting UPDATE's WHERE against the row as committed (not against
// the statement's snapshot). So each charge tests "balance - charge >=
// -credit_limit" on the balance the previous charges left, and an
// insufficient balance matches no row. The CHECK (balance >=
// -credit_limit) on the table backs this up. The message's row is its
// charge's ledger entry (ledger_id drawn by its default; see
// 0034_sms_ledger.sql), so the ledger adds nothing here.
// One statement is also one round trip, the cheapest way to accept a
// lone message: the row lock is released at the statement's own commit,
// with no client round trip in between as an explicit transaction would
// have.
//
// The parts travel as one array per column and are unnested into rows,
// so a message of 255 parts is still one statement; so do the queued
// parts' rows of the outbound queue (see 0004_outbound.sql), written in
// that same statement.
const acceptSQL = `WITH charged AS (
	UPDATE sms_accounts SET balance = balance - $2::numeric
	WHERE username = $1 AND balance - $2::numeric >= -credit_limit
	RETURNING username
), msg AS (
	INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask,
		dlr_url, custom, part_price, charged, currency, submitted_at, expires_at)
	SELECT $3, username, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::numeric, $2::numeric, $14, $15, $16
	FROM charged
	RETURNING id
), parts AS (
	INSERT INTO sms_parts (msg_id, num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port,
		state, error_code, updated_at)
	SELECT msg.id, p.num, p.text, p.data, p.units, p.udh_ref, p.udh_total, p.udh_seq, p.dst_port, p.src_port,
		p.state, p.error_code, p.updated_at
	FROM msg CROSS JOIN unnest($17::integer[], $18::text[], $19::bytea[], $20::integer[], $21::smallint[],
		$22::smallint[], $23::smallint[], $24::integer[], $25::integer[], $26::smallint[], $27::integer[],
		$28::timestamptz[])
		AS p(num, text, data, units, udh_ref, udh_total, udh_seq, dst_port, src_port, state, error_code, updated_at)
), queued AS (
	INSERT INTO sms_outbound (msg_id, num, send_at, attempts, last_error, num_parts, expires_at)
	SELECT msg.id, q.num, q.send_at, q.attempts, q.last_error, cardinality($17::integer[]), $16
	FROM msg CROSS JOIN unnest($29::integer[], $30::timestamptz[], $31::integer[], $32::text[])
		AS q(num, send_at, attempts, last_error)
)
SELECT true FROM charged`

// acceptOne accepts m alone with acceptSQL. It returns m's outcome, a
// refusal included, or an error after which nothing was written (one
// retryable, or another failure of the database) and no outcome holds.
func (s *SMSStore) acceptOne(ctx context.Context, m sms.MessageRecord) (outcome, err error) {
	var pc partColumns
	pc.grow(len(m.Parts))
	pc.add(m)
	var ok bool
	err = s.pool.QueryRow(ctx, acceptSQL,
		m.Account, numericText(m.Charged), string(m.ID), m.Type, m.Sender.Value, m.Sender.Numeric, string(m.Receiver),
		int16(m.DCS), m.Flash, int16(m.DLRMask), m.DLRURL, m.Custom, numericText(m.PartPrice), m.Currency,
		dbTime(m.SubmittedAt), dbTime(m.ExpiresAt),
		pc.nums, pc.texts, pc.data, pc.units, pc.refs, pc.totals, pc.seqs, pc.dstPorts, pc.srcPorts, pc.states,
		pc.errCodes, pc.updated, pc.q.nums, pc.q.sendAt, pc.q.attempts, pc.q.errors,
	).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return s.refusal(ctx, m.Account, m.ID, func(balance decimal.Decimal, currency string) error {
			return sms.CodeNoCredit.Errorf("balance %s %s is below the charge %s", balance, currency, m.Charged)
		}), nil
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == uniqueViolation {
		return classify(err, "message", "message "+string(m.ID)), nil
	}
	return nil, err
}

// refusal explains why a conditional UPDATE of username's balance matched
// no row: the account does not exist (NotFound), the message id is taken
// (Conflict; only when id is not empty), or else the balance did not
// cover the change, which noCredit words from the balance now (as
// decimal.Decimal prints it, so the text is memstore's). It runs after
// the UPDATE, so a concurrent top-up may already show in the balance it
// quotes; the refusal itself stands, as nothing was written.
func (s *SMSStore) refusal(ctx context.Context, username string, id sms.MessageID, noCredit func(balance decimal.Decimal, currency string) error) error {
	const q = `SELECT balance::text, currency, EXISTS (SELECT 1 FROM sms_messages WHERE id = $2)
		FROM sms_accounts WHERE username = $1`
	var (
		balance, currency string
		taken             bool
	)
	if err := s.pool.QueryRow(ctx, q, username, string(id)).Scan(&balance, &currency, &taken); err != nil {
		return classify(err, "account", "account "+username)
	}
	if taken && id != "" {
		return sms.MessageExists(id)
	}
	b, err := parseNumeric(balance)
	if err != nil {
		return storageError(err, "account ", username)
	}
	return noCredit(b, currency)
}

// checkMessage refuses what sms_messages and sms_parts cannot hold or must
// not hold.
func checkMessage(m sms.MessageRecord) error {
	if err := cmp.Or(
		invalidText("message", "id", m.ID),
		invalidText("message", "type", m.Type),
		invalidText("message", "sender", m.Sender.Value),
		invalidText("message", "receiver", m.Receiver),
		invalidText("message", "dlrUrl", m.DLRURL),
		invalidText("message", "currency", m.Currency),
	); err != nil {
		return err
	}
	if err := m.CheckCharge(); err != nil {
		return err
	}
	for i, p := range m.Parts {
		if !storable(p.Text) || !storable(p.SendError) {
			return msgkit.Invalidf(sms.CodeMessageInvalid, "parts", "parts[%d].text and sendError must be valid UTF-8 without NUL characters", i)
		}
		if !fitsInt32(p.Num) || !fitsInt32(p.Units) || !fitsInt32(int(p.ErrorCode)) || !fitsInt32(p.SendAttempts) {
			return msgkit.Invalidf(sms.CodeMessageInvalid, "parts", "parts[%d] has a number out of range", i)
		}
	}
	// The parts' key is (message, num); a duplicate would otherwise look
	// like a duplicate message.
	for i := 1; i < len(m.Parts); i++ {
		for j := range i {
			if m.Parts[i].Num == m.Parts[j].Num {
				return msgkit.Invalidf(sms.CodeMessageInvalid, "parts", "parts[%d] and parts[%d] have the same num %d", j, i, m.Parts[i].Num)
			}
		}
	}
	return nil
}

// Message returns the message with its parts ordered by Num, or NotFound.
// A message saved without parts comes back with nil Parts.
func (s *SMSStore) Message(ctx context.Context, id sms.MessageID) (sms.MessageRecord, error) {
	notFound := func(err error) error { return classify(err, "message", "message "+string(id)) }
	if !storable(string(id)) {
		return sms.MessageRecord{}, notFound(pgx.ErrNoRows)
	}
	// Both queries in one round trip. Parts are written in the transaction
	// that writes their message, so any snapshot that sees the message
	// sees all its parts.
	batch := &pgx.Batch{}
	batch.Queue(messageSQL, string(id))
	batch.Queue(partsSQL, string(id))
	br := s.pool.SendBatch(ctx, batch)
	m, err := scanMessage(br, id)
	if closeErr := br.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	if err != nil {
		if _, ok := errors.AsType[*msgkit.Error](err); ok {
			return sms.MessageRecord{}, err
		}
		return sms.MessageRecord{}, notFound(err)
	}
	return m, nil
}

// scanMessage reads the results of Message's batch. A corrupt row is an
// Internal *msgkit.Error; database errors are returned as they are.
func scanMessage(br pgx.BatchResults, id sms.MessageID) (sms.MessageRecord, error) {
	var (
		ms messageRow
		c  conversion
	)
	if err := br.QueryRow().Scan(ms.dest()...); err != nil {
		return sms.MessageRecord{}, err
	}
	m := ms.record(id, &c)
	rows, err := br.Query()
	if err != nil {
		return sms.MessageRecord{}, err
	}
	var ps partRow
	_, err = pgx.ForEachRow(rows, ps.dest(), func() error {
		m.Parts = append(m.Parts, ps.record(&c))
		return nil
	})
	if err != nil {
		return sms.MessageRecord{}, err
	}
	if c.err != nil {
		return sms.MessageRecord{}, storageError(c.err, "message ", id)
	}
	return m, nil
}

// messageRow is a row of messageSQL's columns as it is scanned.
type messageRow struct {
	m                            sms.MessageRecord
	receiver, partPrice, charged string
	dcs, dlrMask                 int16
}

func (r *messageRow) dest() []any {
	m := &r.m
	return []any{&m.Account, &m.Type, &m.Sender.Value, &m.Sender.Numeric, &r.receiver, &r.dcs, &m.Flash,
		&r.dlrMask, &m.DLRURL, &m.Custom, &r.partPrice, &r.charged, &m.Currency, &m.SubmittedAt, &m.ExpiresAt}
}

// record is the message read, without parts; what cannot be converted is
// noted in c.
func (r *messageRow) record(id sms.MessageID, c *conversion) sms.MessageRecord {
	m := r.m
	m.ID = id
	m.Receiver = sms.MSISDN(r.receiver)
	m.DCS = gsm.DCS(c.uint8("dcs", r.dcs))
	m.DLRMask = sms.DLRMask(c.uint8("dlr_mask", r.dlrMask))
	m.PartPrice = c.numeric("part_price", r.partPrice)
	m.Charged = c.numeric("charged", r.charged)
	m.SubmittedAt, m.ExpiresAt = m.SubmittedAt.UTC(), m.ExpiresAt.UTC()
	r.m.Custom = nil // the next row scans into a fresh slice
	return m
}

// partRow is a row of partsSQL's columns as it is scanned.
type partRow struct {
	p                                               sms.PartRecord
	num, units, dstPort, srcPort, errCode, attempts int32
	ref, total, seq, state                          int16
	sendAt                                          pgtype.Timestamptz // NULL: not queued
}

func (r *partRow) dest() []any {
	return []any{&r.num, &r.p.Text, &r.p.Data, &r.units, &r.ref, &r.total, &r.seq, &r.dstPort, &r.srcPort, &r.state,
		&r.errCode, &r.p.UpdatedAt, &r.sendAt, &r.attempts, &r.p.SendError}
}

// record is the part read; what cannot be converted is noted in c.
func (r *partRow) record(c *conversion) sms.PartRecord {
	p := r.p
	p.Num, p.Units, p.ErrorCode = int(r.num), int(r.units), sms.DLRError(r.errCode)
	p.UDH = c.udh(r.ref, r.total, r.seq, r.dstPort, r.srcPort)
	p.State = sms.PartState(c.uint8("state", r.state))
	p.UpdatedAt = p.UpdatedAt.UTC()
	p.SendAt, p.SendAttempts = fromNullTime(r.sendAt), int(r.attempts)
	r.p.Data = nil // the next row scans into a fresh slice
	return p
}

// TakeThroughput counts one submission of username in the second of now
// (Unix seconds, so the zone does not matter) and reports whether the
// count stays within limit. A limit of zero or less is unlimited and
// touches nothing. The count lives in one row per account, so replicas
// share it; the upsert locks that row, so concurrent calls count exactly.
// A call for another second than the stored one starts that second's
// count afresh, as memstore does. Refused submissions count too.
func (s *SMSStore) TakeThroughput(ctx context.Context, username string, now time.Time, limit int) (bool, error) {
	if limit <= 0 {
		return true, nil
	}
	if err := invalidText("account", "username", username); err != nil {
		return false, err
	}
	// In ON CONFLICT's SET every expression sees the row as it was, so
	// count is computed from the old window_start. The window only moves
	// forward: a replica whose clock lags counts in the newer second.
	// The count need not survive a crash (a lost second of counting lets at
	// most one second's limit through again), so its commit does not wait
	// for the WAL flush: set_config(..., true) sets synchronous_commit for
	// this statement's own transaction, which keeps the hot row's lock
	// short.
	const q = `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true))
		INSERT INTO sms_throughput AS t (username, window_start, count) SELECT $1, $2, 1 FROM cfg
		ON CONFLICT (username) DO UPDATE SET
			count = CASE WHEN excluded.window_start > t.window_start THEN 1 ELSE t.count + 1 END,
			window_start = GREATEST(t.window_start, excluded.window_start)
		RETURNING count`
	var count int64
	if err := s.pool.QueryRow(ctx, q, username, now.Unix()).Scan(&count); err != nil {
		return false, classify(err, "account", "account "+username)
	}
	return count <= int64(limit), nil
}

// numericText renders d for a numeric parameter. It keeps d's scale
// (0.0450 is sent as 0.0450, not 0.045), which PostgreSQL's numeric keeps
// too, so parseNumeric gives back the same coefficient and exponent: the
// values are exact and compare equal even field by field.
func numericText(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}

// parseNumeric reads a numeric selected as text. Money never passes
// through a float.
func parseNumeric(s string) (decimal.Decimal, error) {
	return decimal.NewFromString(s)
}

// conversion turns stored columns into Go values, keeping the first
// value that does not fit.
type conversion struct{ err error }

func (c *conversion) fail(column string, v any) {
	if c.err == nil {
		c.err = fmt.Errorf("column %s: stored value %v out of range", column, v)
	}
}

func (c *conversion) uint8(column string, v int16) uint8 {
	if v < 0 || v > math.MaxUint8 {
		c.fail(column, v)
	}
	return uint8(v)
}

func (c *conversion) uint16(column string, v int32) uint16 {
	if v < 0 || v > math.MaxUint16 {
		c.fail(column, v)
	}
	return uint16(v)
}

// udh reads a part's header columns.
func (c *conversion) udh(ref, total, seq int16, dstPort, srcPort int32) gsm.UDH {
	return gsm.UDH{
		Ref: c.uint8("udh_ref", ref), Total: c.uint8("udh_total", total), Seq: c.uint8("udh_seq", seq),
		DstPort: c.uint16("dst_port", dstPort), SrcPort: c.uint16("src_port", srcPort),
	}
}

func (c *conversion) numeric(column, s string) decimal.Decimal {
	d, err := parseNumeric(s)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("column %s: %w", column, err)
	}
	return d
}

func fitsInt32(v int) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
