package pgstore

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var _ finance.PartnerTenants = (*FinanceStore)(nil)

// SetPartnerTenant links a partner to a tenant, replacing its link; an
// empty svc unlinks it.
func (s *FinanceStore) SetPartnerTenant(ctx context.Context, partner int64, svc msgkit.ServiceUUID) error {
	what := "the tenant of business partner " + strconv.FormatInt(partner, 10)
	if svc == "" {
		_, err := s.pool.Exec(ctx, `DELETE FROM finance_partner_tenants WHERE partner = $1`, partner)
		return classify(err, "partner", what)
	}
	if err := invalidText("partner", "serviceUuid", string(svc)); err != nil {
		return err
	}
	const q = `INSERT INTO finance_partner_tenants (partner, service_uuid) VALUES ($1, $2)
		ON CONFLICT (partner) DO UPDATE SET service_uuid = excluded.service_uuid`
	_, err := s.pool.Exec(ctx, q, partner, string(svc))
	return classify(err, "partner", what)
}

// PartnersOf lists the partners of services, ascending.
func (s *FinanceStore) PartnersOf(ctx context.Context, services []msgkit.ServiceUUID) ([]int64, error) {
	svcs := make([]string, len(services))
	for i, v := range services {
		svcs[i] = string(v)
	}
	rows, err := s.pool.Query(ctx, `SELECT partner FROM finance_partner_tenants WHERE service_uuid = ANY($1) ORDER BY partner`, svcs)
	if err != nil {
		return nil, classify(err, "partner", "the partners of tenants")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, classify(err, "partner", "the partners of tenants")
	}
	return ids, nil
}
