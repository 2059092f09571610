// Package simnet is a simulated mobile network: an sms.Upstream that
// reports what becomes of each part to an sms.StatusSink, by rules on the
// receiver's number, deterministically for a seed. It is the network of
// examples/server and of the tests of the gateway.
//
// # Outcomes
//
// A Rule maps a prefix of the receiver's E.164 digits (without '+') to an
// Outcome; the longest matching prefix wins and Options.Default applies
// otherwise. The kinds, with the statuses they report:
//
//	Deliver  accepted, delivered
//	Absent   accepted, temporary failure (29) × Attempts, delivered
//	Unknown  accepted, permanent failure (1)
//	Reject   rejected (989), never accepted
//	Silent   accepted, then nothing (or expired with ReportExpiry)
//	Refuse   none: Send refuses the part for good (an sms.Refusal, 989)
//
// Outcome.ErrorCode replaces a kind's code, so one rule can stand for
// memory full (22) or no route (998), or a Refuse for a text filter (991).
//
// Choices:
//   - Nothing but StatusExpired (code 996) happens after a part's
//     ExpiresAt: an event planned later is replaced by StatusExpired at
//     ExpiresAt and ends the part's plan. So an Absent part whose attempts
//     outlive its validity expires, as a buffering SMSC reports. A zero
//     ExpiresAt never expires.
//   - A Silent part sends nothing after acceptance, because a real network
//     may never answer and the gateway must expire such parts itself.
//     Options.ReportExpiry makes the network report the expiry instead.
//   - Absent with Attempts 0 fails once: the zero value still shows BUFFERED.
//
// # Time
//
// The network never sleeps (unless Options.Hold is Latency, below) and
// starts no goroutine. Send plans each part's
// events from Options.Clock at the time of the call and queues them; RunDue
// hands the events due at a given time to the sink it is given; NextDue
// tells when the next one is due, so a test advances a fake clock from
// event to event. Run is the production loop: a ticker calling RunDue with
// the clock's time. The sink is an argument of RunDue and Run, not of New:
// the gateway that receives the events also sends to the network, so the
// network is built first and told its sink where it runs.
//
// Events reach the sink in order of due time, then message id, part number
// and plan order, so the sequence depends neither on the order of Send
// calls nor on goroutine scheduling. Each delay gets a jitter in
// [0, Outcome.Jitter) drawn from a PCG seeded with Options.Seed and a hash
// of the message id and part number: a part's events depend on the seed and
// the part alone.
//
// # Hand-over faults
//
// Send answers for each part as sms.Upstream says, and Options make the
// hand-over fail the ways a connection to an SMSC does, by the clock's
// time, so a test reproduces them with a manual clock:
//   - Down says when the connection is down: every part of a Send is then
//     Unavailable and nothing is scheduled. Outage(from, to) is one outage,
//     Flapping(period, down) a connection down for the first down of every
//     period.
//   - MaxPerSecond throttles: the parts beyond it in one second of the
//     clock are RateLimited, as an SMSC answers a client above its rate.
//   - Hold is waited for at the start of every Send: Latency(d) makes a
//     slow network (d of real time, the one real wait in simnet), and a
//     test can hold Send until it releases it.
//
// A part without a message id or with a negative part number is refused
// (Invalid); the other parts of the call are taken.
//
// # Handsets and route behaviours
//
// Handsets are simulated test handsets, the probe of a route test system:
// NewHandsets, then Add(number, network, homeSMSC) for each, a number on a
// network (MCC and MNC, 5 or 6 digits) whose own service centre is
// homeSMSC. Handset(ctx, mccmnc) is the first handset added on a network;
// Received(ctx, number, since) is what a handset received at or after
// since, in arrival order. A Network with Options.Handsets delivers to
// them: a part the network takes for a handset's number whose plan holds a
// StatusDelivered event (Deliver, and Absent when its attempts end within
// validity) reaches the handset at that event's time, as the
// sms.Received of its SMS-DELIVER PDU (gsm.EncodeDeliver) on the
// handset's network. Parts of other outcomes, parts to other numbers, and
// deliveries replaced by an expiry are never received. One Handsets may
// serve several Networks, one per simulated route.
//
// The SMS-DELIVER is the part as sent: the handset's home SMSC, the
// part's sender, coding, text or data, class 0 for a flash part, the
// concatenation and ports of its UDH (an 8-bit reference), and TP-SCTS
// the delivery time in UTC. Options.Route makes the route dishonest (the
// zero Route is honest):
//   - SMSC: every part arrives through this service centre (a foreign
//     SMSC, '+' and 4 to 15 digits) instead of the home one.
//   - FakeDLR: the network reports as its outcome says (DELIVERED) but no
//     handset receives anything.
//   - Sender: replaces every sender, as routes that overwrite
//     alphanumeric senders do; digits only (or '+' and digits) make a
//     numeric sender. It must pass sms.ParseSender.
//   - Transcode: UCS-2 text arrives as GSM 7-bit, folded by FoldGSM; the
//     UDH is kept. GSM and binary parts are unchanged.
//
// New panics on a Route that breaks those rules, as on bad rules.
//
// Choices:
//   - A receipt is planned when Send takes the part, for its delivery
//     time, and Received shows only the receipts due at the Handsets'
//     clock (give it the Network's): a test sees a part arrive when its
//     clock reaches the delivery, as it sees the report, and the network
//     still starts no goroutine.
//   - The handset has the part before the report of its delivery can
//     reach the sink: Send queues the events of parts to handsets only
//     once their receipts are recorded. A report the sink refuses comes
//     again later; the receipt stays where it was planned.
//   - Receipts are ordered by arrival time, then message id and part
//     number, like the events, so the order depends neither on the order
//     of Send calls nor on goroutine scheduling.
//   - A handset keeps at most DefaultMaxReceipts (10,000) receipts,
//     counting those planned for later; SetMaxReceipts changes the limit
//     and the earliest receipts are dropped beyond it. Received returns
//     copies of the PDUs.
//   - TP-SCTS holds whole seconds: it is the delivery time truncated to
//     the second, while Received.At keeps the exact time. A part whose
//     SMS-DELIVER does not encode (text outside its coding, a sender the
//     PDU cannot hold, a delivery outside the years 2000-2099) is logged
//     as a warning and not received; its reports are unaffected.
//   - FoldGSM keeps what the GSM alphabet and its extension table hold
//     (é, ü, Ä, €, [ stay), turns the other Latin-1 and Latin Extended-A
//     letters, and the Romanian ș and ț, into their base letter (ê→e,
//     Ą→A, ç→c, ł→l, đ→d), and anything else into one '?' a character
//     (a surrogate pair of UCS-2 is one character). ç becomes c rather
//     than the Ç that gsm.SplitText sends for a customer who asks for GSM:
//     a transcoding route strips the cedilla like any diacritic.
//   - Restore plans a held part again from its new time; a handset that
//     has the part already (the same Handsets before Restore) does not
//     receive it twice, while a handset of a restarted process, which
//     has lost its receipts with the old one, receives it at the new
//     delivery time. Sending the same part twice delivers it twice, as
//     it reports it twice.
//   - Add refuses a number that is not '+' and 3 to 15 digits, a network
//     that is not 5 or 6 digits, or a home SMSC that is not '+' and 4 to
//     15 digits (Invalid, each field named), and a number added before
//     (Conflict). Numbers need not be valid by libphonenumber: test
//     handsets are whatever numbers a test system is given. Received of a
//     number that is no handset is NotFound.
//
// # Failures and duplicates
//
// An event the sink refuses is queued again Options.SinkRetry (1 s) of
// simulated time later, with the part's later events held back behind it,
// so nothing is lost and each part stays in order; RunDue returns an error
// saying so. Options.DuplicateEvery hands every Nth event twice in a row,
// for testing the sink's handling of repeated reports.
//
// # Messages from phones
//
// Originate sends a message from a phone into the platform
// (mobile-originated), as a handset does: split as a phone splits it
// (GSM alphabet when it fits, else UCS-2; long texts in parts tied by an
// 8-bit reference, a new one per message), each part handed to an
// sms.InboundSink, in order, as an sms.Inbound whose Conn is the
// network's Name ("simnet" unless Options.Name says otherwise), which
// the inbound routing records match. It runs in the caller's goroutine,
// like everything here, and returns the sink's first error.
package simnet
