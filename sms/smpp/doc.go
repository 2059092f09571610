// Package smpp speaks SMPP 3.4 as an ESME: a client that implements
// sms.Upstream over one or more binds, and reads the SMSC's delivery
// receipts. The PDU codec (binds and their responses, unbind,
// enquire_link, submit_sm, deliver_sm, data_sm, generic_nack, with the
// optional parameters met in practice) is package sms/smpp/pdu, which the
// client and the simulator sms/smpp/smppsim share.
//
// # Client
//
// Client is an ESME on one SMSC connection and an sms.Upstream: Run keeps
// Config.Binds binds up (transceivers, or transmitters with Receivers
// receiver binds), reconnecting with backoff, with enquire_link every
// EnquireEvery and a bind that hears nothing for DeadAfter dropped. Send
// hands parts over round robin, at most Window submit_sm unanswered per
// bind, each answer waited for at most Timeout. The status events go to
// the sink given to Run, not to New, so a client can be made before what
// takes its events (the gateway, which needs the client's transmitter).
//
// Time comes from Options.Clock wherever the client stamps or decides by
// it: the time of an acceptance (StatusAccepted), of a part's send and of
// a receipt's arrival (which bound its event's time, see Receipts), the
// last time a bind heard from the SMSC and so whether it is dead
// (DeadAfter), and how long a throttled bind still rests. The
// clock tells the time and has no timers, so the waits run on the
// runtime's timers, on real time: the dial's and the TLS handshake's
// timeouts (on the connection), a request's Timeout, the EnquireEvery
// tick that looks at the clock, the backoff between binds, the saver's
// and the acceptances' few milliseconds of gathering, a receipt's wait
// for its part and the pauses of a failing store. None of them stamps
// anything or decides what a part or a bind is; with a clock of a test's
// that stands still, a silent SMSC is dropped and a throttled bind wakes
// when the test moves the clock.
//
// A part becomes a submit_sm as the connection says: GSM 7-bit septets
// one an octet (data_coding 0) or packed (GSMPacked), UCS-2 (8), 8-bit
// data (4) with its ports (WAP push to port 2948), a flash message in
// class 0 (0x10 added); a long message's parts tied by an 8-bit (IEI
// 0x00) or 16-bit (0x08) reference in the user data header, or by the SAR
// parameters (Concat); a receipt always asked for; the validity as an
// absolute UTC time.
//
// Every part fits the 140 octets of user data an SMS carries, its header
// included, counted as the handset gets it (septets packed after fill bits
// to a septet boundary, whether the SMSC gets them packed or not). The
// 16-bit reference's header is an octet longer than the 8-bit one's, so
// its parts must be split for it: Config.RefWidth says how, for
// sms.GatewayOptions.RefWidth (152 septets, 66 UCS-2 units, 127 octets of
// push). A part that does not fit (split for the 8-bit header, say) is
// refused (989) rather than sent one octet too long.
//
// The reference is the client's, whatever the part's gsm.UDH.Ref says: a
// handset joins parts by sender and reference, so consecutive messages to
// one number get consecutive references (an 8-bit reference is the low
// octet of the 16-bit count). The counts live in a fixed table of 4096
// slots by destination, each with its destination's last 4 messages, so
// that a message's parts and its later attempts get its reference again;
// memory stays fixed whatever the traffic. A destination that loses its
// slot to another, or a part sent again after 4 newer messages to its
// number, starts a new count from a hash of its message id (as every
// reference was before); replicas count apart.
//
// What the SMSC answers decides the part: ESME_ROK records the part and
// the SMSC's id in the Store before Send returns, and reports it taken
// (StatusAccepted); ESME_RTHROTTLED and ESME_RMSGQFUL are RateLimited, to
// be tried again, and throttle the bind (below);
// ESME_RSYSERR and the SMSC's other troubles are Unavailable; the rest
// refuse the part for good (a *sms.Refusal: 995 for a bad destination,
// 989 otherwise). A bind that drops fails its unanswered parts as
// Unavailable, so the outbound queue offers them again; a part the Store
// says the SMSC took is never sent again. A part's record is written
// within milliseconds of its answer (the saver gathers 5 ms of answers
// from every bind into one write), not when its Send ends; so what a
// crash of the process can make the client send twice is what was on
// the wire then, at most the binds' windows, and those whose answer came
// in the last milliseconds: the window no ESME closes.
//
// # Throttling
//
// An SMSC throttles a bind for what it sent too fast or too many at
// once; by the time the first throttling answer is read, the rest of the
// window is on the wire and its answers may all say the same. So the
// answers are taken by episode: a throttling answer (ESME_RTHROTTLED or
// ESME_RMSGQFUL) to a submit sent after the current episode began starts
// a new one, and those to submits sent before belong to it and change
// nothing. An episode rests the bind for Config.Throttled, once (no
// submit goes out on a resting bind), and halves the bind's window
// (down to 1), or shrinks it to the submits that were unanswered ahead
// of the throttled one when it was sent, when they were fewer: an SMSC
// that throttles what exceeds its window of 5 throttles the sixth, so a
// client with a window of 50 fits it in one episode. Successes grow it
// back additively: by one after a window's worth of them, up to one
// below the window of the last episode, and past that by one after 16
// windows' worth, so the SMSC's limit is probed now and then rather than
// met every few round trips; never past Config.Window. Each bind keeps
// its own window, and a new bind starts at Config.Window. The rest is
// fixed: a rest that doubled with each answer stalled a bind for up to 16
// s on one window's answers; a throttling that goes on is met by the
// shrinking window and the queue's own backoff.
//
// # Receipts
//
// Receipts are read here, not in the codec: their text (SMPP 3.4
// Appendix B) is a convention SMSCs vary rather than a structure of the
// PDU, and what matters of one is the bulk SMS event it means and the
// part it names, both the client's concerns.
//
// A deliver_sm with the receipt bits of esm_class is read by ReceiptOf
// (the receipt text and the receipted_message_id and message_state
// parameters, which win), its part found by the SMSC's id in whichever
// form it is written (IDVariants: decimal or hex, padded or not; ids are
// kept in canonical form), and its event handed to Run's sink, in batches
// (sms.StatusBatchSink) by four workers; the SMSC gets ESME_ROK only once
// the event is stored, ESME_RX_T_APPN when it could not be, so it offers
// the receipt again. A receipt whose part is not found waits for it up to
// Timeout: its submit_sm_resp may still be on its way, or, on a Store
// shared by replicas bound with one system id, the replica that sent the
// part may not have saved its record yet (the store is asked again at
// growing intervals). One whose part is still not found is acknowledged
// and dropped: after a crash, the receipts of copies sent before their
// answer was stored hold a place of the SMSC's receipt window that long.
// Mobile-originated messages are acknowledged and dropped: this client
// carries what msgkit sends.
//
// A receipt's event is dated by its done date, read in Config.TimeZone
// (the SMSC's; receipts carry no zone, default UTC), and kept between the
// part's send and the receipt's arrival (the client's clock): a done date
// is often to the minute, so one in the minute of the send can read
// before it, and a report must never say a part was delivered before it
// was sent. The client remembers when the SMSC took each of the last
// 65,536 parts it sent (a minute's at 1,000 a second, in a few
// megabytes); a done date before that counts as that. For a part
// it does not remember (sent by a replica, or before a restart) a done
// date on a whole minute counts as the end of that minute, the latest it
// allows, so no earlier than any send within it. A done date after the
// arrival (a zone configured wrong) counts as the arrival; a receipt
// without one is dated at its arrival.
//
// # Messages from phones
//
// A deliver_sm that is no receipt (by esm_class) is a message from a
// phone (mobile-originated). The client reads it (InboundOf: the
// addresses, the text in its data_coding, a concatenation element of the
// user data header or the sar_ parameters) and hands it to
// Options.Inbound as an sms.Inbound of the connection's Name, which the
// inbound routing records match; package inbound joins long messages and
// routes them. The answer follows the outcome: ESME_ROK once the sink has
// it; ESME_RX_T_APPN when the sink failed, or the client has none, so
// that the SMSC keeps it and offers it again; ESME_RX_P_APPN for a
// message that is no text (binary codings, a text that does not decode,
// a header that does not read), logged as a warning. None is
// acknowledged and dropped. The sink runs on a goroutine per message,
// bounded by the SMSC's window, so the bind reads on meanwhile.
//
// # Metrics
//
// With Options.Metrics a client registers, labelled connection (the
// connection's Config.Name, which the operator configures, so the label
// has as many values as there are configured SMSC connections):
//
//   - msgkit_smpp_binds_up: binds bound now, receivers included;
//   - msgkit_smpp_window_in_use: submit_sm sent and not answered, over
//     the binds;
//   - msgkit_smpp_submit_seconds: from queuing a submit_sm on its bind to
//     reading its answer, any status; on real time, not Options.Clock:
//     it measures and decides nothing. Answers that never come (the
//     timeout, a dropped bind) are not in it;
//   - msgkit_smpp_throttled_total: answers ESME_RTHROTTLED and
//     ESME_RMSGQFUL, the two that rest a bind;
//   - msgkit_smpp_receipts_total by outcome: matched (its part found),
//     redelivered (its part found, and already finished by an earlier
//     receipt: DELIVRD, UNDELIV, EXPIRED, ... as sms.Step makes them
//     final), unmatched (no part within Timeout, dropped) and unreadable
//     (answered ESME_RX_P_APPN). A repeat is told among the last 4096
//     parts the client saw finish; one after those, after a restart or
//     seen first by another replica counts as matched. A receipt the
//     client refuses (its lookup or its event's storing failed) comes
//     again: counted each time it is matched, not when its lookup
//     failed.
//
// Clients of several connections share a registry's collectors, one
// series each; a second client of one connection on a registry panics in
// New, as its series would mix two clients' counts.
package smpp
