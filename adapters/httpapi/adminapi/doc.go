// Package adminapi serves the operator's administration over HTTP under
// /admin/v1/: tenants (register, list, rename, suspend and resume), API
// clients of the client credentials grant (create, list, change, rotate
// the secret, revoke), users of the password grant and X-API-Key keys
// (auth.Service); test system users' own daily limits
// (testsystem.System); UI components (uiproxy.Proxy); bulk SMS accounts
// (sms.Accounts) and their credit ledger (sms.Credit); the message trace
// (sms.Tracer); the messages from phones, routed or kept as unroutable
// (inbound.Router); and the audit trail every change leaves (audit.Log), with
// the caller (its client or user and address) as each change's actor.
// The services hold every rule; the handlers translate.
//
// Choices, where no interface document speaks:
//   - Callers hold admin privileges: admin.tenants for tenants,
//     admin.clients for clients, users (with their test system limits)
//     and keys, admin.ui-components, admin.accounts for bulk SMS accounts,
//     admin.credit for their ledgers, admin.trace for the message trace
//     (admin.trace.receivers shows receivers whole), admin.trace.receivers
//     for the inbound messages (they show the phones' numbers; never
//     their text, as the trace shows none), admin.audit for the trail.
//   - Money is a decimal string ("0.035"), never a float; a top-up takes
//     an Idempotency-Key, so a retried payment credits once. Going below
//     an account's floor (-creditLimit) is 409 below_credit_floor.
//   - The ledger's export is CSV (RFC 4180) streamed a page at a time; an
//     error after the first line cuts it short and is logged (the status
//     is sent by then). They are operator-wide:
//     an admin call reaches every tenant's records of its kind, so no
//     tenant's client holds one unless the operator gives it.
//   - Errors have the body {"code","message","fields":[{"name","message"}]}:
//     the code, a message, and each member, parameter or header at fault.
//   - Listings follow the platform's listing convention (page_number,
//     page_size up to 100, paging, sort, filters, q) and answer
//     {data, meta: {pagination: {total, count, perPage, currentPage,
//     totalPages}}}; attributes are named as the JSON names them.
//   - Bodies are strict: a member an operation does not take is refused,
//     naming it, so a typo (suspend for suspended) never passes for a
//     change. In a change (PATCH), a member left out or null stays.
//   - A secret the platform makes (a client's, a rotated one, an API key)
//     is answered once, in the answer that made it, and kept only as a
//     hash. Those operations take no Idempotency-Key (400
//     idempotency_key_refused): a kept answer would keep the secret. Every
//     other create takes one.
//   - Every change of a client or user (grants, networks, password, the
//     secret) and its removal end its access tokens at once on every
//     replica: a token is a snapshot of the grants, and the stores delete
//     a subject's tokens in the same statement as the change.
//   - A suspended tenant's clients and users are refused in every family
//     from their next request (403 tenant_suspended in the family's body,
//     on every replica: the stores read suspension with the token); a
//     caller of several tenants keeps the others. Its records stay.
//   - A tenant id in a path that is no UUID is 404, as no tenant has it.
package adminapi
