package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var (
	_ finance.ExportStore   = (*FinanceStore)(nil)
	_ finance.DocumentStore = (*FinanceStore)(nil)
)

// exportData is the operator data the documents export adds to invoices,
// under the finance store's lock. Its maps are made on first write.
type exportData struct {
	accounts map[int64]finance.BillingAccount
	records  map[finance.SourceRef]int64 // record -> billing account
	traffic  map[finance.InvoiceID][]finance.TrafficReport
	partners map[int64]finance.PartnerExport
	types    map[int64]finance.DocumentType
	domestic map[finance.InvoiceID]finance.DomesticRate
}

// put runs write on the export data under the write lock, its maps made.
func (s *FinanceStore) put(write func(e *exportData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := &s.export
	if e.accounts == nil {
		e.accounts, e.records = map[int64]finance.BillingAccount{}, map[finance.SourceRef]int64{}
		e.traffic, e.partners = map[finance.InvoiceID][]finance.TrafficReport{}, map[int64]finance.PartnerExport{}
		e.types, e.domestic = map[int64]finance.DocumentType{}, map[finance.InvoiceID]finance.DomesticRate{}
	}
	write(e)
}

// cloneAttributes copies custom attributes, values included.
func cloneAttributes(as []finance.CustomAttribute) []finance.CustomAttribute {
	if as == nil {
		return nil
	}
	out := make([]finance.CustomAttribute, len(as))
	for i, a := range as {
		out[i] = finance.CustomAttribute{CodeName: a.CodeName, Value: slices.Clone(a.Value)}
	}
	return out
}

// PutBillingAccount stores a copy of a.
func (s *FinanceStore) PutBillingAccount(_ context.Context, a finance.BillingAccount) error {
	if err := finance.CheckBillingAccount(a); err != nil {
		return err
	}
	a.CustomAttributes = cloneAttributes(a.CustomAttributes)
	a.SMSConnections, a.MNPConnections = slices.Clone(a.SMSConnections), slices.Clone(a.MNPConnections)
	s.put(func(e *exportData) { e.accounts[a.ID] = a })
	return nil
}

// PutSourceRecord links a record to its billing account.
func (s *FinanceStore) PutSourceRecord(_ context.Context, r finance.SourceRef, account int64) error {
	if err := finance.CheckSourceRef(r); err != nil {
		return err
	}
	s.put(func(e *exportData) { e.records[r] = account })
	return nil
}

// PutTrafficReports replaces a document's traffic reports.
func (s *FinanceStore) PutTrafficReports(_ context.Context, doc finance.InvoiceID, rows []finance.TrafficReport) error {
	if err := finance.CheckTrafficReports(rows); err != nil {
		return err
	}
	rows = slices.Clone(rows)
	s.put(func(e *exportData) { e.traffic[doc] = rows })
	return nil
}

// PutPartnerExport stores a copy of a partner's export data.
func (s *FinanceStore) PutPartnerExport(_ context.Context, p finance.PartnerExport) error {
	if err := finance.CheckPartnerExport(p); err != nil {
		return err
	}
	p.CustomAttributes = cloneAttributes(p.CustomAttributes)
	s.put(func(e *exportData) { e.partners[p.PartnerID] = p })
	return nil
}

// PutDocumentType stores an invoice type's export data.
func (s *FinanceStore) PutDocumentType(_ context.Context, t finance.DocumentType) error {
	s.put(func(e *exportData) { e.types[t.ID] = t })
	return nil
}

// PutDomestic stores a document's domestic rate.
func (s *FinanceStore) PutDomestic(_ context.Context, doc finance.InvoiceID, r finance.DomesticRate) error {
	if err := finance.CheckDomesticRate(r); err != nil {
		return err
	}
	s.put(func(e *exportData) { e.domestic[doc] = r })
	return nil
}

// documentDataLocked looks up inv's operator data; the caller holds the
// lock. finance.DocumentOf copies what it takes, so the maps' values are
// passed as they are.
func (s *FinanceStore) documentDataLocked(inv *finance.Invoice, traffic bool) finance.DocumentData {
	e := &s.export
	d := s.ownDataLocked(inv)
	for _, ref := range finance.DocumentSources(inv) {
		id, ok := e.records[ref]
		if !ok {
			continue
		}
		if a, ok := e.accounts[id]; ok {
			if d.Accounts == nil {
				d.Accounts = map[finance.SourceRef]finance.BillingAccount{}
			}
			d.Accounts[ref] = a
		}
	}
	if traffic {
		d.Traffic = e.traffic[inv.ID]
	}
	return d
}

// ownDataLocked is the operator data of inv that both its document and
// its view read: the owner, the partner's export data, the type and the
// domestic rate. The caller holds the lock.
func (s *FinanceStore) ownDataLocked(inv *finance.Invoice) finance.DocumentData {
	e := &s.export
	var d finance.DocumentData
	if p, ok := s.partners.rows[inv.OwnerID]; ok {
		d.Owner = &p
	}
	d.Partner = e.partners[inv.Customer.ID]
	if t, ok := e.types[inv.InvType]; ok {
		d.Type = &t
	}
	if r, ok := e.domestic[inv.ID]; ok {
		d.Domestic = &r
	}
	return d
}

// Documents lists the documents of the invoices in scope that are not
// deleted with msgkit.Apply over finance.DocumentValue (q.Listing(), the
// search included); traffic reports are added to the page's documents
// only.
func (s *FinanceStore) Documents(_ context.Context, scope finance.Scope, q finance.DocumentQuery) (msgkit.Page[finance.Document], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var docs []finance.Document
	for _, inv := range s.invoices.rows {
		if inv.Status == finance.Deleted || !scope.Sees(inv.Customer.ID) {
			continue
		}
		docs = append(docs, finance.DocumentOf(inv, s.documentDataLocked(inv, false), false))
	}
	slices.SortFunc(docs, func(a, b finance.Document) int { return cmp.Compare(a.ID, b.ID) }) // the store order
	page, err := msgkit.Apply(docs, q.Listing(), finance.DocumentValue)
	if err != nil || !q.Traffic {
		return page, err
	}
	for i, doc := range page.Items {
		if inv := s.invoices.rows[doc.ID]; finance.TrafficEligible(inv) {
			page.Items[i] = finance.DocumentOf(inv, s.documentDataLocked(inv, true), true)
		}
	}
	return page, nil
}
