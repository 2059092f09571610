package memstore

import (
	"context"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var _ finance.PartnerTenants = (*FinanceStore)(nil)

// SetPartnerTenant links a partner to a tenant (finance.PartnerTenants).
func (s *FinanceStore) SetPartnerTenant(_ context.Context, partner int64, svc msgkit.ServiceUUID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if svc == "" {
		delete(s.tenants, partner)
		return nil
	}
	if s.tenants == nil {
		s.tenants = map[int64]msgkit.ServiceUUID{}
	}
	s.tenants[partner] = svc
	return nil
}

// PartnersOf lists the partners of services, ascending.
func (s *FinanceStore) PartnersOf(_ context.Context, services []msgkit.ServiceUUID) ([]int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []int64
	for p, svc := range s.tenants {
		if slices.Contains(services, svc) {
			ids = append(ids, p)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
