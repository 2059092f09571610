package memstore

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// FinanceStore keeps invoices and business partners.
type FinanceStore struct {
	mu       sync.RWMutex
	partners *table[int64, finance.Partner]
	invoices *table[finance.InvoiceID, *finance.Invoice]
	// ledger holds invoice id-1's balance entry, so that balances sum
	// compact entries in one pass over memory, not a million scattered
	// records and their decimals.
	ledger []finance.LedgerEntry
	// byID holds invoice id-1's stored record, so that a listing reads
	// the invoices in store order without sorting them.
	byID []*finance.Invoice
	// columns are the listings' columns of byID (finance.ListColumns):
	// made by the first listing, dropped by any write to an invoice.
	columns atomic.Pointer[finance.ListColumns]
	lastID  finance.InvoiceID
	uids    map[string]bool // the invoices' UIDs, unique as pgstore's index makes them

	files      []finance.FileRecord // in id order
	lastFileID finance.FileID

	tenants map[int64]msgkit.ServiceUUID // partner -> tenant (finance.PartnerTenants)

	export exportData // the operator data of the documents export (finance_documents.go)

	configs map[configKey]finance.InvoiceConfig // the stored invoice configurations (finance_reference.go)
}

var _ finance.Store = (*FinanceStore)(nil)

func newFinanceStore() *FinanceStore {
	s := &FinanceStore{uids: map[string]bool{}}
	s.partners = newTable[int64, finance.Partner](&s.mu, "partner",
		func(id int64) string { return "business partner " + strconv.FormatInt(id, 10) }, nil, nil)
	s.invoices = newTable(&s.mu, "invoice",
		func(id finance.InvoiceID) string { return "invoice " + strconv.FormatInt(int64(id), 10) }, cloneInvoice, cloneInvoice)
	return s
}

// cloneInvoice is a copy of *inv in a record of its own.
func cloneInvoice(inv *finance.Invoice) *finance.Invoice {
	c := copyInvoice(*inv)
	return &c
}

// copyInvoice copies what an Invoice shares by reference: items, payment,
// source record and the sync document.
func copyInvoice(inv finance.Invoice) finance.Invoice {
	inv.Items = slices.Clone(inv.Items)
	if inv.Payment != nil {
		p := *inv.Payment
		inv.Payment = &p
	}
	if inv.SourceRecord != nil {
		r := *inv.SourceRecord
		inv.SourceRecord = &r
	}
	inv.DocumentSync = slices.Clone(inv.DocumentSync)
	return inv
}

// PutPartner creates or replaces a partner.
func (s *FinanceStore) PutPartner(_ context.Context, p finance.Partner) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partners.rows[p.ID] = p
	return nil
}

// Partner returns a partner.
func (s *FinanceStore) Partner(_ context.Context, id int64) (finance.Partner, error) {
	return s.partners.get(id)
}

// CreateInvoice stores inv under the next id; its UID must be set and be
// no other invoice's.
func (s *FinanceStore) CreateInvoice(_ context.Context, inv finance.Invoice) (finance.Invoice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inv.UID == "" {
		return finance.Invoice{}, msgkit.Invalidf("invoice_invalid", "invUid", "invUid must not be empty")
	}
	if s.uids[inv.UID] {
		return finance.Invoice{}, msgkit.New(msgkit.Conflict, "invoice_exists", "invoice exists")
	}
	s.lastID++
	inv.ID = s.lastID
	if err := s.invoices.insertLocked(inv.ID, &inv); err != nil {
		return finance.Invoice{}, err
	}
	s.uids[inv.UID] = true
	s.byID = append(s.byID, s.invoices.rows[inv.ID])
	s.columns.Store(nil)
	s.ledger = append(s.ledger, finance.LedgerEntryOf(s.byID[inv.ID-1]))
	return copyInvoice(inv), nil
}

// Invoice returns an invoice.
func (s *FinanceStore) Invoice(_ context.Context, id finance.InvoiceID) (finance.Invoice, error) {
	inv, err := s.invoices.get(id)
	if err != nil {
		return finance.Invoice{}, err
	}
	return *inv, nil
}

// UpdateInvoice runs change under the domain's lock; the id and the UID
// stay as stored.
func (s *FinanceStore) UpdateInvoice(_ context.Context, id finance.InvoiceID, change func(finance.Invoice) (finance.Invoice, error)) (finance.Invoice, error) {
	var out finance.Invoice
	err := s.invoices.update(id, func(stored **finance.Invoice) error {
		next, err := change(copyInvoice(**stored))
		if err != nil {
			return err
		}
		next.ID, next.UID = id, (*stored).UID
		*stored = cloneInvoice(&next)
		s.byID[id-1] = *stored
		s.columns.Store(nil)
		s.ledger[id-1] = finance.LedgerEntryOf(*stored)
		out = copyInvoice(next)
		return nil
	})
	return out, err
}

// ListInvoices lists the views of the invoices that are not deleted, in
// scope, with finance.ListViews over the columns of the invoices, kept
// until one changes; views are made for the page's alone.
func (s *FinanceStore) ListInvoices(_ context.Context, q msgkit.ListQuery, scope finance.Scope, today msgkit.Date) (msgkit.Page[finance.View], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cs := s.columns.Load()
	if cs == nil {
		// Listings made at once under the read lock make equal columns;
		// the one stored last stays.
		cs = finance.NewListColumns(s.byID)
		s.columns.Store(cs)
	}
	page, err := finance.ListViews(cs, scope, q, s.viewLookupLocked(), today)
	if err != nil {
		return page, err
	}
	for i := range page.Items {
		v := &page.Items[i]
		v.Invoice = copyInvoice(v.Invoice)
	}
	return page, nil
}

