// Package routingapi serves inbound MT routing provisioning under
// /smsmtinbound/v1/: create, list, get, update and delete routing records
// at /smsmtin-routes. Every route is in the one table of routes.go;
// Handler serves it through the HTTP kit (httpapi.FamilyHandler).
//
// Every route needs an X-API-Key header (exactly one, non-empty) that auth
// knows; a missing or unknown key is 401, without WWW-Authenticate, as no
// scheme exists for the header. The family has no privileges and no
// tenants: routing records tie the operator's own SIGTRAN connections to
// its SMPP connections and ESMEs, and an API key is the operator's, so
// every key sees and changes every record; give keys to the operator's
// provisioning systems only, never to a customer. Errors have
// the routing body {"Code": "<string>", "Message"}: Code is the error's
// code, or its kind's, and field problems are folded into Message as
// "message; name: problem; ...".
//
// Handler serves the routes from a Backend holding the routing.Service,
// which holds every rule of a route (package routing documents them): a
// handler reads the path and the body, makes one Service call and writes
// its answer. A Backend without the Service answers every route, once the
// key has been checked, 501 with code not_implemented. OpenAPI returns
// the family's document.
//
// Choices where the interface is silent: create answers 200 with the
// route, update and delete 200 without a body, list an array ([] when
// empty, not 404); connection ids are answered as strings; a malformed id
// in the path is 404; no operation takes query parameters (400). Bodies
// pass the HTTP kit's JSON rules (httpapi.CheckJSON): bad bytes, the NUL
// character, a key given twice or in two cases (SIGTRAN_CONNECT_ID beside
// sigtran_connect_id), and a string over 1,000 characters are 400
// invalid_json naming the member. Create takes an optional
// Idempotency-Key (the HTTP kit's Idempotent), whose scope is the API key:
// a retry with the key and the same body within 24 hours gets the first
// answer (the id given then) with Idempotent-Replayed: true and stores
// nothing; the key with another body is 422, while the first runs 409.
package routingapi
