// Package memstore is the in-memory implementation of every msgkit Store:
// the embedded default, safe for concurrent use, lost when the process
// ends. It behaves as pgstore does; each domain's contract (<domain>test.Run)
// checks that.
//
// A DB holds one store per domain (DB.Auth, DB.SMS, DB.SMPP, DB.Contacts,
// DB.Campaigns, DB.Finance, DB.Routing, DB.TestSystem, DB.UIProxy,
// DB.Idempotency), each with its own lock, so domains never contend with
// each other and no domain's methods are visible on another's. Each domain's records live in small generic
// tables (lookup, NotFound, Conflict, copies in and out) under the
// domain's lock.
//
// Listings are never slower than PostgreSQL's on the same data (the
// shared benchmarks' …MemoryVersus in pgstore measure it): invoice and
// contact listings read columns of the records in store order, kept
// until a record changes, look up of an invoice's view only the parts
// the query reads, and copy only the page's records.
//
// Memory is bounded under sustained traffic: delivery reports leave the
// outbox once delivered or given up (their trace, with their attempts,
// stays with their message: see SMSStore.Trace), and a finished message (every part final, no
// report pending) leaves once KeepFinished messages finished after it or
// KeepFinishedFor has passed since it finished (Options); then it is
// NotFound, and a late report of the network for it is ignored as any
// report of an unknown part is. Messages still in flight are never
// dropped, nor are those whose reports are still pending: the trimming
// passes over them, and ForgetFinished (which sms.Retention calls) removes
// them once their reports are done, as it removes every finished message
// the trimming has not reached when a Retention's keep time is shorter.
// Both measure the keep time from the message's last part update, as
// pgstore does. A removed message takes its charge's ledger entry with it
// (as on PostgreSQL, a stored message is its charge's entry), so its
// charge is carried into the account's ledger (sms.LedgerCarried): into
// the account's last entry when that is a carried entry of retention,
// so that trimming one message at a time does not grow an entry per
// message. Idempotency keys
// stay until Purge deletes them once expired (servers purge every few
// minutes), so they hold a day of keyed requests at most.
package memstore

import "time"

// DB is the in-memory database: one store per domain.
type DB struct {
	auth     *AuthStore
	sms      *SMSStore
	finance  *FinanceStore
	contacts *ContactsStore
	routing  *RoutingStore
	tests    *TestSystemStore
	campaign *CampaignStore
	uiproxy  *UIProxyStore
	smpp     *SMPPStore
	idem     *IdempotencyStore
	audit    *AuditStore
	inbound  *InboundStore
}

// Options configure a DB; zero values choose the defaults.
type Options struct {
	// KeepFinished is how many finished messages (every part in a final
	// state) the SMS store keeps; beyond it the ones that finished first
	// leave memory. Default 20,000, about 40 MB: a bigger heap gives the
	// garbage collector more to mark, which shows in the slowest answers
	// under load. Negative keeps none.
	KeepFinished int
	// KeepFinishedFor is how long a finished message stays, measured on
	// the times of the parts' updates (the network's report times, so
	// the store needs no clock): a message leaves once a message finished
	// that long after it. Default 1 hour. Servers give an sms.Retention
	// the same time, which removes what this trimming leaves when no
	// message finishes after it.
	KeepFinishedFor time.Duration
}

// Defaults of Options.
const (
	DefaultKeepFinished    = 20_000
	DefaultKeepFinishedFor = time.Hour
)

// New returns an empty database with the default Options.
func New() *DB { return NewWith(Options{}) }

// NewWith returns an empty database.
func NewWith(o Options) *DB {
	switch {
	case o.KeepFinished == 0:
		o.KeepFinished = DefaultKeepFinished
	case o.KeepFinished < 0:
		o.KeepFinished = 0
	}
	if o.KeepFinishedFor <= 0 {
		o.KeepFinishedFor = DefaultKeepFinishedFor
	}
	db := &DB{auth: newAuthStore(), sms: newSMSStore(o), finance: newFinanceStore(), contacts: newContactsStore(), routing: newRoutingStore()}
	db.tests = newTestSystemStore(db.sms)
	db.campaign = newCampaignStore()
	db.uiproxy = newUIProxyStore()
	db.smpp = newSMPPStore(MaxSMPPSubmitted)
	db.sms.smpp = db.smpp // a message's trace shows its SMSC records
	db.idem = newIdempotencyStore()
	db.audit = &AuditStore{}
	db.inbound = newInboundStore(db.sms)
	return db
}

// Auth is the store of API clients, users, tokens and API keys.
func (db *DB) Auth() *AuthStore { return db.auth }

// SMS is the store of bulk SMS accounts, messages and delivery reports.
func (db *DB) SMS() *SMSStore { return db.sms }

// Finance is the store of invoices and business partners.
func (db *DB) Finance() *FinanceStore { return db.finance }

// Contacts is the customer data store.
func (db *DB) Contacts() *ContactsStore { return db.contacts }

// Routing is the store of inbound MT routes.
func (db *DB) Routing() *RoutingStore { return db.routing }

// TestSystem is the store of the SMS route test system: reference lists,
// sessions and results.
func (db *DB) TestSystem() *TestSystemStore { return db.tests }

// Campaigns is the store of the tenants' campaigns.
func (db *DB) Campaigns() *CampaignStore { return db.campaign }

// UIProxy is the store of the UI components' configurations.
func (db *DB) UIProxy() *UIProxyStore { return db.uiproxy }

// SMPP is the store of the parts SMSCs took over SMPP, by their ids.
func (db *DB) SMPP() *SMPPStore { return db.smpp }

// Idempotency is the store of idempotency keys and the answers they give
// again.
func (db *DB) Idempotency() *IdempotencyStore { return db.idem }

// Audit is the store of the administration's audit trail.
func (db *DB) Audit() *AuditStore { return db.audit }
