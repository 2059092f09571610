// Package testsystemapi serves the SMS route test system under
// /gate/testsystem/v1/: sending test SMS and their languages, operators and
// countries, routes and their categories, suppliers and gates. Every route
// is in the one table of routes.go; Handler serves it through the HTTP kit
// (httpapi.FamilyHandler).
//
// Every route needs "Authorization: Bearer <token>" holding the privilege
// testsystem; any token with it is accepted, and in practice those are the
// password grant's. Errors have the test system body {"code","message"},
// field problems folded into message as "message; name: problem; ...".
//
// The test system domain is not released yet: every route answers, once
// authentication and the privilege have been enforced, 501 with code
// not_implemented and a message naming the operation and saying that it
// arrives in a later release.
//
// Choices where the interface is silent:
//
//   - Every 429 has code GATE_TEST_SYSTEM:RATE_LIMIT_REACHED (the test
//     system's rate limit code), whatever the error's own code. The daily
//     quota of test SMS, which resets at midnight UTC, is a rule of the
//     testsystem domain; its handler will set the X-Ratelimit-* headers
//     from the domain's counts.
//   - Sending a test SMS is POST /test/sms and adding a route POST
//     /test/route; they are marked "chosen" in routes.go.
package testsystemapi