// viewLookupLocked looks up the parts of an invoice's view a listing
// asks for; the caller holds the lock while it lists. The owners and
// types it finds are kept for the listing, as they are few and a copy
// of one for each invoice would be an allocation each.
func (s *FinanceStore) viewLookupLocked() finance.ViewLookup {
	owners := map[int64]*finance.Partner{}
	types := map[int64]*finance.DocumentType{}
	return func(inv *finance.Invoice, parts finance.ViewParts) finance.DocumentData {
		if parts == finance.AllParts {
			return s.viewDataLocked(inv)
		}
		var d finance.DocumentData
		if parts&finance.PartOwner != 0 {
			d.Owner = lookupOnce(owners, inv.OwnerID, s.partners.rows)
		}
		if parts&finance.PartPartner != 0 {
			d.Partner = s.export.partners[inv.Customer.ID]
		}
		if parts&finance.PartType != 0 {
			d.Type = lookupOnce(types, inv.InvType, s.export.types)
		}
		if parts&(finance.PartDomestic|finance.PartRelated) != 0 {
			full := s.viewDataLocked(inv)
			d.Domestic, d.Netting, d.Lead, d.LeadNetting = full.Domestic, full.Netting, full.Lead, full.LeadNetting
		}
		return d
	}
}

// lookupOnce is a copy of from[id] (nil when absent), kept in seen so
// that it is copied once.
func lookupOnce[V any](seen map[int64]*V, id int64, from map[int64]V) *V {
	if p, ok := seen[id]; ok {
		return p
	}
	var p *V
	if v, ok := from[id]; ok {
		p = &v
	}
	seen[id] = p
	return p
}

// InvoiceData looks up what the views of invs read beside them.
func (s *FinanceStore) InvoiceData(_ context.Context, invs []finance.Invoice) ([]finance.DocumentData, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]finance.DocumentData, len(invs))
	for i := range invs {
		out[i] = s.viewDataLocked(&invs[i])
	}
	return out, nil
}

// viewDataLocked is inv's operator data and related invoices, as
// finance.ViewOf reads them; the caller holds the lock. The related
// invoices are the stored records themselves: ViewOf copies what it
// takes of them.
func (s *FinanceStore) viewDataLocked(inv *finance.Invoice) finance.DocumentData {
	d := s.ownDataLocked(inv)
	d.Netting = s.invoices.rows[finance.InvoiceID(inv.NettingInvoiceID)]
	if d.Lead = s.invoices.rows[finance.InvoiceID(inv.CollectionLeadID)]; d.Lead != nil {
		d.LeadNetting = s.invoices.rows[finance.InvoiceID(d.Lead.NettingInvoiceID)]
	}
	return d
}

var _ finance.BalanceStore = (*FinanceStore)(nil)

// Balances sums the invoices in scope (finance.Balances), with the
// document types PutDocumentType stored, and lists the result with
// msgkit.Apply.
func (s *FinanceStore) Balances(_ context.Context, scope finance.Scope, o finance.BalanceOptions, q msgkit.ListQuery) (msgkit.Page[finance.Balance], error) {
	if err := finance.CheckGroup(o.Group); err != nil {
		return msgkit.Page[finance.Balance]{}, err
	}
	if err := finance.CheckBalanceQuery(q, o.Group); err != nil {
		return msgkit.Page[finance.Balance]{}, err
	}
	s.mu.RLock()
	o.Types = func(id int64) (finance.DocumentType, bool) {
		t, ok := s.export.types[id] // read under the lock SumEntries runs in
		return t, ok
	}
	bs, err := finance.SumEntries(func(yield func(*finance.LedgerEntry) bool) {
		for i := range s.ledger {
			if e := &s.ledger[i]; scope.Sees(e.Partner()) && !yield(e) {
				return
			}
		}
	}, o)
	s.mu.RUnlock()
	if err != nil {
		return msgkit.Page[finance.Balance]{}, err
	}
	return msgkit.Apply(bs, q, finance.BalanceValue)
}

var _ finance.SheetStore = (*FinanceStore)(nil)

// Sheet lists a partner's balance sheet.
func (s *FinanceStore) Sheet(_ context.Context, scope finance.Scope, o finance.SheetOptions, q msgkit.ListQuery) (msgkit.Page[finance.SheetRow], error) {
	if err := finance.CheckBalanceQuery(q, nil); err != nil {
		return msgkit.Page[finance.SheetRow]{}, err
	}
	var rows []finance.SheetRow
	if scope.Sees(o.Partner) {
		s.mu.RLock()
		for _, inv := range s.invoices.rows {
			if o.InSheet(inv) {
				rows = append(rows, finance.SheetRowOf(inv))
			}
		}
		s.mu.RUnlock()
	}
	o.SortSheet(rows)
	return msgkit.Apply(rows, q, finance.SheetValue)
}

var _ finance.FileStore = (*FinanceStore)(nil)

// AddFile stores a file record under the next id.
func (s *FinanceStore) AddFile(_ context.Context, rec finance.FileRecord) (finance.FileRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastFileID++
	rec.ID = s.lastFileID
	s.files = append(s.files, rec)
	return rec, nil
}

// Files lists an invoice's file records by id.
func (s *FinanceStore) Files(_ context.Context, invoice finance.InvoiceID) ([]finance.FileRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []finance.FileRecord
	for _, f := range s.files {
		if f.InvoiceID == invoice {
			out = append(out, f)
		}
	}
	return out, nil
}
