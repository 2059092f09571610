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
// # Failures and duplicates
//
// An event the sink refuses is queued again Options.SinkRetry (1 s) of
// simulated time later, with the part's later events held back behind it,
// so nothing is lost and each part stays in order; RunDue returns an error
// saying so. Options.DuplicateEvery hands every Nth event twice in a row,
// for testing the sink's handling of repeated reports.
package simnet
