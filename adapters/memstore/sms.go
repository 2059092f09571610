package memstore

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/msgkit/msgkit/sms"
)

var (
	_ sms.Store            = (*SMSStore)(nil)
	_ sms.OutboxStore      = (*SMSStore)(nil)
	_ sms.TransmitterStore = (*SMSStore)(nil)
)

// SMSStore keeps bulk SMS accounts, messages, the outbound queue and the
// delivery report outbox in memory. One lock makes Accept (charge, save
// and queue) and UpdatePart (state, reports and leaving the queue)
// atomic.
type SMSStore struct {
	mu          sync.RWMutex
	accounts    *table[string, sms.Account]
	messages    *table[sms.MessageID, sms.MessageRecord]
	throughput  map[string]window
	outbox      outbox
	sendq       sendQueue
	finished    finishedMessages
	ledger      ledger
	history     map[sms.MessageID][]historyEvent    // the parts' state histories (trace.go)
	reportsDone map[sms.MessageID][]sms.ReportTrace // reports that left the outbox, for traces
	smpp        *SMPPStore                          // the DB's, for traces; nil: none
}

// window counts an account's submissions in one second.
type window struct {
	second int64
	count  int
}

func newSMSStore(o Options) *SMSStore {
	s := &SMSStore{throughput: map[string]window{}, history: map[sms.MessageID][]historyEvent{}, reportsDone: map[sms.MessageID][]sms.ReportTrace{}, finished: finishedMessages{keep: o.KeepFinished, keepFor: o.KeepFinishedFor, held: map[sms.MessageID]struct{}{}}}
	s.accounts = newTable(&s.mu, "account", func(name string) string { return "account " + name }, cloneAccount, cloneAccount)
	s.messages = newTable(&s.mu, "message", func(id sms.MessageID) string { return "message " + string(id) }, cloneMessage, cloneMessage)
	s.outbox.reports = map[int64]*queuedReport{}
	s.outbox.parts = map[sms.PartKey][]*queuedReport{}
	s.outbox.finished = map[sms.ReportState]int{}
	s.sendq.entry = map[sms.PartKey]*sendEntry{}
	s.ledger.explicit = map[string][]sms.LedgerEntry{}
	s.ledger.charges = map[sms.MessageID]int64{}
	return s
}

// cloneAccount is an account as the store keeps it: a clone, its
// creation time and validity as pgstore keeps them (microseconds, UTC;
// milliseconds).
func cloneAccount(a sms.Account) sms.Account {
	a = a.Clone()
	a.CreatedAt = a.CreatedAt.Truncate(time.Microsecond).UTC()
	a.Validity = a.Validity.Truncate(time.Millisecond)
	return a
}

func cloneMessage(m sms.MessageRecord) sms.MessageRecord {
	m.Custom = slices.Clone(m.Custom)
	m.Parts = slices.Clone(m.Parts)
	slices.SortFunc(m.Parts, func(a, b sms.PartRecord) int { return a.Num - b.Num })
	for i := range m.Parts {
		m.Parts[i].Data = slices.Clone(m.Parts[i].Data)
		m.Parts[i].UpdatedAt = storeTime(m.Parts[i].UpdatedAt)
		if !m.Parts[i].SendAt.IsZero() {
			m.Parts[i].SendAt = storeTime(m.Parts[i].SendAt)
		}
	}
	m.SubmittedAt = storeTime(m.SubmittedAt)
	m.ExpiresAt = storeTime(m.ExpiresAt)
	return m
}

// CreateAccount stores a; an existing username is a Conflict.
func (s *SMSStore) CreateAccount(ctx context.Context, a sms.Account) error {
	if err := a.CheckBalance(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.accounts.insertLocked(a.Username, a); err != nil {
		return err
	}
	s.openingLocked(s.accounts.rows[a.Username])
	return nil
}

// Account returns the account, or NotFound.
func (s *SMSStore) Account(ctx context.Context, username string) (sms.Account, error) {
	return s.accounts.get(username)
}

// Accept charges m.Charged, saves m and queues its parts under one lock.
func (s *SMSStore) Accept(ctx context.Context, m sms.MessageRecord) error {
	if err := m.CheckCharge(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts.rows[m.Account]
	if !ok {
		return s.accounts.notFound(m.Account)
	}
	if _, ok := s.messages.rows[m.ID]; ok {
		return s.messages.exists(m.ID)
	}
	if !a.Covers(m.Charged) {
		return sms.CodeNoCredit.Errorf("balance %s %s is below the charge %s", a.Balance, a.Currency, m.Charged)
	}
	a.Balance = a.Balance.Sub(m.Charged)
	s.accounts.rows[m.Account] = a
	if err := s.messages.insertLocked(m.ID, m); err != nil {
		return err
	}
	s.ledger.charges[m.ID] = s.ledger.id()
	s.queueLocked(s.messages.rows[m.ID])
	return nil
}

// Message returns the message with its parts, or NotFound.
func (s *SMSStore) Message(ctx context.Context, id sms.MessageID) (sms.MessageRecord, error) {
	return s.messages.get(id)
}

// TakeThroughput counts a submission in the second of now.
func (s *SMSStore) TakeThroughput(ctx context.Context, username string, now time.Time, limit int) (bool, error) {
	if limit <= 0 {
		return true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sec := now.Unix()
	w := s.throughput[username]
	switch {
	case sec > w.second:
		w = window{second: sec}
	case sec < w.second:
		// A replica whose clock lags counts in the newer second, so that
		// skewed clocks cannot reset the window back and forth.
	}
	w.count++
	s.throughput[username] = w
	return w.count <= limit, nil
}
