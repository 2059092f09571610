// Package memstore is the in-memory implementation of every msgkit Store:
// the embedded default, safe for concurrent use, lost when the process
// ends. It behaves as pgstore does; the domains' contract suites check that.
package memstore

import (
	"sync"

	"github.com/msgkit/msgkit/auth"
)

// Store holds every domain's data in memory.
type Store struct {
	auth authData
	sms  smsData
}

// New returns an empty store.
func New() *Store {
	s := &Store{auth: authData{
		clients: map[string]auth.Client{},
		users:   map[string]auth.User{},
		tokens:  map[[32]byte]auth.Token{},
		keys:    map[[32]byte]auth.APIKey{},
	}}
	s.sms.init()
	return s
}

// guarded is embedded by each domain's data: one lock per domain keeps
// domains from contending with each other.
type guarded struct{ mu sync.RWMutex }
