package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/msgkit/msgkit/finance"
)

// SetMembership runs move under the domain's lock, over copies of the
// member, its groups and their other members, and stores the member and
// the groups as move leaves them.
func (s *FinanceStore) SetMembership(_ context.Context, g finance.Group, member, to finance.InvoiceID, move func(*finance.Move) error) (finance.Invoice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.invoices.rows[member]
	if !ok {
		return finance.Invoice{}, s.invoices.notFound(member)
	}
	mem := copyInvoice(*stored)
	m := finance.Move{Member: &mem}
	if old := g.Link(stored); old != 0 && old != to {
		m.Old, m.OldMembers = s.groupLocked(g, old, member)
	}
	if to != 0 {
		m.New, m.NewMembers = s.groupLocked(g, to, member)
	}
	if err := move(&m); err != nil {
		return finance.Invoice{}, err
	}
	for _, inv := range []*finance.Invoice{m.Member, m.Old, m.New} {
		if inv != nil {
			s.putLocked(inv)
		}
	}
	return copyInvoice(mem), nil
}

// groupLocked returns a copy of invoice id (nil when unknown) and copies
// of its members of kind g but member, by id.
func (s *FinanceStore) groupLocked(g finance.Group, id, member finance.InvoiceID) (*finance.Invoice, []finance.Invoice) {
	var grp *finance.Invoice
	if inv, ok := s.invoices.rows[id]; ok {
		c := copyInvoice(*inv)
		grp = &c
	}
	var members []finance.Invoice
	for _, inv := range s.invoices.rows {
		if inv.ID != member && g.Link(inv) == id {
			members = append(members, copyInvoice(*inv))
		}
	}
	slices.SortFunc(members, func(a, b finance.Invoice) int { return cmp.Compare(a.ID, b.ID) })
	return grp, members
}

// putLocked stores a copy of inv over the stored invoice of its id,
// keeping the stored UID, and its balance entry with it.
func (s *FinanceStore) putLocked(inv *finance.Invoice) {
	stored := s.invoices.rows[inv.ID]
	next := cloneInvoice(inv)
	next.UID = stored.UID
	s.invoices.rows[inv.ID] = next
	s.byID[inv.ID-1] = next
	s.columns.Store(nil)
	s.ledger[inv.ID-1] = finance.LedgerEntryOf(next)
}
