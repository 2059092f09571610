// Package smppserver is msgkit's SMPP 3.4 server for customers' ESMEs:
// an ESME binds with a bulk SMS account's credentials, and its submit_sm
// and data_sm are validated, charged and queued by the same sms.Gateway
// as the bulk SMS HTTP interface's submissions, with the same rules. It
// speaks through the codec of package sms/smpp/pdu, which the client
// (sms/smpp) and the simulated SMSC (sms/smpp/smppsim) share.
//
// # Binds
//
// bind_transmitter, bind_receiver and bind_transceiver are checked by
// Gateway.Authenticate with the system_id as the account's username, the
// password, and the connection's address against the account's networks,
// as an HTTP submission is. SMPP 3.4 bounds a system_id to 15 characters
// and a password to 8, but a bulk SMS account's username may have 200
// octets and its password 72, and several SMSCs read longer credentials
// than the specification's: this server reads a bind's system_id and
// password up to an account's (MaxSystemID, MaxPassword, through a
// pdu.Decoder), so every account binds, from an ESME that sends them
// whole. Beyond those, the codec refuses the bind, generic_nack
// ESME_RINVSYSID or ESME_RINVPASWD. The client side (sms/smpp) keeps SMPP
// 3.4's bounds: it never sends what a strict SMSC refuses. Refusals
// (BindStatus):
//
//	missing system_id (110)              ESME_RINVSYSID
//	missing password (110)               ESME_RINVPASWD
//	no enabled account matches (103)     ESME_RINVPASWD (an unknown account is not told from a wrong password)
//	address not in the networks (104)    ESME_RBINDFAIL
//	the account holds MaxBinds binds     ESME_RBINDFAIL
//	a second bind on a connection        ESME_RALYBND
//	the platform failed                  ESME_RSYSERR
//
// A connection must bind within Options.BindTimeout (30 s by default, by
// Options.Clock) of being accepted, whatever else it sends (enquire_link
// is answered meanwhile, and a refused bind does not restart the wait),
// or it is closed: a client that connects and never binds holds no
// connection, nor a TLS handshake that never ends.
//
// A bind is authenticated once: its submits go through Gateway.SubmitFor,
// which reads the account within the gateway's CredentialTTL, so an
// account disabled later is refused from then (103, ESME_RINVSYSID), but
// a changed password or network ends no bind already made. Nothing of a
// bind is kept beyond its connection, so a bind survives a replica's
// restart by binding again, on any replica; Shutdown unbinds every bind,
// so ESMEs rebind at once.
//
// MaxBinds counts the binds of one Server, that is of one process: behind
// a balancer of N replicas an account may hold up to N × MaxBinds binds
// in all, MaxBinds on each. The binds are not shared between replicas, as
// sharing them soundly needs a registry that outlives a replica's crash
// (its binds would otherwise count until a lease ended); what an account
// may cost the platform is bounded by its throughput, which the store
// counts for every replica and the HTTP interface alike (see the
// gateway's refusals below).
//
// A receiver or transceiver bind also takes the account's deliveries
// (see Receipts). submit_sm and data_sm are answered ESME_RINVBNDSTS on a
// receiver bind, before a bind and once an unbind began, but for
// Shutdown's unbind: those the ESME sent before it read it are answered
// ESME_RTHROTTLED, so that it sends them again once it has bound again
// (Kannel drops a message answered ESME_RINVBNDSTS). enquire_link is answered in any
// state; deliver_sm and unknown commands get generic_nack ESME_RINVCMDID,
// and a PDU the codec refuses generic_nack with the status of its
// pdu.DecodeError; one longer than the codec's maximum is answered
// generic_nack ESME_RINVCMDLEN and its connection closed. Responses the
// server did not ask for are ignored.
//
// # TLS
//
// With Options.TLS every connection Serve accepts speaks TLS (the
// handshake counts within BindTimeout); ServeConn serves the connection
// it is given as it is, so a caller's own listener wraps its own.
// examples/server's -smpp-server-tls serves TLS with -tls-cert and
// -tls-key. A client speaking plain text to a TLS listener fails its
// handshake and is closed.
//
// # Window, keep-alive, shutdown
//
// A connection reads at most Options.Window requests ahead of their
// answers; beyond, it stops reading until one is written, so a fast ESME
// meets TCP's back-pressure rather than a growing queue. Submits are
// handled concurrently and answered as they finish, in any order, as
// SMPP allows. A peer silent for EnquireEvery (by Options.Clock) gets an
// enquire_link; one silent for DeadAfter is closed. An ESME's unbind is
// answered unbind_resp after the answers still due. Shutdown stops
// accepting and first drains: the long messages being gathered take their
// parts still to come, for at most DrainTimeout (5 s), so that a restart
// between the parts of a message loses none of them; whole messages are
// taken as ever, and the first parts of new long messages are answered
// ESME_RMSGQFUL, which ESMEs send again later (after the restart, or to
// another replica). Not ESME_RTHROTTLED: on it Kannel pauses the whole
// bind, the parts the drain waits for included.
// Then on each bind it waits for its answers, sends unbind, waits a few
// seconds for unbind_resp and closes. A long message still incomplete
// when the drain ends is lost with the process, logged; so is every
// message being gathered when a process dies without Shutdown.
//
// # Submits
//
// A submit_sm is a bulk SMS submission of type text: source_addr is the
// sender and destination_addr the receiver, both as the HTTP interface
// takes them (the receiver in international form whatever its TON);
// data_coding 0 is GSM 03.38 septets one an octet (dcs GSM), 8 is UCS-2
// (dcs UCS), and 0x10 and 0x18 the same as a flash message; 1 (IA5, that
// is ASCII) and 3 (ISO 8859-1), which some ESMEs send by default, are
// read as text and sent in the GSM alphabet when it holds every
// character, else in UCS-2, and charged so; the message
// is short_message or message_payload (not both: ESME_ROPTPARNOTALLWD).
// data_sm is the same with its message in message_payload. The server
// refuses what the gateway cannot honour, before the gateway sees it:
//
//	data_coding other than 0, 1, 3, 8, 0x10, 0x18    ESME_RSUBMITFAIL
//	esm_class message type bits or reply path        ESME_RINVESMCLASS
//	priority_flag above 3                            ESME_RINVPRTFLG
//	schedule_delivery_time set                       ESME_RINVSCHED
//	validity_period that is no SMPP time, or ended   ESME_RINVEXPIRY
//	replace_if_present_flag set                      ESME_RINVREPFLAG
//	sm_default_msg_id set                            ESME_RINVDFTMSGID
//	registered_delivery with reserved bits           ESME_RINVREGDLVFLG
//	a user data header that overruns the message     ESME_RINVESMCLASS
//	a header element other than concatenation        ESME_RSUBMITFAIL
//	SAR parameters not all three                     ESME_RMISSINGOPTPARAM
//	a part number of 0 or above the total            ESME_RSUBMITFAIL (UDH), ESME_RINVOPTPARAMVAL (SAR)
//	a part whose data_coding differs from the first  ESME_RSUBMITFAIL
//	MaxPartsPerAccount long messages gathering       ESME_RMSGQFUL
//
// validity_period is read with pdu.ParseTime: an absolute time
// (YYMMDDhhmmsstnnp, in the years 2000 to 2099, nn quarter hours ahead of
// UTC with '+' or behind with '-') or a relative one (YYMMDDhhmmss000R,
// after the submit_sm's arrival by Options.Clock, each field added as
// given). The message expires at the earlier of that time and the
// account's validity (sms.Submission.ValidUntil; without
// validity_period, and on data_sm, the account's alone, as over HTTP). A
// time not after the submit_sm's arrival, or that the format cannot mean
// (a 31 November, 24:00, an offset above 48 quarters, a relative time
// whose tnn is not 000) is ESME_RINVEXPIRY. A long message's validity is
// its first part's (the first received); when it ends before the last
// part comes, the last part is answered ESME_RINVEXPIRY (the gateway's 112
// of the field validUntil) and nothing is charged.
//
// # Receipts
//
// registered_delivery asks for receipts (receiptMask): its SMSC delivery
// receipt bits 1 (and 3, reserved, read as 1) for every final event, 2
// for failures only; its intermediate notification bit for each failed
// attempt the network retries (BUFFERED, as message_state ENROUTE); the
// SME acknowledgement bits are ignored. Asked of any part of a long
// message, they are asked of the message. The gateway then queues the
// reports in its outbox for the account's binds (sms.BindURL), as
// sms.BindDelivery, one per part and event as the HTTP reports, and the
// report dispatcher hands them to Server.PostReport, which sends each as
// a deliver_sm:
//
//	esm_class           0x04 (SMSC delivery receipt), data_coding 0
//	source_addr         the message's receiver (TON 1, NPI 1)
//	destination_addr    its sender (TON 5 when alphanumeric)
//	short_message       SMPP 3.4 Appendix B: id:<message id> sub:001 dlvrd:001|000
//	                    submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:<stat>
//	                    err:<the HTTP report's errorCode, 3 digits> Text:<the part's first 20 characters>
//	receipted_message_id  the message id answered to submit_sm
//	message_state       DELIVERED, EXPIRED (error 996), UNDELIVERABLE, REJECTED, ENROUTE
//	network_error_code  for a failure: type 3 (GSM) and the errorCode
//
// Dates are UTC, to the minute, as Appendix B writes them; characters of
// the quoted text outside plain ASCII (and those the GSM alphabet puts
// elsewhere) are written '?'. The binds of an account take turns, each
// with at most Window deliver_sm unanswered. ESME_ROK delivers it;
// ESME_RX_P_APPN refuses it for good (given up); any other answer, or
// none in the dispatcher's timeout, retries it with the dispatcher's
// backoff; the bind closing before the answer holds it, as below. With no receiving bind of the account on this
// server, the report is held (sms.HoldError): put off without using an
// attempt, for a tenth of its age (2 s to a minute, the dispatcher adding
// up to half again at random), so that whichever
// replica holds a bind of the account, now or after the ESME binds again,
// delivers it, and one held past the message's validity is given up.
// Receipts go out at least once: a bind that closes between the ESME's
// answer and its record gets the receipt again on the next bind.
// Messages from the network routed to the account take the same path
// (sms.BindMessage): a deliver_sm with esm_class 0, in data_coding 0 or
// 8, in short_message or, beyond 254 octets, message_payload.

