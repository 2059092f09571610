// Package pgstore is the PostgreSQL implementation of every msgkit domain
// Store, through pgx v5 and a pgxpool connection pool. Open returns a DB:
// one pool shared by one store per domain (DB.Auth, DB.SMS, DB.SMPP,
// DB.Contacts, DB.Campaigns, DB.Finance and DB.Blobs for its files,
// DB.Routing, DB.TestSystem, DB.UIProxy, DB.Idempotency), so no domain's
// methods are visible on another's. It behaves as memstore does; each
// domain's contract (<domain>test.Run, its one entry point, with
// the shared benchmarks beside it) runs against both.
//
// # Opening
//
// Open parses a DSN, applies the schema migrations, and pings the pool.
// With Options.Schema set, every connection uses that schema as its
// search_path and Open creates the schema if it is missing, so several
// independent stores (or test runs) can share one database. Ping is the
// readiness check.
//
// # Migrations
//
// The schema is defined by the SQL files embedded from migrations/, named
// NNNN_name.sql (at least four digits, version 1 upwards, each version
// once). Open applies those not yet listed in the table schema_migrations
// (version, name, applied_at), in version order, each in its own
// transaction together with its schema_migrations row, so a failing
// migration leaves nothing behind and Open fails with it. The whole run
// holds a PostgreSQL session advisory lock, keyed by the schema, on one
// dedicated connection, so replicas starting at once take turns and each
// migration is applied exactly once, while stores of other schemas in the
// same database migrate at the same time; a later Open finds nothing to
// do. The rules for writing
// one:
//   - Never edit or renumber a migration that has been released; add a
//     new one. A recorded version whose name differs from its file fails
//     Open; versions recorded by a newer build are logged and ignored.
//   - A file may hold several statements (it is sent with the simple query
//     protocol) but no transaction control, and nothing that cannot run in
//     a transaction (CREATE INDEX CONCURRENTLY).
//   - Table names are unqualified: they land in the search_path's schema.
//
// # Transactions
//
// An operation that must be atomic is one Store method and one
// transaction. inTx runs a transaction's function and, after a
// serialization failure (40001) or a deadlock (40P01), runs the whole
// transaction again, function included, up to three times after a short
// random wait that doubles (2 ms, 4 ms, 8 ms, each from half of it up to
// it); the function marks its own errors as final so that they are
// returned as they are and never retried. Group commit (below) retries
// through the same loop. Every storage failure a caller cannot fix is
// Internal storage_error through one helper, its cause kept for logs.
//
// # Errors
//
// Every method returns *msgkit.Error. A missing row is NotFound
// (<thing>_not_found), a unique violation (SQLSTATE 23505) Conflict
// (<thing>_exists), a foreign key violation (23503) Invalid
// (<thing>_invalid_reference), and anything else Internal (storage_error)
// with a generic message; the database error, SQL details included, is
// only reachable as the cause, for logs. Text PostgreSQL cannot hold
// (invalid UTF-8, NUL bytes) is refused as Invalid when writing and is
// NotFound when looking up, as in memstore, instead of a server error.
// A database that cannot be reached is Unavailable, at Open and Ping
// (pgstore_unavailable) and at every other call (code unavailable): a
// connection that cannot be made or breaks under a query, and the server
// shutting down, starting up or out of connections (SQLSTATE class 08,
// 57P01 to 57P03, 53300). The HTTP families answer it 503 with
// Retry-After; the pool reconnects by itself once the database is back.
//
// # Metrics
//
// A DB opened with Options.Metrics registers: the pool's statistics
// (msgkit_pg_pool_*), read from pgxpool's Stat at each scrape; the
// transactions run again (msgkit_store_tx_retries_total), counted in
// the retry loop; and the failures of statements and of acquiring a
// connection by the kind classify gives them (msgkit_store_errors_total:
// internal, invalid, conflict, unavailable), counted by a pgx tracer on
// the pool, the one place every database error passes whichever method
// met it. Left out of the errors: a caller's cancellation, and the
// serialization failures and deadlocks a transaction retries; a missing
// row is no statement's failure (pgx tells the caller only), nor is a
// refusal the store makes before asking the database (text it cannot
// hold). A failed batch counts once.
//
// # Bulk SMS
//
// Money (balances, prices, charges) is numeric, written and read as
// decimal text, never as a float, so a value keeps its scale as well as
// its value: 0.0450 comes back as 0.0450, and a balance after a charge has
// the scale decimal.Decimal's subtraction gives. An account's Validity is
// kept in whole milliseconds (finer parts are dropped, as memstore drops
// them), and its price list as two parallel arrays in the order given,
// duplicates included, so Account returns it as it was stored. The
// throughput window of TakeThroughput is one row per account that only
// moves forward: a replica whose clock lags counts in the newer second
// instead of resetting it. The delivery report outbox is claimed under
// leases with FOR UPDATE SKIP LOCKED, so replicas claim at once without
// waiting for each other and no report is handed out twice while its
// lease runs; a part's reports go out one after the other.
//
// The outbound queue is a table of its own, sms_outbound: one narrow row
// per queued part with its send_at (the next attempt, or while a claim
// holds the part, the end of its lease), attempts, last error, and the
// message's number of parts and expiry, so that a claim filters on this
// table alone. Accept inserts the rows of the submitted parts with the
// parts themselves, in the same statement, so queueing costs no round
// trip. A part usually passes through as one insert and one delete (its
// hand-over), which keeps the table small and sms_parts free of extra
// updates; autovacuum takes the table after 10000 changes, not after a
// share of its size. The queue folded into sms_parts instead (its
// columns in the part's row, a partial index on send_at) writes no less:
// the hand-over then updates the part, and as it changes an indexed
// column the update is not HOT and adds entries to both of sms_parts'
// indexes, where a delete adds none. Measured side by side on an
// operator's cluster (examples/pgcluster/queueshape: a part's whole life,
// then the vacuum after it), the folded shape wrote 5–6% more WAL per part
// and took 5% more space, at a rate and CPU within the machine's noise. Between two runs its statistics say "a few rows"
// while its pages hold many dead ones, so every statement that reads it
// by key runs with sequential scans disabled for its transaction
// (keyedOnly): no plan, generic plans kept by a connection included, may
// read the dead pages for each part. ClaimParts leases due parts as the
// outbox does, one statement with FOR UPDATE SKIP LOCKED, walking the
// send_at index in order (a backlog costs a claim only the rows it
// takes), leasing by ctid and reading each part and message by key
// (LATERAL subqueries with LIMIT, which stale statistics cannot turn into
// hash joins over whole tables); it passes over parts of expired
// messages, which ExpireDue ends. FinishParts deletes the rows of the
// parts handed over and moves those to try again, one statement each in
// one round trip, a row only while its send_at is the lease's end the
// result quotes; it locks the rows in key order and runs again after a
// deadlock. A row is a part's queue only while the part is submitted, a
// state no update returns to, so UpdatePart, which the network's reports
// call for every part, leaves the queue alone: the part's hand-over
// deleted its row before the network could report it. A row that an
// update leaves behind all the same (the report overtook the recording
// of the hand-over, or the network refused the part) is deleted by
// FinishParts or by the claim that reaches it, and neither counts it as a
// claim; an update at or after the message's expiry, usually of a part
// never sent, deletes the row at once.
//
// Nothing in the bulk SMS tables has a foreign key: the store writes a
// message only for an account it has locked or charged in the same
// transaction, and a message's parts and queue rows with the message, and
// a key check would be a query and a row lock for every row of every
// acceptance. Message ids compare byte by byte (COLLATE "C"), as memstore
// orders them, so no index on them calls the locale's collation.
//
// # Message trace
//
// The trace (sms.TraceStore) adds no index and no row
// (0037_sms_trace.sql). A part's history is a bytea of 13-byte records
// (state, error code, microseconds) in its sms_parts row, appended by
// the UPDATE that already writes the state (sms_part_history, which
// keeps the first record and the latest 15); no index reads the column,
// so the update stays heap-only (TestOpenStatusUpdatesAreHOT counts it).
// UpdateParts appends every change of a part in the batch, in order, in
// its one write of the part. A report's attempts are two arrays of its
// sms_reports row (times and errors), appended by FinishReports' UPDATE
// where the attempts grew. Trace reads the message, its parts, their
// histories, its reports (sms_reports_part_idx) and its smpp_submitted
// rows by key in one round trip.
//
// TraceMessages goes through the listing engine. A search names an
// account or a message id (the domain refuses others). The account's eq
// filter becomes the listing's scope, compared in the column's own
// collation, because sms_messages_account_idx (account, submitted_at),
// the retention's index, is in that collation and the engine's COLLATE
// "C" comparison could not use it; submission times are that index's
// second column, the receiver is matched in the rows it gives, and an id
// is the primary key (TestTraceSearchesUseIndexes). No index is added:
// every acceptance would pay for it. Each page row reads its parts'
// states by key, and the total is counted apart (listTable.CountApart),
// so a page stops at its LIMIT.
//
// # Retention of finished messages
//
// ForgetFinished (sms.RetentionStore; sms.Retention runs it) deletes
// finished messages: every part final (not open) and last updated before
// the cutoff, and no pending report (state 1). With a message go its
// parts, its reports (delivered and given up, as none is pending), its
// smpp_submitted rows and any sms_outbound row an update left behind, so
// every bulk SMS table reaches a steady size under steady traffic. As in
// memstore, the keep time runs from the message's last part update
// (updated_at), which is when it finished.
//
// A call works in transactions of at most 1,000 messages (forgetBatch),
// each two statements: the first picks the messages and locks their
// parts in key order (FOR UPDATE, the order UpdateParts locks in, so the
// two never deadlock, and a report arriving meanwhile waits, then finds
// no part); the second checks each message again on what committed
// before the locks and deletes from the five tables in one statement.
// Short transactions hold no lock long, write the WAL in small steps and
// leave dead rows that (auto)vacuum frees for the next acceptances: over
// rounds of accept, finish, forget and VACUUM, sms_messages, sms_parts
// and sms_reports stop growing after the rounds a keep time holds
// (TestForgetFinishedNoBloat). The statements read by key only
// (keyedOnly, walkInOrder).
//
// No index was added: the candidates come from sms_messages_account_idx,
// (account, submitted_at), one range submitted_at < cutoff per account
// (a LATERAL subquery over sms_accounts, oldest first), since a message
// is submitted before any of its parts is updated; each candidate's parts
// and pending reports are then probed by their keys (sms_parts' primary
// key, sms_reports_part_idx). Once retention keeps up, the range holds
// little besides what goes: messages submitted before the cutoff that
// finished after it, and those still open or reporting, which each call
// passes over again. An index on the finish time would serve the same
// pick with one range but cost every part update and acceptance a write.
// Each range is walked as an index scan in submitted_at order and left at
// the limit (bitmap scans are off in the transaction: the planner prefers
// one for a short range, and it would read and probe the whole range
// before sorting it, so a backlog would cost every call all of it).
// EXPLAIN (ANALYZE, BUFFERS) on 200,000 messages of 20 accounts (400,000
// parts and reports, 16,342 pages; TestForgetFinishedPlan) shows index
// scans only, custom and generic plans alike: removing 980 messages
// touches about 36 buffers a message (17,232 to pick, 18,377 to delete),
// against 29 on 20,000 messages (a btree level less) and 37 when 150,000
// are due at once: the cost follows the rows removed, not the tables.
// Measured side by side (BenchmarkForgetFinished beside
// BenchmarkAccept, 20,000 messages, -benchmem, medians of 5, on 2 shared
// cores), removing a message costs 33 µs (280 B, 7 allocations), 0.08× a
// lone Accept (390 µs, mostly its commit's flush) and 0.69× an Accept
// under load (47 µs a message, 64 callers; an earlier run gave 0.08× and
// 0.67×). Under steady traffic as many messages leave as arrive, so
// retention adds about two thirds of acceptance's database time per
// message, in a job of its own, off the acceptance's path.
//
// # Credit ledger
//
// Every change of an account's balance is an entry of its ledger (see
// sms.LedgerEntry), and the balance is always the sum of the entries. A
// charge is not written twice: the accepted message's row in
// sms_messages (charged, submitted_at, id) is its charge's entry, so the
// ledger costs acceptance no tuple and no statement; the message's
// ledger_id column takes its id from the sequence sms_ledger's ids come
// from (sms_ledger_seq; a default, so acceptSQL and the batches are
// unchanged but for their floor). Only the explicit entries (top-ups,
// adjustments, refunds, carried) are rows of sms_ledger
// (0034_sms_ledger.sql); the view sms_ledger_entries is the union of
// both, which listings (the one listing engine) and exports read, scoped
// to an account. No index was added to sms_messages: an account's
// entries are walked by time on sms_messages_account_idx (account,
// submitted_at), the index acceptance and retention already use, merged
// with sms_ledger_account_idx (account, at, id), so the ledger's order
// is (at, id), and an export pages by keyset on (at, id). An order by id
// alone would need an index on (account, ledger_id), a write per
// accepted message.
//
// Retention deletes messages and so their charges' entries: forgetSQL
// inserts, in the statement that deletes them, one carried entry per
// account of the batch holding the sum of the removed charges (negative),
// so the law survives, at one more row per account and batch. An
// account's opening balance (CreateAccount, or the balances of accounts
// that existed before 0034) is a carried entry too.
//
// ApplyLedger (top-ups, adjustments) goes through the account's accept
// queue (see Group commit). Alone it is one statement, as acceptSQL: a
// conditional UPDATE of the balance whose WHERE holds the floor and the
// currency, and the entry's INSERT from its RETURNING, so a refused
// change writes nothing. While the account submits, the change joins the
// account's next batch: acceptBatch settles the batch's changes first
// (they were all waiting at once, so any order is one they could have
// come in), draws their ids in its first round trip and writes their
// rows with the messages, under the batch's one commit. A top-up then
// costs the account's acceptances nothing; as a transaction of its own
// it held the account row's lock through its own commit (a WAL flush),
// and the account's batches waited for it. BenchmarkAcceptWithTopUps
// (32 submitters of one account, a top-up every 10 ms, each run's rate
// with top-ups over its rate without; 5 runs each, the two builds
// interleaved, 2 shared cores): batched, a median of 0.985 (0.95 to
// 1.04); a transaction of its own, 0.943 (0.62 to 1.15). The floor is -credit_limit everywhere
// (acceptSQL, chargeBatchSQL, acceptBatch's settle, ApplyLedger), backed
// by CHECK (balance >= -credit_limit), which replaces 0002's CHECK
// (balance >= 0). Reconcile sums both tables per account in one snapshot
// (an acceptance changes the balance and inserts its message in one
// transaction).
//
// # Group commit
//
// Accept must charge and save atomically, so every Accept of an account
// takes the account row's lock, and holds it through its commit's WAL
// flush: one at a time, an account would accept at most one message per
// flush. Accepts are therefore queued to AcceptWorkers workers (an
// account's messages always to the same one), and each worker writes
// whatever is queued when it is free, up to AcceptMaxBatch messages.
// Nothing waits for a batch to fill: a lone message is written at once, in
// a single statement, and batches grow only while earlier ones are being
// written.
//
// A batch is first one statement, in one round trip: it charges every
// account of the batch whose balance covers all its messages (the
// conditional UPDATE of a lone message, with the totals) and inserts the
// messages, parts and queue rows of the accounts it charged. Usually that
// is the whole batch. The messages of an account short of credit, or
// unknown, are then settled in a transaction of their own: it locks their
// accounts (in username order, so batches never deadlock), decides every
// message in arrival order exactly as single Accepts would (unknown
// account, then duplicate id, including one earlier in the batch, then
// credit, with exact decimal arithmetic), sets each charged account's
// final balance, inserts the accepted messages and then their parts
// (queued for sending) with one statement each, and commits; then each
// caller is answered. A batch with an id already stored goes whole to that
// second transaction, which then reads the stored ids first and refuses
// their messages (message ids are random, so batches do not look for them
// otherwise). A statement or transaction that fails with a serialization
// failure or a deadlock runs again, up to 3 times; after that every
// message it held gets the error and none of them is written. Validation
// (text, numbers, a negative charge) happens before
// queueing, so one bad message never fails a batch. A caller whose
// context ends while its message is queued gets the context's error and
// the message is dropped; once the message is in a batch the caller waits
// for the outcome whatever its context says, for a message accepted
// without a 202 would be sent again and charged twice. Close refuses new
// Accepts, writes the queued ones and answers every caller before it
// closes the pool. The settling transaction's reads are planned for their
// actual parameters (plan_cache_mode force_custom_plan, in that
// transaction only) and the one-statement batch runs with sequential
// scans off, as a generic plan made while a table was nearly empty would
// keep scanning it whole as it grows.
//
// The network's status events are batched too, by their caller
// (UpdateParts): one transaction reads the batch's messages, runs the
// changes in order in memory and writes each part's last state and every
// report in order, instead of a transaction per event; each step is one
// statement for the whole batch, its rows as arrays. The write is a
// compare and set: a part is written only where its row still holds the
// state, error code and time the batch started from, and when one does
// not (a concurrent change got there first) the transaction is rolled
// back and runs again with the batch's parts locked in key order first
// (so batches never deadlock). Most batches read nothing at all: the
// store remembers the messages it accepted or updated lately, with parts
// still open (Options.RecentMessages), and the compare and set is what
// makes that memory safe when another replica changed a part meanwhile.
// A message's reports come within seconds of its acceptance, so under
// load the network's events cost one UPDATE per batch, not four
// statements (over HTTP on PostgreSQL, 26% less CPU per submission,
// server and database together). A status step that leaves a part open
// (submitted, sent to the SMSC, buffered) is a heap-only update: the open
// parts' index reads a generated column, open, rather than state
// (0006_parts_hot.sql), so only a part's last update touches its indexes.
// The outcomes of delivery attempts are
// batched the same way: FinishReports updates a batch of reports in one
// statement (unnest of arrays, ids sorted), a commit per batch instead of
// per report. UpdatePartsLeasing (the gateway's, when a dispatcher of the
// same process takes its reports in memory) sets the lease of each report
// it may hand over in the insert itself, looking up the part's pending
// reports by key: a claim locks and rewrites every report row it takes,
// and passes over the reports in flight in the due index.
// BenchmarkReportsToDispatcher measures both ways with 2,000 reports in
// flight: leased 18,053 reports a second against 16,631 claimed (medians
// of 5 interleaved runs, own cluster), 1.09×, with 17% fewer allocations.
// sms_reports keeps 30% of each page free (0033_reports_hot.sql) so that a
// lease is a heap-only update.
//
// # Listings
//
// Every listing runs its msgkit.ListQuery in the database through one
// engine, listPage in listing.go; nothing loads a tenant's rows to filter
// them in Go. A domain describes each listing once as a listTable: the
// FROM clause, the select list its row type is scanned from (with
// pgx.RowToStructByName or any pgx.RowToFunc), the tenant condition, the
// SQL expression and type of every attribute, and the store's order. A
// call passes the tenant's arguments, the query and the scan function and
// gets a msgkit.Page. The page and total are those msgkit.Apply gives for
// the same rows in the store's order; a property test checks this on
// random rows and random queries the parser accepts, non-ASCII text
// included. How:
//   - Values are always bind parameters, and the SQL text holds only the
//     table's trusted fragments. The tenant condition is parenthesised
//     and ANDed into every statement, its arguments numbered first; an
//     empty one is an error, and a listing over every tenant says TRUE.
//   - Strings are compared as text COLLATE "C", byte for byte, whatever
//     the column's collation, so eq, in and the ordering operators agree
//     with Go, and sorting is by bytes. An index that should serve a
//     string sort or range is made COLLATE "C".
//   - startswith, contains, endswith and doesnotcontain are case-sensitive
//     regular expressions in which every letter of the value is the
//     bracket of its Unicode simple folding orbit (k is [kKK], with the
//     Kelvin sign) and every other ASCII character is escaped, so % _ \
//     and regular expression characters match themselves. ILIKE and
//     lower() were refused: they follow the collation and its Unicode
//     version, and none agrees with strings.EqualFold. On PostgreSQL 15,
//     é ILIKE É is false under C; under glibc's C.UTF-8 ſ, ς and µ do not
//     match s, σ and μ while İ matches i; ICU misses the same three. Each
//     letter is one rune, so ß matches ẞ but never ss, as in Go. A trigram
//     index (pg_trgm) can serve these expressions.
//   - Numbers are numeric, bound as their exact decimal text; dates are
//     date (year 0000 is 1 BC), date-times timestamptz, booleans boolean.
//   - Nulls follow SQL, as in msgkit: every comparison with null is null,
//     so neq, notin, notbetween and doesnotcontain never match it.
//   - A value no column can hold is compared through the greatest value
//     a column can hold below it: a date-time with a fraction of a
//     microsecond, or a number with more fraction digits (16383) or
//     integer digits (131072, where ±Infinity stands in) than numeric
//     has. Stored values never equal it, and lie below it exactly when
//     they are at most that floor. A string that is not UTF-8 or holds NUL
//     equals no stored string and is ordered against the stored strings'
//     UTF-8 bytes (so the database encoding must be UTF8); in a pattern
//     its invalid bytes read as U+FFFD, as msgkit reads them. Numeric
//     infinities need PostgreSQL 14 or later.
//   - A date-time filter with a precision (msgkit.ListSpec.TimePrecision,
//     the precision a listing shows its times at) compares the time as
//     shown, truncated, yet is written as a comparison of the column
//     itself with whole multiples of the precision (shown > T is column >=
//     floor(T)+p, shown = T is floor(T) <= column < floor(T)+p when T is
//     a multiple, and so on), so an index on the column serves it as it
//     serves a plain comparison. TestListingShownTime and the listing law
//     hold it to Apply; the precision must be whole microseconds.
//   - The sort keys are ordered ASC NULLS LAST or DESC NULLS FIRST, then
//     by the table's Order, a unique key such as the id, so that equal
//     keys keep the store's order on every page.
//   - A page is LIMIT and OFFSET, and the total is count(*) OVER () on
//     its rows, in the same statement. A page past the end has no row to
//     carry it, so then, and only then, a second statement counts; its
//     snapshot is a later one.
//
// A query naming an attribute the table lacks, or one the parser could
// not have made, is Internal with code invalid_list_spec, as in Apply; a
// database failure is Internal storage_error.
//
// # Segmentation
//
// compileSegmentation (segmentation.go) turns a segmentation.Query into
// one boolean SQL expression that selects exactly the contacts
// segmentation.Compile(q, today).Match selects; a property test holds the
// two to it on random contacts and queries. A segSchema names the SQL of
// each field. How:
//   - Case-insensitivity is decided in Go, not by the database: text,
//     gender and mobile fields are read from shadow columns that the store
//     fills with segmentation.Fold of the value on write, and rule values
//     are bound folded. Every comparison is COLLATE "C", so =, LIKE and
//     the ordering operators are byte for byte, as Go compares, whatever
//     the column's collation or the server's ICU or glibc version.
//   - Values are always bind parameters; contains, startswith and
//     endswith are LIKE patterns built in Go, with \, % and _ escaped by
//     LIKE's default escape character.
//   - Absent is NULL or empty for text, NULL for dates. Every rule is a
//     non-NULL boolean ("x IS NOT NULL AND ..."; lt and lte also exclude
//     the empty string), a negative condition is NOT of its positive twin,
//     and groups nest left to right, so three-valued logic never changes
//     an answer. A custom column the schema lacks is absent: its rules are
//     true or false constants.
//   - ann_in_days: the months and days whose next anniversary falls in the
//     window are computed in Go (segmentation.AnniversaryDays, 29
//     February included) and become up to three ranges of the key
//     EXTRACT(MONTH)*100 + EXTRACT(DAY) of the birthday, each an index
//     range scan. Nothing in it can fail on a stored date.
//   - Memberships are EXISTS subqueries that the schema writes.
//
// segmentationIndexes gives the indexes: a btree COLLATE "C" on each
// folded text column a tenant filters on (eq, in, the ranges and, under
// "C", startswith's LIKE prefix, without text_pattern_ops), a btree on
// the birthday and an expression index on its anniversary key. contains
// and endswith scan: a pg_trgm index could serve them, but the extension
// is one per database, lives in one schema (dropping it drops every
// trigram index of every schema) and needs the CREATE privilege on the
// database, so stores in schemas of one database cannot each own it.
// On a million contacts, gender eq female AND email contains a string
// AND birthday ann_in_days 7 reads the anniversary index and about 20,000
// rows in some 30 ms. The SQL text depends on the query's shape, not its
// values, so a prepared statement may meet other values: run
// segmentation selects with plan_cache_mode force_custom_plan, as a
// generic plan sees neither a LIKE prefix nor the anniversary ranges.
//
// # Contact imports
//
// ContactsStore.Import writes a batch in one transaction, a chunk at a
// time: COPY for the contacts it creates, a stage and one UPDATE for the
// ones it changes. It finds the contact of each identifier with one
// query per 5,000 keys (importMatches), planned generically and served by
// an index of the list's contacts in use by key (contacts_import_mobile,
// contacts_import_email; other identifiers have none). Planned for the
// list's own estimate, as a custom plan is, a list that imports fill
// faster than autovacuum analyses it is taken for empty, and the lookup
// read the whole list, filtering it by key, for every batch of keys: the
// import slowed as the list grew. A generic plan does not look at the
// list's estimate, and the index, matching the lookup's every condition
// and its deleted IS NULL, answers it with one probe a key (a test reads
// the plan). Against a COPY of the same rows into the same table and
// indexes (medians of 5 interleaved rounds of 20,000 contacts, from the
// raw body to the committed rows, on 2 shared cores):
//
//	go test ./adapters/pgstore/ -run XX -bench ContactImportVsCopy -benchmem
//
// the import runs at 0.69–0.75× the COPY into an empty list, 0.72–0.75×
// into a list of 400,000 other contacts whether statistics have seen it
// or not, and 0.58–0.64× when half the body updates the list's contacts
// (two runs). With 400,000 contacts it keeps 0.75–0.82× of the empty
// list's rate, as the COPY does (0.74–0.84×: larger indexes): it adds no
// cost that grows with the list. Planned for the list's estimate, it ran
// at 0.45× the COPY into the list statistics had not seen, 0.61× of its
// rate into an empty list.
//
// # Finance
//
// DB.Finance is the store of business partners and invoices
// (finance.Store; 0008_finance.sql). An invoice is one row of
// finance_invoices, a column per field: the id from an identity column, so
// ids ascend; amounts numeric without a fixed scale, written and read as
// decimal text (0.0450 stays 0.0450; numeric has no positive exponent, so
// 1E+3 comes back as 1000); civil dates as date, NULL for the zero Date;
// the currency as its ISO 4217 numeric code (0: none), read back through
// finance.CurrencyByNumeric, an unknown code being a storage error.
// insert_dt and status_dt hold Go's zero instant when unset, as the
// statusDt attribute is never null; sync_status_dt and delivery_dt are
// NULL then. Items are a jsonb array with decimals as JSON strings, as they
// are only read and written with their invoice (a child table would cost a
// second statement per read and rewriting every line per update); the
// payment is a jsonb object, the source record two ids, and the sync
// document bytea, byte for byte (json would refuse bytes that are not
// JSON, which memstore keeps). Nil and empty item lists both round-trip.
// Text PostgreSQL cannot hold, dates that do not exist and currencies not
// in finance.Currencies are Invalid, every such field named. The invUid
// column uid is NOT NULL and UNIQUE (0027_finance_invoice_uid.sql, which
// gave the rows stored before it a gen_random_uuid() each): an invoice
// without one is Invalid, one with another's Conflict (invoice_exists).
//
// A partner record (finance.PartnerStore) is a row of finance_partners,
// finance_partner_exports and finance_partner_tenants, written in one
// transaction and listed through the listing engine over the three
// joined (empty text read as NULL, as finance reads it). Stored invoice
// configurations are rows of finance_configs keyed by type and template
// language (0030_finance_configs.sql); a put writes its type into
// finance_document_types in the same transaction.
//
// UpdateInvoice locks the row (SELECT … FOR UPDATE), runs the change and
// writes the row in one transaction; the change's error is returned as it
// is, and neither the id nor the UID ever changes.
//
// SetMembership (netting statements and collection leads) locks the
// member, the group it leaves and the group it joins in id order (SELECT
// … FOR UPDATE over the three ids, ORDER BY id), so that two moves, or a
// move and an update, never deadlock; the groups' members are then read
// by netting_invoice_id or collection_lead_id, which stay as read because
// every move locks the groups it changes, through a partial index on each
// column that holds members only (migration 0029).
//
// ListInvoices runs through the listing engine over every attribute of
// finance.InvoiceSpec. The scope is SQL (every partner, or cust_id among
// the caller's), and so is leaving out deleted invoices. The attributes'
// text columns hold NULL for "" (finance reads an empty attribute as
// null) and are COLLATE "C", so each attribute is a plain column an index
// can serve. The total counts every matching row (count(*) OVER ()), so
// the listing selects the page's ids only, which an index-only scan
// answers, and the page's invoices are then read by id, both in one
// read-only REPEATABLE READ transaction. The indexes: status with the
// invoice date (payment status included), the invoice date (status
// included), the partner as numeric (the listing binds numbers as
// numeric, which a bigint index cannot serve) and the total. On a million
// invoices, status eq approved AND paymentStatus in (open, on-hold) by
// -invDate, page 1 of 10 (255,000 match), takes about 130 ms, nearly all
// of it counting the matches.
//
// Balances (finance.BalanceStore) are summed in one statement: the listing
// engine runs over a subquery that groups the counted documents of the side
// (approved, archived, imported; the supplier classes, or every other class,
// NULL included) of the partners in scope by partner, currency and the
// requested keys. A code's key is finance's fixed id, written as CASE (an
// unknown code is 0, as in finance); the selector's is whether it is
// PART-PAYMENT. numeric's sum keeps the largest scale of its inputs, as
// finance's sums do; aging buckets are sums FILTERed on asOf minus the due
// date (from 1970-01-01 without one, as finance counts), an empty bucket 0.
// The group keeps min(id) and max(id), so no aggregate sorts: the last
// document, joined by primary key, names the partner and owner, and the
// first gives the group's texts. Keys not asked for are constants, so the
// store order (partner, currency, codes by id) is always the same. Sheets
// list like ListInvoices (ids through the engine, then the invoices, in one
// REPEATABLE READ snapshot) in document-date order, a document without a
// date first, which breaks the ties of the query's sort; Start leaves out
// documents without a date and End keeps them, as finance compares the zero
// Date, and a bound that is not a date is Invalid. No index serves balances:
// on a million invoices, customer balances by domain and data source, page 1
// of 10 by -total, take about 585 ms (parallel sequential scan; JIT about
// 90 ms of it). A partial covering index on (cust_id, currency) would make it
// an index-only scan of about 375 ms at 124 MB and a write on every status
// or amount change.
//
// # Test system
//
// DB.TestSystem keeps the SMS route test system (migration 0018): the
// reference lists in tables of their own (listed through the listing
// engine; countries are the distinct country and MCC of an owner's
// operators), sessions, results (their keys, status and judgement as
// columns, every other field in one jsonb document, byte for byte where
// JSON cannot carry a text) and the daily quota, a row per user and UTC
// day. CreateSession counts the request with one upsert that only
// increments below the limit, in the transaction that stores the session
// and COPYs its results, so replicas sharing the database share the
// limit. A completed session's callback is a row of sms_reports, queued
// in the transaction that completes it, so the delivery report
// dispatcher posts it; its message id is "testsession-" and the session's
// id, a range of sms_reports_part_idx by which SMSStore.ForgetFinished
// removes it once delivered or given up and older than the keep time.
//
// # Inbound messages
//
// DB.Inbound keeps the messages from phones (0040_inbound.sql): a row of
// inbound_messages each, inserted with its delivery's sms_reports row (the
// outbox the dispatcher already claims) in one statement, so a message is
// never kept without its delivery. Their ids are "mo-" and a version 7
// UUID, a range of sms_reports_part_idx of their own; the listing goes
// through the listing engine (by id, which is arrival order), with a
// partial index on the states that are not routed, the few an operator
// looks for. SMSStore.ForgetFinished removes those received before its
// cutoff whose delivery is done, with the delivery, oldest first by
// inbound_messages_received_idx. Accounts have inbound_url, empty for none.
//
// # Campaigns
//
// DB.Campaigns keeps the campaigns (0019: a row each, the schedule in its
// normal form, read back with campaign.RestoreSchedule) and their runs
// (0020): campaign_tasks, one per campaign and occurrence under a unique
// key, and campaign_messages, one per task and contact and one per task
// and address. ClaimDue locks the due active campaigns with SKIP LOCKED
// and inserts each one's task (ON CONFLICT DO NOTHING) with the
// campaign's advance in one transaction, so replicas make each occurrence
// one task. Each tenant's payer is a row of campaign_payers (0026), read
// by its key once a page of a run. Tasks are leased (lease_until); every lease-bound statement
// locks the task only while the caller's lease is still its own, so a
// runner that lost the task writes nothing (lease_lost). DB.Contacts is
// the campaigns' Audience: one statement per page walks the tenant's
// contacts in (created, uuid) order from the cursor along the listing
// index, with the channel's address and opt status and the segmentation
// query in SQL.
//
// # Idempotency keys
//
// DB.Idempotency keeps the records of Idempotency-Keys (0024): a row per
// scope and key, both compared byte by byte (COLLATE "C"), with the
// answer's headers as JSON in bytea and its body as bytea (NULL when
// empty). Create inserts (ON CONFLICT DO NOTHING) and, when the key has
// a row, reads it, replacing it only when it has expired (an UPDATE
// conditional on expires_at): a retry neither writes nor locks, so its
// replay costs no commit to disk. Replace and Release
// are an UPDATE and a DELETE conditional on the row's ref, attempt and
// pending state, so replicas agree on the one request holding a key
// without a lock held between statements. Purge deletes expired rows
// through the expiry index, 10,000 a statement, so a backlog goes in
// short transactions. A bulk SMS message accepted under a key takes the
// key's ref as its id: the unique message id, not the key's row, is what
// makes the acceptance exact across a crash.
//
// # Values
//
// timestamptz keeps microseconds, so every time is truncated to the
// microsecond when written (the same truncation memstore applies) and read
// back in UTC. DeleteExpiredTokens therefore compares at microsecond
// precision too. Network prefixes are stored as text (netip.Prefix.String)
// and parsed back; an invalid prefix is refused. Array columns are NULL for
// a nil slice and empty for an empty one, so both round-trip.
package pgstore
