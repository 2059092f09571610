// Package sms is the bulk SMS domain of msgkit. Its pure core validates
// senders and receivers and holds the vocabulary of the bulk SMS
// interface: submission error codes, delivery report events, masks and
// error codes, and the delivery state machine (Step). None of that does
// I/O. Turning a text or a WAP push into the physical messages a network
// carries is package sms/gsm's (SplitText, CountText, SplitWSI); the
// gateway applies it to every submission.
//
// Around the core, three services run on storage the caller provides: the
// Gateway accepts submissions (checks, charging, saving and queueing the
// parts in one Store call), applies the network's status events to the
// parts and queues delivery reports; the Transmitter hands the queued
// parts to the network (an Upstream), taking them from the Gateway in
// memory or claiming them from the store; the Dispatcher delivers the
// queued reports to customers' URLs; a Retention removes finished
// messages once their keep time has passed; Credit keeps the accounts'
// credit ledger (top-ups, adjustments, listings, exports,
// reconciliation). The Gateway needs a Store,
// the Transmitter a TransmitterStore, the Dispatcher an OutboxStore of three
// methods and the Retention a RetentionStore of one, and a Tracer shows
// where a message is from a TraceStore; the adapters (memstore, pgstore)
// implement all five, and smstest is their contract.
//
// # Encoding and splitting
//
// Package sms/gsm encodes and splits (its doc has the rules: the GSM 03.38
// alphabet, UCS-2, concatenation, WAP push). This package adds what the
// interface says about it:
//   - dcs is case-insensitive (ParseDCS); an empty dcs or "auto" is
//     gsm.DCSAuto, which chooses GSM when every character is in the
//     alphabet and UCS otherwise.
//   - The errors of sms/gsm answer with the submission codes: CodeOf gives
//     gsm.CodeMissing 110, gsm.CodeBadContent 109, gsm.CodeNotInAlphabet
//     102, gsm.CodeTooManyParts 115 and gsm.CodeBadValue 112.
//   - A text holding NUL (U+0000) is RC_BAD_CONTENT_FORMAT (109) whatever
//     the coding: no handset shows it and a store may not keep it.
//
// # Delivery state machine
//
// Step applies one network status to a part's state and gives the next
// state and the report event, which is sent only if the dlrMask allows it.
// Its doc lists the rows of the interface's delivery table and the choices
// made where the table is silent. ErrorCodeFor gives a report's errorCode:
// 996 for expiry whatever the network said, 0 for delivery and acceptance,
// 500 (other error) for a permanent failure or rejection that came without
// a code, so that a final failure never reports "no error"; otherwise the
// network's code. PartState names are lower case with underscores
// ("sent_to_smsc"), the spelling stores and logs use; ParsePartState reads
// them back.
//
// A part is stored as sent to SMSC only when its message's report asks for
// that event (the mask includes SENT_TO_SMSC and there is a URL); else
// the network's acceptance writes nothing and the part stays submitted
// until the network's next status, which leads to the same state from
// either. That spares a write per part on every message whose customer
// only wants to hear the end, most of them.
//
// # Submission
//
// Gateway.Submit checks a submission in this order and answers the first
// failure: auth.username and auth.password present (110); credentials match
// an enabled account (103: unknown, wrong password and disabled accounts
// alike); the client address is in the account's networks (104); the
// account's throughput per second (105, shared by replicas through the
// Store); type present (110) and known (111); sender (110, 107); receiver
// (110, 112); dlrMask (112), dlrUrl (112; 110 when a mask asks for reports
// without one) and custom (112: a JSON object of at most 4 KiB); validUntil
// (112 when not after now; SubmitFor's transports only); the content
// (text: 110, 109 also for a NUL character, 102, 115; wsi: 110, 112, 109,
// 115); the account's
// maximum parts per message (108: "customer-split message too long", an
// account setting below 255); a price for the destination (114: the price
// list is also the list of allowed destinations); blacklisted sender words
// of the destination's country (106); finally the charge (113), taken with
// the saving of the message and the queueing of its parts in one Store
// call (Accept). Throttling comes early so that a flood costs little.
//
// Gateway.SubmitFor is Submit for the platform's own senders (campaigns),
// which hold no password: it names the account, skips the credentials and
// client address checks and applies every other rule, with a message id
// the caller chooses, so a submission tried again after a crash finds its
// id taken (Conflict, message_exists) and is neither sent nor charged
// twice. The account it names is remembered for CredentialTTL, as a
// verified password's is, so a campaign does not read it per message;
// Gateway.Throughput gives the account's submissions a second to such
// senders, which pace themselves to it. A submission's ValidUntil (an
// ESME's validity_period, over SMPP) ends the message's validity
// (ExpiresAt) when it comes before the account's validity does; HTTP
// submissions, which have no such field, keep the account's.
//
// # Idempotency keys
//
// A submission with an IdempotencyKey (bulksmsapi reads it from the
// Idempotency-Key header) is accepted once per account and key while the
// key lives (24 hours; package idempotency keeps the keys, through
// GatewayOptions.Keys). After its credentials pass, the gateway begins
// the key in the account's scope ("sms:" and the username) with the
// submission's fingerprint (its fields after decoding, password left
// out), then:
//   - a key already answered gives that acceptance again (Accepted with
//     Replayed): the same msgId and numParts, nothing checked, throttled,
//     sent or charged;
//   - the key with another submission is Conflict idempotency_key_reused;
//   - a new key is accepted under the message id its record gives (the
//     record's Ref, a UUID): every try of the key uses that id, and the
//     store refuses a second message with it (message_exists), so two
//     tries never both charge;
//   - a key whose first try still holds it is Conflict
//     idempotency_key_in_progress, unless its message is in the store:
//     the first try died after its acceptance committed (kill -9 between
//     the commit and the answer), and the retry answers that acceptance,
//     charging nothing. After the lease (2 minutes) a retry takes the key
//     over: it answers the stored message if there is one, and accepts
//     under the same id otherwise.
//
// A refusal by a rule (a code of the table, 113 for a balance too low)
// forgets the key, so that the same submission can be sent again with it
// after a top-up; a failure of the store does not, as the message may
// have been accepted: the key waits for its lease, and the retry then
// finds out. A gateway without Keys refuses keyed submissions as
// Internal rather than accept them without the promise. Submissions
// without a key take the path they always took; the key costs them one
// comparison.
//
// The 202 answer means accepted, charged and queued, not sent: Submit
// never calls the network, so a slow or failing network slows no answer,
// and a part the network does not take at once is tried again from the
// queue (below) instead of being lost.
//
// A message's id (the msgId of the answer and of every report) is a
// version 7 UUID unless GatewayOptions.NewID supplies another source: 74
// random bits after the millisecond of its submission (NewMessageID), so
// ids stay unguessable while the stores' indexes on them grow at one end,
// as a log does, instead of at random places of an ever larger tree.
//
// Choices where the interface is silent: a missing dlrMask means 19 when a
// dlrUrl is given and no reports otherwise; the price of a message is the
// price of one part times the parts; a verified password is remembered
// for a minute (GatewayOptions.CredentialTTL) as a keyed digest, so a busy
// account pays bcrypt once, not per message.
//
// # Outbound queue
//
// Acceptance and sending are two steps, as in operators' gateways. Accept
// stores every part with a SendAt: the part is queued, in the same atomic
// call that charges for it, so a charged part is never missing from the
// queue and queueing costs no extra round trip. A Transmitter (one per
// replica; several may share a store) runs rounds: it takes up to Batch
// (64) parts, hands them to the Upstream in one Send call bounded by
// Timeout (10 s), and records what became of each:
//   - Taken: the part leaves the queue (FinishParts), and the network's
//     events move it from there (SENT_TO_SMSC, DELIVERED, ...).
//   - Refused for good (an error of kind Invalid; a Refusal carries the
//     code): the part ends REJECTED with the refusal's code, 989
//     (supplier rejected) when it gives none, through the same path as the
//     network's events, so it is reported as the mask asks.
//   - Anything else (Unavailable when the network is down, RateLimited
//     when it throttles, a timeout): the part is tried again after a
//     backoff of BaseBackoff (1 s) doubling per failed attempt up to
//     MaxBackoff (5 min), each wait drawn between half and all of it
//     (msgkit.Backoff, as the report outbox). There is no attempt limit:
//     the part's validity is.
//
// Where a round's parts come from: a Gateway built with
// GatewayOptions.Transmitter (as servers are) stores the parts it accepts
// already leased to that transmitter, their SendAt at the lease's end,
// and hands them to it in memory, so that they go out without a claim;
// otherwise, and for retries and parts whose transmitter died, rounds
// claim due parts from the store. While parts flow in memory, half a
// batch is claimed from the store every Idle, so neither source starves
// the other; with nothing in memory, Run asks the store once per Idle,
// unless its last claim was full (a backlog is drained round after
// round).
//
// Choices:
//   - Leases: a claim holds its parts for Lease (3 × Timeout, 30 s) by
//     moving their SendAt to the lease's end, so they are not due while it
//     runs (FOR UPDATE SKIP LOCKED makes concurrent claims on PostgreSQL
//     pass each other; memstore claims under its lock), and are taken over
//     by any claim once it has run out: a transmitter that dies loses
//     nothing. A result is recorded only while its claim holds, quoting
//     the lease's end, so a late transmitter cannot queue again a part
//     another one has handed over. A part that waited in memory until less
//     than two Timeouts of its lease are left is not sent from there; it
//     is claimed when the lease ends.
//   - In flight and rate: Run runs MaxInFlight/Batch rounds at once
//     (256/64: four), so at most MaxInFlight parts are with the network
//     unanswered; Rate caps the parts per second (a token bucket of Burst,
//     by default a second's worth up to Batch), and parts are taken only
//     as it allows. The in-memory buffer holds Buffer parts (4 ×
//     MaxInFlight); a Submit that finds it full queues its parts for a
//     claim instead, at once.
//   - Pacing: Run pauses Idle (100 ms) after a round that did not hand a
//     full Batch over, or until a full batch waits in memory. Under a
//     trickle a part so waits up to Idle and rounds carry what came
//     meanwhile, instead of a commit per part; a flow or a backlog goes
//     round after round; a network that is down costs one round per pause
//     and per part's backoff. A round's failures are logged once.
//   - Validity: a part is never handed over after its message expired: the
//     claim passes over expired messages, and a part whose message expired
//     since it was taken is left alone. ExpireDue ends unsent parts as it
//     ends the others (UNDELIVERED, 996), and any update of a part's state
//     takes it off the queue, so an ended part is never sent.
//   - Duplicates: a part goes out at least once, and twice only when the
//     hand-over happened but was not recorded: the transmitter died (or
//     its store failed) between the network's answer and FinishParts, a
//     Send timed out after the network took the part, or a round outlived
//     its lease and another transmitter took its parts. That window is the
//     only one; the network's first recorded event about a part also takes
//     it off the queue, which closes it early when the network answers in
//     time (an acceptance no report asks for is not recorded; see Delivery
//     state machine).
//     Outcomes are recorded even when the transmitter is stopping.
//   - The queue's fields of a part (SendAt, SendAttempts, SendError) say
//     where it stands while it is queued and are cleared when it leaves:
//     logs keep the history of failed attempts.
//
// # Delivery reports outbox
//
// Gateway.HandleStatus is the network's StatusSink: it moves the part with
// Step and, when the message's mask allows the event, queues the report in
// the Store's outbox in the same atomic update, so an event is never
// applied without its report or reported twice. Reports carry the fields
// of the interface's report plus sendTime and dlrTime (Unix seconds) and the
// submission's custom object; errorMessage only when there is an error.
// Every part has its own reports, with its partNum. The gateway is also a
// StatusBatchSink: Gateway.HandleStatuses applies a batch of events in
// their order and saves them together (Store.UpdateParts, one transaction
// on PostgreSQL), which simnet uses, so that reports keep pace with
// submissions; an event that fails there fails the later events of its
// part with it, so a network that gives them again keeps their order.
// With GatewayOptions.Dispatcher (a dispatcher of the same process, over a
// ReportLeasingStore, as both stores here are) HandleStatuses leases the
// reports it queues to that dispatcher in the same call and hands them
// over in memory: each report that is its part's oldest pending one, as
// many as the dispatcher has room for, while its Run runs. They go out
// without a claim, which on PostgreSQL locked and rewrote every report
// row, and without waiting for the dispatcher's next claim; a report
// behind another of its part waits for a claim, in order, as before. A
// handed-over report is a pending report leased like a claimed one: if
// the process dies, its lease runs out and any dispatcher claims it.
// Gateway.ExpireDue ends
// parts still open after their validity (UNDELIVERED, 996), those never
// handed to the network included.
//
// A Dispatcher delivers the outbox at least once. It leases due reports
// (only the oldest pending one of each part, so a part's reports keep their
// order) and hands each to its destination's line, one line per host (the
// URL's host and port), where at most PerHost (32) attempts run at once, each
// through a ReportPoster with a per-call timeout. It records delivery, a
// retry after an exponential backoff with jitter (msgkit.Backoff, as the
// outbound queue; connection errors, timeouts, 408, 429, 5xx), or that it gave up (another 4xx, an address
// the poster refuses, or attempts or age ran out; defaults 15 attempts and
// 48 hours). Given-up reports stay recorded, and the stores count them
// (ReportCounts of memstore and pgstore). Outcomes are recorded by the
// batch (OutboxStore.FinishReports): an attempt hands its outcome to the
// dispatcher's one recorder and its line goes on with the next report, and
// what arrives while the recorder writes makes its next batch. One
// transaction per report held every line to PostgreSQL's commit pace, a
// few thousand reports a second; a report stays held, counting against
// the caps, until its outcome is recorded. Its record may wait for the
// batch before its own, each bounded by Timeout: a store that slow can
// let a lease run out first, and the report then goes out twice, which
// at-least-once allows.
//
// A slow or dead receiver delays only its own reports. Dispatcher.Run
// claims again whenever there is room, without waiting for attempts to
// end, and lines do not wait for each other. Memory is bounded: a line
// holds at most MaxHeldPerHost reports in flight and waiting (default
// 5 × Batch), all lines at most MaxHeld (default 10 × Batch), and a claim
// asks for no more than is left. A claim takes the oldest due reports of
// all hosts (the store knows no hosts), so it may bring reports of a full
// line: those are given back at once — finished with their state and
// attempts unchanged, which ends the lease and is no attempt — and put
// off: NextAt moves to when the line could start them, judged by the
// line's pace (the moving average of its attempts, or how long its
// attempts in flight have been running, if longer), at least Idle and at
// most MaxBackoff. Later claims then reach other hosts' reports. Run
// claims again at once while claims come back full and a line they fed
// takes a whole claim more, waits for a full line to drain to its refill
// mark (room for a whole claim, or half its capacity), and otherwise
// claims every Idle.
//
// Leases outlast attempts. A report's lease (default 3 × Timeout, at
// least 2 × Timeout) starts at its claim; its attempt starts only while
// 1.5 × Timeout of it is left, so the attempt ends and is recorded before
// another replica may take the report. A report that waits in its line
// past that point is given back and put off as above, rather than sit
// until its lease runs out; and a slow line holds only what it can start
// in time, PerHost × (1 + wait / pace), so little waits in vain.
//
// Replicas sharing the store each claim with their own lines and caps (N
// replicas make up to N × PerHost attempts at once to one host). A
// dispatcher that dies leaves its leases to run out, and another replica
// takes the reports over; one whose Run ends waits for its attempts, whose
// calls end with it, and gives back at once the reports that waited. A
// report may reach the customer twice, never zero times. RunOnce claims
// once and waits for all it claimed: a batch barrier for tests and tools
// that step a manual clock.
//
// Choices made: a line's pace is remembered until the line has been empty
// for MaxBackoff. Giving back costs one store write per report, each time
// a put-off report comes due while its line is still full (the deferrals
// grow with the line's pace, up to MaxBackoff), and the claim that brought
// it carries fewer reports of other hosts. A store that skipped full hosts
// when claiming would save those writes; the OutboxStore keeps its claim
// and finish as they are instead, so that every store serves the
// dispatcher as it is.
//
// Reports of messages an ESME submitted over SMPP asking for receipts
// (Submission.DLRToBinds) go to the account's binds (BindURL, "smpp:"
// and the account, a line of its own), as a BindDelivery rather than the
// HTTP report's body: the SMPP server (sms/smpp/smppserver) sends each
// as a deliver_sm, through a ReportRouter that sends the rest over HTTP.
// A poster that cannot deliver on this replica for a reason of its own (no
// bind of the account here) answers a HoldError: the report is put off for
// its After without using an attempt (counted as put off, reason held),
// so that it waits for a bind, up to MaxAge, rather than run out of
// attempts while the ESME is away.
//
// # Messages from phones
//
// The networks hand the messages from phones (mobile-originated) to an
// InboundSink as Inbound values, part by part, named by their
// connection; package inbound joins, routes and keeps them, and queues
// their delivery in this package's outbox: to an account's binds
// (BindURL, a BindDelivery of kind BindMessage) or to the account's
// InboundURL, which CheckReportURL holds to the rules of a dlrUrl. The
// Dispatcher delivers them as it delivers reports; their reports' MsgID
// is the inbound message's id ("mo-" and a UUID) and PartNum 0, which no
// outbound message has, so nothing here mistakes one for a message's
// report (the trace lists reports by their message's id, and retention
// removes an inbound message's delivery with it).
//
// # Retention
//
// A finished message, every part in a final state (PartState.Final) and
// none of its reports pending, is kept for a while and then removed with
// its parts, its delivered and given-up reports and what else the store
// keeps of it (RetentionStore.ForgetFinished): it is NotFound afterwards,
// and a late event of the network about it is ignored as an event of any
// unknown part is. A message in flight, or with a report still to
// deliver, is never removed, however old; it goes at the first run after
// its last report is delivered or given up.
//
// The keep time runs from the message's last part update (the UpdatedAt
// of the part that finished it: the network's report time, or ExpireDue's
// clock) to the Retention's clock, on every store: memstore trims its
// memory on the same times. Measuring from the finish rather than from
// the submission means a message stays its whole keep time after its
// final report, whatever its validity; stores may pre-filter on
// SubmittedAt, which is never after a part's update. Retention.ForgetDue
// removes what is due, a Batch (1,000) per store call, until a call finds
// fewer: servers run it every minute (examples/server, flag
// -keep-finished-for), so a run removes a minute's worth. KeepFor defaults
// to 30 days (DefaultKeepFinishedFor); the memory store keeps an hour,
// which bounds its heap.
//
// # Credit ledger
//
// Every change of an account's balance is an entry of its ledger
// (LedgerEntry): a top-up (positive), an adjustment (either sign, not
// zero), a charge (one per accepted message, its Charged, negative), a
// refund (a kind kept for charges given back; the platform gives none
// today, as a message's charge stands whatever the network does with it)
// and a carried entry. The law: an account's Balance always equals the
// sum of its entries; Credit.Reconcile reports the accounts where it does
// not (expected, actual, difference), which only a change behind the
// stores' back can cause.
//
// The front door is Credit (NewCredit(store, CreditOptions) over a
// LedgerStore, which both stores implement): TopUp and Adjust write an
// entry and change the balance in one atomic store call
// (LedgerStore.ApplyLedger), stamped with the Credit's Clock and the
// caller's Actor (who: "client:crm", "operator:ana"; 1 to 200
// characters) and Note (a reference or reason, at most 500). An amount of
// zero, a top-up not above zero, a missing currency or actor, or a
// currency other than the account's is Invalid (ledger_entry_invalid,
// naming the field); a change that would take the balance below the
// account's floor is 113 (RC_NO_CREDIT) and changes nothing, as a charge
// would be. Entries list with the listing convention (LedgerListSpec:
// filters on kind, at, amount, messageId and id; sort by at or id; pages),
// always one account's; the ledger's own order is time, then id. Export
// yields an account's entries of a time range in that order, reading
// them a page at a time by keyset (at, id), for CSV exports of any
// length.
//
// Choices: an entry's id is assigned by the store from one sequence for
// all entries, charges included, so ids increase in the order entries
// are written; the ledger is ordered by time, then id, because that is
// the order the stores' indexes keep without a write per message (a
// charge's time is its message's SubmittedAt). BalanceAfter is set on
// top-ups, adjustments and refunds, where the store knows it for free;
// charges leave it unset, as acceptance writes balances by the batch. A
// charge's actor is "account:" and the account. Charges are the stored
// messages themselves, so retention, which removes messages, writes in
// the same store call one carried entry per account holding the removed
// charges' sum (actor ActorRetention, at the latest removed submission);
// an account's opening balance (created with one) is a carried entry too
// (actor ActorOpening). memstore, whose own trimming removes messages one
// by one, adds each removed charge to the account's last entry when that
// is a carried entry of retention rather than grow an entry per message.
//
// Postpaid accounts: Account.CreditLimit (not below zero, default 0) lets
// the balance go down to -CreditLimit. Every floor is that one: the
// acceptance of a message (113 below it, nothing changed), ledger changes,
// and the accounts a store keeps (CheckBalance; CreateAccount refuses a
// balance below -CreditLimit and a negative limit).
//
// # Message trace
//
// A support desk's first question is "where is my message?"; Kannel and
// Jasmin answer it from their log files, this package from what the
// stores keep anyway. A Tracer (NewTracer over a TraceStore, which both
// stores implement) finds messages and shows one whole.
//
// Tracer.Messages lists messages by the listing convention
// (TraceListSpec): filters on id, account, receiver and submittedAt
// (date-time: gte, lte, between...), sorted by submittedAt and id, newest
// first when the query names no sort, paged. A search names an account
// or a message id with eq, or it is refused (Invalid, code
// trace_unbounded, field account; CheckTraceQuery, which both stores
// apply too). The reason is the scale: the messages table holds millions
// of rows, and an index per searchable column would cost every
// acceptance a write per index, a trace being asked for a few messages a
// day. The index every store already has for retention, (account,
// submitted_at), finds an account's messages within a time range; the
// receiver is matched within those rows, and a message id is the primary
// key. A search of a large account should name a time range.
//
// Tracer.Trace shows one message: its record (type, sender, receiver,
// dcs, flash, dlr mask and URL, custom, part price, charge, currency,
// submission and expiry), each part with its delivery and queue fields,
// every state it went through (state, error code, time), and the
// connection and id of the SMSC that took it over SMPP (the SMPP store's
// record: smpp.Submitted keeps the connection's name and the SMSC's id,
// not the time of the hand-over, so neither does the trace); and every
// report queued for it, in queueing order, with each attempt at
// delivering it (when the answer came, and the failure: the HTTP status
// the URL answered or why there was no answer; none when it took the
// report). An unknown or forgotten message is NotFound
// (message_not_found). The trace shows no content: the parts' Text and
// Data are left out. A message leaves the trace when Retention removes it.
//
// Choices:
//   - History in the part's own row: each saved update (UpdatePart,
//     UpdateParts, UpdatePartsLeasing, which the SMPP receipts and the
//     simulated network go through) appends the part's new state to its
//     history in the same write, so the history costs no row, no index
//     entry and no statement; on PostgreSQL the update stays heap-only.
//     Acceptance writes none: the message's SubmittedAt is the first
//     event. An acceptance by the network that no report asks for is not
//     recorded (see Delivery state machine), so it is not in the history
//     either; nor is the hand-over to the network, which changes no
//     state: a queued part shows its SendAt, SendAttempts and SendError,
//     and a part an SMSC took its SMPP record.
//   - Bounds: a part keeps MaxPartEvents (16) events, the first and the
//     latest 15 (AppendPartEvents); a report keeps MaxReportAttempts (16)
//     attempts, the first and the latest 15 (AppendReportAttempt), each
//     error cut to MaxAttemptError (200) bytes. A report's attempt is
//     recorded by FinishReports when its Attempts grew, at
//     Report.AttemptedAt, which the Dispatcher sets; a report given back
//     unattempted records none.
//   - Receivers are masked unless the caller's TraceView says it sees
//     numbers (the HTTP layer sets it from a privilege): MaskMSISDN keeps
//     the country calling code, the next two digits and the last two.
//     Filtering by receiver takes the full number either way; a masked
//     view filters it with eq or in only (Invalid,
//     trace_receiver_masked), so that prefixes cannot spell a number out
//     digit by digit.
//
// # Metrics
//
// With a Prometheus registry in their options' Metrics, the Gateway, the
// Transmitter and the Dispatcher register their metrics (the README's
// Bulk SMS table lists them); without one they count nothing and cost
// nothing. Counting is an atomic add on a child resolved when the
// component was built: every label has a fixed set of values, none of
// them an account, a number or a host. Choices:
//   - Submissions are counted by the code of their answer: accepted,
//     replayed (an idempotency key's first acceptance answered again),
//     conflict (a key in use or reused, a campaign's message id accepted
//     before), or the submission error code; internal failures, answered
//     5xx, count as 101, the interface's code for them. SubmitFor's
//     submissions count with Submit's, and a transport's own refusals
//     (a body that does not decode) through Gateway.Refused.
//   - Parts are accepted with their message; queued counts those of
//     them left to the store's queue for a claim rather than handed to the
//     gateway's transmitter in memory (no transmitter, its buffer full, an
//     accept-only replica). Every accepted part is a row of the queue all
//     the same. The gateway and the transmitter of one registry count in
//     the one msgkit_sms_parts_total. Parts that expire in the queue are
//     not counted as failed: ExpireDue cannot tell them from parts the
//     network holds.
//   - The queue's and the outbox's depth and lag are read from the store
//     at each scrape (TransmitterStore.OutboundBacklog,
//     OutboxStore.OutboxBacklog), within 5 s, so that every replica shows
//     the shared store's; a store that fails makes them invalid for that
//     scrape. The lag is how long the earliest due item a claim would
//     take has been due: parts leased or waiting for a retry's backoff,
//     and reports behind their part's first, are not late.
//   - What a dispatcher holds back is per process and per receiving host;
//     hosts are no label, so the gauges count the full lines and the
//     reports in them, and a counter the reports put off, by reason.
//
// # Senders and receivers
//
// An alphanumeric sender holds digits, ASCII letters, space and
// ! " # % & ' ( ) * + , - . / : ; < = > ? (the interface's sender alphabet),
// at most 11 of them (the 3GPP TS 23.040 limit, since the interface leaves
// it open) and is not
// blank. A sender of digits only, optionally led by '+', is numeric with at
// most 15 digits. Violations are RC_INVALID_SENDER (107); a missing sender
// is 110.
//
// A receiver is digits with the country code, optionally led by '+', with
// no spaces or national prefixes, and must be a valid number by
// libphonenumber's metadata; otherwise RC_BAD_PARAMETER_VALUE (112). It is
// normalised to E.164. Digits starting with 0 are a national number: no
// country code starts with 0, so "061…" is never read as +61. The check
// decides exactly what the library's IsValidNumber decides, from its
// metadata, with each region's patterns compiled once per process (a
// test compares the two on every example number of every region and on
// numbers near them).
//
// # Delivery reports
//
// A DLRMask is the sum of event bits (the interface's dlrMask); 0 (no reports) to 31 are
// valid and 19 (every final event) is recommended. DLRError holds the
// interface's delivery error codes with their group. Codes 80 to 90 follow the MAP
// absent-subscriber diagnostics (3GPP TS 29.002) offset by 80, which matches
// the interface's grouping; codes 61 to 75, which the interface names only
// as a group, carry the group's text. Temporary reports whether a failure
// leaves a part BUFFERED for a later attempt (absent subscriber, memory
// full, network faults) rather than UNDELIVERED.
package sms