// # Long messages
//
// The parts of a long message (esm_class UDHI with a concatenation
// element of an 8-bit or 16-bit reference, or the SAR parameters) are
// gathered by account, source, destination, reference and number of
// parts, so that parts sent over several binds of the account meet. Once
// all came, their user data is joined and read as one text (a character
// split between parts is read whole) and submitted once: the gateway
// splits it again and charges each part, exactly as the same text over
// HTTP. The message id is chosen when its first part comes (whichever
// number it has), answered ESME_ROK to every part but the last, and the
// last part's answer is the gateway's: its id, or the refusal of the whole
// message. A refusal the ESME is to retry (ESME_RTHROTTLED, ESME_RSYSERR)
// keeps the parts, so that the ESME's resend of the last part completes
// the message again, under the same id. A message whose parts did not all
// come within PartsTimeout (from its first) is dropped, logged and
// counted; its earlier parts were answered ESME_ROK, the one promise the
// protocol makes its ESME before the message is whole.
//
// # The gateway's refusals
//
// The gateway answers a submission with the bulk SMS interface's codes;
// SubmitStatus gives each its command_status (CodeStatus the table):
//
//	101 RC_APPLICATION_ERROR            ESME_RSYSERR
//	102 RC_ENCODING_ERROR               ESME_RSUBMITFAIL
//	103 RC_NO_ACCOUNT                   ESME_RINVSYSID (the account was disabled after its bind)
//	104 RC_IP_NOT_ALLOWED               ESME_RBINDFAIL (checked at the bind only)
//	105 RC_THROTTLING_ERROR             ESME_RTHROTTLED
//	106 RC_BLACKLISTED_SENDER           ESME_RINVSRCADR
//	107 RC_INVALID_SENDER               ESME_RINVSRCADR
//	108 RC_MESSAGE_TOO_LONG             ESME_RINVMSGLEN
//	109 RC_BAD_CONTENT_FORMAT           ESME_RSUBMITFAIL (also septets above 0x7F, UCS-2 that does not read)
//	110 RC_MISSING_MANDATORY_PARAMETER  ESME_RSUBMITFAIL; ESME_RINVSRCADR for the sender, ESME_RINVDSTADR for the receiver
//	111 RC_UNKNOWN_MESSAGE_TYPE         ESME_RSUBMITFAIL
//	112 RC_BAD_PARAMETER_VALUE          ESME_RSUBMITFAIL; ESME_RINVSRCADR for the sender, ESME_RINVDSTADR for the receiver, ESME_RINVEXPIRY for validUntil
//	113 RC_NO_CREDIT                    ESME_RSUBMITFAIL
//	114 RC_NO_ROUTE                     ESME_RINVDSTADR
//	115 RC_CONCAT_ERROR                 ESME_RINVMSGLEN
//	the platform failed (Internal, Unavailable)  ESME_RSYSERR
//
// Throughput is the gateway's rule: Account.Throughput submissions a
// second, counted in the store, so that every replica and the HTTP
// interface share it; beyond, 105 is ESME_RTHROTTLED. A long message is
// one submission, counted when it is whole, as over HTTP.
//
// # Metrics
//
// With Options.Metrics the server registers msgkit_smpp_server_binds (by
// mode), msgkit_smpp_server_bind_refusals_total (by command_status),
// msgkit_smpp_server_submits_total (by command and command_status, one
// per part answered), msgkit_smpp_server_incomplete_messages_total and
// msgkit_smpp_server_deliveries_total (by kind and outcome).
package smppserver
