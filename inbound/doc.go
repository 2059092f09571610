// Package inbound keeps the messages the network hands over that no part
// of ours sent (mobile-originated: an SMSC's deliver_sm that is no
// receipt, a simulated handset's message) and routes them by the inbound
// routing records (package routing, whose doc states the
// record-to-traffic rule).
//
// The Router is the front door and the networks' sms.InboundSink. For
// each message it:
//   - joins the parts of a long message, gathered by connection, source,
//     destination, concatenation reference and number of parts; a part
//     sent again replaces the one held. Parts still missing PartsWait
//     (5 minutes) after the first arrived: the parts that came are kept,
//     joined in order, as an Incomplete message, visible and not
//     delivered (a text with holes could mislead its reader). Sweep (Run
//     calls it) keeps them.
//   - applies the rule (routing.For): the record of the connection with
//     the lowest id names an account; esme_connect_id delivers over the
//     account's SMPP binds, smpp_connect_id posts to its InboundURL.
//   - keeps the message with its delivery queued in the report outbox,
//     in one Store call (one statement on PostgreSQL). The outbox's
//     Dispatcher delivers it as it delivers delivery reports, with their
//     retries, backoff, per-host lines, metrics and give-up rules: to the
//     binds as an sms.BindDelivery of kind sms.BindMessage at
//     sms.BindURL(account), given up after the account's validity; to the
//     InboundURL as the JSON of Body, through the egress dialer.
//   - keeps a message it cannot route as Unroutable, with the reason: no
//     record of its connection, an account that does not exist or is
//     suspended, or no InboundURL. Each message is counted
//     (msgkit_inbound_messages_total by outcome) and each one not
//     delivered is logged as a warning; the administration lists them
//     (GET /admin/v1/inbound, filter state=unroutable). Nothing is
//     dropped silently.
//
// A message is acknowledged to the network only once kept (or, for a
// part, once held): HandleInbound's error makes the network offer it
// again (SMPP: ESME_RX_T_APPN). A failure to read the records or an
// account is such an error, not a reason to call a message unroutable.
//
// Choices, where no interface document speaks:
//   - Ids are IDPrefix ("mo-") and a version 7 UUID: never an outbound
//     message's id, and in time order. The outbox's report of a message
//     has its id as MsgID and part number 0; the message trace does not
//     show inbound messages (it answers message_not_found for their
//     ids); the administration's inbound listing does.
//   - Numbers are digits without '+', as SMPP writes international ones;
//     DCS is "GSM" when every part came in the GSM alphabet, else "UCS".
//   - Records and accounts are read through a cache of CacheFor (2 s), so
//     a message costs no read of them under traffic, and a change reaches
//     traffic within it.
//   - Parts waiting for their message are held in the memory of the
//     process that received them, so parts of one message must reach one
//     replica (an SMSC connection is one process's), and a restart loses
//     the parts held, which the network was told were taken. At most
//     MaxGathering messages wait at once; a part beyond is kept on its
//     own as Incomplete.
//   - Retention: pgstore's ForgetFinished removes inbound messages
//     received before its cutoff whose delivery is done, with the
//     delivery; memstore keeps the latest KeepInbound.
package inbound
