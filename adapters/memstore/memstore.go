// Package memstore is the in-memory implementation of every msgkit Store:
// the embedded default, safe for concurrent use, lost when the process
// ends. It behaves as pgstore does; the domains' contract suites check that.
//
// A DB holds one store per domain (DB.Auth, DB.SMS), each with its own
// lock, so domains never contend with each other and no domain's methods
// are visible on another's. Each domain's records live in small generic
// tables (lookup, NotFound, Conflict, copies in and out) under the
// domain's lock.
package memstore

// DB is the in-memory database: one store per domain.
type DB struct {
	auth *AuthStore
	sms  *SMSStore
}

// New returns an empty database.
func New() *DB {
	return &DB{auth: newAuthStore(), sms: newSMSStore()}
}

// Auth is the store of API clients, users, tokens and API keys.
func (db *DB) Auth() *AuthStore { return db.auth }

// SMS is the store of bulk SMS accounts, messages and delivery reports.
func (db *DB) SMS() *SMSStore { return db.sms }
