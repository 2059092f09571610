// Package testsystemapi serves the SMS route test system under
// /gate/testsystem/v1/ from a Backend holding the testsystem.System:
// sending test SMS and reading their sessions and results; the languages,
// operators and countries, routes and their categories, suppliers and
// gates. The System holds every rule and its clock (the quota's reset
// too), so a handler reads the request, makes one System call and writes
// its answer; a Backend without the System answers every route 501. Every
// route is in the one table of routes.go; Handler serves it through the
// HTTP kit (httpapi.FamilyHandler).
//
// Every route needs "Authorization: Bearer <token>" holding the privilege
// testsystem; any token with it is accepted, and in practice those are the
// password grant's. The token's subject (the username) is the user whose
// sessions, daily quota and own operators (owner=me) are meant. Errors
// have the test system body {"code","message"}, field problems folded
// into message as "message; name: problem; ...".
//
// Lists answer {"data": [...], "meta": {"pagination": {count,
// current_page, per_page, total, total_pages}}} and take page_number,
// page_size (default 10, at most 100), paging=page_num,page_size, sort
// (-attr1,attr2), q and filters in the forms attr=value and
// operator(attr)=value on the attributes of each list's ListSpec.
//
// Choices where the interface is silent:
//
//   - Sending a test SMS is POST /test/sms (201 {"test_session"}) and
//     adding a route POST /test/route (201 {"status":"created"}, or 200
//     {"status":"exists"} when every parameter was stored already); they
//     are marked "chosen" in routes.go.
//   - A session is read with GET /test/sms/{test_session} (test, status
//     running or complete, messages, callback_api, created_date,
//     completed_date) and its results, in test order, with GET
//     /test/sms/{test_session}/result (the list envelope of result
//     records, page_size up to 1000). Another user's session is 404.
//   - Every answer of POST /test/sms after authentication carries the
//     caller's daily quota: X-Ratelimit-Limit, X-Ratelimit-Remaining and
//     X-Ratelimit-Reset (whole seconds to midnight UTC, when it resets).
//     Every 429 has code GATE_TEST_SYSTEM:RATE_LIMIT_REACHED.
//   - Both POSTs take an optional Idempotency-Key (the HTTP kit's
//     Idempotent), whose scope is the user: a retry with the key and the
//     same body within 24 hours gets the first answer again, its quota
//     headers as they were then, with Idempotent-Replayed: true, and sends
//     nothing nor counts against the quota; the key with another body is
//     422, while the first runs 409.
//   - Operators are answered with their id beside name, mcc_mnc, country
//     and mcc, so that a result's operator_id can be looked up; mcc_mnc
//     and mcc are integers on the wire and filter as codes (MNC "01" and
//     "001" stay apart). mcc on /test/operator is a comma-separated list;
//     on /test/operator/country one code.
//   - Category, supplier and gate ids are answered as strings; an id that
//     is not a number is 404 as an unknown one.
//   - Reference records have owners (see the testsystem package doc): a
//     user sees the platform's records and its own; its routes make its
//     own records, another user's record answers as an unknown one, and
//     the platform's records are changed (added routes, deletes) only by a
//     token that also holds testsystem.manage, msgkit's own privilege of
//     an operator: without it such a change is 403 platform_record.
//   - Bodies pass the HTTP kit's JSON rules (httpapi.CheckJSON): bad
//     bytes, the NUL character, a key given twice or in two cases, and a
//     string over 1,000 characters (callback_api: 2,048) are 400
//     invalid_json naming the member.
package testsystemapi
