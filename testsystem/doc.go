// Package testsystem tests SMS routes in real time: it sends test
// messages through chosen gates to chosen operators' test handsets, and
// judges delivery, availability and content, detects fake delivery
// reports and identifies the service centre (SMSC) that delivered each
// message. It also keeps the reference lists the tests draw on:
// operators and their countries, route categories, suppliers, gates and
// their routes, and the SMSC table. System is the front door: it runs the
// sessions and serves the reference lists, the sessions and their
// results over a Store, with its clock; the HTTP family
// (/gate/testsystem/v1, package testsystemapi) serves the System, so a Go
// program calling it gets the API's answers.
//
// # A test session
//
// A request (Input, checked by Fill) names gates and operators (by
// mcc_mnc, or by mcc for every operator of those countries), a text
// language and type, a sender rule and a callback URL. System.Send
// resolves them, and within the user's daily limit stores a Session with
// one Result per (gate, operator) pair, gates in the order asked and
// operators by id, then hands each message to its gate's sms.Upstream.
// The receiver is the Probe's test handset on the operator; a message to
// an operator without a handset, or through a gate without an upstream,
// fails at once.
//
// The System is the gates' sms.StatusSink: their delivery reports step
// each part through the bulk SMS delivery states (sms.Step), and the
// message's dlr_status is DELIVERED when every part is, REJECTED or
// UNDELIVERED when a part is, else the furthest state of a part on its
// way. System.Step (Run calls it periodically) asks the Probe what each
// handset received since the messages were sent, decodes the SMS-DELIVER
// PDUs (gsm.DecodeDeliver), joins concatenated parts, and matches a
// receipt to its message by the message's mark: 8 letters and digits the
// text carries, which survive a route that rewrites the rest. Then:
//
//   - sender_match, text_match, encoding_match compare what was sent with
//     what arrived (the sender without '+', the text exactly, the coding);
//   - received_service_center is the SMSC address of the first part's
//     PDU; the SMSC table names its operator and country;
//     direct_route is true when that SMSC belongs to the tested operator
//     (same MCC and MNC), national_smsc when it is in the operator's
//     country (same MCC); both are "unknown" for an SMSC the table does
//     not know;
//   - a received message is judged delivered once its report stream is
//     over, or at its deadline; a message not received is judged
//     not_received when a report says it failed for good, or at its
//     deadline. fake_dlr is true when the report said DELIVERED and no
//     receipt came by the deadline (the time limit after the gate took
//     the message, Options.TimeLimit, default 2 minutes). A receipt after
//     the judgement is not looked for.
//
// Step may run on several replicas sharing a store: each judgement is
// made under the store's lock on the result (a judged result is never
// judged again) and a session completes once. Messages are handed to the
// gates during the request; a message stored but never handed over (the
// process ended in between) is judged failed at its deadline, and one a
// simulated network held when its process ended is judged by its
// deadline as any other.
//
// When every message of a session is judged, the session is complete and
// its callback is queued in the store, with the completion, in the
// delivery report outbox: the report dispatcher posts it with the same
// retries, backoff and address policy as delivery reports. The body is
// CallbackBody: test_session, test, username, status "complete",
// created_date, completed_date, count and results (Record each).
//
// # Results
//
// Record spells a result as the interface does. Choices where it shows no
// values: status is queued, sent, received (on the way), delivered,
// not_received or failed (judged); checks are "true", "false" or
// "unknown" (nothing to compare yet, or an SMSC the table does not know);
// dcs and received_dcs are GSM, UCS or 8BIT; concat is "true" for a
// message of more than one part; times are RFC 3339 UTC with
// milliseconds, null until they happen; dlr_delay and sms_delay are
// seconds with milliseconds from the gate taking the message to the
// report that made its dlr_status and to the last part's arrival; price
// is the gate's part price times the parts, four decimals; test_id is
// "<test_session>-<n>", n counting the session's messages from 1; the
// PDUs are upper-case hexadecimal, received_service_pdu the first part's.
// A failed message carries error, saying why.
//
// # Requests
//
// Rules of the interface: username, test, gate_id, text_lang, text_type
// and callback_api are required; one of mcc and mcc_mnc is required, and
// mcc is ignored when mcc_mnc is given; operator_owner is platform (the
// default) or me (the caller's own operators); with none of sender,
// sender_random and sender_same the template's sender is used. Choices:
// username must be the authenticated caller's (403 otherwise); at most
// one of sender, sender_random and sender_same; sender_random draws a
// sender of its kind for each message, sender_same one for the whole
// session (alpha: "Test" and 4 to 7 letters, numeric: an international
// number of 11 digits, short: 4 to 6 digits); gate_id, mcc and mcc_mnc
// are arrays, as the interface types them (a single number is refused,
// naming the field: the interface shows no scalar form), duplicates
// ignored; every gate must exist and every code must have an operator of
// the owner, or the request is refused naming them; at most MaxMessages
// messages a session.
// mcc_mnc is read as three digits of MCC and two or three of MNC, kept as
// strings, so 22601 (MNC 01) and 226001 (MNC 001) are different
// networks.
//
// # Daily limit
//
// Each user may make Options.DailyLimit (default 100) test requests a UTC
// day; a refused request does not count. Beyond it the answer is
// RateLimited with code GATE_TEST_SYSTEM:RATE_LIMIT_REACHED. The count is
// the store's, taken with the session in one atomic step, so replicas
// sharing a store share it. The quota resets at midnight UTC.
//
// # Reference lists
//
// Operators belong to the platform or to a user (owner "me" lists the
// caller's own); countries are the distinct (country, mcc) of an owner's
// operators. Categories, suppliers and gates have numeric ids, answered
// as strings; deleting one deletes the routes that use it (routes cannot
// be deleted on their own) and answers the deleted record. A route is one
// parameter of a gate: an add-route request (FillRoute: category,
// supplier and gate required; tlv_value required with tlv_tag, a
// vendor-specific tag 0x1400 to 0x3FFF; at least one of tlv_tag,
// service_type and prefix) makes the gate, category and supplier by name
// when new and one route row per parameter given: param_name "tlv"
// (value "tag=value"), "service_type" or "prefix". A row already stored
// is not added again.
//
// One user never changes what another sees. Categories, suppliers and
// gates belong to the platform or to the user who made them (Named.Owner),
// and a route goes with its gate. The platform's records are shared: every
// user sees them, tests through their gates and may name their categories
// and suppliers in its own routes, but only an operator (Caller.Operator;
// over HTTP the privilege testsystem.manage) adds routes to the platform's
// gates or deletes the platform's records (a user gets Forbidden,
// platform_record). What a user adds is its own: its routes make its own
// gates, categories and suppliers (a name is looked up among its own
// records, then the platform's), and nobody else sees, uses or deletes
// them; another user's record answers exactly as an unknown one. An
// operator's routes make and change the platform's records. gate_id names
// the gate's id: an operator's new gate takes it (and it must be the id of
// a gate of that name); a user's gate_id must name one of its own gates,
// its new gates being numbered by the platform, so that no user learns
// which ids another's gates have. A dataset (Load, the operator's) is the
// platform's. Names are unique per owner.
//
// Fixture is a small hand-written dataset (five countries' operators and
// SMSCs, three categories, suppliers, five gates); LoadDataset reads an
// operator's own in the same JSON format and Catalog.Load stores it.
// Languages come from the template library (package testtext).
//
// # Metrics
//
// A session has no judgement of its own: its messages do. A System given
// Options.Metrics counts the sessions started and completed, and the
// messages judged by judgement (delivered, not_received, failed), each
// once the store has the judgement (on any replica: the one that judged
// counts it).
package testsystem
