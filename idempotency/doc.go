// Package idempotency makes retried writes act once: a client sends an
// Idempotency-Key with a request that creates something
// (draft-ietf-httpapi-idempotency-key-header), and a retry with the same
// key and the same request is answered with the first answer instead of
// acting again. The HTTP kit (adapters/httpapi) applies it to every REST
// create and the bulk SMS gateway (package sms) to submissions; requests
// without a key are not touched.
//
// # Rules
//
// A Service keeps one Record per scope and key in a Store. The scope is
// who the key belongs to (a bulk SMS account; an API client or user and
// the tenant of the path; an API key), so that keys of different callers
// never meet. Begin, for a request with a key:
//   - acts when the key has no live record: a pending record is saved,
//     holding a lease, and the request runs; Finish then records its
//     answer, or Abandon forgets the key when the request was refused or
//     failed, so that a retry runs again;
//   - answers again (Claim.Replay) when the key's request was answered:
//     the same status, headers and body, whoever asks within the scope;
//   - refuses a request whose fingerprint differs from the first
//     request's: Conflict idempotency_key_reused, which HTTP answers 422
//     as the draft says;
//   - refuses while the first request runs (its lease has not run out):
//     Conflict idempotency_key_in_progress, answered 409 as the draft
//     says, with RetryAfter the rest of the lease;
//   - takes the lease over when it ran out without an answer (the first
//     request's process died): the request acts, keeping the record's Ref.
//
// A key lives for TTL (24 hours) from its first request; after that it is
// free, and a request with it acts as a new one. Purge deletes expired
// records; servers run it periodically (examples/server every 10
// minutes). Time comes from Options.Clock, to the microsecond.
//
// # Acting once
//
// The Store's three writes are compare-and-set, on the scope and key and
// on the record's Ref and Attempt, so that replicas sharing a store agree
// on the one request that holds a key: Create saves a record unless a
// live one exists, Replace and Release change only the record a request
// still holds (a request whose lease was taken over changes nothing).
// While a key lives, its request succeeds (Finish) at most once; the
// contract suite (idempotencytest) holds both stores to that law over
// random interleavings of requests, retries, refusals and time.
//
// The record and the action are separate writes, so a process killed
// between an action's commit and its Finish leaves a pending record whose
// request did act. A request that takes the lease over then finds out
// only if the action can tell: Ref is kept across take-overs for that.
// The bulk SMS gateway uses Ref as the message id, so a retry after such
// a crash finds the message accepted and answers it, charging nothing
// again; REST creates pick their own ids, and a retry there, after the
// lease, creates again. The lease (Options.Lease, 2 minutes) outlasts
// any request, so a slow request is not taken over while it runs.
//
// # Choices where the draft is silent
//
//   - The key is the content of an sf-string, or a bare value (ParseKey
//     says which): 1 to 255 printable ASCII characters, case-sensitive.
//   - The fingerprint is the caller's (FingerprintOf): HTTP requests use
//     method, path, query, Content-Type and body; the bulk SMS gateway
//     uses the submission's fields after decoding, password excluded.
//   - Only what a request did is remembered: a refusal or failure is
//     abandoned (the key can be used again at once); an answer is kept up
//     to 1 MiB of body (MaxAnswerBytes).
package idempotency
