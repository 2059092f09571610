// Package routing keeps the inbound MT routing records (SMSMTINRouting):
// which SIGTRAN connection an inbound mobile-terminated message arrives
// on, and which SMPP connection or ESME it is handed to.
//
// Service is the front door: it reads and checks every body (Fill), holds
// the rules below and keeps the routes in a Store, which numbers them.
// The HTTP family (/smsmtinbound/v1/smsmtin-routes, package routingapi)
// only translates its wire to Service calls, so a Go program that uses
// the Service gets exactly the API's behaviour. Errors carry the
// package's Code constants, the same from every Store.
//
// # Rules
//
// A route has an id (int64, at least 1) and three connection ids:
// sigtran_connect_id, smpp_connect_id and esme_connect_id. Exactly one of
// smpp_connect_id and esme_connect_id is set: the unused one is stored and
// answered as "0", as handing one message to both breaks traffic
// handling. Both set, or neither, is refused naming both fields.
//
// Where the interface is silent:
//   - A connection id arrives as a JSON string or a JSON number (the
//     model says string, the sample calls send numbers); both are read,
//     and every connection id is answered as a string. An id is 1 to 64
//     characters of letters, digits, '.', '_' and '-'; a number must be a
//     whole number of at least 0, kept in its decimal form. "0" (or 0)
//     means unused, as does an absent or null id.
//   - sigtran_connect_id is required: an inbound route starts at a SIGTRAN
//     connection.
//   - Create takes an optional id; without one the store gives the
//     smallest id above every stored one (none left above the largest
//     id: Conflict, route_ids_exhausted). An id taken is a Conflict
//     (route_exists).
//   - Update replaces the three connection ids of a stored route; an id in
//     its body, if any, must be the path's.
//   - A route id written as text (ParseID) that no route can have is
//     NotFound (route_not_found), as an unknown one is.
//   - Routes are listed by id.
//
// Every problem of a body is named at once in one Invalid error (code
// invalid_route).
//
// # The record-to-traffic rule
//
// The records route the messages that arrive from the network without
// being ours (mobile-originated: a deliver_sm that is no receipt, or a
// simulated handset's message); package inbound applies the rule (For,
// Route.Target) to each, once its parts are joined:
//   - sigtran_connect_id names the connection the message arrived on: the
//     name of the SMPP client connection (the "name" of the server's
//     -smpp file), or the simulated network's name ("simnet" by
//     default). msgkit speaks SMPP to its SMSCs, not SIGTRAN; the field
//     keeps the interface's name for the network side of the route. A
//     connection's name must be a valid connection id to be routed: the
//     SMPP client's default name is its host:port, whose colon no id
//     holds, so a connection that takes messages from phones is given a
//     name.
//   - esme_connect_id names an ESME: a bulk SMS account, whose username is
//     the system_id its ESMEs bind with. The message goes to the account's
//     SMPP binds as a deliver_sm over a receiver or transceiver bind
//     (held by the outbox while it has none, up to the account's
//     validity).
//   - smpp_connect_id names a bulk SMS account too, and the message is
//     posted as JSON to the account's InboundURL. Why: the only SMPP peers
//     msgkit has towards customers are the ESMEs (esme_connect_id
//     already), and its SMSC connections face the network, not tenants;
//     the other way a customer takes traffic is HTTP, with the
//     account's own address, as its delivery reports. So both kinds name
//     an account, an id the operator already administers, and differ in
//     how the account takes its messages: over its binds, or over HTTP.
//   - Several records of one connection: the one with the lowest id wins
//     (For). Ids are stable, so the choice does not move when records are
//     listed in another order; to change a connection's target, update
//     its record, or delete the record that wins.
//   - A message no record routes (no record of its connection), or whose
//     record names an account that does not exist, is suspended, or (for
//     smpp_connect_id) has no InboundURL, is kept as unroutable with the
//     reason, counted and logged: nothing is dropped silently.
//
// Records are read for each message through a short cache (package
// inbound's RouterOptions.CacheFor), so a change reaches traffic within
// it.
package routing
