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
package routing
