package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
)

// SetPayer keeps account as the tenant's payer (0026_campaign_payers.sql),
// an upsert of the tenant's row; "" deletes the row. Text PostgreSQL
// cannot hold is Invalid.
func (s *CampaignStore) SetPayer(ctx context.Context, tenant msgkit.ServiceUUID, account string) error {
	if err := invalidText("campaign", "serviceUuid", tenant); err != nil {
		return err
	}
	if err := invalidText("campaign", "account", account); err != nil {
		return err
	}
	var err error
	if account == "" {
		_, err = s.pool.Exec(ctx, `DELETE FROM campaign_payers WHERE service_uuid = $1`, string(tenant))
	} else {
		_, err = s.pool.Exec(ctx, `INSERT INTO campaign_payers (service_uuid, account) VALUES ($1, $2)
			ON CONFLICT (service_uuid) DO UPDATE SET account = EXCLUDED.account`, string(tenant), account)
	}
	if err != nil {
		return classify(err, "campaign", "the payer of tenant "+string(tenant))
	}
	return nil
}

// Payer returns the tenant's payer, "" when it has none (as for a
// tenant no row can have).
func (s *CampaignStore) Payer(ctx context.Context, tenant msgkit.ServiceUUID) (string, error) {
	if !storable(string(tenant)) {
		return "", nil
	}
	var account string
	err := s.pool.QueryRow(ctx, `SELECT account FROM campaign_payers WHERE service_uuid = $1`, string(tenant)).Scan(&account)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", nil
	case err != nil:
		return "", classify(err, "campaign", "the payer of tenant "+string(tenant))
	}
	return account, nil
}
