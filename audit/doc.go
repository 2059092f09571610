// Package audit keeps the trail of the operator's administrative changes:
// who made each (a client or user, or the platform itself), from where,
// when, what it changed (the resource, its record before and after), as
// entries an operator lists with the listing convention.
//
// Choices, where no interface document speaks:
//   - The actor travels in the context (WithActor): the HTTP adapter that
//     authenticated the caller puts it there, so a domain service records
//     its changes without an actor parameter on every method. A change
//     made without one (the bootstrap file, a Go program) is the system's.
//   - Records are recorded as the services give them, and the services
//     give views without secrets: a client's secret hash, a password's
//     hash and an API key's hash are never in an entry.
//   - An entry is recorded after the change it tells of has been stored.
//     When the record fails, the change stands: Record logs the missing
//     entry at error level and returns the error, and the services that
//     record go on to answer the change (a secret shown once is never lost
//     for its trail).
//   - Entries are numbered by the store, increasing; they are never
//     changed or removed through this package.
package audit
