package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var (
	_ finance.PartnerStore = (*FinanceStore)(nil)
	_ finance.ConfigStore  = (*FinanceStore)(nil)
)

// configKey names a stored configuration: its type and template
// language.
type configKey struct {
	typeID int64
	lang   string
}

// PutPartnerRecord stores a partner, its export data and its tenant link
// under one lock, so no reader sees one without the others.
func (s *FinanceStore) PutPartnerRecord(_ context.Context, r finance.PartnerRecord) error {
	if err := finance.CheckPartnerRecord(r); err != nil {
		return err
	}
	r = finance.ClonePartnerRecord(r)
	r.Export.PartnerID = r.ID
	s.put(func(e *exportData) {
		s.partners.rows[r.ID] = r.Partner
		e.partners[r.ID] = r.Export
		if r.Service == "" {
			delete(s.tenants, r.ID)
			return
		}
		if s.tenants == nil {
			s.tenants = map[int64]msgkit.ServiceUUID{}
		}
		s.tenants[r.ID] = r.Service
	})
	return nil
}

// partnerRecordLocked is the record of a stored partner; the caller
// holds the lock.
func (s *FinanceStore) partnerRecordLocked(p finance.Partner) finance.PartnerRecord {
	r := finance.PartnerRecord{Partner: p, Export: s.export.partners[p.ID], Service: s.tenants[p.ID]}
	r.Export.PartnerID = p.ID
	return finance.ClonePartnerRecord(r)
}

// PartnerRecord returns a partner's record, or NotFound.
func (s *FinanceStore) PartnerRecord(_ context.Context, id int64) (finance.PartnerRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.partners.rows[id]
	if !ok {
		return finance.PartnerRecord{}, s.partners.notFound(id)
	}
	return s.partnerRecordLocked(p), nil
}

// ListPartners lists the partners with msgkit.Apply over
// finance.PartnerValue, in id order.
func (s *FinanceStore) ListPartners(_ context.Context, q msgkit.ListQuery) (msgkit.Page[finance.PartnerRecord], error) {
	s.mu.RLock()
	rows := make([]finance.PartnerRecord, 0, len(s.partners.rows))
	for _, p := range s.partners.rows {
		rows = append(rows, s.partnerRecordLocked(p))
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b finance.PartnerRecord) int { return cmp.Compare(a.ID, b.ID) })
	return msgkit.Apply(rows, q, finance.PartnerValue)
}

// PutConfig stores a configuration and its document type under one lock.
func (s *FinanceStore) PutConfig(_ context.Context, c finance.InvoiceConfig) error {
	if err := finance.CheckConfig(c); err != nil {
		return err
	}
	s.put(func(e *exportData) {
		if s.configs == nil {
			s.configs = map[configKey]finance.InvoiceConfig{}
		}
		s.configs[configKey{c.TypeID, c.TemplateLang}] = c
		e.types[c.TypeID] = finance.ConfigType(c)
	})
	return nil
}

// Configs lists the stored configurations by type, then language.
func (s *FinanceStore) Configs(context.Context) ([]finance.InvoiceConfig, error) {
	s.mu.RLock()
	out := make([]finance.InvoiceConfig, 0, len(s.configs))
	for _, c := range s.configs {
		out = append(out, c)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b finance.InvoiceConfig) int {
		return cmp.Or(cmp.Compare(a.TypeID, b.TypeID), cmp.Compare(a.TemplateLang, b.TemplateLang))
	})
	return out, nil
}
